//! The documents an editor has open, and positions in them.
//!
//! LSP positions are a 0-based line and a column counted in the negotiated encoding's code
//! units: UTF-16 unless the client offers UTF-8 (then the server picks it, which needs no
//! conversion). Lines end at `\n` only, as agc's own line tables do ([`crate::source`]); a
//! `\r` before it counts as the line's last character.
//!
//! Every conversion is total: a position past the end of its line lands at the line's end, a
//! line past the last lands at the end of the text, and a column inside a UTF-16 surrogate
//! pair or a UTF-8 sequence snaps back to the character's start. An editor's half-applied or
//! stale positions therefore never panic the server.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent, Uri};

/// How columns are counted (the negotiated `positionEncoding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// One open document: the editor's text (the unsaved buffer) and its version.
#[derive(Clone, Debug)]
pub struct Doc {
    pub uri: Uri,
    pub text: String,
    pub version: i32,
}

impl Doc {
    /// Applies the editor's changes in order (full replacements and ranged edits).
    pub fn apply(&mut self, changes: Vec<TextDocumentContentChangeEvent>, enc: Encoding) {
        for change in changes {
            match change.range {
                None => self.text = change.text,
                Some(range) => {
                    let lines = Lines::new(&self.text, enc);
                    let start = lines.offset(range.start);
                    let end = lines.offset(range.end).max(start);
                    self.text.replace_range(start..end, &change.text);
                }
            }
        }
    }
}

/// A text's line starts, for converting between byte offsets and LSP positions.
pub struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
    enc: Encoding,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str, enc: Encoding) -> Lines<'a> {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Lines { text, starts, enc }
    }

    /// The position of byte `byte` (clamped to the text, snapped back to a char boundary).
    pub fn position(&self, byte: usize) -> Position {
        let byte = floor_char(self.text, byte);
        let line = self.starts.partition_point(|&s| s <= byte) - 1;
        let start = self.starts[line];
        let column = match self.enc {
            Encoding::Utf8 => byte - start,
            Encoding::Utf16 => self.text[start..byte].encode_utf16().count(),
        };
        Position::new(line as u32, column as u32)
    }

    /// The range of bytes `start..end`.
    pub fn range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end.max(start)))
    }

    /// The byte offset of `pos`, clamped as the module docs say.
    pub fn offset(&self, pos: Position) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(pos.line as usize + 1)
            .map_or(self.text.len(), |&next| next - 1);
        let line = &self.text[start..end];
        let want = pos.character as usize;
        match self.enc {
            Encoding::Utf8 => start + floor_char(line, want),
            Encoding::Utf16 => {
                let mut units = 0;
                for (i, c) in line.char_indices() {
                    units += c.len_utf16();
                    if units > want {
                        return start + i;
                    }
                }
                end
            }
        }
    }
}

/// `at` clamped to `text` and moved back to the start of the char it falls in.
fn floor_char(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_the_negotiated_units_and_clamp() {
        let text = "a: 1\nb: \"é𝄞x\"\n";
        let l16 = Lines::new(text, Encoding::Utf16);
        let l8 = Lines::new(text, Encoding::Utf8);
        let x = text.find('x').unwrap();
        // `é` is 1 UTF-16 unit and 2 bytes; `𝄞` is 2 units and 4 bytes.
        assert_eq!(l16.position(x), Position::new(1, 7));
        assert_eq!(l8.position(x), Position::new(1, 10));
        assert_eq!(l16.offset(Position::new(1, 7)), x);
        assert_eq!(l8.offset(Position::new(1, 10)), x);
        // Inside the surrogate pair / the UTF-8 sequence: the char's start.
        let clef = text.find('𝄞').unwrap();
        assert_eq!(l16.offset(Position::new(1, 6)), clef);
        assert_eq!(l8.offset(Position::new(1, 8)), clef);
        // Past the line's end, past the last line.
        assert_eq!(l16.offset(Position::new(0, 99)), 4);
        assert_eq!(l16.offset(Position::new(9, 0)), text.len());
        assert_eq!(l16.position(9999), Position::new(2, 0));
    }

    #[test]
    fn ranged_changes_apply_in_order_and_never_panic() {
        let uri: Uri = "file:///w/a.yaml".parse().unwrap();
        let mut doc = Doc {
            uri,
            text: "id: a\n".into(),
            version: 1,
        };
        let edit = |l1, c1, l2, c2, t: &str| TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l1, c1), Position::new(l2, c2))),
            range_length: None,
            text: t.into(),
        };
        doc.apply(
            vec![edit(0, 4, 0, 5, "bé"), edit(1, 0, 1, 0, "x: 𝄞\n")],
            Encoding::Utf16,
        );
        assert_eq!(doc.text, "id: bé\nx: 𝄞\n");
        // Reversed and out-of-range ranges are clamped, not refused.
        doc.apply(vec![edit(5, 0, 0, 99, "!")], Encoding::Utf16);
        assert_eq!(doc.text, "id: bé\nx: 𝄞\n!");
    }
}
