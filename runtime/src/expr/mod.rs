//! The core expression form: what AGX, CEL and the template languages lower into.
//!
//! This is the portable contract between the compiler (which parses, checks and lowers) and
//! everything that evaluates: the compiler's `agc eval`, the plan JSON, and generated runners.
//! In plans it serializes as compact tagged arrays (`["+", ["$", "params", "n"], 1]`, see
//! [`wire`]); the reader also accepts the object form of `agc.plan/v1` plans.
//!
//! Invariants:
//! - Every node has an `id` unique within its expression tree; the compiler keeps spans and
//!   static types in side tables keyed by it. Ids are assigned in pre-order from 0.
//! - Depth is bounded by the parsers (a nesting limit is a diagnostic), so recursive evaluation
//!   over a tree is bounded too.
//! - Semantics differ per source language where the languages differ (equality across types,
//!   integer overflow, truthiness): [`Lang`] travels with the expression and the evaluator
//!   follows it.

use serde::{Deserialize, Serialize};

pub mod eval;
pub mod functions;
pub mod wire;

/// Which language's semantics apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lang {
    /// AGS expressions (AGX): no truthiness, mixed-type `==` is false, ordering across types
    /// is an error, numbers are int or float.
    Agx,
    /// CEL: int64/uint64/double with overflow errors, heterogeneous equality is false.
    Cel,
    /// agh's `{{ }}` value templates (the accepted subset of Go `text/template`): missing
    /// keys are errors, values render as Go's `%v` does, `json`/`join`/`default` take Go's
    /// argument order.
    Gotmpl,
}

/// Node id within one expression tree.
pub type NodeId = u32;

/// A literal value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Literal {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(String),
    /// Bytes, as a list of byte values in JSON.
    Bytes(Vec<u8>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnaryOp {
    /// `!x` / `not x`
    Not,
    /// `-x`
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `x in list_or_map_or_string`
    In,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinaryOp {
    /// The operator as written in AGX and CEL (both spell every operator the same way; AGX's
    /// `and`/`or` keywords are alternatives the printers never use).
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Or => "||",
            BinaryOp::And => "&&",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::In => "in",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
        }
    }
}

/// CEL comprehension macros (`list.all(x, p)` ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Macro {
    All,
    Exists,
    ExistsOne,
    Map,
    Filter,
}

/// One piece of a template: literal text or an interpolated expression.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "part", rename_all = "snake_case")]
pub enum TemplatePart {
    Text { text: String },
    Expr { expr: Expr },
}

/// A core expression node. Its serde form is [`wire`]'s compact encoding.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub id: NodeId,
    pub kind: ExprKind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ExprKind {
    Literal {
        value: Literal,
    },
    /// A root name (`params`, `nodes`, `inputs`, a comprehension variable).
    Ident {
        name: String,
    },
    /// `target.field`
    Member {
        target: Box<Expr>,
        field: String,
    },
    /// `target[index]`
    Index {
        target: Box<Expr>,
        index: Box<Expr>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `cond ? then : otherwise`
    Conditional {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    /// `func(args)` or, with a receiver, `target.func(args)`.
    Call {
        function: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<Box<Expr>>,
        args: Vec<Expr>,
    },
    List {
        items: Vec<Expr>,
    },
    Map {
        entries: Vec<(Expr, Expr)>,
    },
    /// CEL `has(target.field)`.
    Has {
        target: Box<Expr>,
        field: String,
    },
    /// `range.all(var, body)` and friends; for `map` with a filter, `filter` is set.
    Comprehension {
        #[serde(rename = "macro")]
        mac: Macro,
        range: Box<Expr>,
        var: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filter: Option<Box<Expr>>,
        body: Box<Expr>,
    },
    /// A string template: the parts concatenated, each expression rendered as text.
    Template {
        parts: Vec<TemplatePart>,
    },
}

impl Expr {
    /// Pushes the node's direct children onto `stack`, last first, so that popping visits them
    /// in source order: the walk the checks use instead of recursion.
    pub fn push_children<'e>(&'e self, stack: &mut Vec<&'e Expr>) {
        match &self.kind {
            ExprKind::Ident { .. } | ExprKind::Literal { .. } => {}
            ExprKind::Member { target, .. } | ExprKind::Has { target, .. } => stack.push(target),
            ExprKind::Index { target, index } => stack.extend([&**index, &**target]),
            ExprKind::Call { target, args, .. } => {
                stack.extend(args.iter().rev());
                stack.extend(target.iter().map(|t| &**t));
            }
            ExprKind::Unary { operand, .. } => stack.push(operand),
            ExprKind::Binary { left, right, .. } => stack.extend([&**right, &**left]),
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => stack.extend([&**otherwise, &**then, &**cond]),
            ExprKind::List { items } => stack.extend(items.iter().rev()),
            ExprKind::Map { entries } => {
                for (k, v) in entries.iter().rev() {
                    stack.push(v);
                    stack.push(k);
                }
            }
            ExprKind::Comprehension {
                range,
                filter,
                body,
                ..
            } => {
                stack.push(body);
                stack.extend(filter.iter().map(|f| &**f));
                stack.push(range);
            }
            ExprKind::Template { parts } => {
                for p in parts.iter().rev() {
                    if let TemplatePart::Expr { expr } = p {
                        stack.push(expr);
                    }
                }
            }
        }
    }
}
