//! The CEL grammar (chumsky 0.13 over the lexer's tokens).
//!
//! Precedence, loosest first, as in the language definition: `?:` (right), `||`, `&&`,
//! relations `< <= >= > == != in`, `+ -`, `* / %` (all left), unary `!`/`-` runs, then member
//! access `.f`, receiver calls `.f(..)` and indexing `[..]`. Binary levels are one chumsky Pratt
//! parser; unary runs and postfix chains are counted and folded iteratively, so neither
//! recurses per operator.
//!
//! Decisions:
//! - A unary run is one operator repeated (`!!x`, `--x`); the grammar has no `!-x`, so mixing
//!   is a syntax error, as in cel-go.
//! - `-` directly before an int or double literal is part of the literal (cel-go's grammar
//!   `literal: MINUS? NUM_INT`), which is how `-9223372036854775808` is written; `-(1)` stays a
//!   negation. `-1u` is a negation of a uint (a type error later).
//! - Call arguments take no trailing comma; list and map literals do.
//! - The parenthesized expression keeps the inner node's span (cel-go does the same).
//! - Depth: bracket nesting and ternary nesting are checked on the token stream *before*
//!   parsing (so the grammar never recurses more than [`MAX_NESTING`] levels), and every tree
//!   node is built through [`Ast::new`], which caps the height (see `ast.rs`).

use chumsky::input::{Input as _, MappedInput, ValueInput};
use chumsky::prelude::*;

use super::ast::{Ast, AstKind, Lit};
use super::lexer::Token;
use agc_runtime::expr::{BinaryOp, UnaryOp};

/// Most nested brackets, unary runs and conditionals an expression may have.
pub const MAX_NESTING: usize = 64;

type Extra<'s> = extra::Err<Rich<'s, Token, SimpleSpan>>;
pub type Tokens<'s> = MappedInput<'s, Token, SimpleSpan, &'s [(Token, SimpleSpan)]>;

/// A number literal that a directly preceding `-` may fold into.
#[derive(Clone, Copy)]
enum Bare {
    Int(u64),
    Double(f64),
    No,
}

fn rng(s: SimpleSpan) -> (usize, usize) {
    (s.start, s.end)
}

/// A nesting violation found by [`check_nesting`]: the token range and what nested.
pub struct TooNested {
    pub start: usize,
    pub end: usize,
    pub what: &'static str,
}

/// Checks bracket, unary-run and conditional nesting on the token stream, iteratively.
pub fn check_nesting(toks: &[(Token, SimpleSpan)]) -> Option<TooNested> {
    // One frame per open bracket: the number of `?` seen at that level since the last comma.
    let mut frames: Vec<usize> = vec![0];
    let mut run = 0usize;
    let mut prev: Option<&Token> = None;
    for (tok, span) in toks {
        let unary_pos = matches!(
            prev,
            None | Some(
                Token::LParen
                    | Token::LBracket
                    | Token::LBrace
                    | Token::Comma
                    | Token::Colon
                    | Token::Question
                    | Token::Plus
                    | Token::Minus
                    | Token::Star
                    | Token::Slash
                    | Token::Percent
                    | Token::Bang
                    | Token::EqEq
                    | Token::NotEq
                    | Token::Lt
                    | Token::Le
                    | Token::Gt
                    | Token::Ge
                    | Token::AndAnd
                    | Token::OrOr
                    | Token::In
            )
        );
        match tok {
            Token::Bang | Token::Minus if unary_pos => run += 1,
            _ => run = 0,
        }
        match tok {
            Token::LParen | Token::LBracket | Token::LBrace => frames.push(0),
            Token::RParen | Token::RBracket | Token::RBrace if frames.len() > 1 => {
                frames.pop();
            }
            Token::Comma => *frames.last_mut().unwrap_or(&mut 0) = 0,
            Token::Question => {
                if let Some(f) = frames.last_mut() {
                    *f += 1;
                }
            }
            _ => {}
        }
        let depth = frames.len() - 1 + frames.iter().sum::<usize>().min(usize::MAX / 2) + run;
        if depth > MAX_NESTING {
            let what = match tok {
                Token::Bang | Token::Minus => "unary operators",
                Token::Question => "conditionals",
                _ => "brackets",
            };
            return Some(TooNested {
                start: span.start,
                end: span.end,
                what,
            });
        }
        prev = Some(tok);
    }
    None
}

/// Parses a token slice; `end` is the length of the text (for the end-of-input span).
pub fn parse(toks: &[(Token, SimpleSpan)], end: usize) -> (Option<Ast>, Vec<Rich<'_, Token>>) {
    let input = toks.split_token_span(SimpleSpan::from(end..end));
    expr_parser().parse(input).into_output_errors()
}

fn expr_parser<'s, I>() -> impl Parser<'s, I, Ast, Extra<'s>> + Clone
where
    I: ValueInput<'s, Token = Token, Span = SimpleSpan>,
{
    let expr = recursive(|expr| {
        let ident = select! { Token::Ident(n) => n }.labelled("identifier");
        let reserved = select! { Token::Reserved(w) => w };

        let args = expr
            .clone()
            .separated_by(just(Token::Comma))
            .collect::<Vec<Ast>>()
            .delimited_by(just(Token::LParen), just(Token::RParen));

        let literal = select! {
            Token::Int(v) = e => (
                if v <= i64::MAX as u64 {
                    Ast::leaf(AstKind::Lit(Lit::Int(v as i64)), rng(e.span()))
                } else {
                    Ast::leaf(AstKind::IntOutOfRange, rng(e.span()))
                },
                Bare::Int(v),
            ),
            Token::Double(v) = e => (Ast::leaf(AstKind::Lit(Lit::Double(v)), rng(e.span())), Bare::Double(v)),
            Token::Uint(v) = e => (Ast::leaf(AstKind::Lit(Lit::Uint(v)), rng(e.span())), Bare::No),
            Token::Str(s) = e => (Ast::leaf(AstKind::Lit(Lit::String(s)), rng(e.span())), Bare::No),
            Token::Bytes(b) = e => (Ast::leaf(AstKind::Lit(Lit::Bytes(b)), rng(e.span())), Bare::No),
            Token::True = e => (Ast::leaf(AstKind::Lit(Lit::Bool(true)), rng(e.span())), Bare::No),
            Token::False = e => (Ast::leaf(AstKind::Lit(Lit::Bool(false)), rng(e.span())), Bare::No),
            Token::Null = e => (Ast::leaf(AstKind::Lit(Lit::Null), rng(e.span())), Bare::No),
        }
        .labelled("literal");

        // `name`, `.name`, `name(args)`, `.name(args)`.
        let name = just(Token::Dot)
            .or_not()
            .then(
                ident
                    .or(reserved.map(|w| w.to_string()))
                    .map_with(|n, e| (n, e.span())),
            )
            .then(args.clone().or_not())
            .map_with(|((dot, (name, nspan)), args), e| {
                let span = rng(e.span());
                let kind = match args {
                    Some(args) => AstKind::Call {
                        target: None,
                        function: name,
                        function_span: rng(nspan),
                        args,
                    },
                    None => AstKind::Ident {
                        name,
                        leading_dot: dot.is_some(),
                    },
                };
                (Ast::new(kind, span), Bare::No)
            });

        let paren = expr
            .clone()
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .map(|a| (a, Bare::No));

        let list = expr
            .clone()
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<Ast>>()
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .map_with(|items, e| (Ast::new(AstKind::List(items), rng(e.span())), Bare::No));

        let entry = expr
            .clone()
            .then_ignore(just(Token::Colon))
            .then(expr.clone());
        let map = entry
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<(Ast, Ast)>>()
            .delimited_by(just(Token::LBrace), just(Token::RBrace))
            .map_with(|entries, e| (Ast::new(AstKind::Map(entries), rng(e.span())), Bare::No));

        let primary = choice((literal, name, paren, list, map)).labelled("expression");

        enum Post {
            Field(String, SimpleSpan, Option<Vec<Ast>>),
            Index(Ast),
            Message(Vec<(String, Ast)>),
        }
        let field = just(Token::Dot)
            .ignore_then(
                ident
                    .or(reserved.map(|w| w.to_string()))
                    .map_with(|n, e| (n, e.span()))
                    .labelled("field name"),
            )
            .then(args.or_not())
            .map(|((n, s), a)| Post::Field(n, s, a));
        let index = expr
            .clone()
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .map(Post::Index);
        let field_init = ident
            .or(reserved.map(|w| w.to_string()))
            .then_ignore(just(Token::Colon))
            .then(expr.clone());
        let message = field_init
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<(String, Ast)>>()
            .delimited_by(just(Token::LBrace), just(Token::RBrace))
            .map(Post::Message);
        let member = primary.foldl_with(
            choice((field, index, message)).repeated(),
            |(target, bare), post, e| {
                let span = rng(e.span());
                let _ = bare;
                let kind = match post {
                    Post::Field(field, fspan, None) => AstKind::Select {
                        target: Box::new(target),
                        field,
                        field_span: rng(fspan),
                    },
                    Post::Field(function, fspan, Some(args)) => AstKind::Call {
                        target: Some(Box::new(target)),
                        function,
                        function_span: rng(fspan),
                        args,
                    },
                    Post::Index(index) => AstKind::Index {
                        target: Box::new(target),
                        index: Box::new(index),
                    },
                    Post::Message(fields) => AstKind::Message {
                        type_name: Box::new(target),
                        fields,
                    },
                };
                (Ast::new(kind, span), Bare::No)
            },
        );

        let op_run = |tok: Token| {
            just(tok)
                .map_with(|_, e| e.span())
                .repeated()
                .at_least(1)
                .collect::<Vec<SimpleSpan>>()
        };
        let unary = choice((
            op_run(Token::Bang).map(|v| (UnaryOp::Not, v)),
            op_run(Token::Minus).map(|v| (UnaryOp::Neg, v)),
        ))
        .or_not()
        .then(member)
        .map(|(ops, (operand, bare))| fold_unary(ops, operand, bare));

        // One parser per precedence level, each a left fold of the level below (not chumsky's
        // Pratt parser: its operator loop re-parses operands when an operator after them fails
        // to parse, which a fuzzer showed to be exponential in the input, as it was for AGX).
        let bin = |tok: Token, op: BinaryOp| just(tok).to(op);
        let mul = level(
            unary,
            choice((
                bin(Token::Star, BinaryOp::Mul),
                bin(Token::Slash, BinaryOp::Div),
                bin(Token::Percent, BinaryOp::Rem),
            )),
        );
        let add = level(
            mul,
            choice((
                bin(Token::Plus, BinaryOp::Add),
                bin(Token::Minus, BinaryOp::Sub),
            )),
        );
        let rel = level(
            add,
            choice((
                bin(Token::EqEq, BinaryOp::Eq),
                bin(Token::NotEq, BinaryOp::Ne),
                bin(Token::Le, BinaryOp::Le),
                bin(Token::Lt, BinaryOp::Lt),
                bin(Token::Ge, BinaryOp::Ge),
                bin(Token::Gt, BinaryOp::Gt),
                bin(Token::In, BinaryOp::In),
            )),
        );
        let and = level(rel, bin(Token::AndAnd, BinaryOp::And));
        let or_expr = level(and, bin(Token::OrOr, BinaryOp::Or));

        or_expr
            .clone()
            .then(
                just(Token::Question)
                    .ignore_then(or_expr)
                    .then_ignore(just(Token::Colon))
                    .then(expr)
                    .or_not(),
            )
            .map(|(cond, rest)| match rest {
                None => cond,
                Some((then, otherwise)) => {
                    let span = (cond.span.0, otherwise.span.1);
                    Ast::new(
                        AstKind::Cond {
                            cond: Box::new(cond),
                            then: Box::new(then),
                            otherwise: Box::new(otherwise),
                        },
                        span,
                    )
                }
            })
    });
    expr.then_ignore(end())
}

/// One left-associative precedence level: `below ( op below )*`.
fn level<'s, I, B, O>(below: B, op: O) -> Boxed<'s, 's, I, Ast, Extra<'s>>
where
    I: ValueInput<'s, Token = Token, Span = SimpleSpan>,
    B: Parser<'s, I, Ast, Extra<'s>> + Clone + 's,
    O: Parser<'s, I, BinaryOp, Extra<'s>> + Clone + 's,
{
    below
        .clone()
        .foldl(
            op.then(below).repeated(),
            |l: Ast, (op, r): (BinaryOp, Ast)| {
                let span = (l.span.0.min(r.span.0), r.span.1.max(l.span.1));
                Ast::new(
                    AstKind::Binary {
                        op,
                        left: Box::new(l),
                        right: Box::new(r),
                    },
                    span,
                )
            },
        )
        .boxed()
}

/// Applies a run of unary operators innermost-first; a `-` directly before a number literal
/// becomes part of the literal.
fn fold_unary(ops: Option<(UnaryOp, Vec<SimpleSpan>)>, operand: Ast, bare: Bare) -> Ast {
    let Some((op, mut spans)) = ops else {
        return operand;
    };
    let mut node = operand;
    if op == UnaryOp::Neg {
        let lit = match bare {
            Bare::Int(v) if v <= 1u64 << 63 => Some(Lit::Int((v as i64).wrapping_neg())),
            Bare::Double(d) => Some(Lit::Double(-d)),
            _ => None,
        };
        if let Some(lit) = lit {
            let minus = spans.pop().map_or(node.span.0, |s| s.start);
            node = Ast::leaf(AstKind::Lit(lit), (minus, node.span.1));
        }
    }
    for s in spans.into_iter().rev() {
        let span = (s.start, node.span.1);
        node = Ast::new(
            AstKind::Unary {
                op,
                operand: Box::new(node),
            },
            span,
        );
    }
    node
}
