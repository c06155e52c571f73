//! AGX, the AGS expression language (research notes `ags.md` §2): lexer, chumsky grammar,
//! checks, lowering to the core form, and a printer.
//!
//! Pipeline for one expression (a byte range of a decoded scalar):
//! 1. [`lexer`]: tokens; bad characters and `${{` (AG211) stop here.
//! 2. [`depth`]: nesting guard (AGC040) before anything recursive runs.
//! 3. [`parser`]: chumsky, every syntax error reported (AG204), with recovery at brackets.
//! 4. [`check`]: forms outside AGS 1.0 (indexing, method calls) and
//!    number range (AGC041).
//! 5. [`lower`]: core [`Expr`] with pre-order ids and a file-span side table.
//!
//! Not checked here (they need the document): function names and arity, scopes and
//! references, types. Those are the front end's, with the spans this module returns.

pub mod ast;
mod check;
pub mod depth;
mod error;
pub mod lexer;
mod lower;
pub mod parser;
mod print;
mod report;
pub mod token;

#[cfg(test)]
mod prop_tests;
#[cfg(test)]
mod tests;

pub use error::Error;
pub use print::print;

use crate::diag::Diagnostic;
use crate::expr::Local;
use crate::source::Span;
use crate::source::scalar::ScalarMap;
use agc_runtime::expr::Expr;
use chumsky::prelude::*;

/// Parses `src[start..end]` into a checked AGX tree (spans are offsets into `src`).
pub fn parse_range(src: &str, start: usize, end: usize) -> Result<ast::Expr, Vec<Error>> {
    if let Some(ast) = shortcut(src, start, end) {
        let mut errors = Vec::new();
        check::check(&ast, src, &mut errors);
        return if errors.is_empty() {
            Ok(ast)
        } else {
            Err(errors)
        };
    }
    parse_tokens(src, start, end)
}

/// Differential check of the shortcuts (fuzzing and property tests): where `simple_path` or
/// `simple_comparison` takes `src`, the parser must build the same tree with the same spans.
/// `Err` describes a disagreement; `Ok(true)` when a shortcut applied, `Ok(false)` when not.
#[doc(hidden)]
pub fn shortcut_agrees(src: &str) -> Result<bool, String> {
    let Some(fast) = shortcut(src, 0, src.len()) else {
        return Ok(false);
    };
    match parse_tokens(src, 0, src.len()) {
        Ok(slow) if slow == fast => Ok(true),
        Ok(slow) => Err(format!(
            "`{src}`: the shortcut built {fast:?}, the parser {slow:?}"
        )),
        Err(e) => Err(format!(
            "`{src}`: the shortcut accepted what the parser refuses: {e:?}"
        )),
    }
}

/// The shortcuts, tried on the range without the blanks around it (a `${{ x.y }}`
/// placeholder's inside is ` x.y `; the parser's tree and spans leave those blanks out too):
/// a path, a comparison of a path with a literal, or a lone `true`, `false` or `null`.
fn shortcut(src: &str, start: usize, end: usize) -> Option<ast::Expr> {
    let text = src.get(start..end)?;
    let start = start + (text.len() - text.trim_start_matches(' ').len());
    let end = end - (text.len() - text.trim_end_matches(' ').len());
    if start >= end {
        return None;
    }
    let kind = match &src[start..end] {
        "true" => ast::ExprKind::Bool(true),
        "false" => ast::ExprKind::Bool(false),
        "null" => ast::ExprKind::Null,
        _ => return simple_path(src, start, end).or_else(|| simple_comparison(src, start, end)),
    };
    Some(ast::Expr::new(kind, Local::from(start..end)))
}

/// The most common expression, a reference path `a.b.c` (ASCII names, no blanks, a root that
/// is no keyword, fewer than 16 dots), read without the lexer and the combinators: the tree
/// and spans the parser builds for it (a test compares them), at a fraction of the cost.
/// `None` for anything else.
fn simple_path(src: &str, start: usize, end: usize) -> Option<ast::Expr> {
    let text = src.get(start..end)?;
    let is_name = |s: &str| {
        s.as_bytes()
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
            && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
    };
    // Long chains go to the parser, whose depth check reports them (AGC040).
    if text.bytes().filter(|&b| b == b'.').count() >= 16 {
        return None;
    }
    let mut parts = text.split('.');
    let root = parts.next()?;
    if !is_name(root)
        || matches!(
            root,
            "true" | "false" | "null" | "and" | "or" | "not" | "in"
        )
    {
        return None;
    }
    let mut at = start + root.len();
    let mut e = ast::Expr::new(
        ast::ExprKind::Ident(root.to_string()),
        Local::from(start..at),
    );
    for field in parts {
        if !is_name(field) {
            return None;
        }
        at += 1 + field.len();
        e = ast::Expr::new(
            ast::ExprKind::Member {
                target: Box::new(e),
                field: field.to_string(),
            },
            Local::from(start..at),
        );
    }
    Some(e)
}

/// The next most common shape, `PATH OP VALUE` with single blanks around a comparison
/// operator and VALUE a decimal integer, `true`, `false`, `null` or a quoted string of name
/// characters (`nodes.a.outputs.count > 3`, `x == 'detailed'`): the parser's tree and spans
/// (tested), without the lexer and the combinators. `None` for anything else.
fn simple_comparison(src: &str, start: usize, end: usize) -> Option<ast::Expr> {
    use agc_runtime::expr::BinaryOp;
    let text = src.get(start..end)?;
    let mut parts = text.split(' ');
    let (left, op, right) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let op = match op {
        "==" => BinaryOp::Eq,
        "!=" => BinaryOp::Ne,
        "<" => BinaryOp::Lt,
        "<=" => BinaryOp::Le,
        ">" => BinaryOp::Gt,
        ">=" => BinaryOp::Ge,
        _ => return None,
    };
    let l = simple_path(src, start, start + left.len())?;
    let r_start = end - right.len();
    let kind = match right.as_bytes() {
        b"true" => ast::ExprKind::Bool(true),
        b"false" => ast::ExprKind::Bool(false),
        b"null" => ast::ExprKind::Null,
        [b'0'] => ast::ExprKind::Int {
            value: Some(0),
            negative: false,
        },
        [b'1'..=b'9', rest @ ..] if rest.len() < 18 && rest.iter().all(u8::is_ascii_digit) => {
            ast::ExprKind::Int {
                value: Some(right.parse().ok()?),
                negative: false,
            }
        }
        [q @ (b'\'' | b'"'), inner @ .., last]
            if last == q
                && inner
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')) =>
        {
            ast::ExprKind::Str(right[1..right.len() - 1].to_string())
        }
        _ => return None,
    };
    let r = ast::Expr::new(kind, Local::from(r_start..end));
    Some(ast::Expr::new(
        ast::ExprKind::Binary {
            op,
            left: Box::new(l),
            right: Box::new(r),
        },
        Local::from(start..end),
    ))
}

/// [`parse_range`] through the lexer and the parser.
fn parse_tokens(src: &str, start: usize, end: usize) -> Result<ast::Expr, Vec<Error>> {
    let lexed = lexer::lex(src, start, end);
    if lexed.fatal {
        return Err(lexed.errors);
    }
    let mut errors = lexed.errors;
    if let Err(e) = depth::check(&lexed.tokens) {
        errors.push(e);
        return Err(errors);
    }
    let eoi = Local::from(end..end);
    let input = lexed.tokens.as_slice().map(eoi, |(t, s)| (t, s));
    let (ast, parse_errors) = parser::parser().parse(input).into_output_errors();
    // A parse error inside a string the lexer already reported (unterminated) is its echo.
    let mut lex_spans: Vec<(usize, usize)> = errors
        .iter()
        .map(|e| (e.span.start, e.span.end.max(e.span.start + 1)))
        .collect();
    lex_spans.sort_unstable();
    // Lexer errors do not overlap, so the one starting last at or before `at` is the only
    // candidate to contain it.
    let inside_lex_error = |at: usize| {
        let n = lex_spans.partition_point(|&(s, _)| s <= at);
        n > 0 && at < lex_spans[n - 1].1
    };
    errors.extend(
        parse_errors
            .iter()
            .map(|e| report::reword(e, &lexed.tokens, end))
            .filter(|e| !inside_lex_error(e.span.start)),
    );
    if let Some(ast) = &ast {
        check::check(ast, src, &mut errors);
    }
    match ast {
        Some(ast) if errors.is_empty() => Ok(ast),
        _ => {
            if errors.is_empty() {
                errors.push(Error::syntax(eoi, "the expression could not be parsed"));
            }
            Err(errors)
        }
    }
}

/// Lowers a checked tree; ids start at `spans.len()`.
pub fn lower_into(ast: &ast::Expr, map: &ScalarMap, spans: &mut Vec<Span>) -> Expr {
    lower::lower(ast, map, spans)
}

/// Parses a whole string in expression position (`when:`, `condition:`, `expr:` ...).
///
/// `src` is the decoded scalar and `map` maps its offsets into the file. On success: the core
/// expression (`Lang::Agx` semantics) and the file span of every node, indexed by node id
/// (ids are pre-order from 0). On failure: every diagnostic, in source order.
pub fn parse_agx(src: &str, map: &ScalarMap) -> Result<(Expr, Vec<Span>), Vec<Diagnostic>> {
    match parse_range(src, 0, src.len()) {
        Ok(ast) => {
            let mut spans = Vec::new();
            let expr = lower_into(&ast, map, &mut spans);
            Ok((expr, spans))
        }
        Err(errors) => Err(error::into_diagnostics(errors, map)),
    }
}

/// Converts errors from [`parse_range`] into diagnostics, in source order.
pub fn diagnostics(errors: Vec<Error>, map: &ScalarMap) -> Vec<Diagnostic> {
    error::into_diagnostics(errors, map)
}
