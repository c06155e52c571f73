//! The plan encoding of a core [`Expr`]: compact, tagged JSON arrays (formats `agc.plan/v2` and `v3`).
//!
//! A node is a JSON scalar (a literal) or an array whose first element is a short tag. Node ids
//! are not written: they are pre-order from 0 by the invariant of [`super`], so the reader
//! numbers the nodes in the order it meets them (a node before its children, children left to
//! right as written below). The forms:
//!
//! | core node | encoding |
//! | --- | --- |
//! | literal `null`, `true`, `1`, `1.5`, `"s"` | the JSON scalar itself (a double always has a `.` or an exponent) |
//! | uint literal `5u` | `["u", 5]` |
//! | bytes literal | `["b", [104, 105]]` |
//! | non-finite double | `["f", "NaN"]`, `["f", "inf"]`, `["f", "-inf"]` |
//! | any literal, explicitly | `["lit", value]` (written for a string literal inside a template) |
//! | `name` / `name.f1.f2` (an identifier and members over it) | `["$", "name", "f1", "f2"]` |
//! | `target.field` over anything else | `[".", target, "field"]` |
//! | `target[index]` | `["[]", target, index]` |
//! | `!x`, `-x` | `["!", x]`, `["neg", x]` |
//! | `a OP b` | `["OP", a, b]` with OP one of `\|\|` `&&` `==` `!=` `<` `<=` `>` `>=` `in` `+` `-` `*` `/` `%` |
//! | `c ? t : e` | `["?:", c, t, e]` |
//! | `f(a, b)` | `["call", "f", a, b]` |
//! | `t.f(a)` | `["method", t, "f", a]` |
//! | `[a, b]` | `["list", a, b]` |
//! | `{k: v}` | `["map", [k, v], ...]` |
//! | `has(t.f)` | `["has", t, "f"]` |
//! | `r.all(x, p)` ... | `["comp", "all", r, "x", p]`; a three-argument `map` adds its filter before the body: `["comp", "map", r, "x", filter, body]` |
//! | template | `["tmpl", "text", expr, ...]`: text parts are strings, expression parts are nodes |
//!
//! Plans of format `agc.plan/v1` wrote the verbose object form (`{"id": 0, "kind": "member",
//! ...}`); the reader still accepts it, ids included, so old plans load.

use super::{BinaryOp, Expr, ExprKind, Literal, Macro, NodeId, TemplatePart, UnaryOp};
use serde::ser::{Serialize, SerializeSeq, Serializer};
use serde_json::Value;

const BINARY: [BinaryOp; 14] = [
    BinaryOp::Or,
    BinaryOp::And,
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
    BinaryOp::In,
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Rem,
];

fn macro_name(m: Macro) -> &'static str {
    match m {
        Macro::All => "all",
        Macro::Exists => "exists",
        Macro::ExistsOne => "exists_one",
        Macro::Map => "map",
        Macro::Filter => "filter",
    }
}

fn macro_of(name: &str) -> Option<Macro> {
    Some(match name {
        "all" => Macro::All,
        "exists" => Macro::Exists,
        "exists_one" => Macro::ExistsOne,
        "map" => Macro::Map,
        "filter" => Macro::Filter,
        _ => return None,
    })
}

/// A literal as a JSON value, or the tagged array it needs.
struct Lit<'a>(&'a Literal);

impl Serialize for Lit<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Literal::Null => s.serialize_unit(),
            Literal::Bool(b) => s.serialize_bool(*b),
            Literal::Int(i) => s.serialize_i64(*i),
            Literal::Double(d) if d.is_finite() => s.serialize_f64(*d),
            Literal::Double(d) => {
                let name = if d.is_nan() {
                    "NaN"
                } else if *d > 0.0 {
                    "inf"
                } else {
                    "-inf"
                };
                ("f", name).serialize(s)
            }
            Literal::String(t) => s.serialize_str(t),
            Literal::Uint(u) => ("u", u).serialize(s),
            Literal::Bytes(b) => ("b", b).serialize(s),
        }
    }
}

/// An ident under zero or more members: the `["$", root, fields...]` form.
fn path_of(e: &Expr) -> Option<Vec<&str>> {
    let mut fields = Vec::new();
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::Member { target, field } => {
                fields.push(field.as_str());
                cur = target;
            }
            ExprKind::Ident { name } => {
                fields.push(name.as_str());
                fields.reverse();
                return Some(fields);
            }
            _ => return None,
        }
    }
}

impl Serialize for Expr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Some(path) = path_of(self) {
            let mut seq = s.serialize_seq(Some(path.len() + 1))?;
            seq.serialize_element("$")?;
            for p in path {
                seq.serialize_element(p)?;
            }
            return seq.end();
        }
        if let ExprKind::Literal { value } = &self.kind {
            return Lit(value).serialize(s);
        }
        let mut seq = s.serialize_seq(None)?;
        match &self.kind {
            // Handled above: an ident is a path, a literal a scalar.
            ExprKind::Literal { .. } | ExprKind::Ident { .. } => {}
            ExprKind::Member { target, field } => {
                seq.serialize_element(".")?;
                seq.serialize_element(target)?;
                seq.serialize_element(field)?;
            }
            ExprKind::Index { target, index } => {
                seq.serialize_element("[]")?;
                seq.serialize_element(target)?;
                seq.serialize_element(index)?;
            }
            ExprKind::Unary { op, operand } => {
                seq.serialize_element(match op {
                    UnaryOp::Not => "!",
                    UnaryOp::Neg => "neg",
                })?;
                seq.serialize_element(operand)?;
            }
            ExprKind::Binary { op, left, right } => {
                seq.serialize_element(op.symbol())?;
                seq.serialize_element(left)?;
                seq.serialize_element(right)?;
            }
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => {
                seq.serialize_element("?:")?;
                seq.serialize_element(cond)?;
                seq.serialize_element(then)?;
                seq.serialize_element(otherwise)?;
            }
            ExprKind::Call {
                function,
                target,
                args,
            } => {
                match target {
                    Some(t) => {
                        seq.serialize_element("method")?;
                        seq.serialize_element(t)?;
                    }
                    None => seq.serialize_element("call")?,
                }
                seq.serialize_element(function)?;
                for a in args {
                    seq.serialize_element(a)?;
                }
            }
            ExprKind::List { items } => {
                seq.serialize_element("list")?;
                for i in items {
                    seq.serialize_element(i)?;
                }
            }
            ExprKind::Map { entries } => {
                seq.serialize_element("map")?;
                for (k, v) in entries {
                    seq.serialize_element(&(k, v))?;
                }
            }
            ExprKind::Has { target, field } => {
                seq.serialize_element("has")?;
                seq.serialize_element(target)?;
                seq.serialize_element(field)?;
            }
            ExprKind::Comprehension {
                mac,
                range,
                var,
                filter,
                body,
            } => {
                seq.serialize_element("comp")?;
                seq.serialize_element(macro_name(*mac))?;
                seq.serialize_element(range)?;
                seq.serialize_element(var)?;
                if let Some(f) = filter {
                    seq.serialize_element(f)?;
                }
                seq.serialize_element(body)?;
            }
            ExprKind::Template { parts } => {
                seq.serialize_element("tmpl")?;
                for p in parts {
                    match p {
                        TemplatePart::Text { text } => seq.serialize_element(text)?,
                        TemplatePart::Expr { expr } => match &expr.kind {
                            ExprKind::Literal {
                                value: Literal::String(t),
                            } => seq.serialize_element(&("lit", t))?,
                            _ => seq.serialize_element(expr)?,
                        },
                    }
                }
            }
        }
        seq.end()
    }
}

/// The `agc.plan/v1` object form, ids as written.
#[derive(serde::Deserialize)]
struct Legacy {
    id: NodeId,
    #[serde(flatten)]
    kind: ExprKind,
}

/// Reads a core expression from its JSON value: the compact form (ids numbered in pre-order
/// from 0) or the `agc.plan/v1` object form.
pub fn from_value(v: Value) -> Result<Expr, String> {
    if v.is_object() {
        let l: Legacy = serde_json::from_value(v).map_err(|e| e.to_string())?;
        return Ok(Expr {
            id: l.id,
            kind: l.kind,
        });
    }
    let mut next = 0;
    decode(v, &mut next)
}

fn take_id(next: &mut NodeId) -> NodeId {
    let id = *next;
    *next += 1;
    id
}

fn literal(v: &Value) -> Result<Literal, String> {
    Ok(match v {
        Value::Null => Literal::Null,
        Value::Bool(b) => Literal::Bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Literal::Int(i)
            } else if n.is_u64() {
                return Err(format!(
                    "integer literal {n} is out of range (a uint literal is written [\"u\", {n}])"
                ));
            } else {
                Literal::Double(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => Literal::String(s.clone()),
        other => return Err(format!("expected a literal, found {other}")),
    })
}

/// Pops the next element of a node's array, which must be there.
fn arg(it: &mut std::vec::IntoIter<Value>, tag: &str) -> Result<Value, String> {
    it.next()
        .ok_or_else(|| format!("`{tag}` node has too few elements"))
}

fn string(v: Value, tag: &str) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(format!("`{tag}` node: expected a name, found {other}")),
    }
}

fn done(it: std::vec::IntoIter<Value>, tag: &str) -> Result<(), String> {
    if it.len() == 0 {
        Ok(())
    } else {
        Err(format!("`{tag}` node has too many elements"))
    }
}

fn decode(v: Value, next: &mut NodeId) -> Result<Expr, String> {
    let arr = match v {
        Value::Array(a) => a,
        Value::Object(_) => {
            return Err("a core expression node is a JSON array or scalar here".into());
        }
        scalar => {
            return Ok(Expr {
                id: take_id(next),
                kind: ExprKind::Literal {
                    value: literal(&scalar)?,
                },
            });
        }
    };
    let mut it = arr.into_iter();
    let tag = match it.next() {
        Some(Value::String(t)) => t,
        Some(other) => {
            return Err(format!(
                "a core expression tag must be a string, found {other}"
            ));
        }
        None => return Err("empty core expression node".into()),
    };
    let tag = tag.as_str();
    if tag == "$" {
        let names = it.map(|n| string(n, "$")).collect::<Result<Vec<_>, _>>()?;
        let Some((root, fields)) = names.split_first() else {
            return Err("`$` node needs a name".into());
        };
        let first = *next;
        *next += names.len() as NodeId;
        let mut e = Expr {
            id: first + fields.len() as NodeId,
            kind: ExprKind::Ident { name: root.clone() },
        };
        for (i, f) in fields.iter().enumerate() {
            e = Expr {
                id: first + (fields.len() - 1 - i) as NodeId,
                kind: ExprKind::Member {
                    target: Box::new(e),
                    field: f.clone(),
                },
            };
        }
        return Ok(e);
    }
    let id = take_id(next);
    let child = |it: &mut std::vec::IntoIter<Value>, next: &mut NodeId| {
        arg(it, tag).and_then(|v| decode(v, next)).map(Box::new)
    };
    let lit = |value| Expr {
        id,
        kind: ExprKind::Literal { value },
    };
    let kind = match tag {
        "lit" => {
            let v = arg(&mut it, tag)?;
            done(it, tag)?;
            return Ok(lit(literal(&v)?));
        }
        "u" => {
            let v = arg(&mut it, tag)?;
            done(it, tag)?;
            let u = v.as_u64().ok_or("`u` node needs an unsigned integer")?;
            return Ok(lit(Literal::Uint(u)));
        }
        "b" => {
            let v = arg(&mut it, tag)?;
            done(it, tag)?;
            let bytes: Vec<u8> = serde_json::from_value(v).map_err(|e| e.to_string())?;
            return Ok(lit(Literal::Bytes(bytes)));
        }
        "f" => {
            let v = string(arg(&mut it, tag)?, tag)?;
            done(it, tag)?;
            let d = match v.as_str() {
                "NaN" => f64::NAN,
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                other => return Err(format!("`f` node: unknown value `{other}`")),
            };
            return Ok(lit(Literal::Double(d)));
        }
        "." => ExprKind::Member {
            target: child(&mut it, next)?,
            field: string(arg(&mut it, tag)?, tag)?,
        },
        "[]" => ExprKind::Index {
            target: child(&mut it, next)?,
            index: child(&mut it, next)?,
        },
        "!" | "neg" => ExprKind::Unary {
            op: if tag == "!" {
                UnaryOp::Not
            } else {
                UnaryOp::Neg
            },
            operand: child(&mut it, next)?,
        },
        "?:" => ExprKind::Conditional {
            cond: child(&mut it, next)?,
            then: child(&mut it, next)?,
            otherwise: child(&mut it, next)?,
        },
        "call" | "method" => {
            let target = if tag == "method" {
                Some(child(&mut it, next)?)
            } else {
                None
            };
            let function = string(arg(&mut it, tag)?, tag)?;
            let args = it
                .by_ref()
                .map(|a| decode(a, next))
                .collect::<Result<_, _>>()?;
            ExprKind::Call {
                function,
                target,
                args,
            }
        }
        "list" => ExprKind::List {
            items: it
                .by_ref()
                .map(|a| decode(a, next))
                .collect::<Result<_, _>>()?,
        },
        "map" => {
            let mut entries = Vec::with_capacity(it.len());
            for pair in it.by_ref() {
                let Value::Array(kv) = pair else {
                    return Err("`map` entries are [key, value] pairs".into());
                };
                let mut kv = kv.into_iter();
                let k = decode(arg(&mut kv, tag)?, next)?;
                let v = decode(arg(&mut kv, tag)?, next)?;
                done(kv, tag)?;
                entries.push((k, v));
            }
            ExprKind::Map { entries }
        }
        "has" => ExprKind::Has {
            target: child(&mut it, next)?,
            field: string(arg(&mut it, tag)?, tag)?,
        },
        "comp" => {
            let name = string(arg(&mut it, tag)?, tag)?;
            let mac = macro_of(&name).ok_or_else(|| format!("unknown macro `{name}`"))?;
            let range = child(&mut it, next)?;
            let var = string(arg(&mut it, tag)?, tag)?;
            let first = child(&mut it, next)?;
            let (filter, body) = match it.len() {
                0 => (None, first),
                _ => (Some(first), child(&mut it, next)?),
            };
            ExprKind::Comprehension {
                mac,
                range,
                var,
                filter,
                body,
            }
        }
        "tmpl" => {
            let mut parts = Vec::with_capacity(it.len());
            for p in it.by_ref() {
                parts.push(match p {
                    Value::String(text) => TemplatePart::Text { text },
                    other => TemplatePart::Expr {
                        expr: decode(other, next)?,
                    },
                });
            }
            ExprKind::Template { parts }
        }
        op => match BINARY.iter().find(|b| b.symbol() == op) {
            Some(&op) => ExprKind::Binary {
                op,
                left: child(&mut it, next)?,
                right: child(&mut it, next)?,
            },
            None => return Err(format!("unknown core expression tag `{op}`")),
        },
    };
    done(it, tag)?;
    Ok(Expr { id, kind })
}

/// Whether the ids of `e` are pre-order from 0, which the compact encoding relies on (it does
/// not write them).
pub fn is_preorder(e: &Expr) -> bool {
    serde_json::to_value(e)
        .ok()
        .and_then(|v| from_value(v).ok())
        .is_some_and(|back| back == *e)
}

mod read;
#[cfg(test)]
mod tests;
