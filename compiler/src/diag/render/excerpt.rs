//! The text ariadne draws for one report: an *excerpt* of a file, safe for a terminal, with long
//! lines cut down around the places that are labelled.
//!
//! ariadne has no notion of a window: it draws every labelled line in full, so a minified
//! one-line JSON document of 100 KB would be printed whole for each diagnostic in it. An
//! [`Excerpt`] is built per report and file:
//!
//! - Lines before the first labelled line are replaced by empty lines (one `\n` each), so line
//!   numbers stay right while the text ariadne indexes stays small; lines after the last labelled
//!   line are left out. (ariadne 0.6 applies `Source::with_display_line_offset` to the box header
//!   but not to the margin, so it cannot be used instead.)
//! - A labelled line longer than [`LONG_LINE`] characters keeps [`CONTEXT`] characters on each
//!   side of every label end on it; the pieces in between become `…`.
//! - Characters that ariadne would take as line breaks but [`SourceFile::line_col`] does not
//!   (lone CR, VT, FF, NEL, LS, PS), all other control characters and the bidirectional
//!   override characters are replaced by a character of the same UTF-8 length, so nothing
//!   reaches the terminal as a control sequence and ariadne's lines are `line_col`'s lines.
//! - When the excerpt reaches the end of a file that ends in a newline, one space is added, so a
//!   span at the very end lands on the empty last line, as `line_col` says.
//!
//! [`Excerpt::map`] takes an offset of the file to the excerpt; [`Excerpt::unmap`] goes back.
//! Label ends are always kept, so they map exactly.

use crate::source::SourceFile;

/// Lines longer than this many characters are cut down.
pub(super) const LONG_LINE: usize = 120;
/// Characters kept on each side of a label end in a long line.
pub(super) const CONTEXT: usize = 40;

const ELLIPSIS: char = '…';

/// A kept piece: `len` bytes at `orig` in the file are at `disp` in the excerpt.
#[derive(Clone, Copy, Debug)]
struct Piece {
    orig: usize,
    disp: usize,
    len: usize,
}

/// A file's text cut down for one report (see the module docs).
#[derive(Debug)]
pub(super) struct Excerpt {
    pub text: String,
    pieces: Vec<Piece>,
    /// The whole file (offsets and lines are the file's own).
    pub whole: bool,
    /// The lines before the first labelled one, each an empty line (a `\n`) at the start of
    /// `text`.
    pub skipped: usize,
}

impl Excerpt {
    /// The excerpt of `file` showing the byte offsets `points` (char boundaries within the text).
    pub(super) fn new(file: &SourceFile, points: &[usize]) -> Excerpt {
        let text = file.text.as_str();
        let first = points.iter().copied().min().unwrap_or(0).min(text.len());
        let last = points.iter().copied().max().unwrap_or(0).min(text.len());
        // Lines are found in the file's line table, never by scanning: a minified document
        // is one line of megabytes, and each of its diagnostics gets an excerpt.
        let first_line = file.line_col(first as u32).line;
        let last_line = file.line_col(last as u32).line;
        let to = file.line_range(last_line).end;

        let mut out = Excerpt {
            text: "\n".repeat(first_line as usize - 1),
            pieces: Vec::new(),
            whole: false,
            skipped: first_line as usize - 1,
        };
        for line in first_line..=last_line {
            let range = file.line_range(line);
            if !range.is_empty() {
                out.push_line(text, range, points);
            }
        }
        if to == text.len() && text.ends_with('\n') {
            out.text.push(' ');
        }
        if out.pieces.is_empty() {
            // Empty file, or an empty last line: anchor offsets at the end.
            out.pieces.push(Piece {
                orig: to,
                disp: out
                    .text
                    .len()
                    .saturating_sub(usize::from(out.text.ends_with(' '))),
                len: 0,
            });
        }
        out
    }

    /// The whole file, made safe, as one piece (offsets map to themselves). Built once per file
    /// and shared by every report whose labelled lines are all short, so rendering many
    /// diagnostics stays linear in the file size.
    pub(super) fn whole(file: &SourceFile) -> Excerpt {
        let text = file.text.as_str();
        let mut out = Excerpt {
            text: String::with_capacity(text.len() + 1),
            pieces: Vec::new(),
            whole: true,
            skipped: 0,
        };
        out.keep(text, 0..text.len());
        if text.ends_with('\n') {
            out.text.push(' ');
        }
        out
    }

    /// Whether every point lies on a line short enough to show in full.
    pub(super) fn all_lines_short(file: &SourceFile, points: &[usize]) -> bool {
        points.iter().all(|&p| {
            let p = p.min(file.text.len());
            let line = &file.text[file.line_range(file.line_col(p as u32).line)];
            let line = line.strip_suffix('\n').unwrap_or(line);
            line.chars().nth(LONG_LINE).is_none()
        })
    }

    fn push_line(&mut self, text: &str, line: std::ops::Range<usize>, points: &[usize]) {
        let body = &text[line.clone()];
        // (Counting stops at the limit: a minified document can be one line of megabytes.)
        if body.chars().nth(LONG_LINE).is_none() {
            self.keep(text, line);
            return;
        }
        // The line's content, without its line break (`\n` or `\r\n`).
        let newline = if body.ends_with("\r\n") {
            2
        } else {
            usize::from(body.ends_with('\n'))
        };
        let content_end = line.end - newline;
        // Byte ranges to keep: CONTEXT characters around each point on this line. A point at
        // the very end of a line without a line break (end of file) is on this line too.
        let mut keep: Vec<(usize, usize)> = points
            .iter()
            .copied()
            .filter(|&p| line.contains(&p) || (p == line.end && newline == 0))
            .map(|p| {
                let p = p.min(content_end);
                let before = text[line.start..p]
                    .char_indices()
                    .rev()
                    .nth(CONTEXT - 1)
                    .map_or(line.start, |(i, _)| line.start + i);
                let after = text[p..content_end]
                    .char_indices()
                    .nth(CONTEXT)
                    .map_or(content_end, |(i, _)| p + i);
                (before, after)
            })
            .collect();
        keep.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (s, e) in keep {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        let mut at = line.start;
        for (s, e) in merged {
            if s > at {
                self.text.push(ELLIPSIS);
            }
            self.keep(text, s..e);
            at = e;
        }
        if at < content_end {
            self.text.push(ELLIPSIS);
        }
        if newline > 0 {
            self.keep(text, content_end..line.end);
        }
    }

    /// Appends `text[range]`, made safe, as a kept piece.
    ///
    /// Runs of characters that need no change (printable ASCII, tabs, line feeds, CR before
    /// LF, and non-ASCII characters other than those [`safe`] replaces) are copied whole: the
    /// whole-file excerpt of a large document goes at the speed of a copy.
    fn keep(&mut self, text: &str, range: std::ops::Range<usize>) {
        let disp = self.text.len();
        let bytes = text.as_bytes();
        let mut run = range.start;
        let mut i = range.start;
        while i < range.end {
            let b = bytes[i];
            if (0x20..0x7F).contains(&b) || b == b'\n' || b == b'\t' {
                i += 1;
                continue;
            }
            let c = text[i..].chars().next().unwrap_or(' ');
            let width = c.len_utf8();
            let replaced = safe(c, bytes.get(i + 1) == Some(&b'\n'));
            if replaced != c {
                self.text.push_str(&text[run..i]);
                self.text.push(replaced);
                run = i + width;
            }
            i += width;
        }
        self.text.push_str(&text[run..range.end]);
        self.pieces.push(Piece {
            orig: range.start,
            disp,
            len: range.len(),
        });
    }

    /// The byte offset in `text` where 1-based `line` starts (the end of `text` past its
    /// last line). The skipped lines are one byte each, so only the kept ones are searched.
    pub(super) fn line_start(&self, line: usize) -> usize {
        let index = line.saturating_sub(1);
        if index <= self.skipped {
            return index.min(self.text.len());
        }
        self.text[self.skipped..]
            .match_indices('\n')
            .nth(index - self.skipped - 1)
            .map_or(self.text.len(), |(i, _)| self.skipped + i + 1)
    }

    /// The excerpt offset of file offset `orig` (the nearest kept place if it was cut).
    pub(super) fn map(&self, orig: usize) -> usize {
        let i = self
            .pieces
            .partition_point(|p| p.orig <= orig)
            .saturating_sub(1);
        let p = self.pieces[i];
        p.disp + orig.saturating_sub(p.orig).min(p.len)
    }

    /// The file offset of excerpt offset `disp` (the nearest kept place if it is not in a piece).
    pub(super) fn unmap(&self, disp: usize) -> usize {
        let i = self
            .pieces
            .partition_point(|p| p.disp <= disp)
            .saturating_sub(1);
        let p = self.pieces[i];
        p.orig + disp.saturating_sub(p.disp).min(p.len)
    }
}

/// `c` as shown in an excerpt: itself, or a character of the same UTF-8 length where a
/// terminal or ariadne would take it as a control or a line break (`lf_next`: a line feed
/// follows, so a CR is half of a CRLF line break and stays).
fn safe(c: char, lf_next: bool) -> char {
    match c {
        '\n' | '\t' => c,
        '\r' if lf_next => c,
        // One UTF-8 byte: C0 controls (lone CR, VT, FF, ESC, ...) and DEL.
        '\0'..='\u{1F}' | '\u{7F}' => ' ',
        // Two bytes: C1 controls, NEL among them.
        '\u{80}'..='\u{9F}' => '\u{A0}',
        // Three bytes: line and paragraph separators, bidi overrides.
        '\u{2028}' | '\u{2029}' => '\u{2002}',
        c if is_bidi_control(c) => '\u{FFFD}',
        c => c,
    }
}

/// Unicode's explicit bidirectional formatting characters.
pub(super) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excerpt(text: &str, points: &[usize]) -> Excerpt {
        Excerpt::new(&SourceFile::new("f", text), points)
    }

    #[test]
    fn short_lines_are_kept_and_earlier_lines_blanked() {
        let text = "one\ntwo\nthree\nfour\n";
        let e = excerpt(text, &[8, 13]);
        assert_eq!(e.text, "\n\nthree\n");
        assert_eq!(e.map(8), 2);
        assert_eq!(e.map(13), 7);
        assert_eq!(e.unmap(2), 8);
    }

    /// Where each line of an excerpt starts, as a search for its line breaks would say.
    #[test]
    fn line_starts_skip_the_blanked_lines() {
        let long = "x".repeat(300);
        let text = format!("a\nb\nc\n{long}\n{long} y\nz\n");
        let points = [text.find(" y").expect("y"), text.rfind('z').expect("z")];
        let e = excerpt(&text, &points);
        assert_eq!(e.skipped, 4);
        for line in 1..=9 {
            let searched = if line <= 1 {
                0
            } else {
                e.text
                    .match_indices('\n')
                    .nth(line - 2)
                    .map_or(e.text.len(), |(i, _)| i + 1)
            };
            assert_eq!(e.line_start(line), searched, "line {line}");
        }
    }

    #[test]
    fn long_lines_keep_context_around_points() {
        let line = format!("{}X{}", "a".repeat(200), "b".repeat(200));
        let text = format!("k: 1\n{line}\nz: 2\n");
        let x = text.find('X').expect("X");
        let e = excerpt(&text, &[x, x + 1]);
        let want = format!("\n…{}X{}…\n", "a".repeat(CONTEXT), "b".repeat(CONTEXT));
        assert_eq!(e.text, want);
        assert_eq!(&e.text[e.map(x)..e.map(x + 1)], "X");
        assert_eq!(e.unmap(e.map(x)), x);
        assert_eq!(e.unmap(e.map(x + 1)), x + 1);
    }

    #[test]
    fn distant_points_on_one_line_get_separate_windows() {
        let text = format!(
            "{}A{}B{}",
            "-".repeat(100),
            "=".repeat(100),
            "+".repeat(100)
        );
        let (a, b) = (100, 201);
        let e = excerpt(&text, &[a, b + 1]);
        assert_eq!(e.text.matches('…').count(), 3, "{}", e.text);
        assert_eq!(&e.text[e.map(a)..e.map(a) + 1], "A");
        assert_eq!(&e.text[e.map(b + 1) - 1..e.map(b + 1)], "B");
        // A span across the cut keeps both ends; the cut is inside it.
        assert!(e.text[e.map(a)..e.map(b + 1)].contains('…'));
    }

    #[test]
    fn control_characters_keep_their_byte_length() {
        let text = "a\x1bb\u{85}c\u{2028}d\u{202E}e\rf\r\n";
        let e = excerpt(text, &[0, text.len() - 2]);
        assert_eq!(e.text.len(), text.len() + 1);
        assert!(
            !e.text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\r')
        );
        assert!(e.text.ends_with("f\r\n "));
        assert_eq!(e.map(text.len()), text.len());
    }

    /// The copy of runs gives what replacing character by character gives, on text mixing
    /// every class [`safe`] treats apart (at the start, the end and side by side).
    #[test]
    fn runs_are_copied_as_character_by_character_replacement_gives() {
        let parts = [
            "a", "\n", "\t", "\r", "\r\n", "\x1b", "\x7f", "\0", "\u{85}", "\u{9f}", "\u{a0}", "é",
            "\u{2028}", "\u{2029}", "\u{202A}", "\u{2069}", "\u{2070}", "€", "😀", "  ",
        ];
        let mut texts = Vec::new();
        for a in parts {
            for b in parts {
                for c in ["", "x", "\r", "\u{85}"] {
                    texts.push(format!("{a}{b}{c}"));
                }
            }
        }
        for text in texts {
            let bytes = text.as_bytes();
            let want: String = text
                .char_indices()
                .map(|(i, c)| safe(c, bytes.get(i + 1) == Some(&b'\n')))
                .collect();
            let e = Excerpt::whole(&SourceFile::new("f", &text));
            let got = e.text.strip_suffix(' ').filter(|_| text.ends_with('\n'));
            assert_eq!(got.unwrap_or(&e.text), want, "{text:?}");
            assert_eq!(want.len(), text.len(), "{text:?}");
        }
    }

    #[test]
    fn end_of_file_after_a_newline_is_on_the_empty_last_line() {
        let text = "a: 1\nb: 2\n";
        let e = excerpt(text, &[text.len()]);
        assert_eq!(e.text, "\n\n ");
        assert_eq!(e.map(text.len()), 2);
        let empty = excerpt("", &[0]);
        assert_eq!((empty.text.as_str(), empty.map(0)), ("", 0));
    }
}
