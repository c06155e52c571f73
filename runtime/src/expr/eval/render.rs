//! How values become text: template interpolation, `str()`/`string()`, `join`, `json`.
//!
//! Decisions:
//! - **AGX `${{ }}`** (AGS `docs/expressions.md` §1): strings as they are, `null` as `""`,
//!   booleans `true`/`false`, numbers as JSON prints them, arrays and objects as compact JSON
//!   (keys in document order). AGX `str(x)` and `join` use the same rule, so `str(null)` is
//!   `""`.
//! - **agh `{{ }}`** follows Go's `text/template`, which prints with `fmt`'s `%v`: strings as
//!   they are, floats in Go's shortest `%g` form (`1e+06`), lists as `[a b]`, maps as
//!   `map[k:v]` with sorted keys, a `null` as `<no value>` at the top level and `<nil>`
//!   inside. One deliberate difference: agc keeps JSON integers integral, so `1000000`
//!   prints as `1000000` where Go (which decodes JSON numbers as float64) would print
//!   `1e+06`. The `json` function follows Go's `json.Marshal`: sorted keys, `<`, `>` and `&`
//!   escaped as `\u003c` ...
//! - **CEL** has no templates; if one is ever built over CEL, values render as CEL's
//!   `string()` conversion does, with lists and maps as compact JSON.

use super::super::Lang;
use crate::value::{Key, Value, format_duration, format_timestamp};

/// Renders a value for interpolation into a template of `lang`.
pub fn render(lang: Lang, v: &Value) -> Result<String, String> {
    match lang {
        Lang::Agx => Ok(agx_text(v)),
        Lang::Gotmpl => Ok(match v {
            Value::Null => "<no value>".to_string(),
            other => go_text(other),
        }),
        Lang::Cel => match v {
            Value::List(_) | Value::Map(_) => Ok(compact_json(v)),
            Value::Null => Ok("null".into()),
            other => cel_string(other),
        },
    }
}

/// AGX interpolation text (also `str()` and `join`'s element text).
pub fn agx_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Timestamp(t) => format_timestamp(*t),
        Value::Duration(d) => format_duration(*d),
        other => compact_json(other),
    }
}

/// Compact JSON text of a value, keys in insertion order.
pub fn compact_json(v: &Value) -> String {
    v.to_json().to_string()
}

/// CEL `string(x)` for the scalar kinds.
pub fn cel_string(v: &Value) -> Result<String, String> {
    Ok(match v {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => go_float(*d),
        Value::Bytes(b) => {
            String::from_utf8(b.clone()).map_err(|_| "invalid UTF-8 in bytes".to_string())?
        }
        Value::Timestamp(t) => format_timestamp(*t),
        Value::Duration(d) => format_duration(*d),
        Value::Type(k) => k.cel_name().to_string(),
        other => return Err(format!("no such overload: string({})", other.type_name())),
    })
}

/// Go's `%v` for a value (the way `text/template` prints it).
pub fn go_text(v: &Value) -> String {
    let mut out = String::new();
    go_write(v, &mut out);
    out
}

fn go_write(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Uint(u) => out.push_str(&u.to_string()),
        Value::Double(d) => out.push_str(&go_float(*d)),
        Value::String(s) => out.push_str(s),
        Value::Bytes(b) => {
            out.push('[');
            let parts: Vec<String> = b.iter().map(u8::to_string).collect();
            out.push_str(&parts.join(" "));
            out.push(']');
        }
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                go_write(item, out);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push_str("map[");
            let mut entries: Vec<(&Key, &Value)> = m.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            for (i, (k, val)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(&k.to_text());
                out.push(':');
                go_write(val, out);
            }
            out.push(']');
        }
        Value::Timestamp(t) => out.push_str(&format_timestamp(*t)),
        Value::Duration(d) => out.push_str(&format_duration(*d)),
        Value::Type(k) => out.push_str(k.cel_name()),
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)` (also `%v`): the shortest digits that
/// round-trip, in exponent form when the decimal exponent is below -4 or at least 6:
/// `1e+06`, `123456`, `1.5e-05`, `0.0001`.
pub fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.2345e6", "-1e-7".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if !(-4..6).contains(&exp) {
        let exp_sign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{mantissa}e{exp_sign}{:02}", exp.abs());
    }
    // Plain decimal: place the point `exp + 1` digits into the digit string.
    let point = exp + 1;
    let text = if point <= 0 {
        format!("0.{}{}", "0".repeat((-point) as usize), digits)
    } else if point as usize >= digits.len() {
        format!("{}{}", digits, "0".repeat(point as usize - digits.len()))
    } else {
        format!(
            "{}.{}",
            &digits[..point as usize],
            &digits[point as usize..]
        )
    };
    format!("{sign}{text}")
}

/// Go's `json.Marshal` of a decoded JSON value: compact, map keys sorted, `<` `>` `&` and
/// U+2028/U+2029 escaped, integral floats without a fraction.
pub fn go_json(v: &Value) -> String {
    let mut out = String::new();
    go_json_write(v, &mut out);
    out
}

fn go_json_write(v: &Value, out: &mut String) {
    match v {
        Value::Double(d) if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e21 => {
            out.push_str(&format!("{d:.0}"));
        }
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_json_write(item, out);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push('{');
            let mut entries: Vec<(String, &Value)> =
                m.iter().map(|(k, v)| (k.to_text(), v)).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            for (i, (k, val)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&html_escape(&serde_json::Value::String(k).to_string()));
                out.push(':');
                go_json_write(val, out);
            }
            out.push('}');
        }
        other => out.push_str(&html_escape(&other.to_json().to_string())),
    }
}

fn html_escape(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}
