//! A linear pre-scan that bounds how deeply a jq program nests, before jaq sees it.
//!
//! jaq's lexer and parser are recursive descent: every `(`, `[`, `{`, string interpolation
//! `\(`, prefix keyword (`try`, `reduce`, `def`, `label`, `-`) and right-associative or
//! precedence-climbing operator chain (`a | b | c`, `x as $v | ...`) adds Rust stack frames,
//! and the resulting syntax tree is compiled and dropped recursively too. Ten thousand nested
//! parentheses overflow the stack and abort the process. So every jq text is scanned here
//! first, iteratively, and rejected when its *nesting score* exceeds a limit.
//!
//! The score is an upper bound on the depth of jaq's syntax tree:
//! - each open delimiter (`(`, `[`, `"`, `\(`, `if` … `end`) adds 1 while it is open, `{`
//!   adds 2 (jaq's object parser uses about twice the stack per level);
//! - each binary operator (`|`, `,`, `//`, `+`, `==`, `|=`, `and`, …) and each nesting keyword
//!   (`as`, `try`, `catch`, `reduce`, `foreach`, `def`, `label`) adds 1 until the enclosing
//!   delimiter closes, because a chain of *n* operators can build a tree *n* deep;
//! - separators that start an independent sub-term reset the count of their frame: `then`,
//!   `elif` and `else` inside `if`, and `,` and `:` inside `{ }` (object entries are parsed
//!   one by one, not as a chain).
//!
//! The bound is deliberately coarse (a long flat array literal `[1, 2, …]` counts every
//! comma, because jaq really does build a left-nested comma tree for it); the limit
//! [`MAX_NESTING`] is far above anything found in real workflow documents (the deepest AWP
//! example scores under 40).

/// Highest nesting score accepted (see the module docs).
pub const MAX_NESTING: usize = 256;

/// Where a jq program nests too deeply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooDeep {
    /// Byte offset of the token that crossed the limit.
    pub at: usize,
    /// Byte length of that token.
    pub len: usize,
    /// The limit that was crossed.
    pub limit: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Paren,
    Brack,
    Brace,
    Str,
    Interp,
    If,
}

struct Frame {
    kind: Kind,
    /// 1, or more for delimiters that cost jaq more stack.
    weight: usize,
    ops: usize,
}

struct Scan {
    frames: Vec<Frame>,
    /// Operators counted outside any frame.
    root_ops: usize,
    /// frames.len() + root_ops + sum of frame ops.
    depth: usize,
    limit: usize,
    err: Option<TooDeep>,
}

impl Scan {
    fn check(&mut self, at: usize, len: usize) {
        if self.depth > self.limit && self.err.is_none() {
            self.err = Some(TooDeep {
                at,
                len,
                limit: self.limit,
            });
        }
    }

    fn push(&mut self, kind: Kind, at: usize, len: usize) {
        // Objects cost jaq about twice the stack of other delimiters (measured).
        let weight = if kind == Kind::Brace { 2 } else { 1 };
        self.frames.push(Frame {
            kind,
            weight,
            ops: 0,
        });
        self.depth += weight;
        self.check(at, len);
    }

    fn op(&mut self, at: usize, len: usize) {
        match self.frames.last_mut() {
            Some(f) => f.ops += 1,
            None => self.root_ops += 1,
        }
        self.depth += 1;
        self.check(at, len);
    }

    fn reset(&mut self) {
        if let Some(f) = self.frames.last_mut() {
            self.depth -= f.ops;
            f.ops = 0;
        }
    }

    fn pop(&mut self) {
        if let Some(f) = self.frames.pop() {
            self.depth -= f.weight + f.ops;
        }
    }

    /// Closes the innermost frame of one of `kinds`, and every frame opened inside it.
    fn close(&mut self, kinds: &[Kind]) {
        if let Some(i) = self.frames.iter().rposition(|f| kinds.contains(&f.kind)) {
            while self.frames.len() > i {
                self.pop();
            }
        }
    }

    fn top(&self) -> Option<Kind> {
        self.frames.last().map(|f| f.kind)
    }
}

/// Checks that `src` nests at most `limit` deep (see the module docs). Linear, no recursion.
pub fn check_nesting(src: &str, limit: usize) -> Result<(), TooDeep> {
    let b = src.as_bytes();
    let mut s = Scan {
        frames: Vec::new(),
        root_ops: 0,
        depth: 0,
        limit,
        err: None,
    };
    let mut i = 0;
    while i < b.len() && s.err.is_none() {
        let c = b[i];
        if s.top() == Some(Kind::Str) {
            match c {
                b'\\' if b.get(i + 1) == Some(&b'(') => {
                    s.push(Kind::Interp, i, 2);
                    i += 2;
                }
                b'\\' => i += 2,
                b'"' => {
                    s.pop();
                    i += 1;
                }
                _ => i += 1,
            }
            continue;
        }
        match c {
            b'#' => i = skip_comment(b, i),
            b'"' => {
                s.push(Kind::Str, i, 1);
                i += 1;
            }
            b'(' => {
                s.push(Kind::Paren, i, 1);
                i += 1;
            }
            b'[' => {
                s.push(Kind::Brack, i, 1);
                i += 1;
            }
            b'{' => {
                s.push(Kind::Brace, i, 1);
                i += 1;
            }
            b')' => {
                s.close(&[Kind::Paren, Kind::Interp]);
                i += 1;
            }
            b']' => {
                s.close(&[Kind::Brack]);
                i += 1;
            }
            b'}' => {
                s.close(&[Kind::Brace]);
                i += 1;
            }
            b',' | b':' if s.top() == Some(Kind::Brace) => {
                s.reset();
                i += 1;
            }
            b',' => {
                s.op(i, 1);
                i += 1;
            }
            b'-' => {
                s.op(i, 1);
                i += 1;
            }
            b'|' | b'=' | b'!' | b'<' | b'>' | b'+' | b'*' | b'/' | b'%' => {
                let start = i;
                while i < b.len() && b"|=!<>+*/%".contains(&b[i]) {
                    i += 1;
                }
                s.op(start, i - start);
            }
            b'$' | b'@' | b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let start = i;
                i += 1;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b':')
                {
                    i += 1;
                }
                if c != b'$' && c != b'@' {
                    word(&mut s, &src[start..i], start);
                }
            }
            _ => i += 1,
        }
    }
    match s.err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn word(s: &mut Scan, w: &str, at: usize) {
    match w {
        "if" => s.push(Kind::If, at, w.len()),
        "end" => s.close(&[Kind::If]),
        "then" | "elif" | "else" if s.top() == Some(Kind::If) => s.reset(),
        "and" | "or" | "as" | "try" | "catch" | "reduce" | "foreach" | "def" | "label" => {
            s.op(at, w.len())
        }
        _ => {}
    }
}

/// Skips a `#` comment the way jaq's lexer does: a line ending in an odd number of
/// backslashes continues the comment on the next line.
fn skip_comment(b: &[u8], mut i: usize) -> usize {
    loop {
        let line_end = b[i..].iter().position(|&c| c == b'\n').map(|p| i + p);
        let Some(nl) = line_end else { return b.len() };
        let mut before = &b[i..nl];
        if before.last() == Some(&b'\r') {
            before = &before[..before.len() - 1];
        }
        let slashes = before.iter().rev().take_while(|&&c| c == b'\\').count();
        i = nl + 1;
        if slashes % 2 == 0 {
            return i;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score_ok(src: &str, limit: usize) -> bool {
        check_nesting(src, limit).is_ok()
    }

    #[test]
    fn parentheses_and_brackets_count() {
        assert!(score_ok("((((.))))", 4));
        assert!(!score_ok("(((((.)))))", 4));
        let e = check_nesting("[[[[[1]]]]]", 4).unwrap_err();
        assert_eq!((e.at, e.len), (4, 1));
    }

    #[test]
    fn operator_chains_count_until_the_frame_closes() {
        assert!(score_ok(".a | .b | .c", 2));
        assert!(!score_ok(".a | .b | .c | .d", 2));
        assert!(score_ok("(.a | .b) | (.c | .d)", 3));
    }

    #[test]
    fn independent_parts_reset() {
        assert!(score_ok("{a: 1 + 2, b: 3 + 4, c: 5 + 6}", 3));
        assert!(!score_ok("{a: {b: 1}}", 3));
        assert!(score_ok(
            "if .a == 1 then 2 elif .a == 2 then 3 else 4 end",
            2
        ));
    }

    #[test]
    fn strings_and_comments_are_skipped() {
        assert!(score_ok("\"((((((\" # (((((((\n| .", 2));
        assert!(!score_ok("\"\\(\"\\(\"\\(1)\")\")\"", 5));
        assert!(score_ok("# a \\\n ((((((\n.", 1));
    }
}
