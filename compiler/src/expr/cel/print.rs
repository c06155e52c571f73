//! Core [`Expr`] → CEL source text, with the fewest parentheses that keep the tree.
//!
//! `parse_cel(print_cel(e))` gives back `e` (ids and all) for every tree the CEL parser
//! produces; the proptest in `tests/cel_roundtrip.rs` checks it. Care points:
//! - A negative number literal prints as `-5`, which parses back to the literal; a negation
//!   *of* a number literal prints as `-(5)` so it does not fold into one.
//! - A unary run repeats one operator (`!!x`); a different operator inside gets parentheses
//!   (`!(-x)`), since CEL's grammar has no mixed runs.
//! - Doubles print with Rust's shortest round-trip form, which is always a CEL double
//!   literal (`1.0`, `1e100`, `2.5e-8`). Non-finite doubles have no literal: they print as
//!   `double("inf")`, `double("-inf")`, `double("NaN")` (a call, so not a round trip).
//! - Templates (from `{{ }}` values) have no CEL form; they print as a `+` concatenation of
//!   string literals and `string(..)` calls, for display only.

use agc_runtime::expr::{BinaryOp, Expr, ExprKind, Literal, Macro, TemplatePart, UnaryOp};

/// Prints an expression as CEL.
pub fn print_cel(e: &Expr) -> String {
    let mut out = String::new();
    print(e, 0, &mut out);
    out
}

const P_COND: u8 = 0;
const P_UNARY: u8 = 6;
const P_MEMBER: u8 = 7;

fn bin_prec(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Or => 1,
        BinaryOp::And => 2,
        BinaryOp::Eq
        | BinaryOp::Ne
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge
        | BinaryOp::In => 3,
        BinaryOp::Add | BinaryOp::Sub => 4,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 5,
    }
}

fn is_negative_number(l: &Literal) -> bool {
    match l {
        Literal::Int(i) => *i < 0,
        Literal::Double(d) => d.is_sign_negative() && d.is_finite(),
        _ => false,
    }
}

fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Conditional { .. } => P_COND,
        ExprKind::Binary { op, .. } => bin_prec(*op),
        ExprKind::Unary { .. } => P_UNARY,
        ExprKind::Literal { value } if is_negative_number(value) => P_UNARY,
        ExprKind::Template { .. } => bin_prec(BinaryOp::Add),
        _ => P_MEMBER,
    }
}

fn print(e: &Expr, min: u8, out: &mut String) {
    let paren = prec(e) < min;
    if paren {
        out.push('(');
    }
    match &e.kind {
        ExprKind::Literal { value } => literal(value, out),
        ExprKind::Ident { name } => out.push_str(name),
        ExprKind::Member { target, field } => {
            print(target, P_MEMBER, out);
            out.push('.');
            out.push_str(field);
        }
        ExprKind::Index { target, index } => {
            print(target, P_MEMBER, out);
            out.push('[');
            print(index, P_COND, out);
            out.push(']');
        }
        ExprKind::Unary { op, operand } => {
            out.push(if *op == UnaryOp::Not { '!' } else { '-' });
            let same_run =
                matches!(&operand.kind, ExprKind::Unary { op: inner, .. } if inner == op);
            let folds = *op == UnaryOp::Neg
                && matches!(
                    &operand.kind,
                    ExprKind::Literal {
                        value: Literal::Int(_) | Literal::Double(_)
                    }
                );
            if same_run {
                print(operand, P_UNARY, out);
            } else if folds {
                out.push('(');
                print(operand, P_COND, out);
                out.push(')');
            } else {
                print(operand, P_MEMBER, out);
            }
        }
        ExprKind::Binary { op, left, right } => {
            let p = bin_prec(*op);
            print(left, p, out);
            out.push(' ');
            out.push_str(op.symbol());
            out.push(' ');
            print(right, p + 1, out);
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            print(cond, 1, out);
            out.push_str(" ? ");
            print(then, 1, out);
            out.push_str(" : ");
            print(otherwise, P_COND, out);
        }
        ExprKind::Call {
            function,
            target,
            args,
        } => {
            if let Some(t) = target {
                print(t, P_MEMBER, out);
                out.push('.');
            }
            out.push_str(function);
            list(args.iter(), '(', ')', out);
        }
        ExprKind::List { items } => list(items.iter(), '[', ']', out),
        ExprKind::Map { entries } => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print(k, P_COND, out);
                out.push_str(": ");
                print(v, P_COND, out);
            }
            out.push('}');
        }
        ExprKind::Has { target, field } => {
            out.push_str("has(");
            print(target, P_MEMBER, out);
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
            print(range, P_MEMBER, out);
            out.push('.');
            out.push_str(macro_name(*mac));
            out.push('(');
            out.push_str(var);
            if let Some(f) = filter {
                out.push_str(", ");
                print(f, P_COND, out);
            }
            out.push_str(", ");
            print(body, P_COND, out);
            out.push(')');
        }
        ExprKind::Template { parts } => {
            if parts.is_empty() {
                out.push_str("\"\"");
            }
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    out.push_str(" + ");
                }
                match part {
                    TemplatePart::Text { text } => string(text, out),
                    TemplatePart::Expr { expr } => {
                        out.push_str("string(");
                        print(expr, P_COND, out);
                        out.push(')');
                    }
                }
            }
        }
    }
    if paren {
        out.push(')');
    }
}

pub fn macro_name(m: Macro) -> &'static str {
    match m {
        Macro::All => "all",
        Macro::Exists => "exists",
        Macro::ExistsOne => "exists_one",
        Macro::Map => "map",
        Macro::Filter => "filter",
    }
}

fn list<'a>(items: impl Iterator<Item = &'a Expr>, open: char, close: char, out: &mut String) {
    out.push(open);
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        print(item, P_COND, out);
    }
    out.push(close);
}

fn literal(l: &Literal, out: &mut String) {
    use std::fmt::Write;
    match l {
        Literal::Null => out.push_str("null"),
        Literal::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Literal::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Literal::Uint(u) => {
            let _ = write!(out, "{u}u");
        }
        Literal::Double(d) if d.is_nan() => out.push_str("double(\"NaN\")"),
        Literal::Double(d) if d.is_infinite() => out.push_str(if *d > 0.0 {
            "double(\"inf\")"
        } else {
            "double(\"-inf\")"
        }),
        Literal::Double(d) => {
            let _ = write!(out, "{d:?}");
        }
        Literal::String(s) => string(s, out),
        Literal::Bytes(b) => {
            out.push_str("b\"");
            for &c in b {
                match c {
                    b'"' => out.push_str("\\\""),
                    b'\\' => out.push_str("\\\\"),
                    0x20..=0x7e => out.push(c as char),
                    _ => {
                        let _ = write!(out, "\\x{c:02x}");
                    }
                }
            }
            out.push('"');
        }
    }
}

/// A double-quoted CEL string literal.
pub fn string(s: &str, out: &mut String) {
    use std::fmt::Write;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
