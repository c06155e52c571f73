//! Canonical JSON and digests exactly as `@c4a/agent-graph` 0.2.6 computes them (`stableStringify`,
//! `digestValue` in its `src/io.ts`).
//!
//! Upstream sorts object keys with JavaScript's `String.prototype.localeCompare` (ICU, the
//! runtime's default locale) and serialises with `JSON.stringify`. Both matter for byte-identical
//! revisions and route ids:
//! - key order is ICU collation order, not code-point order (`_` before `-`, lowercase before
//!   uppercase, case ignored at the primary level): [`locale_compare`] uses the ICU4X root
//!   collator, which is what Node's `en-US` default gives for these strings;
//! - numbers are JavaScript numbers: `1.0` prints as `1`, `1e21` as `1e+21`, integers above
//!   2^53 lose precision ([`js_number`], via `ryu-js`);
//! - strings are escaped as `JSON.stringify` does (the same escapes as `serde_json`).

use icu_collator::options::CollatorOptions;
use icu_collator::{Collator, CollatorBorrowed};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::cmp::Ordering;
use std::fmt::Write;
use std::sync::OnceLock;

fn collator() -> &'static CollatorBorrowed<'static> {
    static COLLATOR: OnceLock<CollatorBorrowed<'static>> = OnceLock::new();
    COLLATOR.get_or_init(|| {
        // The root collation with default options is compiled into the crate: it cannot fail.
        Collator::try_new(Default::default(), CollatorOptions::default())
            .expect("the compiled root collation is always available")
    })
}

/// JavaScript `a.localeCompare(b)` in the default (root / `en`) collation.
pub fn locale_compare(a: &str, b: &str) -> Ordering {
    collator().compare(a, b)
}

/// JavaScript's default `Array.prototype.sort()` order: UTF-16 code units.
pub fn utf16_compare(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// A JSON number as JavaScript's `JSON.stringify` writes it.
pub fn js_number(n: &serde_json::Number) -> String {
    let f = n.as_f64().unwrap_or(f64::NAN);
    if !f.is_finite() {
        return "null".to_string();
    }
    let mut buf = ryu_js::Buffer::new();
    buf.format_finite(f).to_string()
}

/// `stableStringify(value)`: `JSON.stringify` after sorting every object's keys with
/// [`locale_compare`] (a stable sort; array order is kept), no whitespace.
pub fn stable_stringify(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    // Documents nest only as deep as their YAML/JSON loader allows (bounded there).
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&js_number(n)),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| locale_compare(a.0, b.0));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_value(out, v);
            }
            out.push('}');
        }
    }
}

fn write_string(out: &mut String, s: &str) {
    // serde_json escapes exactly the characters JSON.stringify escapes (`"`, `\`, C0 controls,
    // with the same short forms and lowercase `\u00xx`).
    out.push_str(&serde_json::to_string(s).unwrap_or_default());
}

/// `"sha256:" + hex(sha256(bytes))`.
pub fn digest_bytes(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in hash.iter() {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// `digestValue(value)`: the digest of [`stable_stringify`].
pub fn digest_value(value: &Value) -> String {
    digest_bytes(stable_stringify(value).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_sort_as_icu_localecompare() {
        let mut v = vec![
            "Z", "z", "aB", "ab", "a/b", "a.b", "a-b", "a_b", "A", "a", "0", "-", "_",
        ];
        v.sort_by(|a, b| locale_compare(a, b));
        // Measured with Node's `localeCompare` (en-US).
        assert_eq!(
            v,
            [
                "_", "-", "0", "a", "A", "a_b", "a-b", "a.b", "a/b", "ab", "aB", "z", "Z"
            ]
        );
    }

    #[test]
    fn numbers_print_as_javascript() {
        let v: Value =
            serde_json::from_str(r#"{"b":1.0,"a":1e21,"c":0.1,"d":-0.0000015}"#).unwrap();
        assert_eq!(
            stable_stringify(&v),
            r#"{"a":1e+21,"b":1,"c":0.1,"d":-0.0000015}"#
        );
    }

    #[test]
    fn strings_escape_as_json_stringify() {
        let v = json!({"k": "a\"b\\c\n\u{1}é/"});
        assert_eq!(stable_stringify(&v), "{\"k\":\"a\\\"b\\\\c\\n\\u0001é/\"}");
    }

    #[test]
    fn route_id_payload_order() {
        let v = json!({"revision": "r", "graph": "g", "node": "n", "callPath": []});
        assert_eq!(
            stable_stringify(&v),
            r#"{"callPath":[],"graph":"g","node":"n","revision":"r"}"#
        );
    }
}
