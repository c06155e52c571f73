//! Operators other than `&&`/`||` (which the evaluator handles for their laziness), per
//! language. Each returns the result or an error message; the evaluator adds the node id.

use std::cmp::Ordering;

use jiff::{SignedDuration, Timestamp};

use super::super::{BinaryOp, Lang};
use crate::value::{
    Key, MAX_DURATION_SECONDS, MAX_TIMESTAMP_SECONDS, MIN_TIMESTAMP_SECONDS, Value, map_get,
    numeric_cmp,
};

type R = Result<Value, String>;

fn mismatch(lang: Lang, op: BinaryOp, l: &Value, r: &Value) -> String {
    let name = |v: &Value| match lang {
        Lang::Agx => v.kind().agx_name(),
        _ => v.kind().cel_name(),
    };
    match lang {
        Lang::Agx => format!("`{}` cannot take {} and {}", op.symbol(), name(l), name(r)),
        _ => format!("no such overload: {} {} {}", name(l), op.symbol(), name(r)),
    }
}

/// `-x`.
pub(super) fn negate(lang: Lang, v: Value) -> R {
    match v {
        Value::Int(i) => i.checked_neg().map(Value::Int).ok_or_else(overflow),
        Value::Double(d) => Ok(Value::Double(-d)),
        Value::Uint(u) if lang == Lang::Agx => i64::try_from(u)
            .ok()
            .and_then(i64::checked_neg)
            .map(Value::Int)
            .ok_or_else(overflow),
        Value::Duration(d) if lang == Lang::Cel => {
            d.checked_neg().map(Value::Duration).ok_or_else(overflow)
        }
        other => Err(match lang {
            Lang::Agx => format!("`-` needs a number, got {}", other.kind().agx_name()),
            _ => format!("no such overload: -{}", other.kind().cel_name()),
        }),
    }
}

fn overflow() -> String {
    "integer overflow".to_string()
}

/// A binary operator other than `&&`/`||`.
pub(super) fn binary(lang: Lang, op: BinaryOp, l: Value, r: Value) -> R {
    match op {
        BinaryOp::Eq => Ok(Value::Bool(l == r)),
        BinaryOp::Ne => Ok(Value::Bool(l != r)),
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
            let ord = compare(lang, &l, &r).ok_or_else(|| mismatch(lang, op, &l, &r))?;
            Ok(Value::Bool(match ord {
                // NaN: every ordering is false.
                None => false,
                Some(o) => match op {
                    BinaryOp::Lt => o == Ordering::Less,
                    BinaryOp::Le => o != Ordering::Greater,
                    BinaryOp::Gt => o == Ordering::Greater,
                    _ => o != Ordering::Less,
                },
            }))
        }
        BinaryOp::In => contains(lang, &l, &r).map(Value::Bool),
        _ => match lang {
            Lang::Agx => agx_arith(op, l, r),
            _ => cel_arith(op, l, r),
        },
    }
}

/// `Some(None)`: comparable kinds but unordered (NaN). `None`: the kinds cannot be ordered.
fn compare(lang: Lang, l: &Value, r: &Value) -> Option<Option<Ordering>> {
    let numeric = |v: &Value| matches!(v, Value::Int(_) | Value::Uint(_) | Value::Double(_));
    if numeric(l) && numeric(r) {
        return Some(numeric_cmp(l, r));
    }
    match (l, r) {
        (Value::String(a), Value::String(b)) => Some(Some(a.cmp(b))),
        (Value::Bytes(a), Value::Bytes(b)) if lang == Lang::Cel => Some(Some(a.cmp(b))),
        (Value::Bool(a), Value::Bool(b)) if lang == Lang::Cel => Some(Some(a.cmp(b))),
        (Value::Timestamp(a), Value::Timestamp(b)) => Some(Some(a.cmp(b))),
        (Value::Duration(a), Value::Duration(b)) => Some(Some(a.cmp(b))),
        _ => None,
    }
}

/// `needle in haystack`.
fn contains(lang: Lang, needle: &Value, haystack: &Value) -> Result<bool, String> {
    match haystack {
        Value::List(items) => Ok(items.iter().any(|i| i == needle)),
        Value::Map(m) => Ok(Key::from_value(needle).is_some_and(|k| map_get(m, &k).is_some())),
        Value::String(s) if lang == Lang::Agx => match needle {
            Value::String(n) => Ok(s.contains(n.as_str())),
            other => Err(format!(
                "`in` on a string needs a string on the left, got {}",
                other.kind().agx_name()
            )),
        },
        other => Err(match lang {
            Lang::Agx => format!(
                "`in` needs an array, string or object on the right, got {}",
                other.kind().agx_name()
            ),
            _ => format!(
                "no such overload: {} in {}",
                needle.kind().cel_name(),
                other.kind().cel_name()
            ),
        }),
    }
}

/// AGX arithmetic: integers stay integers (overflow is an error), any float makes a float,
/// `/` is true division, `%` is floored (Python's).
fn agx_arith(op: BinaryOp, l: Value, r: Value) -> R {
    match (op, l, r) {
        (BinaryOp::Add, Value::String(a), Value::String(b)) => Ok(Value::String(a + &b)),
        (BinaryOp::Add, Value::List(mut a), Value::List(b)) => {
            a.extend(b);
            Ok(Value::List(a))
        }
        (op, l, r) => {
            let (Some(a), Some(b)) = (agx_number(&l), agx_number(&r)) else {
                return Err(mismatch(Lang::Agx, op, &l, &r));
            };
            match (a, b) {
                (Num::Int(x), Num::Int(y)) if op != BinaryOp::Div => {
                    let v = match op {
                        BinaryOp::Add => x.checked_add(y),
                        BinaryOp::Sub => x.checked_sub(y),
                        BinaryOp::Mul => x.checked_mul(y),
                        _ if y == 0 => return Err("modulo by zero".into()),
                        _ => Some(floored_rem(x, y)),
                    };
                    v.and_then(int_value).ok_or_else(overflow)
                }
                (a, b) => {
                    let (x, y) = (a.as_f64(), b.as_f64());
                    Ok(Value::Double(match op {
                        BinaryOp::Add => x + y,
                        BinaryOp::Sub => x - y,
                        BinaryOp::Mul => x * y,
                        BinaryOp::Div if y == 0.0 => return Err("division by zero".into()),
                        BinaryOp::Div => x / y,
                        _ if y == 0.0 => return Err("modulo by zero".into()),
                        _ => x - y * (x / y).floor(),
                    }))
                }
            }
        }
    }
}

/// Python's `%`: the result takes the divisor's sign. `y` is not zero.
fn floored_rem(x: i128, y: i128) -> i128 {
    let m = x % y;
    if m != 0 && ((m < 0) != (y < 0)) {
        m + y
    } else {
        m
    }
}

#[derive(Clone, Copy)]
enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

fn agx_number(v: &Value) -> Option<Num> {
    match v {
        Value::Int(i) => Some(Num::Int(i128::from(*i))),
        Value::Uint(u) => Some(Num::Int(i128::from(*u))),
        Value::Double(d) => Some(Num::Float(*d)),
        _ => None,
    }
}

/// An AGX integer result: integers are 64-bit signed; beyond that is an overflow error.
fn int_value(i: i128) -> Option<Value> {
    i64::try_from(i).map(Value::Int).ok()
}

/// CEL arithmetic: operands of one kind only (plus the timestamp/duration combinations).
fn cel_arith(op: BinaryOp, l: Value, r: Value) -> R {
    use BinaryOp as B;
    use Value as V;
    match (op, l, r) {
        (op, V::Int(a), V::Int(b)) => match op {
            B::Add => a.checked_add(b),
            B::Sub => a.checked_sub(b),
            B::Mul => a.checked_mul(b),
            B::Div if b == 0 => return Err("division by zero".into()),
            B::Div => a.checked_div(b),
            _ if b == 0 => return Err("modulus by zero".into()),
            _ => a.checked_rem(b),
        }
        .map(V::Int)
        .ok_or_else(overflow),
        (op, V::Uint(a), V::Uint(b)) => match op {
            B::Add => a.checked_add(b),
            B::Sub => a.checked_sub(b),
            B::Mul => a.checked_mul(b),
            B::Div if b == 0 => return Err("division by zero".into()),
            B::Div => a.checked_div(b),
            _ if b == 0 => return Err("modulus by zero".into()),
            _ => a.checked_rem(b),
        }
        .map(V::Uint)
        .ok_or_else(|| "unsigned integer overflow".to_string()),
        (B::Add, V::Double(a), V::Double(b)) => Ok(V::Double(a + b)),
        (B::Sub, V::Double(a), V::Double(b)) => Ok(V::Double(a - b)),
        (B::Mul, V::Double(a), V::Double(b)) => Ok(V::Double(a * b)),
        (B::Div, V::Double(a), V::Double(b)) => Ok(V::Double(a / b)),
        (B::Add, V::String(a), V::String(b)) => Ok(V::String(a + &b)),
        (B::Add, V::Bytes(mut a), V::Bytes(b)) => {
            a.extend(b);
            Ok(V::Bytes(a))
        }
        (B::Add, V::List(mut a), V::List(b)) => {
            a.extend(b);
            Ok(V::List(a))
        }
        (B::Add, V::Timestamp(t), V::Duration(d)) | (B::Add, V::Duration(d), V::Timestamp(t)) => {
            shift(t, d)
        }
        (B::Sub, V::Timestamp(t), V::Duration(d)) => {
            shift(t, d.checked_neg().ok_or_else(overflow)?)
        }
        (B::Sub, V::Timestamp(a), V::Timestamp(b)) => {
            checked_duration(a.as_duration().checked_sub(b.as_duration()))
        }
        (B::Add, V::Duration(a), V::Duration(b)) => checked_duration(a.checked_add(b)),
        (B::Sub, V::Duration(a), V::Duration(b)) => checked_duration(a.checked_sub(b)),
        (op, l, r) => Err(mismatch(Lang::Cel, op, &l, &r)),
    }
}

fn shift(t: Timestamp, d: SignedDuration) -> R {
    t.as_duration()
        .checked_add(d)
        .filter(|s| (MIN_TIMESTAMP_SECONDS..=MAX_TIMESTAMP_SECONDS).contains(&s.as_secs()))
        .and_then(|s| Timestamp::from_duration(s).ok())
        .map(Value::Timestamp)
        .ok_or_else(|| "timestamp out of range".to_string())
}

fn checked_duration(d: Option<SignedDuration>) -> R {
    d.filter(|d| d.as_secs().abs() <= MAX_DURATION_SECONDS)
        .map(Value::Duration)
        .ok_or_else(|| "duration out of range".to_string())
}
