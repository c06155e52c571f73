//! Mapping offsets inside a decoded YAML/JSON string scalar back to the file.
//!
//! An expression inside `when: "a && b"` is parsed from the *decoded* string; its AST spans are
//! offsets into that string. A [`ScalarMap`] turns them into file spans. For plain scalars and
//! quoted scalars without escapes the mapping is a shift; escapes (`\n`, `''`), line folding and
//! block-scalar indentation break it into pieces, each recorded as an anchor point.

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
}

impl ScalarMap {
    /// A map for text that appears verbatim in the file starting at `start`.
    pub fn contiguous(file: FileId, start: usize, len: usize) -> ScalarMap {
        ScalarMap {
            file,
            points: vec![(0, start as u32)],
            len: len as u32,
            end: (start + len) as u32,
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
            // Map the last included byte, so a range never swallows a following escape.
            self.offset(end - 1) + 1
        } else {
            s
        };
        Span::new(self.file, s, e.max(s))
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
