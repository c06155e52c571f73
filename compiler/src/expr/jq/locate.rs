//! Source positions for jaq syntax-tree nodes that carry none.
//!
//! jaq's tree keeps `&str` slices of the program for names, numbers, keys and string
//! pieces, but not for `.`, `[`, `]` or quotes, so `.[]` has no position at all. The walker
//! visits the tree in source order (jaq's parser builds it left to right) and keeps a
//! [`Cursor`]: the offset just past everything visited so far. A node without a slice is
//! found by scanning forward from the cursor for its token: the next *bare* `.` for the
//! identity, the next `[` / `]` for brackets, the next `"` for strings. Anything the
//! cursor can skip over while scanning is punctuation the tree does not record (`|`, `,`,
//! `(`, `)`, `?`, keywords, whitespace, comments), so the scan cannot land on a token of a
//! later node. Literal characters inside strings are always slices, and strings are
//! consumed up to their closing quote, so a scan never starts inside unvisited string text.
//!
//! If a scan fails (it should not, for a program jaq parsed), the cursor is marked *lost*
//! and later paths fall back to the span of the whole program rather than a wrong place.

/// Scanning position in the program text (byte offsets).
pub(crate) struct Cursor<'s> {
    pub src: &'s str,
    pub at: usize,
    pub lost: bool,
}

impl<'s> Cursor<'s> {
    pub fn new(src: &'s str) -> Cursor<'s> {
        Cursor {
            src,
            at: 0,
            lost: false,
        }
    }

    /// Byte range of `part`, a slice of the program text (`None` for any other string).
    pub fn range(&self, part: &str) -> Option<std::ops::Range<usize>> {
        let base = self.src.as_ptr() as usize;
        let p = part.as_ptr() as usize;
        if p < base || p + part.len() > base + self.src.len() {
            return None;
        }
        Some(p - base..p - base + part.len())
    }

    /// Moves the cursor past `part`; returns its start.
    pub fn seen(&mut self, part: &str) -> Option<usize> {
        let r = self.range(part)?;
        self.at = self.at.max(r.end);
        Some(r.start)
    }

    fn bytes(&self) -> &'s [u8] {
        self.src.as_bytes()
    }

    /// Skips whitespace and comments from `i`.
    fn skip_space(&self, mut i: usize) -> usize {
        let b = self.bytes();
        loop {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < b.len() && b[i] == b'#' {
                i = skip_comment(b, i);
            } else {
                return i;
            }
        }
    }

    /// Scans for the first byte satisfying `want`, skipping comments. Moves past it.
    fn scan(&mut self, want: impl Fn(&[u8], usize) -> bool) -> Option<usize> {
        if self.lost {
            return None;
        }
        let b = self.bytes();
        let mut i = self.at;
        while i < b.len() {
            if b[i] == b'#' {
                i = skip_comment(b, i);
                continue;
            }
            if want(b, i) {
                self.at = i + 1;
                return Some(i);
            }
            i += 1;
        }
        self.lost = true;
        None
    }

    /// Finds the next bare `.` (not `..`, not `.name`): the identity.
    pub fn dot(&mut self) -> Option<usize> {
        self.scan(|b, i| {
            b[i] == b'.'
                && (i == 0 || b[i - 1] != b'.')
                && !matches!(b.get(i + 1), Some(c) if *c == b'.' || c.is_ascii_alphabetic() || *c == b'_')
        })
    }

    /// Finds the next occurrence of `c`.
    pub fn char(&mut self, c: u8) -> Option<usize> {
        self.scan(|b, i| b[i] == c)
    }

    /// Finds the opening of a path part: the next `[`, `"` or `@`. Returns its offset and
    /// the byte found; moves past `[` only (a string is opened by [`Cursor::string_open`] and
    /// closed by [`Cursor::string_close`]).
    pub fn part_open(&mut self) -> Option<(usize, u8)> {
        let i = self.scan(|b, i| matches!(b[i], b'[' | b'"' | b'@'))?;
        let c = self.bytes()[i];
        if c != b'[' {
            self.at = i;
        }
        Some((i, c))
    }

    /// Finds the opening quote of a string literal and moves past it.
    pub fn string_open(&mut self) -> Option<usize> {
        self.char(b'"')
    }

    /// Moves past the closing quote of the string the cursor is in, skipping escapes.
    pub fn string_close(&mut self) -> Option<usize> {
        if self.lost {
            return None;
        }
        let b = self.bytes();
        let mut i = self.at;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'"' => {
                    self.at = i + 1;
                    return Some(i);
                }
                _ => i += 1,
            }
        }
        self.lost = true;
        None
    }

    /// Moves past any `?` that directly follows (after whitespace).
    pub fn question_marks(&mut self) {
        loop {
            let i = self.skip_space(self.at);
            if self.bytes().get(i) == Some(&b'?') {
                self.at = i + 1;
            } else {
                return;
            }
        }
    }

    /// The byte before offset `i`, if any.
    pub fn byte_before(&self, i: usize) -> Option<u8> {
        i.checked_sub(1).map(|j| self.bytes()[j])
    }
}

/// Skips a `#` comment as jaq does (an odd number of trailing backslashes continues it).
fn skip_comment(b: &[u8], mut i: usize) -> usize {
    loop {
        let Some(nl) = b[i..].iter().position(|&c| c == b'\n').map(|p| i + p) else {
            return b.len();
        };
        let mut line = &b[i..nl];
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        i = nl + 1;
        if line.iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 0 {
            return i;
        }
    }
}
