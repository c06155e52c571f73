//! The CEL lexer: decoded expression text → tokens with byte ranges.
//!
//! Hand-written rather than a chumsky grammar: string and bytes literals need exact
//! per-escape error spans (`\u` in a bytes literal, an out-of-range octal, a surrogate), and
//! a single forward pass over the bytes never recurses, so no input can make it overflow.
//! It follows the lexis of the CEL language definition (`langdef.md`): identifiers
//! `[_a-zA-Z][_a-zA-Z0-9]*`, decimal and `0x` integers, a `u`/`U` suffix for uint, doubles
//! `DIGIT* . DIGIT+ EXPONENT? | DIGIT+ EXPONENT`, the four string quotings with the `r`/`R`
//! (raw) and `b`/`B` (bytes) prefixes in any order and case, `//` comments.
//!
//! Integer literals are kept as their unsigned magnitude: whether `9223372036854775808` is in
//! range depends on a preceding unary minus, which the parser decides.

use std::fmt;

/// A lexical error: a byte range of the decoded text and a message.
#[derive(Clone, Debug, PartialEq)]
pub struct LexError {
    pub start: usize,
    pub end: usize,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    Ident(String),
    /// A reserved word that is not a literal or operator (`if`, `while`, ...).
    Reserved(&'static str),
    /// Magnitude of an int literal (no sign); `u64::MAX` + 1 and more are lexing errors.
    Int(u64),
    Uint(u64),
    Double(f64),
    Str(String),
    Bytes(Vec<u8>),
    True,
    False,
    Null,
    In,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Dot,
    Comma,
    Colon,
    Question,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Bang,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    AndAnd,
    OrOr,
}

impl Eq for Token {}

impl std::hash::Hash for Token {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Token::Ident(name) => return write!(f, "identifier `{name}`"),
            Token::Reserved(word) => return write!(f, "reserved word `{word}`"),
            Token::Int(_) | Token::Uint(_) | Token::Double(_) => "number",
            Token::Str(_) => "string",
            Token::Bytes(_) => "bytes literal",
            Token::True => "`true`",
            Token::False => "`false`",
            Token::Null => "`null`",
            Token::In => "`in`",
            Token::LParen => "`(`",
            Token::RParen => "`)`",
            Token::LBracket => "`[`",
            Token::RBracket => "`]`",
            Token::LBrace => "`{`",
            Token::RBrace => "`}`",
            Token::Dot => "`.`",
            Token::Comma => "`,`",
            Token::Colon => "`:`",
            Token::Question => "`?`",
            Token::Plus => "`+`",
            Token::Minus => "`-`",
            Token::Star => "`*`",
            Token::Slash => "`/`",
            Token::Percent => "`%`",
            Token::Bang => "`!`",
            Token::EqEq => "`==`",
            Token::NotEq => "`!=`",
            Token::Lt => "`<`",
            Token::Le => "`<=`",
            Token::Gt => "`>`",
            Token::Ge => "`>=`",
            Token::AndAnd => "`&&`",
            Token::OrOr => "`||`",
        };
        f.write_str(s)
    }
}

/// Words reserved "to allow easier embedding of CEL into a host language".
pub const RESERVED: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Lexes the whole text. Returns every token that could be read and every error.
pub fn lex(src: &str) -> (Vec<(Token, usize, usize)>, Vec<LexError>) {
    let mut lx = Lexer {
        src,
        b: src.as_bytes(),
        i: 0,
        toks: Vec::new(),
        errs: Vec::new(),
    };
    lx.run();
    (lx.toks, lx.errs)
}

struct Lexer<'a> {
    src: &'a str,
    b: &'a [u8],
    i: usize,
    toks: Vec<(Token, usize, usize)>,
    errs: Vec<LexError>,
}

impl Lexer<'_> {
    fn err(&mut self, start: usize, end: usize, message: impl Into<String>) {
        self.errs.push(LexError {
            start,
            end,
            message: message.into(),
        });
    }

    fn peek(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    fn run(&mut self) {
        while self.i < self.b.len() {
            let start = self.i;
            let c = self.b[self.i];
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0c => self.i += 1,
                b'/' if self.peek(1) == b'/' => {
                    while self.i < self.b.len()
                        && self.b[self.i] != b'\n'
                        && self.b[self.i] != b'\r'
                    {
                        self.i += 1;
                    }
                }
                b'0'..=b'9' => self.number(),
                b'.' if self.peek(1).is_ascii_digit() => self.number(),
                b'"' | b'\'' => self.string(start, false, false),
                b'r' | b'R' | b'b' | b'B' if self.string_prefix() => {}
                b'_' | b'a'..=b'z' | b'A'..=b'Z' => self.word(),
                _ => self.punct(start, c),
            }
        }
    }

    fn push(&mut self, tok: Token, start: usize) {
        self.toks.push((tok, start, self.i));
    }

    fn punct(&mut self, start: usize, c: u8) {
        let two = |a: u8| self.peek(1) == a;
        let (tok, len) = match c {
            b'(' => (Token::LParen, 1),
            b')' => (Token::RParen, 1),
            b'[' => (Token::LBracket, 1),
            b']' => (Token::RBracket, 1),
            b'{' => (Token::LBrace, 1),
            b'}' => (Token::RBrace, 1),
            b'.' => (Token::Dot, 1),
            b',' => (Token::Comma, 1),
            b':' => (Token::Colon, 1),
            b'?' => (Token::Question, 1),
            b'+' => (Token::Plus, 1),
            b'-' => (Token::Minus, 1),
            b'*' => (Token::Star, 1),
            b'/' => (Token::Slash, 1),
            b'%' => (Token::Percent, 1),
            b'!' if two(b'=') => (Token::NotEq, 2),
            b'!' => (Token::Bang, 1),
            b'=' if two(b'=') => (Token::EqEq, 2),
            b'<' if two(b'=') => (Token::Le, 2),
            b'<' => (Token::Lt, 1),
            b'>' if two(b'=') => (Token::Ge, 2),
            b'>' => (Token::Gt, 1),
            b'&' if two(b'&') => (Token::AndAnd, 2),
            b'|' if two(b'|') => (Token::OrOr, 2),
            _ => {
                let ch = self.src[start..].chars().next().unwrap_or('\u{fffd}');
                let end = start + ch.len_utf8();
                let msg = match c {
                    b'=' => "unexpected `=`; CEL compares with `==` and has no assignment".into(),
                    b'&' => "unexpected `&`; the logical and is `&&`".into(),
                    b'|' => "unexpected `|`; the logical or is `||`".into(),
                    _ => format!("unexpected character {ch:?}"),
                };
                self.err(start, end, msg);
                self.i = end;
                return;
            }
        };
        self.i += len;
        self.push(tok, start);
    }

    fn word(&mut self) {
        let start = self.i;
        while self.i < self.b.len()
            && (self.b[self.i] == b'_' || self.b[self.i].is_ascii_alphanumeric())
        {
            self.i += 1;
        }
        let w = &self.src[start..self.i];
        let tok = match w {
            "true" => Token::True,
            "false" => Token::False,
            "null" => Token::Null,
            "in" => Token::In,
            _ => match RESERVED.iter().find(|r| **r == w) {
                Some(r) => Token::Reserved(r),
                None => Token::Ident(w.to_string()),
            },
        };
        self.push(tok, start);
    }

    /// At `r`, `R`, `b` or `B`: lexes a prefixed string if a quote follows the prefix.
    fn string_prefix(&mut self) -> bool {
        let start = self.i;
        let (c0, c1, c2) = (self.peek(0), self.peek(1), self.peek(2));
        let is_raw = |c: u8| c == b'r' || c == b'R';
        let is_bytes = |c: u8| c == b'b' || c == b'B';
        let is_quote = |c: u8| c == b'"' || c == b'\'';
        let (raw, bytes, len) = if is_quote(c1) {
            (is_raw(c0), is_bytes(c0), 1)
        } else if is_quote(c2) && ((is_raw(c0) && is_bytes(c1)) || (is_bytes(c0) && is_raw(c1))) {
            (true, true, 2)
        } else {
            return false;
        };
        self.i += len;
        self.string(start, raw, bytes);
        true
    }

    /// At the opening quote; `start` is where the literal (with prefix) begins.
    fn string(&mut self, start: usize, raw: bool, bytes: bool) {
        let q = self.b[self.i];
        let triple = self.peek(1) == q && self.peek(2) == q;
        self.i += if triple { 3 } else { 1 };
        let mut out: Vec<u8> = Vec::new();
        loop {
            if self.i >= self.b.len() {
                self.err(start, self.b.len(), "unterminated string literal");
                return;
            }
            let c = self.b[self.i];
            if c == q && (!triple || (self.peek(1) == q && self.peek(2) == q)) {
                self.i += if triple { 3 } else { 1 };
                break;
            }
            if !triple && (c == b'\n' || c == b'\r') {
                self.err(
                    start,
                    self.i,
                    "unterminated string literal (a newline needs a triple-quoted string)",
                );
                self.i = self.b.len();
                return;
            }
            // In a raw string a backslash is an ordinary character: `r"\d"` keeps both.
            if c == b'\\' && !raw {
                self.escape(&mut out, bytes);
                continue;
            }
            out.push(c);
            self.i += 1;
        }
        let tok = if bytes {
            Token::Bytes(out)
        } else {
            match String::from_utf8(out) {
                Ok(s) => Token::Str(s),
                // Escapes only ever push valid UTF-8 for strings; source text is UTF-8.
                Err(_) => {
                    self.err(start, self.i, "string literal is not valid UTF-8");
                    return;
                }
            }
        };
        self.push(tok, start);
    }

    /// At a backslash in a non-raw literal; appends the escaped value.
    fn escape(&mut self, out: &mut Vec<u8>, bytes: bool) {
        let start = self.i;
        self.i += 1;
        let Some(&c) = self.b.get(self.i) else {
            self.err(start, self.i, "unterminated escape sequence");
            return;
        };
        let simple = match c {
            b'\\' => Some(b'\\'),
            b'?' => Some(b'?'),
            b'"' => Some(b'"'),
            b'\'' => Some(b'\''),
            b'`' => Some(b'`'),
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(0x0b),
            _ => None,
        };
        if let Some(v) = simple {
            out.push(v);
            self.i += 1;
            return;
        }
        let (digits, radix) = match c {
            b'x' | b'X' => (2, 16),
            b'u' => (4, 16),
            b'U' => (8, 16),
            b'0'..=b'3' => (3, 8),
            b'4'..=b'7' => {
                self.i += 1;
                self.err(
                    start,
                    self.i,
                    "an octal escape must be in the range 000 to 377",
                );
                return;
            }
            _ => {
                let ch = self.src[self.i..].chars().next().unwrap_or('\u{fffd}');
                self.i += ch.len_utf8();
                self.err(start, self.i, format!("unknown escape sequence `\\{ch}`"));
                return;
            }
        };
        let first = if radix == 8 { self.i } else { self.i + 1 };
        let text = self.src.get(first..first + digits).unwrap_or("");
        let ok = text.len() == digits && text.bytes().all(|d| (d as char).is_digit(radix));
        if !ok {
            // Consume what looks like the escape so one mistake gives one error.
            self.i = (first..first + digits)
                .take_while(|&k| self.b.get(k).is_some_and(u8::is_ascii_alphanumeric))
                .last()
                .map_or(first, |k| k + 1)
                .max(self.i + 1);
            let what = match radix {
                8 => "an octal escape needs three digits 000 to 377".to_string(),
                _ => format!("`\\{}` needs {digits} hexadecimal digits", c as char),
            };
            self.err(start, self.i, what);
            return;
        }
        self.i = first + digits;
        let v = u32::from_str_radix(text, radix).unwrap_or(0);
        if radix == 8 && v > 0o377 {
            self.err(
                start,
                self.i,
                "an octal escape must be in the range 000 to 377",
            );
            return;
        }
        let unicode = c == b'u' || c == b'U';
        if bytes && unicode {
            self.err(
                start,
                self.i,
                format!(
                    "`\\{}` escapes are not allowed in bytes literals",
                    c as char
                ),
            );
            return;
        }
        if bytes {
            out.push(v as u8);
            return;
        }
        match char::from_u32(v) {
            Some(ch) => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            None => self.err(
                start,
                self.i,
                format!(
                    "escape `{}` is not a Unicode scalar value",
                    &self.src[start..self.i]
                ),
            ),
        }
    }

    fn digits(&mut self, pred: fn(&u8) -> bool) -> usize {
        let s = self.i;
        while self.i < self.b.len() && pred(&self.b[self.i]) {
            self.i += 1;
        }
        self.i - s
    }

    fn number(&mut self) {
        let start = self.i;
        // Only a lowercase `0x` starts a hexadecimal literal (langdef, cel-go's lexer).
        if self.peek(0) == b'0' && self.peek(1) == b'x' {
            self.i += 2;
            let n = self.digits(u8::is_ascii_hexdigit);
            let text = &self.src[start + 2..self.i];
            if n == 0 {
                self.err(
                    start,
                    self.i,
                    "a hexadecimal literal needs digits after `0x`",
                );
                return;
            }
            return self.int_suffix(start, u64::from_str_radix(text, 16).ok());
        }
        self.digits(u8::is_ascii_digit);
        let mut float = false;
        if self.peek(0) == b'.' && self.peek(1).is_ascii_digit() {
            float = true;
            self.i += 1;
            self.digits(u8::is_ascii_digit);
        }
        let (e0, e1, e2) = (self.peek(0), self.peek(1), self.peek(2));
        if (e0 == b'e' || e0 == b'E')
            && (e1.is_ascii_digit() || ((e1 == b'+' || e1 == b'-') && e2.is_ascii_digit()))
        {
            float = true;
            self.i += if e1.is_ascii_digit() { 1 } else { 2 };
            self.digits(u8::is_ascii_digit);
        }
        let text = &self.src[start..self.i];
        if float {
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() => self.push(Token::Double(v), start),
                _ => self.err(start, self.i, "double literal is out of range"),
            }
            return;
        }
        self.int_suffix(start, text.parse::<u64>().ok());
    }

    fn int_suffix(&mut self, start: usize, value: Option<u64>) {
        let unsigned = matches!(self.peek(0), b'u' | b'U');
        if unsigned {
            self.i += 1;
        }
        if self.peek(0) == b'_' || self.peek(0).is_ascii_alphanumeric() {
            let s = self.i;
            self.digits(|c| *c == b'_' || c.is_ascii_alphanumeric());
            self.err(s, self.i, "unexpected characters after a number");
            return;
        }
        match (value, unsigned) {
            (Some(v), true) => self.push(Token::Uint(v), start),
            (Some(v), false) => self.push(Token::Int(v), start),
            (None, true) => self.err(
                start,
                self.i,
                "uint literal is out of range (max 18446744073709551615u)",
            ),
            (None, false) => self.err(
                start,
                self.i,
                "int literal is out of range (max 9223372036854775807)",
            ),
        }
    }
}
