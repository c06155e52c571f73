//! AGS `${{ }}` templates: literal text with embedded AGX (research notes `ags.md` §2.1).
//!
//! A template is literal text with `${{ expression }}` placeholders; it lowers to one
//! [`ExprKind::Template`] node (id 0, spanning the whole scalar) whose expression parts follow in
//! pre-order. Decisions where the spec is silent (`ags.md` §7.2):
//!
//! - **Closing `}}`.** A placeholder ends at the first `}}` *outside an AGX string literal*, so
//!   `${{ "}}" }}` works. Every template the reference implementations accept (they close at the
//!   first `}}`, whatever it is in) means the same here. If quotes do not balance before the end,
//!   the placeholder closes at the first `}}` after all (as upstream does), and the unterminated
//!   string is then reported inside it, which is the more useful message.
//! - **Literal `${{`.** There is no escape syntax; write a string expression:
//!   `${{ "${{" }}` renders `${{`, and so does the reference regex.
//! - **Unterminated `${{`** (no `}}` after it): AGC042. The reference leaves such text
//!   unrendered, which hides the typo; agc refuses it.
//! - **Empty `${{ }}`**: AG204, since the inside is not an expression.
//! - A lone `}}` or `$` in text is literal text.
//! - MagAgent returns the raw value when the template is exactly one placeholder; the spec does
//!   not, and neither does agc: a template always renders a string.
//!
//! [`find_interpolation`] is the AG211 detector for fields in expression position (it is also
//! what [`parse_agx`](super::parse_agx) reports).

use super::Local;
use super::agx::{self, Error, lexer};
use crate::diag::Diagnostic;
use crate::source::Span;
use crate::source::scalar::ScalarMap;
use agc_runtime::expr::{Expr, ExprKind, TemplatePart};

/// One piece of a template source, as byte ranges of the decoded string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Text(std::ops::Range<usize>),
    /// `${{ inner }}`: the whole placeholder and its inside.
    Placeholder {
        whole: std::ops::Range<usize>,
        inner: std::ops::Range<usize>,
    },
}

/// Splits a template into text and placeholders; an unterminated `${{` is an error (and the
/// rest of the string is not split further).
pub fn split(src: &str) -> (Vec<Piece>, Vec<Error>) {
    let mut pieces = Vec::new();
    let mut errors = Vec::new();
    let mut at = 0;
    while let Some(i) = src[at..].find("${{").map(|i| at + i) {
        if i > at {
            pieces.push(Piece::Text(at..i));
        }
        let inner_start = i + 3;
        match close_of(src, inner_start) {
            Some(close) => {
                pieces.push(Piece::Placeholder {
                    whole: i..close + 2,
                    inner: inner_start..close,
                });
                at = close + 2;
            }
            None => {
                errors.push(
                    Error::new(
                        "AGC042",
                        Local::from(i..src.len()),
                        "`${{` is never closed by `}}`",
                    )
                    .label("this placeholder has no closing `}}`")
                    .help("close it with `}}`; to write a literal `${{`, use `${{ \"${{\" }}`"),
                );
                at = src.len();
                break;
            }
        }
    }
    if at < src.len() {
        pieces.push(Piece::Text(at..src.len()));
    }
    (pieces, errors)
}

/// Byte offset of the `}}` closing a placeholder whose inside starts at `from`.
fn close_of(src: &str, from: usize) -> Option<usize> {
    let b = src.as_bytes();
    let mut i = from;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        match (quote, b[i]) {
            (Some(_), b'\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, c @ (b'"' | b'\'')) => quote = Some(c),
            (None, b'}') if b.get(i + 1) == Some(&b'}') => return Some(i),
            (None, _) => {}
        }
        i += 1;
    }
    // Quotes did not balance: fall back to the first `}}` (the reference's rule).
    src[from..].find("}}").map(|j| from + j)
}

/// Parses a string in template position (`instructions:`, `prompt:`, `template:` ...).
///
/// On success: an [`ExprKind::Template`] (id 0, span of the whole string) whose expression
/// parts are AGX, and the file span of every node indexed by id.
pub fn parse_template(src: &str, map: &ScalarMap) -> Result<(Expr, Vec<Span>), Vec<Diagnostic>> {
    let (pieces, mut errors) = split(src);
    let mut asts = Vec::new();
    for piece in &pieces {
        if let Piece::Placeholder { whole, inner } = piece {
            if src[inner.clone()].trim().is_empty() {
                errors.push(
                    Error::syntax(Local::from(whole.clone()), "empty `${{ }}` placeholder")
                        .help("put an AGX expression inside, such as `${{ params.name }}`"),
                );
                continue;
            }
            match agx::parse_range(src, inner.start, inner.end) {
                Ok(ast) => asts.push(ast),
                Err(mut es) => errors.append(&mut es),
            }
        }
    }
    if !errors.is_empty() {
        return Err(agx::diagnostics(errors, map));
    }
    let mut spans = vec![map.span(0, src.len())];
    let mut asts = asts.into_iter();
    let mut parts = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Text(r) => parts.push(TemplatePart::Text {
                text: src[r].to_string(),
            }),
            Piece::Placeholder { .. } => {
                if let Some(ast) = asts.next() {
                    let expr = agx::lower_into(&ast, map, &mut spans);
                    parts.push(TemplatePart::Expr { expr });
                }
            }
        }
    }
    Ok((
        Expr {
            id: 0,
            kind: ExprKind::Template { parts },
        },
        spans,
    ))
}

/// AG211: every `${{ … }}` outside string literals in a string that is in expression
/// position. Empty when there is none.
pub fn find_interpolation(src: &str, map: &ScalarMap) -> Vec<Diagnostic> {
    let lexed = lexer::lex(src, 0, src.len());
    let errors = lexed
        .errors
        .into_iter()
        .filter(|e| e.code == "AG211")
        .collect();
    agx::diagnostics(errors, map)
}
