//! AGX tree → core [`Expr`](agc_runtime::expr::Expr), ids in pre-order from a given start, and
//! a side table of file spans indexed by id.
//!
//! Parentheses disappear (the node keeps the span of what is inside them); a folded negative
//! literal becomes one literal node whose span covers the `-`. Lowering assumes a tree that
//! passed [`super::check`]; the forms the checker rejects still lower to their core
//! counterparts (`Index`, `Call` with a target) so nothing here can panic.

use super::ast::{Expr, ExprKind};
use crate::source::Span;
use crate::source::scalar::ScalarMap;
use agc_runtime::expr::{self as core, Literal};

/// Lowers `e`, appending one span per node to `spans` (node id = index in `spans`).
pub fn lower(e: &Expr, map: &ScalarMap, spans: &mut Vec<Span>) -> core::Expr {
    if let ExprKind::Paren(inner) = &e.kind {
        return lower(inner, map, spans);
    }
    let id = spans.len() as core::NodeId;
    spans.push(map.span(e.span.start, e.span.end));
    let mut sub = |x: &Expr| Box::new(lower(x, map, spans));
    let kind = match &e.kind {
        ExprKind::Null | ExprKind::Error => lit(Literal::Null),
        ExprKind::Bool(b) => lit(Literal::Bool(*b)),
        ExprKind::Int { value, negative } => {
            let v = value.unwrap_or(0) as i128;
            let v = if *negative { -v } else { v };
            lit(Literal::Int(
                v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
            ))
        }
        ExprKind::Float(f) => lit(Literal::Double(*f)),
        ExprKind::Str(s) => lit(Literal::String(s.clone())),
        ExprKind::Ident(name) => core::ExprKind::Ident { name: name.clone() },
        ExprKind::Member { target, field, .. } => core::ExprKind::Member {
            target: sub(target),
            field: field.clone(),
        },
        ExprKind::Index { target, index } => {
            let target = sub(target);
            core::ExprKind::Index {
                target,
                index: sub(index),
            }
        }
        ExprKind::Call { callee, args } => {
            let (function, target) = match &callee.kind {
                ExprKind::Ident(name) => (name.clone(), None),
                ExprKind::Member { target, field, .. } => (field.clone(), Some(sub(target))),
                _ => (String::new(), Some(sub(callee))),
            };
            let args = args.iter().map(|a| lower(a, map, spans)).collect();
            core::ExprKind::Call {
                function,
                target,
                args,
            }
        }
        ExprKind::List(items) => core::ExprKind::List {
            items: items.iter().map(|a| lower(a, map, spans)).collect(),
        },
        ExprKind::Paren(_) => unreachable!("handled above"),
        ExprKind::Unary { op, operand } => core::ExprKind::Unary {
            op: *op,
            operand: sub(operand),
        },
        ExprKind::Binary { op, left, right } => {
            let left = sub(left);
            core::ExprKind::Binary {
                op: *op,
                left,
                right: sub(right),
            }
        }
    };
    core::Expr { id, kind }
}

fn lit(value: Literal) -> core::ExprKind {
    core::ExprKind::Literal { value }
}
