//! Checks on the parsed tree that the grammar is too loose to make: forms outside AGS 1.0 and
//! number literals out of range. Recursion is bounded by [`super::depth`].
//!
//! - `a[0]`: AGX has no subscripts (AG204); `get(a, "0")` is the dynamic lookup.
//! - `json(s).x`, `(a).b`: member access only continues a reference (AG204).
//! - `a.b(x)`, `(f)(x)`: only a bare function name can be called (AG204).
//! - A keyword after `.` is a name (`nodes.in.outputs.x`, `outputs.null`): the node id and
//!   binding name patterns allow keywords, and the reference validator reads such paths.
//! - An integer literal beyond `i64` (only `-9223372036854775808` reaches `i64::MIN`), or a
//!   float literal beyond `f64`, is AGC041.

use super::ast::{Expr, ExprKind};
use super::error::Error;

/// Appends every problem in `e` to `out`; `src` is the decoded string (for quoting literals).
pub fn check(e: &Expr, src: &str, out: &mut Vec<Error>) {
    match &e.kind {
        ExprKind::Null
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Ident(_)
        | ExprKind::Error => {}
        ExprKind::Int { value, negative } => {
            let fits = match value {
                Some(v) if *negative => *v <= i64::MAX as u64 + 1,
                Some(v) => *v <= i64::MAX as u64,
                None => false,
            };
            if !fits {
                let text = src.get(e.span.into_range()).unwrap_or("");
                out.push(
                    Error::new(
                        "AGC041",
                        e.span,
                        format!("the integer `{text}` does not fit in a 64-bit signed integer"),
                    )
                    .help("integers range from -9223372036854775808 to 9223372036854775807; write a float (`1e20`) for larger magnitudes"),
                );
            }
        }
        ExprKind::Float(f) => {
            if !f.is_finite() {
                let text = src.get(e.span.into_range()).unwrap_or("");
                out.push(Error::new(
                    "AGC041",
                    e.span,
                    format!("the number `{text}` is beyond the range of a 64-bit float"),
                ));
            }
        }
        ExprKind::Member { target, field } => {
            if !is_reference(target) {
                out.push(
                    Error::syntax(
                        e.span,
                        format!("`.{field}` follows something that is not a reference"),
                    )
                    .label("member access only continues a name such as `nodes.a.outputs`")
                    .help(format!(
                        "use `get(…, \"{field}\")` to read a field of a computed value"
                    )),
                );
            }
            check(target, src, out);
        }
        ExprKind::Index { target, index } => {
            out.push(
                Error::syntax(e.span, "AGX has no indexing with `[ ]`")
                    .label("subscript here")
                    .help("use `get(value, \"key\")` for a lookup by a computed key"),
            );
            check(target, src, out);
            check(index, src, out);
        }
        ExprKind::Call { callee, args } => {
            match &callee.kind {
                ExprKind::Ident(_) | ExprKind::Error => {}
                ExprKind::Member { field, .. } => out.push(
                    Error::syntax(
                        callee.span,
                        format!("`.{field}(…)` is a method call, which AGX does not have"),
                    )
                    .help(format!(
                        "call the function with the value as its first argument: `{field}(…)`"
                    )),
                ),
                _ => out.push(
                    Error::syntax(callee.span, "only a function name can be called")
                        .label("this is not a function name"),
                ),
            }
            if !matches!(callee.kind, ExprKind::Ident(_)) {
                check(callee, src, out);
            }
            for a in args {
                check(a, src, out);
            }
        }
        ExprKind::List(items) => {
            for i in items {
                check(i, src, out);
            }
        }
        ExprKind::Paren(inner) => check(inner, src, out),
        ExprKind::Unary { operand, .. } => check(operand, src, out),
        ExprKind::Binary { left, right, .. } => {
            check(left, src, out);
            check(right, src, out);
        }
    }
}

/// `name` or `name.field…` (what AGX calls a reference).
fn is_reference(e: &Expr) -> bool {
    let mut e = e;
    loop {
        match &e.kind {
            ExprKind::Ident(_) | ExprKind::Error => return true,
            ExprKind::Member { target, .. } => e = target,
            _ => return false,
        }
    }
}
