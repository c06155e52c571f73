//! Splits a Go template into text and actions, and lexes the inside of each action.
//!
//! Follows Go's `text/template/parse` lexer for what agh's documents use: `{{` / `}}`
//! delimiters, trim markers `{{- ` and ` -}}` (the space is required, as in Go: `{{-3}}` is the
//! number -3), comments `{{/* */}}` (which must fill the action), and inside actions: fields
//! `.a.b`, the dot, `$` variables, identifiers, `"..."` strings with Go escapes, raw
//! `` `...` `` strings, numbers, `(`, `)`, `|`, `:=`, `=`, `,`. A single forward pass, no
//! recursion.

use std::fmt;

use super::super::cel::lexer::LexError;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// `.name` (one segment; a chain is consecutive `Field`s with no space between).
    Field(String),
    /// A field chain, made by the parser from adjacent `Field`s (after `$`, a `)` or
    /// nothing): each segment with its range.
    Path(Vec<(String, usize, usize)>),
    /// Fields written right after a `)`: `(..).a.b`.
    Chain(Vec<(String, usize, usize)>),
    Dot,
    /// `$` or `$name`.
    Var(String),
    Ident(String),
    Str(String),
    Int(i64),
    Float(f64),
    True,
    False,
    Nil,
    LParen,
    RParen,
    Pipe,
    Declare,
    Assign,
    Comma,
}

impl Eq for Tok {}
impl std::hash::Hash for Tok {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
    }
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Field(n) => write!(f, "field `.{n}`"),
            Tok::Path(segs) | Tok::Chain(segs) => {
                f.write_str("field `")?;
                for (s, _, _) in segs {
                    write!(f, ".{s}")?;
                }
                f.write_str("`")
            }
            Tok::Dot => f.write_str("`.`"),
            Tok::Var(n) => write!(f, "variable `${n}`"),
            Tok::Ident(n) => write!(f, "`{n}`"),
            Tok::Str(_) => f.write_str("string"),
            Tok::Int(_) | Tok::Float(_) => f.write_str("number"),
            Tok::True => f.write_str("`true`"),
            Tok::False => f.write_str("`false`"),
            Tok::Nil => f.write_str("`nil`"),
            Tok::LParen => f.write_str("`(`"),
            Tok::RParen => f.write_str("`)`"),
            Tok::Pipe => f.write_str("`|`"),
            Tok::Declare => f.write_str("`:=`"),
            Tok::Assign => f.write_str("`=`"),
            Tok::Comma => f.write_str("`,`"),
        }
    }
}

/// A token with its byte range and whether whitespace precedes it (fields chain only when
/// adjacent).
#[derive(Clone, Debug, PartialEq)]
pub struct Spanned {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
    pub space_before: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// Literal text (after trim markers applied), and its range in the source.
    Text(String, usize, usize),
    /// An action: its tokens, the range of the whole `{{ ... }}`.
    Action(Vec<Spanned>, usize, usize),
}

/// Scans the template into items. Errors stop the scan (Go's lexer stops at the first too).
pub fn scan(src: &str) -> Result<Vec<Item>, LexError> {
    let b = src.as_bytes();
    let mut items = Vec::new();
    let mut i = 0;
    let mut trim_next = false;
    loop {
        let open = src[i..].find("{{").map(|k| i + k);
        let text_end = open.unwrap_or(src.len());
        let mut text = &src[i..text_end];
        let mut tstart = i;
        if trim_next {
            let t = text.trim_start_matches([' ', '\t', '\r', '\n']);
            tstart += text.len() - t.len();
            text = t;
        }
        let Some(open) = open else {
            if !text.is_empty() {
                items.push(Item::Text(text.to_string(), tstart, text_end));
            }
            return Ok(items);
        };
        let mut inner = open + 2;
        let trim_left =
            b.get(inner) == Some(&b'-') && b.get(inner + 1).is_some_and(|c| is_space(*c));
        if trim_left {
            text = text.trim_end_matches([' ', '\t', '\r', '\n']);
            inner += 2;
        }
        if !text.is_empty() {
            items.push(Item::Text(text.to_string(), tstart, tstart + text.len()));
        }
        // Comment?
        let after_ws = skip_space(b, inner);
        if src[after_ws..].starts_with("/*") && (trim_left || after_ws == inner) {
            let Some(close) = src[after_ws + 2..].find("*/").map(|k| after_ws + 2 + k) else {
                return Err(err(open, src.len(), "unclosed comment"));
            };
            let mut k = close + 2;
            let mut trim_right = false;
            if src[k..].starts_with(" -}}")
                || src[k..].starts_with("\t-}}")
                || src[k..].starts_with("\n-}}")
            {
                trim_right = true;
                k += 4;
            } else if src[k..].starts_with("}}") {
                k += 2;
            } else {
                return Err(err(open, k, "comment ends before closing delimiter `*/}}`"));
            }
            trim_next = trim_right;
            i = k;
            continue;
        }
        let (toks, end, trim_right) = lex_action(src, inner, open)?;
        items.push(Item::Action(toks, open, end));
        trim_next = trim_right;
        i = end;
    }
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_space(b[i]) {
        i += 1;
    }
    i
}

fn err(start: usize, end: usize, message: impl Into<String>) -> LexError {
    LexError {
        start,
        end,
        message: message.into(),
    }
}

/// Lexes from `i` (just inside `{{`) to the closing `}}`. Returns the tokens, the end of the
/// action (after `}}`) and whether it ended with a right trim marker.
fn lex_action(
    src: &str,
    mut i: usize,
    open: usize,
) -> Result<(Vec<Spanned>, usize, bool), LexError> {
    let b = src.as_bytes();
    let mut toks = Vec::new();
    loop {
        let before = i;
        i = skip_space(b, i);
        let space_before = i > before;
        if i >= b.len() {
            return Err(err(open, src.len(), "unclosed action: missing `}}`"));
        }
        if space_before && src[i..].starts_with("-}}") {
            return Ok((toks, i + 3, true));
        }
        if src[i..].starts_with("}}") {
            return Ok((toks, i + 2, false));
        }
        let start = i;
        let c = b[i];
        let mut push = |tok: Tok, end: usize| {
            toks.push(Spanned {
                tok,
                start,
                end,
                space_before,
            })
        };
        match c {
            b'.' if b.get(i + 1).is_some_and(|c| is_ident_start(*c)) => {
                let e = ident_end(b, i + 1);
                push(Tok::Field(src[i + 1..e].to_string()), e);
                i = e;
            }
            b'.' if !b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                push(Tok::Dot, i + 1);
                i += 1;
            }
            b'$' => {
                let e = ident_end(b, i + 1);
                push(Tok::Var(src[i + 1..e].to_string()), e);
                i = e;
            }
            b'(' => {
                push(Tok::LParen, i + 1);
                i += 1;
            }
            b')' => {
                push(Tok::RParen, i + 1);
                i += 1;
            }
            b'|' => {
                push(Tok::Pipe, i + 1);
                i += 1;
            }
            b',' => {
                push(Tok::Comma, i + 1);
                i += 1;
            }
            b':' if b.get(i + 1) == Some(&b'=') => {
                push(Tok::Declare, i + 2);
                i += 2;
            }
            b'=' => {
                push(Tok::Assign, i + 1);
                i += 1;
            }
            b'"' => {
                let (s, e) = go_string(src, i)?;
                push(Tok::Str(s), e);
                i = e;
            }
            b'`' => {
                let Some(k) = src[i + 1..].find('`') else {
                    return Err(err(i, src.len(), "unterminated raw string"));
                };
                let e = i + 1 + k + 1;
                push(Tok::Str(src[i + 1..e - 1].to_string()), e);
                i = e;
            }
            b'0'..=b'9' | b'-' | b'+' | b'.' => {
                let mut e = i + 1;
                while e < b.len()
                    && (b[e].is_ascii_alphanumeric()
                        || b[e] == b'.'
                        || b[e] == b'_'
                        || ((b[e] == b'+' || b[e] == b'-') && matches!(b[e - 1], b'e' | b'E')))
                {
                    e += 1;
                }
                let text = &src[i..e];
                let tok = if let Ok(v) = text.parse::<i64>() {
                    Tok::Int(v)
                } else if let Some(v) = text.parse::<f64>().ok().filter(|v| v.is_finite()) {
                    Tok::Float(v)
                } else {
                    return Err(err(i, e, format!("bad number syntax `{text}`")));
                };
                push(tok, e);
                i = e;
            }
            c if is_ident_start(c) => {
                let e = ident_end(b, i);
                let tok = match &src[i..e] {
                    "true" => Tok::True,
                    "false" => Tok::False,
                    "nil" => Tok::Nil,
                    w => Tok::Ident(w.to_string()),
                };
                push(tok, e);
                i = e;
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('\u{fffd}');
                return Err(err(
                    i,
                    i + ch.len_utf8(),
                    format!("unexpected {ch:?} in action"),
                ));
            }
        }
    }
}

fn is_ident_start(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphabetic()
}

fn ident_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric()) {
        i += 1;
    }
    i
}

/// A Go interpreted string literal at `i`; returns the value and the end offset.
fn go_string(src: &str, i: usize) -> Result<(String, usize), LexError> {
    let b = src.as_bytes();
    let mut out = String::new();
    let mut k = i + 1;
    loop {
        let Some(&c) = b.get(k) else {
            return Err(err(i, src.len(), "unterminated string"));
        };
        match c {
            b'"' => return Ok((out, k + 1)),
            b'\n' => return Err(err(i, k, "unterminated string")),
            b'\\' => {
                let e = k;
                let Some(&n) = b.get(k + 1) else {
                    return Err(err(i, src.len(), "unterminated string"));
                };
                let simple = match n {
                    b'a' => Some('\u{7}'),
                    b'b' => Some('\u{8}'),
                    b'f' => Some('\u{c}'),
                    b'n' => Some('\n'),
                    b'r' => Some('\r'),
                    b't' => Some('\t'),
                    b'v' => Some('\u{b}'),
                    b'\\' => Some('\\'),
                    b'"' => Some('"'),
                    _ => None,
                };
                if let Some(s) = simple {
                    out.push(s);
                    k += 2;
                    continue;
                }
                let (len, radix, skip) = match n {
                    b'x' => (2, 16, 2),
                    b'u' => (4, 16, 2),
                    b'U' => (8, 16, 2),
                    b'0'..=b'7' => (3, 8, 1),
                    _ => return Err(err(e, e + 2, "unknown escape sequence")),
                };
                let digits = src.get(k + skip..k + skip + len).unwrap_or("");
                let v = (digits.len() == len)
                    .then(|| u32::from_str_radix(digits, radix).ok())
                    .flatten();
                let ch = v.and_then(|v| {
                    if radix == 8 && v > 255 {
                        None
                    } else {
                        char::from_u32(v)
                    }
                });
                // `\x` and octal give bytes in Go; agc keeps them as code points below 256.
                let Some(ch) = ch else {
                    return Err(err(
                        e,
                        (k + skip + len).min(src.len()),
                        "invalid escape sequence",
                    ));
                };
                out.push(ch);
                k += skip + len;
            }
            _ => {
                let ch = src[k..].chars().next().unwrap_or('\u{fffd}');
                out.push(ch);
                k += ch.len_utf8();
            }
        }
    }
}
