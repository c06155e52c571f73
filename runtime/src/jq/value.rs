//! Conversion between `serde_json::Value` and jaq's value type.
//!
//! Both directions recurse over the value with an explicit depth bound ([`MAX_VALUE_DEPTH`]),
//! so a deeply nested value is an error, never a stack overflow.
//!
//! Decisions (see also `docs/jq-differences.md`):
//! - Numbers: integers that fit `i64`/`u64` stay integers; other numbers become `f64`. A
//!   float with an integral value below 2^53 in magnitude is an integer in both directions:
//!   that is what jq prints (`3 / 3` gives `1`) and how AWP's engine hands over state
//!   (`JSON.stringify(1.0)` is `1`), so `1.0 | tostring` is `"1"`. NaN becomes `null` and ±infinity becomes
//!   ±`f64::MAX` (`1.7976931348623157e+308`), as jq does.
//! - Strings: jaq's byte strings and non-UTF-8 text strings are converted lossily (U+FFFD).
//! - Object keys must be strings; jaq allows other keys, and such an output is an error.

use jaq_json::{Num, Val};
use serde_json::{Map, Number, Value};

/// Deepest value converted in either direction.
pub const MAX_VALUE_DEPTH: usize = 512;

/// Why a value could not be converted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConvError {
    /// Nested deeper than [`MAX_VALUE_DEPTH`].
    TooDeep,
    /// An object key that is not a string (only jaq can produce these).
    NonStringKey(String),
}

/// `serde_json::Value` → jaq value.
pub fn to_val(v: &Value) -> Result<Val, ConvError> {
    to_val_at(v, 0)
}

fn to_val_at(v: &Value, depth: usize) -> Result<Val, ConvError> {
    if depth > MAX_VALUE_DEPTH {
        return Err(ConvError::TooDeep);
    }
    Ok(match v {
        Value::Null => Val::Null,
        Value::Bool(b) => Val::Bool(*b),
        Value::Number(n) => Val::Num(if let Some(i) = n.as_i64() {
            Num::from_integral(i)
        } else if let Some(u) = n.as_u64() {
            Num::from_integral(u)
        } else {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f.abs() < EXACT {
                // `1.0` is the number 1, as in jq and in AWP's JSON.stringify'd state.
                Num::from_integral(f as i64)
            } else {
                Num::Float(f)
            }
        }),
        Value::String(s) => Val::from(s.clone()),
        Value::Array(a) => a
            .iter()
            .map(|x| to_val_at(x, depth + 1))
            .collect::<Result<Val, _>>()?,
        Value::Object(o) => {
            let mut m = jaq_json::Map::default();
            for (k, x) in o {
                m.insert(Val::from(k.clone()), to_val_at(x, depth + 1)?);
            }
            Val::obj(m)
        }
    })
}

/// jaq value → `serde_json::Value`.
pub fn from_val(v: &Val) -> Result<Value, ConvError> {
    from_val_at(v, 0)
}

fn from_val_at(v: &Val, depth: usize) -> Result<Value, ConvError> {
    if depth > MAX_VALUE_DEPTH {
        return Err(ConvError::TooDeep);
    }
    Ok(match v {
        Val::Null => Value::Null,
        Val::Bool(b) => Value::Bool(*b),
        Val::Num(n) => num(n),
        Val::BStr(b) | Val::TStr(b) => Value::String(String::from_utf8_lossy(b).into_owned()),
        Val::Arr(a) => Value::Array(
            a.iter()
                .map(|x| from_val_at(x, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Val::Obj(o) => {
            let mut m = Map::new();
            for (k, x) in o.iter() {
                let key = match k {
                    Val::TStr(b) | Val::BStr(b) => String::from_utf8_lossy(b).into_owned(),
                    other => return Err(ConvError::NonStringKey(other.to_string())),
                };
                m.insert(key, from_val_at(x, depth + 1)?);
            }
            Value::Object(m)
        }
    })
}

/// A jaq number as JSON (see the module docs for the rules).
fn num(n: &Num) -> Value {
    match n {
        Num::Int(i) => Value::from(*i as i64),
        Num::Float(f) => float(*f),
        // Big integers and decimal literals: go through their text.
        other => {
            let text = other.to_string();
            if let Ok(i) = text.parse::<i64>() {
                Value::from(i)
            } else if let Ok(u) = text.parse::<u64>() {
                Value::from(u)
            } else {
                float(text.parse::<f64>().unwrap_or(f64::NAN))
            }
        }
    }
}

/// 2^53: integral floats below it in magnitude are exact integers.
const EXACT: f64 = 9_007_199_254_740_992.0;

fn float(f: f64) -> Value {
    if f.is_nan() {
        Value::Null
    } else if f.is_infinite() {
        Value::from(if f > 0.0 { f64::MAX } else { f64::MIN })
    } else if f.fract() == 0.0 && f.abs() < EXACT {
        Value::from(f as i64)
    } else {
        Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip_keeps_order_and_types() {
        let v = json!({"z": 1, "a": [true, null, 2.5, "s"], "m": {"k": -3}});
        assert_eq!(from_val(&to_val(&v).unwrap()).unwrap(), v);
    }

    #[test]
    fn numbers_follow_jq() {
        assert_eq!(float(3.0), json!(3));
        assert_eq!(float(f64::NAN), json!(null));
        assert_eq!(float(f64::INFINITY), json!(f64::MAX));
        assert_eq!(
            from_val(&to_val(&json!(u64::MAX)).unwrap()).unwrap(),
            json!(u64::MAX)
        );
    }

    #[test]
    fn deep_values_are_errors() {
        let mut v = json!(1);
        for _ in 0..(MAX_VALUE_DEPTH + 5) {
            v = json!([v]);
        }
        assert_eq!(to_val(&v).unwrap_err(), ConvError::TooDeep);
        // Drop iteratively-built deep serde values without recursion trouble: 517 is fine.
    }
}
