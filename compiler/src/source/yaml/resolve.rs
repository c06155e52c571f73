//! Plain scalars by the YAML 1.2 core schema: `yes`/`on`/`no`/`off` stay strings, `0o17` is
//! octal, `017` is decimal 17, timestamps stay strings.

use crate::source::value::Value;
use serde_json::Number;

/// The core-schema kind of a value (`str`, `int`, `float`, ...), as tags name them.
pub(super) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "seq",
        Value::Object(_) => "map",
    }
}

/// Resolves a plain scalar by the YAML 1.2 core schema: `Ok(None)` when it is a string (the
/// caller keeps the text it owns), `Err` when it is a number that JSON cannot hold.
pub(in crate::source) fn resolve_plain(s: &str) -> Result<Option<Value>, &'static str> {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Some(Value::Null)),
        "true" | "True" | "TRUE" => return Ok(Some(Value::Bool(true))),
        "false" | "False" | "FALSE" => return Ok(Some(Value::Bool(false))),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF" => {
            return Err("is infinite, which JSON cannot represent");
        }
        ".nan" | ".NaN" | ".NAN" => return Err("is not a number, which JSON cannot represent"),
        _ => {}
    }
    let bytes = s.as_bytes();
    let (neg, digits) = match bytes.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return int_value(neg, digits, 10).map(Some);
    }
    if let Some(oct) = s.strip_prefix("0o")
        && !oct.is_empty()
        && oct.bytes().all(|b| (b'0'..=b'7').contains(&b))
    {
        return int_value(false, oct, 8).map(Some);
    }
    if let Some(hex) = s.strip_prefix("0x")
        && !hex.is_empty()
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return int_value(false, hex, 16).map(Some);
    }
    if is_float(digits) {
        let f: f64 = s.parse().map_err(|_| "is not a valid number")?;
        return match Number::from_f64(f) {
            Some(n) if f.is_finite() => Ok(Some(Value::Number(n))),
            _ => Err("is out of the range of a 64-bit float"),
        };
    }
    Ok(None)
}

fn int_value(neg: bool, digits: &str, radix: u32) -> Result<Value, &'static str> {
    const TOO_BIG: &str = "is beyond the 64-bit integer range";
    let mag = u128::from_str_radix(digits, radix).map_err(|_| TOO_BIG)?;
    if neg {
        if mag <= i64::MAX as u128 + 1 {
            Ok(Value::Number(Number::from((-(mag as i128)) as i64)))
        } else {
            Err(TOO_BIG)
        }
    } else if mag <= u64::MAX as u128 {
        Ok(Value::Number(Number::from(mag as u64)))
    } else {
        Err(TOO_BIG)
    }
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` (sign already stripped).
fn is_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            frac_digits += 1;
        }
    } else if int_digits == 0 {
        return false;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == b.len()
}
