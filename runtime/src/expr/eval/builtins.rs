//! Implementations of the built-in functions in [`crate::expr::functions`]. The evaluator
//! has already resolved the name, checked the arity and picked an overload for the argument
//! kinds, so each arm can rely on the kinds its table entry declares. (AGX's `succeeded`,
//! `failed`, `skipped` and `output` read the environment and live in the evaluator.)
//!
//! Conversion decisions for AGX, where the spec leaves them open:
//! - `int(x)`: integers as they are, floats truncated toward zero (non-finite or out of
//!   range is an error), booleans 0/1, strings parsed as base-10 integers after trimming
//!   whitespace (`"3.5"` is an error).
//! - `float(x)`: numbers, booleans 1.0/0.0, strings parsed after trimming.
//! - `bool(x)`: booleans, and the strings `"true"`/`"false"` in any case; anything else is an
//!   error (no truthiness: `bool(0)` and `bool("")` are errors, not `false`).
//! - `str(x)`: the interpolation text ([`super::render::agx_text`]), so `str(null)` is `""`.
//! - `get(obj, "a.b.0")`: segments select object keys, or array indices when numeric; any
//!   miss gives the default (`null` without one).
//! - `split(s, "")` is an error (as in Python).
//!
//! Regular expressions use the `regex` crate (RE2-like syntax, linear time), searched
//! unanchored; patterns compile with a 1 MiB size limit, and an invalid pattern is an error.

use regex::{Regex, RegexBuilder};

use super::super::Lang;
use super::super::functions::Style;
use super::render::{agx_text, cel_string, go_json, go_text};
use super::time;

/// Compiled regular expressions of one evaluation, by pattern.
pub(crate) type RegexCache = std::collections::HashMap<String, regex::Regex>;
use crate::value::{Key, Value, map_get};

type R = Result<Value, String>;

/// Calls a resolved built-in with its evaluated arguments (receiver first).
pub(super) fn call(
    lang: Lang,
    name: &str,
    style: Style,
    args: Vec<Value>,
    regexes: &mut RegexCache,
) -> R {
    match lang {
        Lang::Agx => agx(name, args, regexes),
        Lang::Cel => cel(name, style, args, regexes),
        Lang::Gotmpl => gotmpl(name, args),
    }
}

fn no_overload(name: &str, args: &[Value]) -> String {
    let kinds: Vec<&str> = args.iter().map(Value::type_name).collect();
    format!("no overload of `{name}` takes ({})", kinds.join(", "))
}

fn regex<'c>(pattern: &str, cache: &'c mut RegexCache) -> Result<&'c Regex, String> {
    if !cache.contains_key(pattern) {
        let re = RegexBuilder::new(pattern)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| format!("invalid regular expression: {e}"))?;
        if cache.len() >= 64 {
            cache.clear();
        }
        cache.insert(pattern.to_string(), re);
    }
    cache
        .get(pattern)
        .ok_or_else(|| "regular expression cache".to_string())
}

fn string_pair(args: &[Value]) -> Option<(&str, &str)> {
    match args {
        [Value::String(a), Value::String(b)] => Some((a, b)),
        _ => None,
    }
}

/// The string tests shared by AGX and CEL (`contains` on strings, prefix, suffix, regex).
fn string_test(name: &str, args: &[Value], regexes: &mut RegexCache) -> Option<R> {
    let (s, p) = string_pair(args)?;
    Some(match name {
        "contains" => Ok(Value::Bool(s.contains(p))),
        "startswith" | "startsWith" => Ok(Value::Bool(s.starts_with(p))),
        "endswith" | "endsWith" => Ok(Value::Bool(s.ends_with(p))),
        "matches" => regex(p, regexes).map(|re| Value::Bool(re.is_match(s))),
        _ => return None,
    })
}

fn agx(name: &str, args: Vec<Value>, regexes: &mut RegexCache) -> R {
    if let Some(r) = string_test(name, &args, regexes) {
        return r;
    }
    let mut it = args.into_iter();
    let a = it.next().unwrap_or(Value::Null);
    let b = it.next();
    let c = it.next();
    match (name, a, b) {
        ("len" | "count", Value::List(l), _) => Ok(Value::Int(l.len() as i64)),
        ("len", Value::String(s), _) => Ok(Value::Int(s.chars().count() as i64)),
        ("len", Value::Map(m), _) => Ok(Value::Int(m.len() as i64)),
        ("contains", Value::List(l), Some(x)) => Ok(Value::Bool(l.contains(&x))),
        ("contains", Value::Map(m), Some(x)) => Ok(Value::Bool(
            Key::from_value(&x).is_some_and(|k| map_get(&m, &k).is_some()),
        )),
        ("lower", Value::String(s), _) => Ok(Value::String(s.to_lowercase())),
        ("upper", Value::String(s), _) => Ok(Value::String(s.to_uppercase())),
        ("trim", Value::String(s), _) => Ok(Value::String(s.trim().to_string())),
        ("split", Value::String(_), Some(Value::String(sep))) if sep.is_empty() => {
            Err("split: empty separator".into())
        }
        ("split", Value::String(s), Some(Value::String(sep))) => {
            Ok(Value::List(s.split(sep.as_str()).map(Value::str).collect()))
        }
        ("join", Value::List(l), Some(Value::String(sep))) => Ok(Value::String(
            l.iter().map(agx_text).collect::<Vec<_>>().join(&sep),
        )),
        ("int", v, _) => agx_int(v),
        ("float", v, _) => agx_float(v),
        ("bool", v, _) => match v {
            Value::Bool(b) => Ok(Value::Bool(b)),
            Value::String(s) if s.eq_ignore_ascii_case("true") => Ok(Value::Bool(true)),
            Value::String(s) if s.eq_ignore_ascii_case("false") => Ok(Value::Bool(false)),
            other => Err(format!("cannot convert {} to boolean", describe(&other))),
        },
        ("str", v, _) => Ok(Value::String(agx_text(&v))),
        ("json", Value::String(s), _) => serde_json::from_str::<serde_json::Value>(&s)
            .map(|j| Value::from_json(&j))
            .map_err(|e| format!("json: invalid JSON: {e}")),
        ("get", obj, Some(Value::String(path))) => {
            Ok(get_path(obj, &path).unwrap_or(c.unwrap_or(Value::Null)))
        }
        ("default", Value::Null, Some(fallback)) => Ok(fallback),
        ("default", v, Some(_)) => Ok(v),
        ("any" | "all", Value::List(l), _) => {
            let want = name == "any";
            for item in &l {
                match item {
                    Value::Bool(b) if *b == want => return Ok(Value::Bool(want)),
                    Value::Bool(_) => {}
                    other => {
                        return Err(format!(
                            "{name}: elements must be booleans, got {}",
                            other.kind().agx_name()
                        ));
                    }
                }
            }
            Ok(Value::Bool(!want))
        }
        (name, a, b) => {
            let mut args = vec![a];
            args.extend(b);
            Err(no_overload(name, &args))
        }
    }
}

/// A short description of a value for conversion errors.
fn describe(v: &Value) -> String {
    match v {
        Value::String(s) if s.chars().count() <= 40 => format!("string \"{s}\""),
        other => other.kind().agx_name().to_string(),
    }
}

fn agx_int(v: Value) -> R {
    match v {
        Value::Int(_) | Value::Uint(_) => Ok(v),
        Value::Bool(b) => Ok(Value::Int(i64::from(b))),
        Value::Double(d) => double_to_int(d),
        Value::String(s) => s.trim().parse::<i64>().map(Value::Int).map_err(|_| {
            format!(
                "cannot convert {} to integer",
                describe(&Value::String(s.clone()))
            )
        }),
        other => Err(format!("cannot convert {} to integer", describe(&other))),
    }
}

fn double_to_int(d: f64) -> R {
    // 2^63 is exactly representable; everything strictly below it fits.
    if d.is_finite() && d > -9_223_372_036_854_775_809.0 && d < 9_223_372_036_854_775_808.0 {
        Ok(Value::Int(d.trunc() as i64))
    } else {
        Err("integer overflow converting a double".into())
    }
}

fn agx_float(v: Value) -> R {
    match v {
        Value::Int(i) => Ok(Value::Double(i as f64)),
        Value::Uint(u) => Ok(Value::Double(u as f64)),
        Value::Double(_) => Ok(v),
        Value::Bool(b) => Ok(Value::Double(if b { 1.0 } else { 0.0 })),
        Value::String(s) => s.trim().parse::<f64>().map(Value::Double).map_err(|_| {
            format!(
                "cannot convert {} to number",
                describe(&Value::String(s.clone()))
            )
        }),
        other => Err(format!("cannot convert {} to number", describe(&other))),
    }
}

/// `get`'s dotted-path walk; `None` on any miss.
fn get_path(mut v: Value, path: &str) -> Option<Value> {
    if path.is_empty() {
        return Some(v);
    }
    for seg in path.split('.') {
        v = match v {
            Value::Map(mut m) => m.swap_remove(&Key::String(seg.to_string()))?,
            Value::List(l) => l.into_iter().nth(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(v)
}

fn cel(name: &str, style: Style, args: Vec<Value>, regexes: &mut RegexCache) -> R {
    if let Some(r) = string_test(name, &args, regexes) {
        return r;
    }
    if name.starts_with("get") && style == Style::Receiver {
        let tz = match args.get(1) {
            Some(Value::String(s)) => Some(s.as_str()),
            _ => None,
        };
        return match args.first() {
            Some(Value::Timestamp(t)) => time::timestamp_field(name, *t, tz).map(Value::Int),
            Some(Value::Duration(d)) => time::duration_field(name, *d).map(Value::Int),
            _ => Err(no_overload(name, &args)),
        };
    }
    let Some(v) = args.first().cloned() else {
        return Err(no_overload(name, &args));
    };
    match (name, v) {
        ("size", Value::String(s)) => Ok(Value::Int(s.chars().count() as i64)),
        ("size", Value::Bytes(b)) => Ok(Value::Int(b.len() as i64)),
        ("size", Value::List(l)) => Ok(Value::Int(l.len() as i64)),
        ("size", Value::Map(m)) => Ok(Value::Int(m.len() as i64)),
        ("int", Value::Int(i)) => Ok(Value::Int(i)),
        ("int", Value::Uint(u)) => i64::try_from(u)
            .map(Value::Int)
            .map_err(|_| "integer overflow".into()),
        ("int", Value::Double(d)) => double_to_int(d),
        ("int", Value::String(s)) => s
            .parse()
            .map(Value::Int)
            .map_err(|_| format!("cannot convert \"{s}\" to int")),
        ("int", Value::Timestamp(t)) => Ok(Value::Int(t.as_second())),
        ("uint", Value::Int(i)) => u64::try_from(i)
            .map(Value::Uint)
            .map_err(|_| "unsigned integer overflow".into()),
        ("uint", Value::Uint(u)) => Ok(Value::Uint(u)),
        ("uint", Value::Double(d))
            if d.is_finite() && d > -1.0 && d < 18_446_744_073_709_551_616.0 =>
        {
            Ok(Value::Uint(d.trunc() as u64))
        }
        ("uint", Value::Double(_)) => Err("unsigned integer overflow converting a double".into()),
        ("uint", Value::String(s)) => s
            .parse()
            .map(Value::Uint)
            .map_err(|_| format!("cannot convert \"{s}\" to uint")),
        ("double", Value::Int(i)) => Ok(Value::Double(i as f64)),
        ("double", Value::Uint(u)) => Ok(Value::Double(u as f64)),
        ("double", Value::Double(d)) => Ok(Value::Double(d)),
        ("double", Value::String(s)) => s
            .parse()
            .map(Value::Double)
            .map_err(|_| format!("cannot convert \"{s}\" to double")),
        ("string", v) => cel_string(&v).map(Value::String),
        ("bytes", Value::String(s)) => Ok(Value::Bytes(s.into_bytes())),
        ("bytes", Value::Bytes(b)) => Ok(Value::Bytes(b)),
        ("bool", Value::Bool(b)) => Ok(Value::Bool(b)),
        ("bool", Value::String(s)) => match s.as_str() {
            "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(Value::Bool(true)),
            "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(Value::Bool(false)),
            _ => Err(format!("cannot convert \"{s}\" to bool")),
        },
        ("type", v) => Ok(Value::Type(v.kind())),
        ("dyn", v) => Ok(v),
        ("timestamp", Value::String(s)) => time::parse_timestamp(&s).map(Value::Timestamp),
        ("timestamp", Value::Timestamp(t)) => Ok(Value::Timestamp(t)),
        ("timestamp", Value::Int(i)) => time::timestamp_from_seconds(i).map(Value::Timestamp),
        ("duration", Value::String(s)) => time::parse_duration(&s).map(Value::Duration),
        ("duration", Value::Duration(d)) => time::check_duration(d).map(Value::Duration),
        _ => Err(no_overload(name, &args)),
    }
}

/// Go's notion of an empty value (what `default` replaces).
fn go_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Uint(u) => *u == 0,
        Value::Double(d) => *d == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        Value::Timestamp(_) | Value::Duration(_) | Value::Type(_) => false,
    }
}

/// Go's zero value (`reflect.Value.IsZero`), what agh's `default` replaces: nil, false, 0 and
/// "", but not an empty list or map (a decoded `[]` or `{}` is a non-nil slice or map).
fn go_zero(v: &Value) -> bool {
    match v {
        Value::List(_) | Value::Map(_) => false,
        v => go_empty(v),
    }
}

fn gotmpl(name: &str, args: Vec<Value>) -> R {
    let mut it = args.into_iter();
    let a = it.next().unwrap_or(Value::Null);
    let b = it.next();
    match (name, a, b) {
        ("json" | "toJson", v, _) => Ok(Value::String(go_json(&v))),
        ("truthy", v, _) => Ok(Value::Bool(!go_empty(&v))),
        ("join", Value::String(_), Some(Value::String(s))) => Ok(Value::String(s)),
        ("join", Value::String(sep), Some(Value::List(l))) => Ok(Value::String(
            l.iter().map(go_text).collect::<Vec<_>>().join(&sep),
        )),
        ("default", fallback, Some(v)) => Ok(if go_zero(&v) { fallback } else { v }),
        // compozy's `shellQuote`: the value's text in single quotes, each `'` as `'"'"'`.
        ("shellQuote", v, None) => Ok(Value::String(format!(
            "'{}'",
            go_text(&v).replace('\'', "'\"'\"'")
        ))),
        ("len", Value::String(s), _) => Ok(Value::Int(s.len() as i64)),
        ("len", Value::List(l), _) => Ok(Value::Int(l.len() as i64)),
        ("len", Value::Map(m), _) => Ok(Value::Int(m.len() as i64)),
        (name, a, b) => {
            let mut args = vec![a];
            args.extend(b);
            Err(no_overload(name, &args))
        }
    }
}
