//! The AGX surface syntax tree. Every node carries its [`Local`] span (offsets into the decoded
//! string); lowering maps them into the file.
//!
//! The tree is a little wider than the AGS grammar so that near-misses get precise errors
//! instead of "unexpected token": indexing (`a[0]`), member access on a non-reference
//! (`json(s).x`) and calls of something other than a bare function name (`a.b(x)`) parse, and
//! [`super::check`] rejects them with AG204.

use crate::expr::Local;
pub use agc_runtime::expr::{BinaryOp, UnaryOp};

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Local,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Null,
    Bool(bool),
    /// An integer literal: magnitude (`None` beyond `u64`) and whether a `-` was folded in.
    Int {
        value: Option<u64>,
        negative: bool,
    },
    /// A float literal, sign folded in (infinite when out of range).
    Float(f64),
    Str(String),
    /// A reference root or a function name.
    Ident(String),
    /// `target.field`. The field is a name whatever its spelling: after `.`, keywords such as
    /// `in`, `true` or `null` are names (`nodes.in.outputs.x` reads the node `in`).
    Member {
        target: Box<Expr>,
        field: String,
    },
    /// `target[index]` (not AGX; rejected by the checker).
    Index {
        target: Box<Expr>,
        index: Box<Expr>,
    },
    /// `callee(args)`; AGX requires the callee to be a bare function name.
    Call {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    List(Vec<Expr>),
    /// `( inner )`, kept so the checker and printer can see what was written.
    Paren(Box<Expr>),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// A placeholder left by error recovery; never lowered.
    Error,
}

impl Expr {
    pub fn new(kind: ExprKind, span: Local) -> Expr {
        Expr { kind, span }
    }
}
