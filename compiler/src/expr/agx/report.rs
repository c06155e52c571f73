//! Chumsky's errors, reworded for people: what was expected, after what, and what was found.
//!
//! `expected an operand after `&&`, found end of expression` reads better than a list of every
//! token that could start an operand, so expected sets are collapsed into a few categories
//! (an operand, an operator, a closing bracket, a comma, the end) and the token just before the
//! error is named when it explains the expectation.

use super::error::Error;
use super::parser::ParseError;
use super::token::Token;
use crate::expr::Local;
use chumsky::error::{RichPattern, RichReason};

/// Rewords one parse error; `tokens` is the token list that was parsed, `eoi` its end.
pub fn reword(e: &ParseError<'_, '_>, tokens: &[(Token<'_>, Local)], eoi: usize) -> Error {
    let span = *e.span();
    let (expected, found) = match e.reason() {
        RichReason::ExpectedFound { expected, found } => (expected.as_slice(), found.as_deref()),
        RichReason::Custom(msg) => return Error::syntax(span, msg.clone()),
    };
    let mut operand = false;
    let mut operator = false;
    let mut closers: Vec<&'static str> = Vec::new();
    let mut comma = false;
    let mut end = false;
    let mut name = false;
    // The token just before the error, when it explains what was expected.
    let n = tokens.partition_point(|(_, s)| s.end <= span.start);
    let before = n.checked_sub(1).map(|i| &tokens[i].0);
    let operand_next = before.is_none_or(|t| t.wants_operand() || *t == Token::Minus);
    for p in expected {
        match p {
            RichPattern::Label(l) if l == "an operand" => operand = true,
            RichPattern::Label(l) if l == "a name" => name = true,
            RichPattern::Token(t) => match &**t {
                Token::RParen => closers.push("`)`"),
                Token::RBracket => closers.push("`]`"),
                Token::Comma => comma = true,
                Token::Bang | Token::Not => operand = true,
                Token::Minus | Token::LParen | Token::LBracket if operand_next => operand = true,
                t if t.is_binary() || matches!(t, Token::Dot | Token::LParen | Token::LBracket) => {
                    operator = true
                }
                _ => operand = true,
            },
            RichPattern::EndOfInput => end = true,
            _ => {}
        }
    }
    closers.sort();
    closers.dedup();
    let mut parts: Vec<String> = Vec::new();
    if name {
        parts.push("a name".into());
    }
    if operand {
        parts.push("an operand".into());
    }
    if operator {
        parts.push("an operator".into());
    }
    if comma {
        parts.push("`,`".into());
    }
    parts.extend(closers.iter().map(|s| s.to_string()));
    if end {
        parts.push("the end of the expression".into());
    }
    let found_text = match found {
        Some(t) => t.to_string(),
        None => "end of expression".to_string(),
    };
    if tokens.is_empty() {
        return Error::syntax(Local::from(eoi..eoi), "the expression is empty")
            .label("expected an expression here");
    }
    let expected_text = match parts.len() {
        0 => "something else".to_string(),
        1 => parts[0].clone(),
        n => format!("{} or {}", parts[..n - 1].join(", "), parts[n - 1]),
    };
    let after = match (before, operand || name) {
        (Some(t), true) if t.wants_operand() || matches!(t, Token::Minus | Token::Dot) => {
            format!(" after {t}")
        }
        _ => String::new(),
    };
    let mut err = Error::syntax(
        span,
        format!("expected {expected_text}{after}, found {found_text}"),
    )
    .label(format!("unexpected {found_text}"));
    if let Some(kw) = found.and_then(Token::keyword).filter(|_| operand || name) {
        err = err.help(format!(
            "`{kw}` is a keyword; a name that is a keyword can be read with `get(obj, \"{kw}\")`"
        ));
    } else if found.is_some()
        && operator
        && !operand
        && matches!(
            found,
            Some(Token::Ident(_) | Token::Str(_) | Token::Int(_) | Token::Float(_))
        )
    {
        err = err.help("two operands in a row: is an operator such as `&&` or `==` missing?");
    }
    err
}
