//! [`FileId`], [`Span`] and the files they point into ([`SourceFile`], [`SourceMap`]): the
//! leaf every other part of the compiler names positions with (see the module docs of
//! [`crate::source`]).

use std::sync::OnceLock;

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end.max(start) as u32,
        }
    }

    /// A zero-width span at `at`.
    pub fn point(file: FileId, at: usize) -> Span {
        Span::new(file, at, at)
    }

    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    /// The sub-span `start..end` relative to this span's start.
    pub fn sub(&self, start: usize, end: usize) -> Span {
        Span::new(
            self.file,
            self.start as usize + start,
            self.start as usize + end,
        )
    }

    /// The smallest span covering both (same file assumed).
    pub fn join(&self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A 1-based line and column (column in code points).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    pub column: u32,
}

/// One loaded source file.
#[derive(Debug)]
pub struct SourceFile {
    /// Display name: the path as the user gave it (relative), never made absolute.
    pub name: String,
    /// The text, exactly as read (a leading BOM, if any, is kept so byte offsets match the file).
    pub text: String,
    /// Byte offset of each line's start, the first 0: exactly sized, as it lives as long as the
    /// text (a `Vec` grown by doubling kept up to half of it spare, 4 bytes a line).
    line_starts: Box<[u32]>,
    /// For columns on long lines: entry `k` is the number of chars before byte
    /// `k * CHAR_MARK_STRIDE`, made on the first column asked past [`LONG_LINE`] bytes into a
    /// line (a flow list of 80,000 ids on one line would otherwise cost a count of its chars per
    /// span in it).
    char_marks: OnceLock<Vec<u32>>,
    /// Where to look a byte's line up: entry `b` is the line holding byte `b * LINE_BLOCK`, so
    /// the lines of bytes in block `b` are entries `b..=b + 1`'s lines, a few adjacent entries
    /// of `line_starts`. Made on the first line asked for. A binary search of a 100k-node
    /// graph's 2 million line starts (8 MB) missed the caches at most of its 21 steps, for
    /// each of the 400,000 locations of its plan.
    line_index: OnceLock<Box<[u32]>>,
}

/// Bytes a block of [`SourceFile::line_index`]: a few lines of a typical document, 1/64 of the
/// text's size in index.
const LINE_BLOCK: usize = 256;

/// Columns further into a line than this many bytes are counted from [`SourceFile::char_marks`].
const LONG_LINE: usize = 512;
/// Bytes between two entries of [`SourceFile::char_marks`].
const CHAR_MARK_STRIDE: usize = 1024;

/// Chars in a UTF-8 byte slice cut anywhere: the bytes that do not continue a char.
fn char_starts(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        // memchr's vectorised search: a byte-by-byte filter took 85 ms of a 100k-node graph's
        // 58 MB, on the main thread before the load starts.
        let newlines = || memchr::memchr_iter(b'\n', text.as_bytes());
        let mut line_starts = Vec::with_capacity(newlines().count() + 1);
        line_starts.push(0u32);
        line_starts.extend(newlines().map(|i| i as u32 + 1));
        SourceFile {
            name: name.into(),
            text,
            line_starts: line_starts.into_boxed_slice(),
            char_marks: OnceLock::new(),
            line_index: OnceLock::new(),
        }
    }

    /// Byte offset of each line's start, the first 0.
    pub(crate) fn line_starts(&self) -> &[u32] {
        &self.line_starts
    }

    /// Line and column of a byte offset (clamped to the text, snapped back to a char boundary).
    pub fn line_col(&self, byte: u32) -> LineCol {
        let mut byte = (byte as usize).min(self.text.len());
        while !self.text.is_char_boundary(byte) {
            byte -= 1;
        }
        let line = self.line_of(byte);
        let start = self.line_starts[line] as usize;
        let column = if byte - start <= LONG_LINE {
            self.text[start..byte].chars().count()
        } else {
            self.chars_before(byte) - self.chars_before(start)
        } as u32
            + 1;
        LineCol {
            line: line as u32 + 1,
            column,
        }
    }

    /// The 0-based line holding byte `byte` (at most the text's length): the last line starting
    /// at or before it.
    fn line_of(&self, byte: usize) -> usize {
        let starts = &self.line_starts;
        let index = self.line_index.get_or_init(|| {
            let blocks = self.text.len() / LINE_BLOCK + 2;
            let mut index = Vec::with_capacity(blocks);
            let mut line = 0;
            for b in 0..blocks {
                let at = b * LINE_BLOCK;
                while starts.get(line + 1).is_some_and(|&s| s as usize <= at) {
                    line += 1;
                }
                index.push(line as u32);
            }
            index.into_boxed_slice()
        });
        let b = byte / LINE_BLOCK;
        let (lo, hi) = (index[b] as usize, index[b + 1] as usize);
        // starts[lo] <= byte, and the line after `hi` starts past block `b`.
        lo + starts[lo..=hi].partition_point(|&s| s as usize <= byte) - 1
    }

    /// The number of chars in the text before byte `at`.
    fn chars_before(&self, at: usize) -> usize {
        let bytes = self.text.as_bytes();
        let marks = self.char_marks.get_or_init(|| {
            let mut marks = Vec::with_capacity(bytes.len() / CHAR_MARK_STRIDE + 2);
            let mut chars = 0;
            for chunk in bytes.chunks(CHAR_MARK_STRIDE) {
                marks.push(chars as u32);
                chars += char_starts(chunk);
            }
            // One past the last chunk too: the end of a text of whole chunks.
            marks.push(chars as u32);
            marks
        });
        let k = at / CHAR_MARK_STRIDE;
        marks[k] as usize + char_starts(&bytes[k * CHAR_MARK_STRIDE..at])
    }

    /// Byte offset of the start of 1-based `line` (clamped).
    pub fn line_start(&self, line: u32) -> usize {
        let i = (line.max(1) as usize - 1).min(self.line_starts.len() - 1);
        self.line_starts[i] as usize
    }

    /// The bytes of 1-based `line` (clamped), its line break included: a lookup in the line
    /// table, however long the line.
    pub fn line_range(&self, line: u32) -> std::ops::Range<usize> {
        let i = (line.max(1) as usize - 1).min(self.line_starts.len() - 1);
        let end = self
            .line_starts
            .get(i + 1)
            .map_or(self.text.len(), |&e| e as usize);
        self.line_starts[i] as usize..end
    }

    /// The text of a span.
    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }
}

/// All files of one compilation, addressed by [`FileId`].
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Renames every file to `f(name)` (`agc gen rust` names them relative to the crate it
    /// writes, so that the embedded plan is the same on every machine).
    pub fn rename_files(&mut self, mut f: impl FnMut(&str) -> String) {
        for file in &mut self.files {
            file.name = f(&file.name);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_code_points() {
        let f = SourceFile::new("t", "ab\né x\n");
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(f.line_col(3), LineCol { line: 2, column: 1 });
        // 'x' is after 'é' (2 bytes) and a space: byte 6, column 3.
        assert_eq!(f.line_col(6), LineCol { line: 2, column: 3 });
        // Offsets inside a multi-byte char snap back.
        assert_eq!(f.line_col(4), LineCol { line: 2, column: 1 });
        assert_eq!(f.line_col(999).line, 3);
        assert_eq!(
            (1..=4).map(|l| f.line_range(l)).collect::<Vec<_>>(),
            [0..3, 3..8, 8..8, 8..8]
        );
    }

    /// Columns far into long lines (counted from the marks) are the chars before them on the
    /// line, at every offset, with chars of every width on either side of the mark bounds.
    #[test]
    fn long_line_columns_count_code_points() {
        let line: String = (0..3000)
            .map(|i| ["a", "é", "€", "😀"][i % 7 % 4])
            .collect();
        let text = format!("x\n{line}\n{line}");
        let f = SourceFile::new("t", text.clone());
        for (at, _) in text.char_indices() {
            let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let want = LineCol {
                line: text[..at].matches('\n').count() as u32 + 1,
                column: text[start..at].chars().count() as u32 + 1,
            };
            assert_eq!(f.line_col(at as u32), want, "byte {at}");
        }
        assert_eq!(f.line_col(text.len() as u32 + 5).column, 3001);
    }

    /// The line of every offset is the last line starting at or before it, in texts of short,
    /// empty and long lines, ending at a block's bound, before it and after it.
    #[test]
    fn every_offset_is_on_the_line_the_starts_give() {
        let mut texts = vec![String::new(), "\n".repeat(3 * LINE_BLOCK)];
        for len in [LINE_BLOCK - 1, LINE_BLOCK, LINE_BLOCK + 1, 3 * LINE_BLOCK] {
            texts.push("a".repeat(len));
            texts.push(format!("{}\n", "b".repeat(len - 1)));
        }
        let mut varied = String::new();
        for i in 0..2000 {
            varied.push_str(&"x".repeat(i * 7 % 300));
            varied.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
        }
        texts.push(varied);
        for text in texts {
            let f = SourceFile::new("t", text.clone());
            let mut want = 0;
            for at in 0..=text.len() {
                assert_eq!(f.line_of(at), want, "byte {at} of {}", text.len());
                want += usize::from(text.as_bytes().get(at) == Some(&b'\n'));
            }
        }
    }

    /// The end of a long last line, in texts of whole mark strides and around them.
    #[test]
    fn the_end_of_a_text_of_whole_strides_has_its_column() {
        for len in [
            CHAR_MARK_STRIDE - 1,
            CHAR_MARK_STRIDE,
            CHAR_MARK_STRIDE + 1,
            2 * CHAR_MARK_STRIDE,
        ] {
            let text = format!("é{}", "a".repeat(len - 2));
            assert_eq!(text.len(), len);
            let f = SourceFile::new("t", text);
            let want = LineCol {
                line: 1,
                column: len as u32,
            };
            assert_eq!(f.line_col(len as u32), want, "{len}");
        }
    }
}
