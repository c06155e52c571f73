//! The `{{ }}` grammar: a chumsky grammar for the pipeline inside one action, and an
//! iterative builder for the block structure (`if`/`range`/`with` ... `end`) across actions.
//!
//! The block builder keeps an explicit stack of open blocks, so block nesting never recurses
//! while parsing; it is limited to [`MAX_BLOCKS`] levels (the lowering recurses per block).
//! Inside an action, parentheses are limited to [`MAX_PARENS`] levels and a pipeline to
//! [`MAX_COMMANDS`] commands, checked on the tokens before the grammar runs.

use chumsky::input::{Input as _, ValueInput};
use chumsky::prelude::*;

use super::lexer::{Item, Spanned, Tok};
use crate::expr::cel::lexer::LexError;
use agc_runtime::expr::Literal;

pub const MAX_BLOCKS: usize = 32;
pub const MAX_PARENS: usize = 32;
pub const MAX_COMMANDS: usize = 32;

pub type Range = (usize, usize);

#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A field path: from the current dot (`.a.b`, base `None`), from the root (`$.a`), or
    /// on a parenthesized pipeline (`(..).a`).
    Path {
        base: Base,
        segs: Vec<(String, Range)>,
        span: Range,
    },
    Dot(Range),
    /// `$`, the root data.
    Root(Range),
    Lit(Literal, Range),
    Paren(Box<Pipe>, Range),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Base {
    Dot,
    Root,
    Paren(Box<Pipe>),
}

impl Arg {
    pub fn span(&self) -> Range {
        match self {
            Arg::Path { span, .. }
            | Arg::Dot(span)
            | Arg::Root(span)
            | Arg::Lit(_, span)
            | Arg::Paren(_, span) => *span,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cmd {
    /// The function, when the command's first word is an identifier.
    pub func: Option<(String, Range)>,
    pub args: Vec<Arg>,
    pub span: Range,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Pipe {
    pub cmds: Vec<Cmd>,
    pub span: Range,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    If,
    Range,
    With,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Text(String),
    Action(Pipe),
    Block {
        kind: BlockKind,
        pipe: Pipe,
        body: Vec<Node>,
        els: Vec<Node>,
        /// From the opening action to the end of `{{ end }}`.
        span: Range,
        /// The opening action.
        open: Range,
    },
}

/// An error: range, message, and whether it is a nesting limit (`AGC050`) rather than syntax.
#[derive(Debug)]
pub struct Error {
    pub range: Range,
    pub message: String,
    pub too_deep: bool,
}

fn syn(range: Range, message: impl Into<String>) -> Error {
    Error {
        range,
        message: message.into(),
        too_deep: false,
    }
}

fn deep(range: Range, message: impl Into<String>) -> Error {
    Error {
        range,
        message: message.into(),
        too_deep: true,
    }
}

type Extra<'s> = extra::Err<Rich<'s, Tok, SimpleSpan>>;

fn rng(s: SimpleSpan) -> Range {
    (s.start, s.end)
}

/// Joins adjacent fields into paths (or chains, right after a `)`) and rejects variables; checks paren depth and the
/// number of commands.
fn prepare(toks: &[Spanned]) -> Result<Vec<(Tok, SimpleSpan)>, Error> {
    let mut out: Vec<(Tok, SimpleSpan)> = Vec::new();
    let mut depth = 0usize;
    let mut pipes = 0usize;
    for t in toks {
        match &t.tok {
            Tok::Var(name) if !name.is_empty() => {
                return Err(syn(
                    (t.start, t.end),
                    format!(
                        "template variables such as `${name}` are not supported; use a path \
                         (`.inputs.x`, `$.nodes.a.output`) or `.` inside `range`/`with`"
                    ),
                ));
            }
            Tok::Declare | Tok::Assign | Tok::Comma => {
                return Err(syn(
                    (t.start, t.end),
                    format!(
                        "unexpected {}: variable declarations are not supported",
                        t.tok
                    ),
                ));
            }
            Tok::LParen => {
                depth += 1;
                if depth > MAX_PARENS {
                    return Err(deep(
                        (t.start, t.end),
                        format!("parentheses nest more than {MAX_PARENS} levels deep"),
                    ));
                }
            }
            Tok::RParen => depth = depth.saturating_sub(1),
            Tok::Pipe => {
                pipes += 1;
                if pipes >= MAX_COMMANDS {
                    return Err(deep(
                        (t.start, t.end),
                        format!("a pipeline has more than {MAX_COMMANDS} commands"),
                    ));
                }
            }
            _ => {}
        }
        if let Tok::Field(name) = &t.tok {
            let seg = (name.clone(), t.start, t.end);
            if !t.space_before
                && let Some((prev, span)) = out.last_mut()
            {
                match prev {
                    Tok::RParen => {
                        out.push((Tok::Chain(vec![seg]), SimpleSpan::from(t.start..t.end)));
                        continue;
                    }
                    Tok::Path(segs) | Tok::Chain(segs) => {
                        segs.push(seg);
                        *span = SimpleSpan::from(span.start..t.end);
                        continue;
                    }
                    Tok::Var(v) if v.is_empty() => {
                        *prev = Tok::Path(vec![("$".into(), span.start, span.end), seg]);
                        *span = SimpleSpan::from(span.start..t.end);
                        continue;
                    }
                    _ => {}
                }
            }
            out.push((Tok::Path(vec![seg]), SimpleSpan::from(t.start..t.end)));
            continue;
        }
        out.push((t.tok.clone(), SimpleSpan::from(t.start..t.end)));
    }
    Ok(out)
}

fn segs_of(v: Vec<(String, usize, usize)>) -> (bool, Vec<(String, Range)>) {
    let root = v.first().is_some_and(|(s, _, _)| s == "$");
    let segs = v
        .into_iter()
        .skip(root as usize)
        .map(|(s, a, b)| (s, (a, b)))
        .collect();
    (root, segs)
}

fn pipe_parser<'s, I>() -> impl Parser<'s, I, Pipe, Extra<'s>> + Clone
where
    I: ValueInput<'s, Token = Tok, Span = SimpleSpan>,
{
    recursive(|pipe| {
        let lit = select! {
            Tok::Str(s) = e => Arg::Lit(Literal::String(s), rng(e.span())),
            Tok::Int(v) = e => Arg::Lit(Literal::Int(v), rng(e.span())),
            Tok::Float(v) = e => Arg::Lit(Literal::Double(v), rng(e.span())),
            Tok::True = e => Arg::Lit(Literal::Bool(true), rng(e.span())),
            Tok::False = e => Arg::Lit(Literal::Bool(false), rng(e.span())),
            Tok::Nil = e => Arg::Lit(Literal::Null, rng(e.span())),
            Tok::Dot = e => Arg::Dot(rng(e.span())),
            Tok::Var(_) = e => Arg::Root(rng(e.span())),
            Tok::Path(v) = e => {
                let (root, segs) = segs_of(v);
                Arg::Path { base: if root { Base::Root } else { Base::Dot }, segs, span: rng(e.span()) }
            },
        };
        let chain = select! { Tok::Chain(v) => v };
        let paren = pipe
            .delimited_by(just(Tok::LParen), just(Tok::RParen))
            .map_with(|p, e| (p, rng(e.span())))
            .then(chain.or_not())
            .map_with(|((p, pspan), chain), e| match chain {
                None => Arg::Paren(Box::new(p), pspan),
                Some(v) => Arg::Path {
                    base: Base::Paren(Box::new(p)),
                    segs: segs_of(v).1,
                    span: rng(e.span()),
                },
            });
        let arg = choice((lit, paren)).labelled("argument");
        let func = select! { Tok::Ident(n) = e => (n, rng(e.span())) };
        let cmd = choice((
            func.then(arg.clone().repeated().collect::<Vec<_>>())
                .map_with(|(f, args), e| Cmd {
                    func: Some(f),
                    args,
                    span: rng(e.span()),
                }),
            arg.clone()
                .then(arg.repeated().collect::<Vec<_>>())
                .map_with(|(first, mut rest), e| {
                    rest.insert(0, first);
                    Cmd {
                        func: None,
                        args: rest,
                        span: rng(e.span()),
                    }
                }),
        ))
        .labelled("command");
        cmd.separated_by(just(Tok::Pipe))
            .at_least(1)
            .collect::<Vec<_>>()
            .map_with(|cmds, e| Pipe {
                cmds,
                span: rng(e.span()),
            })
    })
}

/// Parses the tokens of one action (after any keyword) as a pipeline.
pub fn parse_pipe(toks: &[Spanned], end_at: usize) -> Result<Pipe, Error> {
    let toks = prepare(toks)?;
    let input = toks
        .as_slice()
        .split_token_span(SimpleSpan::from(end_at..end_at));
    let (out, errs) = pipe_parser()
        .then_ignore(end())
        .parse(input)
        .into_output_errors();
    if let Some(e) = errs.first() {
        let found = match e.found() {
            Some(t) => format!("unexpected {t}"),
            None => "unexpected end of action".into(),
        };
        let span = e.span();
        return Err(syn((span.start, span.end), format!("{found} in pipeline")));
    }
    out.ok_or(syn((end_at, end_at), "expected a pipeline"))
}

struct Open {
    kind: BlockKind,
    pipe: Pipe,
    body: Vec<Node>,
    els: Option<Vec<Node>>,
    start: usize,
    open: Range,
    /// Opened by `else if`/`else with`: closed by the same `end` as its parent.
    chained: bool,
}

const CONTROL_HELP: &str = "allowed: text, `{{ .path }}`, `{{ $.path }}`, literals, pipelines \
into json, toJson, join, default, len, shellQuote, and `if`/`else if`/`else`/`range`/`with` \
... `end`";

/// Builds the node tree from the scanned items.
pub fn build(items: Vec<Item>, src_len: usize) -> Result<Vec<Node>, Error> {
    let mut root: Vec<Node> = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    for item in items {
        let (toks, start, end) = match item {
            Item::Text(t, _, _) => {
                push(&mut stack, &mut root, Node::Text(t));
                continue;
            }
            Item::Action(toks, s, e) => (toks, s, e),
        };
        let span = (start, end);
        let inner_end = toks.last().map_or(end, |t| t.end);
        let keyword = match toks.first() {
            Some(Spanned {
                tok: Tok::Ident(w), ..
            }) => Some(w.as_str()),
            _ => None,
        };
        let block = |w: &str| match w {
            "if" => Some(BlockKind::If),
            "range" => Some(BlockKind::Range),
            "with" => Some(BlockKind::With),
            _ => None,
        };
        match keyword {
            Some(w) if block(w).is_some() => {
                if stack.len() >= MAX_BLOCKS {
                    return Err(deep(
                        span,
                        format!("blocks nest more than {MAX_BLOCKS} levels deep"),
                    ));
                }
                let pipe = parse_pipe(&toks[1..], inner_end)?;
                stack.push(Open {
                    kind: block(w).unwrap_or(BlockKind::If),
                    pipe,
                    body: Vec::new(),
                    els: None,
                    start,
                    open: span,
                    chained: false,
                });
            }
            Some("else") => {
                let Some(top) = stack.last_mut() else {
                    return Err(syn(span, "`else` outside `if`, `range` or `with`"));
                };
                if top.els.is_some() {
                    return Err(syn(span, "a second `else` in the same block"));
                }
                top.els = Some(Vec::new());
                if toks.len() > 1 {
                    let chained_kind = match &toks[1].tok {
                        Tok::Ident(w) if w == "if" || w == "with" => block(w),
                        _ => None,
                    };
                    let Some(kind) = chained_kind.filter(|k| *k == top.kind) else {
                        return Err(syn(span, "`else` takes no arguments here"));
                    };
                    if stack.len() >= MAX_BLOCKS {
                        return Err(deep(
                            span,
                            format!("blocks nest more than {MAX_BLOCKS} levels deep"),
                        ));
                    }
                    let pipe = parse_pipe(&toks[2..], inner_end)?;
                    stack.push(Open {
                        kind,
                        pipe,
                        body: Vec::new(),
                        els: None,
                        start,
                        open: span,
                        chained: true,
                    });
                }
            }
            Some("end") => {
                if toks.len() > 1 {
                    return Err(syn(span, "`end` takes no arguments"));
                }
                loop {
                    let Some(o) = stack.pop() else {
                        return Err(syn(span, "`end` without an open `if`, `range` or `with`"));
                    };
                    let chained = o.chained;
                    let node = Node::Block {
                        kind: o.kind,
                        pipe: o.pipe,
                        body: o.body,
                        els: o.els.unwrap_or_default(),
                        span: (o.start, end),
                        open: o.open,
                    };
                    push(&mut stack, &mut root, node);
                    if !chained {
                        break;
                    }
                }
            }
            Some(w @ ("define" | "template" | "block" | "break" | "continue")) => {
                return Err(syn(
                    (toks[0].start, toks[0].end),
                    format!("`{w}` is not supported in agh values ({CONTROL_HELP})"),
                ));
            }
            _ => {
                let pipe = parse_pipe(&toks, inner_end)?;
                push(&mut stack, &mut root, Node::Action(pipe));
            }
        }
    }
    if let Some(o) = stack.last() {
        return Err(syn(
            (o.open.0, src_len),
            "unclosed block: missing `{{ end }}`",
        ));
    }
    Ok(root)
}

fn push(stack: &mut [Open], root: &mut Vec<Node>, node: Node) {
    match stack.last_mut() {
        Some(o) => match &mut o.els {
            Some(els) => els.push(node),
            None => o.body.push(node),
        },
        None => root.push(node),
    }
}

/// Lexing errors share the CEL lexer's error type.
pub fn lex_error(e: LexError) -> Error {
    syn((e.start, e.end), e.message)
}
