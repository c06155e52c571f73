//! The JSON fast path: a spanned RFC 8259 reader for documents that start with `{` or `[`.
//!
//! saphyr reads JSON as one YAML flow collection, and its scanner holds on to what it has read
//! there: a 100k-node graph written as JSON took it 3.4× the time and 30× the memory of the
//! same graph in block YAML (bench/README.md). This reader scans the bytes directly and feeds
//! the same tree builder the YAML loader uses ([`super::yaml::build::Builder`]), with the spans
//! saphyr would give, so everything downstream sees the same [`Document`].
//!
//! It only ever handles what it is sure of. Whatever is not strict JSON (comments, single
//! quotes, unquoted keys, trailing commas, a second document, control characters in strings,
//! lone surrogates) and whatever would be reported as too deep (AGC013, where saphyr's own
//! guard can trip first) makes it give up ([`load`] returns `None`) and the caller loads the
//! file through the YAML loader as before: same value, same diagnostics. The diagnostics it
//! does report itself are the tree builder's (duplicate keys, AGC004) and out-of-range
//! numbers (AGC011, through the same core-schema resolver); tests check both paths give the
//! same diagnostics and spans on the same documents.

use super::tree::{Document, ScalarStyle, SpanNode};
use super::value::{Str, Value};
use super::yaml::build::{Builder, Built};
use super::yaml::resolve::resolve_plain;
use super::yaml::{Loaded, unrepresentable};
use super::{FileId, Limits, Span};
use crate::diag::Diagnostic;

/// Whether `body` (the text after any BOM) is for this reader: its first non-blank byte opens
/// an object or an array.
pub fn applies(body: &str) -> bool {
    matches!(
        body.bytes()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')),
        Some(b'{' | b'[')
    )
}

/// Loads `text[offset..]` as JSON; `None` when it is not strict JSON or too deep, for the
/// YAML loader to handle.
pub fn load(file: FileId, text: &str, offset: usize, limits: Limits) -> Option<Loaded> {
    let mut r = Reader {
        file,
        text,
        b: text.as_bytes(),
        pos: offset,
        tree: Builder::default(),
        diags: Vec::new(),
        limits,
    };
    r.document()?;
    let root = r.tree.root.take()?;
    Some(Loaded {
        doc: Some(Document::new(file, root.value, root.spans, r.tree.nodes)),
        diags: r.diags,
    })
}

/// What the reader expects next inside the innermost open collection.
#[derive(Clone, Copy, PartialEq)]
enum Next {
    /// A value (after `[`, `,` in an array, or `:`).
    Value,
    /// A key or `}` (after `{`).
    FirstKey,
    /// A key (after `,` in an object).
    Key,
    /// `,` or the closing bracket.
    Separator,
}

struct Reader<'a> {
    file: FileId,
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    tree: Builder,
    diags: Vec<Diagnostic>,
    limits: Limits,
}

impl Reader<'_> {
    fn blank(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.pos) {
            self.pos += 1;
        }
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    fn leaf(&mut self, value: Value, start: usize, style: ScalarStyle) {
        let built = Built {
            value,
            spans: SpanNode::leaf(self.span(start, self.pos), style),
            count: 1,
            plain: style == ScalarStyle::Plain,
        };
        self.tree.push(built, &mut self.diags);
    }

    /// The whole document; `None` at the first thing that is not strict JSON.
    fn document(&mut self) -> Option<()> {
        // Open collections: `true` for an object.
        let mut open: Vec<bool> = Vec::new();
        let mut next = Next::Value;
        loop {
            self.blank();
            let c = *self.b.get(self.pos)?;
            match next {
                Next::FirstKey | Next::Key => {
                    if c == b'}' && next == Next::FirstKey {
                        self.close(&mut open);
                    } else if c == b'"' {
                        let start = self.pos;
                        let key = self.string()?;
                        self.leaf(Value::String(key), start, ScalarStyle::DoubleQuoted);
                        self.blank();
                        if self.b.get(self.pos) != Some(&b':') {
                            return None;
                        }
                        self.pos += 1;
                        next = Next::Value;
                        continue;
                    } else {
                        return None;
                    }
                }
                Next::Separator => {
                    let in_object = *open.last()?;
                    match c {
                        b',' => {
                            self.pos += 1;
                            next = if in_object { Next::Key } else { Next::Value };
                            continue;
                        }
                        b'}' if in_object => self.close(&mut open),
                        b']' if !in_object => self.close(&mut open),
                        _ => return None,
                    }
                }
                Next::Value => match c {
                    b'{' | b'[' => {
                        if self.tree.depth() >= self.limits.max_depth {
                            // Reported by the YAML loader, whose parser may refuse first.
                            return None;
                        }
                        let is_map = c == b'{';
                        self.tree.open(is_map, self.pos, self.pos + 1, 0);
                        self.pos += 1;
                        open.push(is_map);
                        if is_map {
                            next = Next::FirstKey;
                            continue;
                        }
                        self.blank();
                        if self.b.get(self.pos) != Some(&b']') {
                            next = Next::Value;
                            continue;
                        }
                        // `[]`: a value that has just ended.
                        self.close(&mut open);
                    }
                    b']' => return None,
                    b'"' => {
                        let start = self.pos;
                        let s = self.string()?;
                        self.leaf(Value::String(s), start, ScalarStyle::DoubleQuoted);
                    }
                    _ => self.plain()?,
                },
            }
            // A value or a collection just ended.
            if open.is_empty() {
                self.blank();
                return (self.pos == self.b.len()).then_some(());
            }
            next = Next::Separator;
        }
    }

    /// Closes the innermost collection at its bracket.
    fn close(&mut self, open: &mut Vec<bool>) {
        open.pop();
        let (built, _) = self.tree.close(self.file, self.text, self.pos);
        self.pos += 1;
        self.tree.push(built, &mut self.diags);
    }

    /// `true`, `false`, `null` or a number, resolved as the YAML loader resolves a plain
    /// scalar (so out-of-range numbers are AGC011 alike).
    fn plain(&mut self) -> Option<()> {
        let start = self.pos;
        let rest = &self.b[start..];
        let len = if rest.starts_with(b"true") || rest.starts_with(b"null") {
            4
        } else if rest.starts_with(b"false") {
            5
        } else {
            number_len(rest)?
        };
        // A literal must end there (`truex` is not JSON).
        if let Some(b) = rest.get(len)
            && (b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+' | b'_'))
        {
            return None;
        }
        self.pos += len;
        let raw = &self.text[start..self.pos];
        let value = match resolve_plain(raw) {
            Ok(Some(v)) => v,
            Ok(None) => return None,
            Err(why) => {
                let span = self.span(start, self.pos);
                self.diags.push(unrepresentable(raw, why, span));
                Value::Null
            }
        };
        self.leaf(value, start, ScalarStyle::Plain);
        Some(())
    }

    /// A string at `"`, decoded; `None` if it is not a valid JSON string. One without escapes
    /// is taken from the text as it is (no buffer: a short one is kept inline).
    fn string(&mut self) -> Option<Str> {
        self.pos += 1;
        let begin = self.pos;
        let mut out = String::new();
        let mut run = self.pos;
        loop {
            let c = *self.b.get(self.pos)?;
            match c {
                b'"' => {
                    let rest = &self.text[run..self.pos];
                    self.pos += 1;
                    if run == begin {
                        return Some(Str::from(rest));
                    }
                    out.push_str(rest);
                    return Some(Str::from(out));
                }
                b'\\' => {
                    out.push_str(&self.text[run..self.pos]);
                    let e = *self.b.get(self.pos + 1)?;
                    self.pos += 2;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let ch = if (0xD800..0xDC00).contains(&hi) {
                                if self.b.get(self.pos..self.pos + 2)? != b"\\u" {
                                    return None;
                                }
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return None;
                                }
                                char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                            } else {
                                char::from_u32(hi)?
                            };
                            out.push(ch);
                        }
                        _ => return None,
                    }
                    run = self.pos;
                }
                0..=0x1F => return None,
                _ => self.pos += 1,
            }
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.text.get(self.pos..self.pos + 4)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.pos += 4;
        u32::from_str_radix(digits, 16).ok()
    }
}

/// The length of the JSON number at the start of `b`:
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`.
fn number_len(b: &[u8]) -> Option<usize> {
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = usize::from(b.first() == Some(&b'-'));
    match b.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i += digits(i),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return None;
        }
        i += 1 + n;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'-' | b'+') = b.get(i) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return None;
        }
        i += n;
    }
    Some(i)
}

#[cfg(test)]
mod tests;
