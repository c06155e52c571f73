//! The AGX grammar in chumsky (0.13), over the token list of [`super::lexer`]: one parser per
//! precedence level, each a left fold (`foldl`) of the level below, as in the grammar itself.
//!
//! Not chumsky's Pratt parser: its operator loop retries every postfix and infix operator in
//! every enclosing binding-power frame, so a failing `f(…)` deep inside is re-parsed once per
//! frame and per level, exponentially in nesting (the fuzzer found a 110-byte input taking
//! 50 s). With one level per precedence, each operator is tried at one level only.
//!
//! ```text
//! expression := or_expr                          precedence, loosest first (all left-assoc):
//! or_expr    := and_expr ( ("||"|"or") and_expr )*     1  || or
//! and_expr   := in_expr  ( ("&&"|"and") in_expr )*     2  && and
//! in_expr    := eq_expr  ( "in" eq_expr )*             3  in
//! eq_expr    := cmp_expr ( ("=="|"!=") cmp_expr )*     4  == !=
//! cmp_expr   := add_expr ( ("<"|"<="|">"|">=") … )*     5  < <= > >=
//! add_expr   := mul_expr ( ("+"|"-") mul_expr )*       6  + -
//! mul_expr   := unary ( ("*"|"/"|"%") unary )*         7  * / %
//! unary      := ("!"|"not"|"-") unary | postfix        8  prefix ! not -
//! postfix    := primary ( "." NAME | "[" expr "]" | "(" args ")" )*   9 (checked later)
//! primary    := literal | IDENT | "(" expr ")" | "[" args "]"
//! ```
//!
//! A `-` directly in front of a number literal is folded into the literal (`-1` is the integer
//! −1, and `-9223372036854775808` is representable); `-(1)` stays a negation.
//!
//! Recovery: a bracketed part that fails to parse is skipped to its matching bracket and
//! replaced by an error node, so one mistake inside `f(…)` does not hide the next one.

use super::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use super::token::Token;
use crate::expr::Local;
use chumsky::input::ValueInput;
use chumsky::prelude::*;

pub type ParseError<'t, 's> = Rich<'t, Token<'s>, Local>;
type Extra<'t, 's> = extra::Err<ParseError<'t, 's>>;

fn bin(op: BinaryOp, l: Expr, r: Expr, span: Local) -> Expr {
    Expr::new(
        ExprKind::Binary {
            op,
            left: Box::new(l),
            right: Box::new(r),
        },
        span,
    )
}

fn unary(op: UnaryOp, operand: Expr, span: Local) -> Expr {
    let kind = match (op, operand.kind) {
        (
            UnaryOp::Neg,
            ExprKind::Int {
                value,
                negative: false,
            },
        ) => ExprKind::Int {
            value,
            negative: true,
        },
        (UnaryOp::Neg, ExprKind::Float(f)) if f.is_sign_positive() => ExprKind::Float(-f),
        (op, kind) => ExprKind::Unary {
            op,
            operand: Box::new(Expr::new(kind, operand.span)),
        },
    };
    Expr::new(kind, span)
}

/// A postfix operation, before it is folded onto its target.
enum Post {
    Member(String),
    Index(Expr),
    Call(Vec<Expr>),
}

/// One left-associative precedence level: `below ( op below )*`.
fn level<'t, 's: 't, I, B, O>(below: B, op: O) -> Boxed<'t, 't, I, Expr, Extra<'t, 's>>
where
    I: ValueInput<'t, Token = Token<'s>, Span = Local>,
    B: Parser<'t, I, Expr, Extra<'t, 's>> + Clone + 't,
    O: Parser<'t, I, BinaryOp, Extra<'t, 's>> + Clone + 't,
{
    below
        .clone()
        .foldl(
            op.then(below).repeated(),
            |l: Expr, (op, r): (BinaryOp, Expr)| {
                let span = Local::from(l.span.start..r.span.end);
                bin(op, l, r, span)
            },
        )
        .boxed()
}

/// The whole-expression parser: one expression, then the end of input.
pub fn parser<'t, 's: 't, I>() -> impl Parser<'t, I, Expr, Extra<'t, 's>>
where
    I: ValueInput<'t, Token = Token<'s>, Span = Local>,
{
    expr().then_ignore(end())
}

fn expr<'t, 's: 't, I>() -> impl Parser<'t, I, Expr, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = Local>,
{
    recursive(|expr| {
        // An item of a list or argument list; a broken one is skipped up to the next `,` or
        // closing bracket (keeping brackets balanced), so the next item is still checked.
        let balanced = recursive(|b| {
            choice((
                b.clone()
                    .repeated()
                    .delimited_by(just(Token::LParen), just(Token::RParen))
                    .ignored(),
                b.clone()
                    .repeated()
                    .delimited_by(just(Token::LBracket), just(Token::RBracket))
                    .ignored(),
                any()
                    .and_is(none_of([
                        Token::Comma,
                        Token::LParen,
                        Token::RParen,
                        Token::LBracket,
                        Token::RBracket,
                    ]))
                    .ignored(),
            ))
        });
        let item = expr
            .clone()
            .then_ignore(one_of([Token::Comma, Token::RParen, Token::RBracket]).rewind())
            .recover_with(via_parser(
                balanced
                    .repeated()
                    .at_least(1)
                    .map_with(|_, e| Expr::new(ExprKind::Error, e.span())),
            ));
        let items = item.separated_by(just(Token::Comma)).collect::<Vec<_>>();

        let literal = select! {
            Token::Null => ExprKind::Null,
            Token::True => ExprKind::Bool(true),
            Token::False => ExprKind::Bool(false),
            Token::Int(value) => ExprKind::Int { value, negative: false },
            Token::Float(f) => ExprKind::Float(f),
            Token::Str(s) => ExprKind::Str(s),
            Token::Ident(name) => ExprKind::Ident(name.to_string()),
        }
        .map_with(|kind, e| Expr::new(kind, e.span()));

        let paren = expr
            .clone()
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .map_with(|inner, e| Expr::new(ExprKind::Paren(Box::new(inner)), e.span()));

        let list = items
            .clone()
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .map_with(|items, e| Expr::new(ExprKind::List(items), e.span()));

        let atom = choice((literal, paren, list))
            .labelled("an operand")
            .recover_with(via_parser(nested_delimiters(
                Token::LParen,
                Token::RParen,
                [(Token::LBracket, Token::RBracket)],
                |span| Expr::new(ExprKind::Error, span),
            )))
            .recover_with(via_parser(nested_delimiters(
                Token::LBracket,
                Token::RBracket,
                [(Token::LParen, Token::RParen)],
                |span| Expr::new(ExprKind::Error, span),
            )))
            .boxed();

        // After `.` every word is a name, keywords included (`nodes.in.outputs.x`): the node id
        // pattern allows them and the reference validator reads them so.
        let name = select! {
            Token::Ident(name) => name.to_string(),
            Token::And => "and".to_string(),
            Token::Or => "or".to_string(),
            Token::Not => "not".to_string(),
            Token::In => "in".to_string(),
            Token::True => "true".to_string(),
            Token::False => "false".to_string(),
            Token::Null => "null".to_string(),
        }
        .labelled("a name");

        let member = just(Token::Dot).ignore_then(name);
        let index = expr
            .clone()
            .delimited_by(just(Token::LBracket), just(Token::RBracket));
        let call = items.delimited_by(just(Token::LParen), just(Token::RParen));

        let op = |t: Token<'s>, op: BinaryOp| just(t).to(op);

        let post = choice((
            member.map(Post::Member),
            index.map(Post::Index),
            call.map(Post::Call),
        ));
        let postfix = atom.foldl_with(post.repeated(), |target: Expr, p, e| {
            let target = Box::new(target);
            let kind = match p {
                Post::Member(field) => ExprKind::Member { target, field },
                Post::Index(index) => ExprKind::Index {
                    target,
                    index: Box::new(index),
                },
                Post::Call(args) => ExprKind::Call {
                    callee: target,
                    args,
                },
            };
            Expr::new(kind, e.span())
        });

        let prefix = choice((
            just(Token::Bang).to(UnaryOp::Not),
            just(Token::Not).to(UnaryOp::Not),
            just(Token::Minus).to(UnaryOp::Neg),
        ))
        .map_with(|op, e| (op, e.span()));
        let unary_level = prefix
            .repeated()
            .foldr(postfix, |(op, at): (UnaryOp, Local), operand: Expr| {
                let span = Local::from(at.start..operand.span.end);
                unary(op, operand, span)
            })
            .boxed();

        let mul = level(
            unary_level,
            choice((
                op(Token::Star, BinaryOp::Mul),
                op(Token::Slash, BinaryOp::Div),
                op(Token::Percent, BinaryOp::Rem),
            )),
        );
        let add = level(
            mul,
            choice((
                op(Token::Plus, BinaryOp::Add),
                op(Token::Minus, BinaryOp::Sub),
            )),
        );
        let cmp = level(
            add,
            choice((
                op(Token::Le, BinaryOp::Le),
                op(Token::Lt, BinaryOp::Lt),
                op(Token::Ge, BinaryOp::Ge),
                op(Token::Gt, BinaryOp::Gt),
            )),
        );
        let eq = level(
            cmp,
            choice((
                op(Token::EqEq, BinaryOp::Eq),
                op(Token::NotEq, BinaryOp::Ne),
            )),
        );
        let in_level = level(eq, op(Token::In, BinaryOp::In));
        let and = level(
            in_level,
            choice((
                op(Token::AndAnd, BinaryOp::And),
                op(Token::And, BinaryOp::And),
            )),
        );
        level(
            and,
            choice((op(Token::OrOr, BinaryOp::Or), op(Token::Or, BinaryOp::Or))),
        )
    })
}
