//! The AGX lexer: a hand-written loop (no recursion, one pass) from a byte range of the decoded
//! string to spanned tokens.
//!
//! Decisions (research notes `ags.md` §2.2):
//! - NUMBER is JSON-like and unsigned: `digits ( "." digits )? ( [eE] [+-]? digits )?`. Without
//!   fraction and exponent it is an integer; a value beyond `u64` lexes as `Int(None)` and the
//!   checker reports AGC041. A number running into letters (`12ab`) is an error.
//! - Strings take single or double quotes; both decode JSON escapes (`\" \\ \/ \b \f \n \r \t
//!   \uXXXX`, surrogate pairs combined) plus `\'`. Other escapes are errors at the escape.
//! - `${{` outside a string is AG211: template syntax in expression position.
//! - Errors do not stop lexing; characters that cannot start a token make the result *fatal*
//!   (the parser is not run, since every later error would be noise).

use super::error::Error;
use super::token::Token;
use crate::expr::Local;

/// Tokens and problems of one range.
pub struct Lexed<'s> {
    pub tokens: Vec<(Token<'s>, Local)>,
    pub errors: Vec<Error>,
    /// An unknown character or `${{` was met; parsing would only add noise.
    pub fatal: bool,
}

/// Lexes `src[start..end]`; spans are offsets into `src`.
pub fn lex(src: &str, start: usize, end: usize) -> Lexed<'_> {
    let mut lx = Lexer {
        src,
        b: src.as_bytes(),
        pos: start,
        end,
        out: Lexed {
            tokens: Vec::new(),
            errors: Vec::new(),
            fatal: false,
        },
    };
    lx.run();
    lx.out
}

struct Lexer<'s> {
    src: &'s str,
    b: &'s [u8],
    pos: usize,
    end: usize,
    out: Lexed<'s>,
}

fn span(start: usize, end: usize) -> Local {
    Local::from(start..end)
}

impl<'s> Lexer<'s> {
    fn peek(&self, at: usize) -> Option<u8> {
        (at < self.end).then(|| self.b[at])
    }

    fn push(&mut self, tok: Token<'s>, start: usize) {
        self.out.tokens.push((tok, span(start, self.pos)));
    }

    fn run(&mut self) {
        while self.pos < self.end {
            let start = self.pos;
            let c = self.b[start];
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'0'..=b'9' => self.number(),
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => self.word(),
                b'"' | b'\'' => self.string(c),
                b'$' if self.peek(start + 1) == Some(b'{')
                    && self.peek(start + 2) == Some(b'{') =>
                {
                    self.interpolation()
                }
                _ => self.punct(c),
            }
        }
    }

    fn punct(&mut self, c: u8) {
        let start = self.pos;
        let next = self.peek(start + 1);
        let (tok, len) = match (c, next) {
            (b'|', Some(b'|')) => (Token::OrOr, 2),
            (b'&', Some(b'&')) => (Token::AndAnd, 2),
            (b'=', Some(b'=')) => (Token::EqEq, 2),
            (b'!', Some(b'=')) => (Token::NotEq, 2),
            (b'<', Some(b'=')) => (Token::Le, 2),
            (b'>', Some(b'=')) => (Token::Ge, 2),
            (b'<', _) => (Token::Lt, 1),
            (b'>', _) => (Token::Gt, 1),
            (b'+', _) => (Token::Plus, 1),
            (b'-', _) => (Token::Minus, 1),
            (b'*', _) => (Token::Star, 1),
            (b'/', _) => (Token::Slash, 1),
            (b'%', _) => (Token::Percent, 1),
            (b'!', _) => (Token::Bang, 1),
            (b'(', _) => (Token::LParen, 1),
            (b')', _) => (Token::RParen, 1),
            (b'[', _) => (Token::LBracket, 1),
            (b']', _) => (Token::RBracket, 1),
            (b',', _) => (Token::Comma, 1),
            (b'.', _) => (Token::Dot, 1),
            _ => return self.unknown(),
        };
        self.pos += len;
        self.push(tok, start);
    }

    fn unknown(&mut self) {
        let start = self.pos;
        let ch = self.src[start..self.end]
            .chars()
            .next()
            .unwrap_or('\u{fffd}');
        self.pos += ch.len_utf8().max(1);
        let help = match ch {
            '=' => Some("use `==` to compare"),
            '&' => Some("use `&&` or `and`"),
            '|' => Some("use `||` or `or`"),
            '?' => Some("AGX has no conditional operator"),
            ':' => Some("AGX has no `? :` conditional and no object literals"),
            '{' | '}' => Some("AGX has no object literals; read fields with `get(obj, \"key\")`"),
            _ => None,
        };
        let shown = if ch.is_control() {
            format!("{}", ch.escape_default())
        } else {
            ch.to_string()
        };
        let mut e = Error::syntax(
            span(start, self.pos),
            format!("unexpected character `{shown}` in an expression"),
        );
        if let Some(h) = help {
            e = e.help(h);
        }
        self.out.errors.push(e);
        self.out.fatal = true;
    }

    fn word(&mut self) {
        let start = self.pos;
        while self
            .peek(self.pos)
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.pos += 1;
        }
        let text = &self.src[start..self.pos];
        let tok = match text {
            "true" => Token::True,
            "false" => Token::False,
            "null" => Token::Null,
            "and" => Token::And,
            "or" => Token::Or,
            "not" => Token::Not,
            "in" => Token::In,
            _ => Token::Ident(text),
        };
        self.push(tok, start);
    }

    fn digits(&mut self) -> usize {
        let from = self.pos;
        while self.peek(self.pos).is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - from
    }

    fn number(&mut self) {
        let start = self.pos;
        self.digits();
        let mut float = false;
        if self.peek(self.pos) == Some(b'.')
            && self.peek(self.pos + 1).is_some_and(|c| c.is_ascii_digit())
        {
            self.pos += 1;
            self.digits();
            float = true;
        }
        if matches!(self.peek(self.pos), Some(b'e' | b'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                self.pos = save;
            } else {
                float = true;
            }
        }
        if self
            .peek(self.pos)
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            while self
                .peek(self.pos)
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
            {
                self.pos += 1;
            }
            let text = &self.src[start..self.pos];
            self.out.errors.push(
                Error::syntax(span(start, self.pos), format!("invalid number `{text}`"))
                    .help("numbers are written like `3`, `2.5` or `1e-3`; names cannot start with a digit"),
            );
            self.push(Token::Int(Some(0)), start);
            return;
        }
        let text = &self.src[start..self.pos];
        let tok = if float {
            Token::Float(text.parse().unwrap_or(f64::INFINITY))
        } else {
            Token::Int(text.parse().ok())
        };
        self.push(tok, start);
    }

    fn string(&mut self, quote: u8) {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek(self.pos) else {
                let q = quote as char;
                self.out.errors.push(
                    Error::syntax(
                        span(start, self.end),
                        format!("unterminated string: missing the closing `{q}`"),
                    )
                    .label("this string is never closed"),
                );
                break;
            };
            if c == quote {
                self.pos += 1;
                break;
            }
            if c == b'\\' {
                self.escape(&mut out);
                continue;
            }
            let ch = self.src[self.pos..].chars().next().unwrap_or('\u{fffd}');
            out.push(ch);
            self.pos += ch.len_utf8();
        }
        self.push(Token::Str(out), start);
    }

    /// One escape at `self.pos` (a backslash), appended to `out`.
    fn escape(&mut self, out: &mut String) {
        let start = self.pos;
        let Some(c) = self.peek(start + 1) else {
            self.pos += 1;
            return;
        };
        let simple = match c {
            b'"' => Some('"'),
            b'\'' => Some('\''),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            self.pos += 2;
            return;
        }
        if c == b'u' {
            self.pos += 2;
            let Some(hi) = self.hex4() else {
                self.bad_escape(
                    start,
                    "`\\u` takes exactly four hex digits, as in `\\u00e9`",
                );
                return;
            };
            let code = if (0xD800..0xDC00).contains(&hi) {
                let save = self.pos;
                let lo = if self.peek(self.pos) == Some(b'\\')
                    && self.peek(self.pos + 1) == Some(b'u')
                {
                    self.pos += 2;
                    self.hex4().filter(|lo| (0xDC00..0xE000).contains(lo))
                } else {
                    None
                };
                match lo {
                    Some(lo) => 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00),
                    None => {
                        self.pos = save;
                        self.bad_escape(start, "a high surrogate must be followed by a low surrogate escape (`\\uDC00`-`\\uDFFF`)");
                        return;
                    }
                }
            } else {
                hi
            };
            match char::from_u32(code) {
                Some(ch) => out.push(ch),
                None => self.bad_escape(start, "a lone low surrogate is not a character"),
            }
            return;
        }
        let ch = self.src[start + 1..self.end].chars().next().unwrap_or('?');
        self.pos = start + 1 + ch.len_utf8();
        let shown = ch.escape_default();
        self.out.errors.push(
            Error::syntax(span(start, self.pos), format!("unknown escape `\\{shown}` in a string"))
                .help("the escapes are `\\\"` `\\'` `\\\\` `\\/` `\\b` `\\f` `\\n` `\\r` `\\t` and `\\uXXXX`"),
        );
    }

    fn hex4(&mut self) -> Option<u32> {
        let mut v = 0u32;
        for i in 0..4 {
            let d = (self.peek(self.pos + i)? as char).to_digit(16)?;
            v = v * 16 + d;
        }
        self.pos += 4;
        Some(v)
    }

    fn bad_escape(&mut self, start: usize, help: &str) {
        self.pos = self.pos.max(start + 2).min(self.end);
        self.out.errors.push(
            Error::syntax(span(start, self.pos), "invalid unicode escape in a string").help(help),
        );
    }

    /// `${{ … }}` in expression position (AG211). Skips to the matching `}}` if there is one.
    fn interpolation(&mut self) {
        let start = self.pos;
        let inner_start = start + 3;
        let close = self.src[inner_start..self.end]
            .find("}}")
            .map(|i| inner_start + i);
        let (stop, help) = match close {
            Some(c) => {
                let inner = self.src[inner_start..c].trim();
                (
                    c + 2,
                    format!("write the expression itself, without `${{{{ }}}}`: `{inner}`"),
                )
            }
            None => (
                self.end,
                "write the expression itself, without `${{ }}`".to_string(),
            ),
        };
        self.pos = stop;
        self.out.errors.push(
            Error::new(
                "AG211",
                span(start, stop),
                "`${{ }}` interpolation in expression position",
            )
            .label("this field takes an AGX expression, not a template")
            .help(help),
        );
        self.out.fatal = true;
    }
}
