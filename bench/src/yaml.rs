//! A small block-style YAML writer for generated documents (JSON data model only).
//!
//! Strings are written plain when that is unambiguous under both YAML 1.2 and 1.1 resolution,
//! as literal blocks when they span lines, and JSON-quoted otherwise (a JSON string literal is
//! a valid YAML double-quoted scalar). Lists of short ids use flow style, as people write them.
//! The writer recurses over the value; it is meant for the generator's shallow documents only.

use serde_json::{Map, Value};

/// Writes `value` (normally an object) as a YAML document.
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(m) if !m.is_empty() => write_map(&mut out, m, 0),
        Value::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0),
        v => {
            out.push_str(&scalar(v));
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn write_map(out: &mut String, m: &Map<String, Value>, ind: usize) {
    for (i, (k, v)) in m.iter().enumerate() {
        // The first entry of a map inside a sequence item follows the "- " on the same line.
        if i > 0 || !out.ends_with("- ") {
            indent(out, ind);
        }
        out.push_str(&key(k));
        out.push(':');
        write_value_after_key(out, v, ind);
    }
}

fn write_value_after_key(out: &mut String, v: &Value, ind: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_map(out, m, ind + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            if let Some(flow) = flow_list(a) {
                out.push(' ');
                out.push_str(&flow);
                out.push('\n');
            } else {
                out.push('\n');
                write_seq(out, a, ind + 2);
            }
        }
        Value::String(s) if literal_ok(s) => {
            out.push_str(if s.ends_with('\n') { " |\n" } else { " |-\n" });
            for line in s.trim_end_matches('\n').split('\n') {
                if !line.is_empty() {
                    indent(out, ind + 2);
                    out.push_str(line);
                }
                out.push('\n');
            }
        }
        v => {
            out.push(' ');
            out.push_str(&scalar(v));
            out.push('\n');
        }
    }
}

fn write_seq(out: &mut String, a: &[Value], ind: usize) {
    for v in a {
        indent(out, ind);
        out.push_str("- ");
        match v {
            Value::Object(m) if !m.is_empty() => write_map(out, m, ind + 2),
            Value::Array(inner) if !inner.is_empty() => {
                out.push('\n');
                write_seq(out, inner, ind + 2);
            }
            v => {
                out.push_str(&scalar(v));
                out.push('\n');
            }
        }
    }
}

/// `[a, b, c]` when every item is a short id-like string.
fn flow_list(a: &[Value]) -> Option<String> {
    let mut parts = Vec::with_capacity(a.len());
    for v in a {
        let s = v.as_str()?;
        let id_like = !s.is_empty()
            && s.len() <= 64
            && s.starts_with(|c: char| c.is_ascii_lowercase())
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
        if !id_like || is_reserved_word(s) {
            return None;
        }
        parts.push(s);
    }
    Some(format!("[{}]", parts.join(", ")))
}

fn key(k: &str) -> String {
    if plain_ok(k) {
        k.to_string()
    } else {
        json_quoted(k)
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) if plain_ok(s) => s.clone(),
        Value::String(s) => json_quoted(s),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        other => other.to_string(),
    }
}

fn json_quoted(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// Words that YAML 1.2 or 1.1 would resolve to something other than a string.
fn is_reserved_word(s: &str) -> bool {
    matches!(
        s.to_ascii_lowercase().as_str(),
        "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n" | "~"
    )
}

/// A plain scalar is safe: starts with a letter, uses a conservative character set (no
/// indicators such as `:` `#` `[` `{` `,` `>` `|` `*` `&` `!` `%` `@` or quotes at the start),
/// does not end in a space, and is not a reserved word.
fn plain_ok(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic())
        && !s.ends_with(' ')
        && !s.contains("  ")
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b' ' | b'_' | b'.' | b'/' | b'-' | b'(' | b')')
        })
        && !is_reserved_word(s)
}

/// Multi-line text without trailing spaces, tabs, control characters, leading indentation or
/// more than one final newline fits a literal block.
fn literal_ok(s: &str) -> bool {
    s.contains('\n')
        && !s.starts_with([' ', '\n'])
        && !s.ends_with("\n\n")
        && s.split('\n').all(|l| !l.ends_with(' '))
        && !s.chars().any(|c| c.is_control() && c != '\n')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes() {
        let v = json!({
            "a": "plain text",
            "b": "nodes.x.outputs.count > 3",
            "c": ["n1", "n2"],
            "d": [{"k": 1, "l": true}, "yes"],
            "e": {},
            "f": "line one\nline two\n",
            "g": "no newline\nat end",
            "h": null
        });
        let want = "a: plain text\nb: \"nodes.x.outputs.count > 3\"\nc: [n1, n2]\nd:\n  - k: 1\n    l: true\n  - \"yes\"\ne: {}\nf: |\n  line one\n  line two\ng: |-\n  no newline\n  at end\nh: null\n";
        assert_eq!(to_yaml(&v), want);
    }
}
