//! The CEL syntax tree, as parsed: close to the grammar, spans in decoded-text offsets.
//!
//! Every node records its height. Constructors go through [`Ast::new`], which refuses to
//! build a node higher than [`MAX_HEIGHT`]: it returns a [`AstKind::TooDeep`] marker instead and
//! drops the (bounded) children. So no tree deeper than the limit ever exists, and walking or
//! dropping one never needs more than a bounded stack, whatever the input.

use agc_runtime::expr::{BinaryOp, UnaryOp};

/// The highest tree [`Ast::new`] builds. The CEL language definition asks implementations to
/// support 32 nested levels and 32 repetitions of each rule; 256 leaves room for both at once
/// (32 `||` terms of 32-long selection chains) while keeping recursive passes cheap.
pub const MAX_HEIGHT: u32 = 256;

/// A byte range in the decoded expression text.
pub type Range = (usize, usize);

#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(String),
    Bytes(Vec<u8>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum AstKind {
    Lit(Lit),
    /// An int literal whose magnitude does not fit (`9223372036854775808` without a minus).
    IntOutOfRange,
    /// `name` or `.name` (leading dot: resolved in the root scope only).
    Ident {
        name: String,
        leading_dot: bool,
    },
    Select {
        target: Box<Ast>,
        field: String,
        field_span: Range,
    },
    Index {
        target: Box<Ast>,
        index: Box<Ast>,
    },
    /// `f(args)`, `.f(args)`, or with a receiver `target.f(args)`.
    Call {
        target: Option<Box<Ast>>,
        function: String,
        function_span: Range,
        args: Vec<Ast>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Ast>,
    },
    Binary {
        op: BinaryOp,
        left: Box<Ast>,
        right: Box<Ast>,
    },
    Cond {
        cond: Box<Ast>,
        then: Box<Ast>,
        otherwise: Box<Ast>,
    },
    List(Vec<Ast>),
    Map(Vec<(Ast, Ast)>),
    /// `T{f: e, ...}`: parsed so it can be rejected precisely (there are no message types).
    Message {
        type_name: Box<Ast>,
        fields: Vec<(String, Ast)>,
    },
    /// The tree would have been higher than [`MAX_HEIGHT`] here; the span is the subexpression
    /// that crossed the limit.
    TooDeep,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Ast {
    pub kind: AstKind,
    pub span: Range,
    pub height: u32,
}

impl Ast {
    /// Builds a node, or a [`AstKind::TooDeep`] marker if it would exceed [`MAX_HEIGHT`] (or if a
    /// child already is one: the innermost marker is kept, with its span).
    pub fn new(kind: AstKind, span: Range) -> Ast {
        let mut height = 0;
        let mut too_deep: Option<Range> = None;
        for c in kind.children() {
            if c.kind == AstKind::TooDeep && too_deep.is_none() {
                too_deep = Some(c.span);
            }
            height = height.max(c.height);
        }
        let height = height + 1;
        if let Some(span) = too_deep {
            return Ast {
                kind: AstKind::TooDeep,
                span,
                height: MAX_HEIGHT + 1,
            };
        }
        if height > MAX_HEIGHT {
            return Ast {
                kind: AstKind::TooDeep,
                span,
                height: MAX_HEIGHT + 1,
            };
        }
        Ast { kind, span, height }
    }

    pub fn leaf(kind: AstKind, span: Range) -> Ast {
        Ast::new(kind, span)
    }
}

impl AstKind {
    /// Direct children, in source order.
    pub fn children(&self) -> Vec<&Ast> {
        match self {
            AstKind::Lit(_) | AstKind::IntOutOfRange | AstKind::Ident { .. } | AstKind::TooDeep => {
                Vec::new()
            }
            AstKind::Select { target, .. } => vec![target],
            AstKind::Index { target, index } => vec![target, index],
            AstKind::Call { target, args, .. } => {
                target.iter().map(|t| &**t).chain(args.iter()).collect()
            }
            AstKind::Unary { operand, .. } => vec![operand],
            AstKind::Binary { left, right, .. } => vec![left, right],
            AstKind::Cond {
                cond,
                then,
                otherwise,
            } => vec![cond, then, otherwise],
            AstKind::List(items) => items.iter().collect(),
            AstKind::Map(entries) => entries.iter().flat_map(|(k, v)| [k, v]).collect(),
            AstKind::Message { type_name, fields } => std::iter::once(&**type_name)
                .chain(fields.iter().map(|(_, v)| v))
                .collect(),
        }
    }
}
