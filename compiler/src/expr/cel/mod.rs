//! CEL (Common Expression Language) conditions: lexer, chumsky grammar, lowering, printer.
//!
//! The grammar is the CEL language definition's (`google/cel-spec` `doc/langdef.md`), with
//! the macros `has`, `all`, `exists`, `exists_one`, `map` (2 and 3 arguments) and `filter`.
//! Message construction `T{..}` parses but is rejected: agc has no protobuf types.
//!
//! Pipeline: [`lexer::lex`] → [`parser::check_nesting`] (an iterative pass over the tokens, so
//! no input can make the grammar recurse deeply) → [`parser::parse`] → [`lower::Lowerer`].
//! All lexing errors are reported together; if there are none, the first syntax error; then
//! every lowering error.

pub mod ast;
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod print;

use chumsky::error::{Rich, RichPattern, RichReason};
use chumsky::span::SimpleSpan;

use crate::diag::Diagnostic;
use crate::expr::{CODE_SYNTAX, CODE_TOO_DEEP};
use crate::source::Span;
use crate::source::scalar::ScalarMap;
use agc_runtime::expr::Expr;

pub use print::print_cel;

/// Parses a CEL expression. `src` is the decoded string; `map` maps its offsets to the file.
pub fn parse_cel(src: &str, map: &ScalarMap) -> Result<(Expr, Vec<Span>), Vec<Diagnostic>> {
    let (toks, lex_errs) = lexer::lex(src);
    if !lex_errs.is_empty() {
        return Err(lex_errs
            .into_iter()
            .map(|e| Diagnostic::error(CODE_SYNTAX, e.message).at(map.span(e.start, e.end)))
            .collect());
    }
    let toks: Vec<(lexer::Token, SimpleSpan)> = toks
        .into_iter()
        .map(|(t, s, e)| (t, SimpleSpan::from(s..e)))
        .collect();
    if let Some(n) = parser::check_nesting(&toks) {
        return Err(vec![
            Diagnostic::error(
                CODE_TOO_DEEP,
                format!(
                    "expression nests {} more than {} levels deep",
                    n.what,
                    parser::MAX_NESTING
                ),
            )
            .at(map.span(n.start, n.end))
            .with_help("split the expression into smaller ones"),
        ]);
    }
    let (ast, errs) = parser::parse(&toks, src.len());
    if let Some(e) = errs.first() {
        return Err(vec![syntax_error(e, map)]);
    }
    let Some(ast) = ast else {
        return Err(vec![
            Diagnostic::error(CODE_SYNTAX, "expected an expression").at(map.span(0, src.len())),
        ]);
    };
    let mut lw = lower::Lowerer::new(map);
    let expr = lw.lower(&ast);
    if lw.diags.is_empty() {
        Ok((expr, lw.spans))
    } else {
        Err(lw.diags)
    }
}

fn pattern(p: &RichPattern<'_, lexer::Token>) -> String {
    match p {
        RichPattern::Token(t) => (**t).to_string(),
        RichPattern::Label(l) => l.to_string(),
        RichPattern::Identifier(i) => format!("`{i}`"),
        RichPattern::Any => "any token".into(),
        RichPattern::SomethingElse => "something else".into(),
        RichPattern::EndOfInput => "end of input".into(),
        _ => "something else".into(),
    }
}

/// What the parser expected, grouped: tokens that can start an expression go under
/// "an expression", and binary operators and postfix openers under "an operator".
fn expected_list(e: &Rich<'_, lexer::Token>) -> String {
    use lexer::Token as T;
    let mut out = Vec::new();
    let (mut expr, mut op) = (false, false);
    for p in e.expected() {
        match p {
            RichPattern::Label(l) if l == "expression" => expr = true,
            RichPattern::Token(t) => match &**t {
                T::Bang => expr = true,
                T::Plus
                | T::Minus
                | T::Star
                | T::Slash
                | T::Percent
                | T::EqEq
                | T::NotEq
                | T::Lt
                | T::Le
                | T::Gt
                | T::Ge
                | T::AndAnd
                | T::OrOr
                | T::In
                | T::Dot
                | T::LBracket
                | T::LBrace
                | T::LParen
                | T::Question => op = true,
                _ => out.push(pattern(p)),
            },
            _ => out.push(pattern(p)),
        }
    }
    if expr {
        // `-` is both an operator and a unary prefix; where an expression may start, it is one.
        out.push("an expression".into());
    } else if op {
        out.push("an operator".into());
    }
    one_of(out)
}

/// "a", "a or b", "a, b or c".
pub(crate) fn one_of(mut items: Vec<String>) -> String {
    items.sort();
    items.dedup();
    match items.len() {
        0 => "something else".into(),
        1 => items.remove(0),
        n => format!("{} or {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

fn syntax_error(e: &Rich<'_, lexer::Token>, map: &ScalarMap) -> Diagnostic {
    let span = e.span();
    let msg = match e.reason() {
        RichReason::ExpectedFound { found, .. } => {
            let found = match found {
                Some(t) => format!("unexpected {}", **t),
                None => "unexpected end of expression".into(),
            };
            format!("{found}; expected {}", expected_list(e))
        }
        RichReason::Custom(msg) => msg.to_string(),
    };
    Diagnostic::error(CODE_SYNTAX, msg).at(map.span(span.start, span.end))
}
