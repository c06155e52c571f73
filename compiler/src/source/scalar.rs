//! Mapping offsets inside a decoded YAML/JSON string scalar back to the file.
//!
//! An expression inside `when: "a && b"` is parsed from the *decoded* string; its AST spans are
//! offsets into that string. A [`ScalarMap`] turns them into file spans. For plain scalars and
//! quoted scalars without escapes the mapping is a shift; escapes (`\n`, `''`), line folding and
//! block-scalar indentation break it into pieces, each recorded as an anchor point.
//!
//! [`ScalarMap::for_scalar`] builds the map of a loaded scalar by walking the file text and the
//! decoded string side by side (one pass, no recursion):
//! - every decoded character written literally in the file maps to itself;
//! - a double-quoted escape (`\n`, `\"`, `\u00e9`, `\U0001F600`, `\x41`) maps to the whole escape,
//!   so a span ending in it ends after it; an escaped line break (`\` at the end of a line) and
//!   the indentation after it produce nothing;
//! - `''` in a single-quoted scalar maps to its first quote;
//! - line folding (a line break, with the trailing and leading blanks around it, becoming a
//!   space or fewer line breaks) maps the produced characters to the line break, and the
//!   skipped blanks map to nothing;
//! - block scalars skip their header line and exactly their content indentation on each line.
//!
//! If the two texts ever disagree (they cannot for scalars the loader produced), the rest of
//! the decoded string maps to the end of the scalar: spans may then be wide, never wrong-file
//! or out of range.

use super::tree::{ScalarStyle, SpanNode};
use super::{FileId, Span};

/// Decoded-string offset → file byte offset.
#[derive(Clone, Debug)]
pub struct ScalarMap {
    file: FileId,
    /// Sorted by decoded offset: from `points[i].0` on, decoded offsets advance 1:1 from file
    /// offset `points[i].1` (until the next point).
    points: Vec<(u32, u32)>,
    /// Decoded length, so offsets at the very end map to the end of the scalar.
    len: u32,
    /// File offset of the end of the scalar's content.
    end: u32,
    /// Characters written as escapes: (decoded end offset, file end offset), sorted. A span
    /// ending exactly at such a character ends after the whole escape.
    escapes: Vec<(u32, u32)>,
}

impl ScalarMap {
    /// A map for text that appears verbatim in the file starting at `start`.
    pub fn contiguous(file: FileId, start: usize, len: usize) -> ScalarMap {
        ScalarMap {
            file,
            points: vec![(0, start as u32)],
            len: len as u32,
            end: (start + len) as u32,
            escapes: Vec::new(),
        }
    }

    /// Builds a map from anchor points (decoded offset, file offset), which must be sorted.
    pub fn from_points(file: FileId, points: Vec<(u32, u32)>, len: usize, end: usize) -> ScalarMap {
        let points = if points.is_empty() {
            vec![(0, end as u32)]
        } else {
            points
        };
        ScalarMap {
            file,
            points,
            len: len as u32,
            end: end as u32,
            escapes: Vec::new(),
        }
    }

    /// File offset of decoded offset `i`.
    pub fn offset(&self, i: usize) -> usize {
        let i = i as u32;
        if i >= self.len {
            return self.end as usize;
        }
        let n = self.points.partition_point(|&(d, _)| d <= i);
        let (d, f) = self.points[n.saturating_sub(1)];
        (f + (i - d)) as usize
    }

    /// File span of decoded range `start..end`.
    pub fn span(&self, start: usize, end: usize) -> Span {
        let s = self.offset(start);
        let e = if end > start {
            match self
                .escapes
                .binary_search_by_key(&(end as u32), |&(d, _)| d)
            {
                // The range ends with an escaped character: include the whole escape.
                Ok(k) => self.escapes[k].1 as usize,
                // Map the last included byte, so a range never swallows a following escape.
                Err(_) => self.offset(end - 1) + 1,
            }
        } else {
            s
        };
        Span::new(self.file, s, e.max(s))
    }
}

impl ScalarMap {
    /// The map of the part `off..off + len` of the decoded string (a program embedded in a
    /// larger string, such as AWP's whole-value `${ … }`): offset `i` of the part maps where
    /// offset `off + i` of the whole does.
    pub fn part(&self, off: usize, len: usize) -> ScalarMap {
        let shift = |d: u32| d.checked_sub(off as u32);
        let mut points = vec![(0, self.offset(off) as u32)];
        points.extend(
            self.points
                .iter()
                .filter_map(|&(d, f)| shift(d).filter(|&d| d > 0).map(|d| (d, f))),
        );
        ScalarMap {
            file: self.file,
            points,
            len: len as u32,
            end: self.span(off, off + len).end,
            escapes: self
                .escapes
                .iter()
                .filter_map(|&(d, f)| shift(d).filter(|&d| d > 0).map(|d| (d, f)))
                .collect(),
        }
    }

    /// The map of a string scalar loaded from `source_text` (the whole file), whose span node
    /// is `node` and whose decoded value is `decoded`.
    pub fn for_scalar(source_text: &str, node: SpanNode, decoded: &str) -> ScalarMap {
        let file = node.span.file;
        let clamp = |mut at: usize| {
            at = at.min(source_text.len());
            while !source_text.is_char_boundary(at) {
                at -= 1;
            }
            at
        };
        let (start, end) = (
            clamp(node.span.start as usize),
            clamp(node.span.end as usize),
        );
        let raw = &source_text[start..end.max(start)];
        let (mut from, mut to) = (start, end.max(start));
        let mut block = false;
        match node.style {
            ScalarStyle::Plain => {}
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                let q = if node.style == ScalarStyle::SingleQuoted {
                    '\''
                } else {
                    '"'
                };
                if raw.starts_with(q) {
                    from += 1;
                }
                if raw.len() >= 2 && raw.ends_with(q) {
                    to -= 1;
                }
            }
            ScalarStyle::Literal | ScalarStyle::Folded => {
                block = true;
                from = raw.find('\n').map_or(to, |i| start + i + 1);
            }
        }
        let text = &source_text[..to];
        let indent = if block {
            text[from..]
                .lines()
                .find(|l| !l.trim().is_empty())
                .map_or(0, |l| l.len() - l.trim_start_matches(' ').len())
        } else {
            0
        };
        let mut w = Walk {
            text: text.as_bytes(),
            p: from,
            block,
            indent,
            points: Vec::new(),
            escapes: Vec::new(),
            delta: None,
        };
        if block {
            w.skip_indent();
        }
        let double = node.style == ScalarStyle::DoubleQuoted;
        let single = node.style == ScalarStyle::SingleQuoted;
        let mut mapped = decoded.len();
        // The file offset of the line break a fold's space was last mapped to: a break folds
        // into one space, so a second blank there (`\t`, `\x20` escapes on the next line)
        // comes from the text after it.
        let mut folded_at = None;
        'chars: for (i, ch) in decoded.char_indices() {
            loop {
                let Some(fc) = text.get(w.p..).and_then(|t| t.chars().next()) else {
                    mapped = i;
                    break 'chars;
                };
                if double && fc == '\\' {
                    let n = text.as_bytes().get(w.p + 1).copied();
                    if matches!(n, Some(b'\n' | b'\r')) {
                        // An escaped line break: nothing decoded; skip it and the blanks after.
                        w.p += 1;
                        if text.as_bytes().get(w.p) == Some(&b'\r') {
                            w.p += 1;
                        }
                        if text.as_bytes().get(w.p) == Some(&b'\n') {
                            w.p += 1;
                        }
                        while matches!(text.as_bytes().get(w.p), Some(b' ' | b'\t')) {
                            w.p += 1;
                        }
                        continue;
                    }
                    let len = match n {
                        Some(b'x') => 4,
                        Some(b'u') => 6,
                        Some(b'U') => 10,
                        _ => 2,
                    };
                    let len = len.min(text.len() - w.p);
                    w.point(i);
                    w.escapes
                        .push(((i + ch.len_utf8()) as u32, (w.p + len) as u32));
                    w.p += len;
                    w.delta = None;
                    continue 'chars;
                }
                if single
                    && fc == '\''
                    && ch == '\''
                    && text.as_bytes().get(w.p + 1) == Some(&b'\'')
                {
                    // `''` stands for one quote: map it like an escape.
                    w.point(i);
                    w.escapes.push(((i + 1) as u32, (w.p + 2) as u32));
                    w.p += 2;
                    w.delta = None;
                    continue 'chars;
                }
                if fc == ch {
                    w.point(i);
                    w.advance(fc);
                    continue 'chars;
                }
                let ws = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
                if ch == ' ' && matches!(fc, '\n' | '\r') && folded_at != Some(w.p) {
                    // The space a single line break folds into: it stands for the break.
                    // (Several breaks fold into `\n`s, which match the breaks themselves.)
                    w.point(i);
                    folded_at = Some(w.p);
                    continue 'chars;
                }
                if ws(fc) || (single && fc == '\'') {
                    w.advance(fc);
                    continue;
                }
                if ws(ch) {
                    w.point(i);
                    continue 'chars;
                }
                // The texts disagree: stop mapping (the rest maps to the end).
                mapped = i;
                break 'chars;
            }
        }
        let mut map = ScalarMap::from_points(file, w.points, mapped, to);
        map.escapes = w.escapes;
        map
    }
}

/// The side-by-side walk of [`ScalarMap::for_scalar`].
struct Walk<'a> {
    text: &'a [u8],
    p: usize,
    block: bool,
    indent: usize,
    points: Vec<(u32, u32)>,
    escapes: Vec<(u32, u32)>,
    /// `p - i` of the current 1:1 run, if one is open.
    delta: Option<i64>,
}

impl Walk<'_> {
    /// Decoded offset `i` maps to the current file offset.
    fn point(&mut self, i: usize) {
        let d = self.p as i64 - i as i64;
        if self.delta != Some(d) {
            self.points.push((i as u32, self.p as u32));
            self.delta = Some(d);
        }
    }

    fn advance(&mut self, c: char) {
        self.p += c.len_utf8();
        if self.block && c == '\n' {
            self.skip_indent();
        }
    }

    /// At a line start of a block scalar: skip up to the content indentation.
    fn skip_indent(&mut self) {
        let mut n = 0;
        while n < self.indent && self.text.get(self.p) == Some(&b' ') {
            self.p += 1;
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_shifts() {
        let m = ScalarMap::contiguous(FileId(0), 10, 5);
        assert_eq!(m.span(1, 3), Span::new(FileId(0), 11, 13));
        assert_eq!(m.offset(5), 15);
    }

    #[test]
    fn points_split_the_mapping() {
        // decoded "a\nb" from file `"a\\nb"` at 0: a@1, \n@2..4, b@4
        let m = ScalarMap::from_points(FileId(0), vec![(0, 1), (1, 2), (2, 4)], 3, 5);
        assert_eq!(m.offset(0), 1);
        assert_eq!(m.offset(2), 4);
        assert_eq!(m.span(2, 3), Span::new(FileId(0), 4, 5));
    }
}
