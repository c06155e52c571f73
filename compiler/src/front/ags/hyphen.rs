//! Node ids with `-` written in AGX paths.
//!
//! AGS node ids may hold `-` (`build-docs`), but AGX reads `-` as minus, so
//! `nodes.build-docs.outputs.site` parses as `nodes.build - docs.outputs.site`, and name
//! resolution would report two unrelated AG203s (`nodes.build`, `docs`), neither naming the
//! node. This module recognises that shape in the parsed expression — a left-nested chain of
//! subtractions `nodes.<a> - <b> - … - <z>.<rest…>` whose operands touch the `-` on both sides
//! (no spaces) and whose joined id `a-b-…-z` names a node of the scope — so that the caller
//! reports one AG203 over the whole path, with the way to write it
//! (`output("build-docs", "site")`), and skips the halves.
//!
//! The walk is an explicit stack over the expression (depth is bounded by the parser, but no
//! recursion is needed here).

use super::scope::Scope;
use crate::source::Span;
use agc_runtime::expr::{BinaryOp, Expr, ExprKind};

/// One path that reads a hyphenated node id.
#[derive(Debug)]
pub struct HyphenPath {
    /// The node id as declared (`build-docs`).
    pub id: String,
    /// The members after the id (`["outputs", "site"]`).
    pub rest: Vec<String>,
    /// From `nodes` to the end of the path.
    pub span: Span,
    /// Expression ids of the operands, whose own reference chains must not be reported.
    pub parts: Vec<u32>,
}

impl HyphenPath {
    /// The path as the author meant it.
    pub fn written(&self) -> String {
        let mut s = format!("nodes.{}", self.id);
        for r in &self.rest {
            s.push('.');
            s.push_str(r);
        }
        s
    }

    /// How to write the read in AGX.
    pub fn advice(&self) -> String {
        let renamed = self.id.replace('-', "_");
        match self.rest.as_slice() {
            [o, name, ..] if o == "outputs" => format!(
                "AGX reads `-` as minus; write `output(\"{}\", \"{name}\")`, or rename the node `{renamed}`",
                self.id
            ),
            [s] if s == "status" => format!(
                "AGX reads `-` as minus; test the state with `succeeded(\"{}\")`, `failed(…)` or `skipped(…)`, or rename the node `{renamed}`",
                self.id
            ),
            _ => format!(
                "AGX reads `-` as minus and paths cannot hold it: rename the node `{renamed}`"
            ),
        }
    }
}

/// Every hyphenated node path in `expr` naming a node of `scope`.
pub fn find(expr: &Expr, spans: &[Span], scope: &Scope<'_>) -> Vec<HyphenPath> {
    let span_of = |e: &Expr| spans.get(e.id as usize).copied();
    let mut out = Vec::new();
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        if let ExprKind::Binary {
            op: BinaryOp::Sub, ..
        } = &e.kind
            && let Some(found) = matches(e, &span_of, scope)
        {
            out.push(found);
            continue;
        }
        e.push_children(&mut stack);
    }
    out
}

/// The operands of a left-nested chain of subtractions, leftmost first.
fn operands(e: &Expr) -> Vec<&Expr> {
    let mut rights = Vec::new();
    let mut cur = e;
    while let ExprKind::Binary {
        op: BinaryOp::Sub,
        left,
        right,
    } = &cur.kind
    {
        rights.push(&**right);
        cur = left;
    }
    rights.push(cur);
    rights.reverse();
    rights
}

/// `root.a.b` as (`root`, [`a`, `b`]) when `e` is a plain reference.
fn reference(e: &Expr) -> Option<(&str, Vec<String>)> {
    let mut path = Vec::new();
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::Member { target, field } => {
                path.push(field.clone());
                cur = target;
            }
            ExprKind::Ident { name } => {
                path.reverse();
                return Some((name, path));
            }
            _ => return None,
        }
    }
}

fn matches(
    e: &Expr,
    span_of: &dyn Fn(&Expr) -> Option<Span>,
    scope: &Scope<'_>,
) -> Option<HyphenPath> {
    let ops = operands(e);
    let (first, last) = (ops.first()?, ops.last()?);
    let (root, path) = reference(first)?;
    let [head] = path.as_slice() else {
        return None;
    };
    if root != "nodes" {
        return None;
    }
    let mut id = head.clone();
    for mid in &ops[1..ops.len() - 1] {
        let ExprKind::Ident { name } = &mid.kind else {
            return None;
        };
        id.push('-');
        id.push_str(name);
    }
    let (tail, rest) = reference(last)?;
    id.push('-');
    id.push_str(tail);
    // The operands must touch the `-` between them: `nodes.a - b` is a subtraction.
    let spans: Vec<Span> = ops.iter().map(|o| span_of(o)).collect::<Option<_>>()?;
    if spans
        .windows(2)
        .any(|w| w[0].file != w[1].file || w[0].end + 1 != w[1].start)
    {
        return None;
    }
    scope.node(&id)?;
    let (start, end) = (spans[0], spans[spans.len() - 1]);
    Some(HyphenPath {
        id,
        rest,
        span: Span {
            file: start.file,
            start: start.start,
            end: end.end,
        },
        parts: ops.iter().map(|o| o.id).collect(),
    })
}
