//! Core expression → AGX source, with the fewest parentheses that keep the tree.
//!
//! `parse_agx(print(e))` gives back `e` (ids and spans aside) for every tree the AGX parser
//! produces; the property tests check this. Details that make it hold:
//! - a negative number literal prints as `-5` (the parser folds it back); a negation of a
//!   non-negative number literal prints as `-(5)` so that it is not folded;
//! - floats print in Rust's shortest round-trip form with a `.0` or exponent (`1.0`, `1e-7`);
//! - strings print double-quoted with JSON escapes.
//!
//! Forms AGX has no syntax for (CEL's `? :`, maps, `has`, comprehensions, method calls) print in
//! CEL-like notation, for plans and messages; they do not parse as AGX.

use agc_runtime::expr::{BinaryOp, Expr, ExprKind, Literal, TemplatePart, UnaryOp};

/// AGX source text for `expr`.
pub fn print(expr: &Expr) -> String {
    let mut out = String::new();
    write(expr, &mut out);
    out
}

const PREFIX: u8 = 8;
const POSTFIX: u8 = 9;
const ATOM: u8 = 10;

fn binary_prec(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Or => 1,
        BinaryOp::And => 2,
        BinaryOp::In => 3,
        BinaryOp::Eq | BinaryOp::Ne => 4,
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => 5,
        BinaryOp::Add | BinaryOp::Sub => 6,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 7,
    }
}

fn is_negative_number(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Literal {
            value: Literal::Int(i),
        } => *i < 0,
        ExprKind::Literal {
            value: Literal::Double(f),
        } => f.is_sign_negative(),
        _ => false,
    }
}

fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary { op, .. } => binary_prec(*op),
        ExprKind::Unary { .. } => PREFIX,
        ExprKind::Conditional { .. } => 0,
        _ if is_negative_number(e) => PREFIX,
        ExprKind::Member { .. } | ExprKind::Index { .. } | ExprKind::Call { .. } => POSTFIX,
        _ => ATOM,
    }
}

fn write_at(e: &Expr, min: u8, out: &mut String) {
    if prec(e) < min {
        out.push('(');
        write(e, out);
        out.push(')');
    } else {
        write(e, out);
    }
}

fn write_list(items: &[Expr], out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write(item, out);
    }
}

fn write(e: &Expr, out: &mut String) {
    match &e.kind {
        ExprKind::Literal { value } => literal(value, out),
        ExprKind::Ident { name } => out.push_str(name),
        ExprKind::Member { target, field } => {
            write_at(target, POSTFIX, out);
            out.push('.');
            out.push_str(field);
        }
        ExprKind::Index { target, index } => {
            write_at(target, POSTFIX, out);
            out.push('[');
            write(index, out);
            out.push(']');
        }
        ExprKind::Unary { op, operand } => {
            out.push(match op {
                UnaryOp::Not => '!',
                UnaryOp::Neg => '-',
            });
            let number = matches!(
                operand.kind,
                ExprKind::Literal {
                    value: Literal::Int(_) | Literal::Double(_)
                }
            );
            if *op == UnaryOp::Neg && number && !is_negative_number(operand) {
                out.push('(');
                write(operand, out);
                out.push(')');
            } else {
                write_at(operand, PREFIX, out);
            }
        }
        ExprKind::Binary { op, left, right } => {
            let p = binary_prec(*op);
            write_at(left, p, out);
            out.push(' ');
            out.push_str(op.symbol());
            out.push(' ');
            write_at(right, p + 1, out);
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            write_at(cond, 1, out);
            out.push_str(" ? ");
            write_at(then, 1, out);
            out.push_str(" : ");
            write(otherwise, out);
        }
        ExprKind::Call {
            function,
            target,
            args,
        } => {
            if let Some(t) = target {
                write_at(t, POSTFIX, out);
                out.push('.');
            }
            out.push_str(function);
            out.push('(');
            write_list(args, out);
            out.push(')');
        }
        ExprKind::List { items } => {
            out.push('[');
            write_list(items, out);
            out.push(']');
        }
        ExprKind::Map { entries } => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(k, out);
                out.push_str(": ");
                write(v, out);
            }
            out.push('}');
        }
        ExprKind::Has { target, field } => {
            out.push_str("has(");
            write_at(target, POSTFIX, out);
            out.push('.');
            out.push_str(field);
            out.push(')');
        }
        ExprKind::Comprehension {
            mac,
            range,
            var,
            filter,
            body,
        } => {
            write_at(range, POSTFIX, out);
            let name = serde_json::to_value(mac)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            out.push('.');
            out.push_str(&name);
            out.push('(');
            out.push_str(var);
            if let Some(f) = filter {
                out.push_str(", ");
                write(f, out);
            }
            out.push_str(", ");
            write(body, out);
            out.push(')');
        }
        ExprKind::Template { parts } => {
            for part in parts {
                match part {
                    TemplatePart::Text { text } => push_template_text(text, out),
                    TemplatePart::Expr { expr } => {
                        out.push_str("${{ ");
                        write(expr, out);
                        out.push_str(" }}");
                    }
                }
            }
        }
    }
}

/// Template text, with every literal `${{` written as `${{ "${{" }}`.
fn push_template_text(text: &str, out: &mut String) {
    let mut rest = text;
    while let Some(i) = rest.find("${{") {
        out.push_str(&rest[..i]);
        out.push_str("${{ \"${{\" }}");
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
}

fn literal(v: &Literal, out: &mut String) {
    match v {
        Literal::Null => out.push_str("null"),
        Literal::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Literal::Int(i) => out.push_str(&i.to_string()),
        Literal::Uint(u) => out.push_str(&u.to_string()),
        Literal::Double(f) => out.push_str(&format!("{f:?}")),
        Literal::String(s) => {
            out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()))
        }
        Literal::Bytes(b) => {
            out.push('[');
            let items: Vec<String> = b.iter().map(u8::to_string).collect();
            out.push_str(&items.join(", "));
            out.push(']');
        }
    }
}
