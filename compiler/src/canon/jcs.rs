//! RFC 8785 JSON Canonicalization Scheme over [`serde_json::Value`].
//!
//! * **Whitespace:** none.
//! * **Object members** sorted by the UTF-16 code units of their names (RFC 8785 §3.2.3),
//!   which differs from Rust's `str` order (UTF-8 bytes, i.e. code points) only between
//!   U+E000..U+FFFF and supplementary characters: `"\u{FB33}"` sorts after `"😀"`.
//! * **Strings** as ECMAScript `JSON.stringify` writes them (RFC 8785 §3.2.2.2): `\"`, `\\`,
//!   `\b \f \n \r \t`, other controls below U+0020 as lowercase `\u00xx`, everything else
//!   (U+007F, `/`, non-ASCII, U+2028/U+2029) as the raw UTF-8 character. Rust strings cannot
//!   hold lone surrogates, so the RFC's error case for them cannot arise.
//! * **Numbers** as ECMAScript `Number.prototype.toString` (see [`super::format_number`]).
//!
//! **Integers beyond 2^53.** serde_json keeps `u64`/`i64` values exact, but JCS's data model is
//! I-JSON, where every number is an IEEE 754 double. agc follows the RFC: every number,
//! integer or not, is converted to the nearest double (ties to even) and formatted from it, so
//! `9007199254740993` canonicalizes to `9007199254740992` and `18446744073709551615` to
//! `18446744073709552000`, byte for byte what an ECMAScript implementation (and any JCS
//! library that parses into doubles) produces for the same document text. Integers of
//! magnitude up to 2^53 are exact either way. The consequence, inherent to JCS, is that two
//! documents differing only in such a large integer share a digest; documents that need exact
//! large integers should write them as strings.
//!
//! The writer is iterative (an explicit stack of open arrays and objects), so deep nesting
//! costs heap, not call stack.

use super::CanonError;
use super::number::write_number;
use serde_json::{Number, Value};
use std::cmp::Ordering;

/// A JSON value JCS can write: a `serde_json::Value` or a loaded document's value (digests
/// of documents are taken from the document itself, with no JSON copy of it).
pub trait Json: Sized {
    fn view(&self) -> View<'_, Self>;
    /// The value as a `serde_json::Value` (a copy).
    fn to_json(&self) -> Value;
}

/// One level of a [`Json`] value; an object's members in any order.
pub enum View<'a, V> {
    Null,
    Bool(bool),
    Number(&'a Number),
    String(&'a str),
    Array(&'a [V]),
    Object(Vec<(&'a str, &'a V)>),
}

impl Json for Value {
    fn view(&self) -> View<'_, Value> {
        match self {
            Value::Null => View::Null,
            Value::Bool(b) => View::Bool(*b),
            Value::Number(n) => View::Number(n),
            Value::String(s) => View::String(s),
            Value::Array(items) => View::Array(items),
            Value::Object(map) => View::Object(map.iter().map(|(k, v)| (k.as_str(), v)).collect()),
        }
    }
    fn to_json(&self) -> Value {
        self.clone()
    }
}

impl Json for crate::source::Value {
    fn view(&self) -> View<'_, Self> {
        use crate::source::Value as D;
        match self {
            D::Null => View::Null,
            D::Bool(b) => View::Bool(*b),
            D::Number(n) => View::Number(n),
            D::String(s) => View::String(s),
            D::Array(items) => View::Array(items),
            D::Object(map) => View::Object(map.iter().map(|(k, v)| (k.as_str(), v)).collect()),
        }
    }
    fn to_json(&self) -> Value {
        crate::source::Value::to_json(self)
    }
}

/// Where canonical text goes: a `String`, or a hasher's buffer.
pub(crate) trait Sink {
    fn put(&mut self, s: &str);
}

impl Sink for String {
    fn put(&mut self, s: &str) {
        self.push_str(s);
    }
}

/// The RFC 8785 canonical text of `value`.
pub fn to_jcs<V: Json>(value: &V) -> Result<String, CanonError> {
    let mut out = String::new();
    write_jcs(value, &mut out)?;
    Ok(out)
}

/// Appends the RFC 8785 canonical text of `value` to `out`. On error, `out` may hold a prefix.
pub fn write_jcs<V: Json>(value: &V, out: &mut String) -> Result<(), CanonError> {
    write_to(value, out)
}

/// Compares object member names as RFC 8785 requires: by UTF-16 code units.
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    // Fast path: when the first differing bytes are both ASCII, they are the first differing
    // characters (an ASCII byte is never part of a multi-byte character), and ASCII orders the
    // same in UTF-8 and UTF-16.
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    match ab.iter().zip(bb).position(|(x, y)| x != y) {
        None => return ab.len().cmp(&bb.len()),
        Some(i) if ab[i].is_ascii() && bb[i].is_ascii() => return ab[i].cmp(&bb[i]),
        Some(_) => {}
    }
    // UTF-8 byte order is code point order, which agrees with UTF-16 order except when the
    // first differing characters are one supplementary (surrogate pair, 0xD800..) and one in
    // U+E000..U+FFFF. Compare the first differing characters by their first UTF-16 unit.
    let (mut x, mut y) = (a.chars(), b.chars());
    loop {
        match (x.next(), y.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c == d => continue,
            (Some(c), Some(d)) => {
                let mut bc = [0u16; 2];
                let mut bd = [0u16; 2];
                return c.encode_utf16(&mut bc)[0].cmp(&d.encode_utf16(&mut bd)[0]);
            }
        }
    }
}

/// One open container on the writer's stack.
enum Frame<'a, V> {
    Array {
        items: std::slice::Iter<'a, V>,
        index: usize,
    },
    Object {
        members: std::vec::IntoIter<(&'a str, &'a V)>,
        key: Option<&'a str>,
    },
}

pub(crate) fn write_to<V: Json>(root: &V, out: &mut impl Sink) -> Result<(), CanonError> {
    let mut stack: Vec<Frame<'_, V>> = Vec::new();
    let mut scratch = String::new();
    let mut next = Some(root);
    loop {
        if let Some(value) = next.take() {
            match value.view() {
                View::Null => out.put("null"),
                View::Bool(true) => out.put("true"),
                View::Bool(false) => out.put("false"),
                View::Number(n) => {
                    scratch.clear();
                    if !write_number(&mut scratch, number_as_f64(n)) {
                        return Err(CanonError::NonFinite {
                            pointer: pointer(&stack),
                        });
                    }
                    out.put(&scratch);
                }
                View::String(s) => write_string(out, s),
                View::Array(items) => {
                    out.put("[");
                    stack.push(Frame::Array {
                        items: items.iter(),
                        index: 0,
                    });
                }
                View::Object(mut members) => {
                    out.put("{");
                    members.sort_by(|a, b| cmp_utf16(a.0, b.0));
                    stack.push(Frame::Object {
                        members: members.into_iter(),
                        key: None,
                    });
                }
            }
        }
        let Some(top) = stack.last_mut() else {
            return Ok(());
        };
        match top {
            Frame::Array { items, index } => match items.next() {
                Some(v) => {
                    if *index > 0 {
                        out.put(",");
                    }
                    next = Some(v);
                    *index += 1;
                }
                None => {
                    out.put("]");
                    stack.pop();
                }
            },
            Frame::Object { members, key } => match members.next() {
                Some((k, v)) => {
                    if key.is_some() {
                        out.put(",");
                    }
                    *key = Some(k);
                    write_string(out, k);
                    out.put(":");
                    next = Some(v);
                }
                None => {
                    out.put("}");
                    stack.pop();
                }
            },
        }
    }
}

/// A number as the double JCS formats (see the module docs for integers beyond 2^53).
fn number_as_f64(n: &Number) -> f64 {
    if let Some(u) = n.as_u64() {
        u as f64
    } else if let Some(i) = n.as_i64() {
        i as f64
    } else {
        n.as_f64().unwrap_or(f64::NAN)
    }
}

/// JSON Pointer (RFC 6901) of the value being written, from the open containers.
fn pointer<V>(stack: &[Frame<'_, V>]) -> String {
    let mut p = String::new();
    for frame in stack {
        p.push('/');
        match frame {
            Frame::Array { index, .. } => p.push_str(&index.saturating_sub(1).to_string()),
            Frame::Object { key, .. } => {
                p.push_str(&key.unwrap_or("").replace('~', "~0").replace('/', "~1"))
            }
        }
    }
    p
}

fn write_string(out: &mut impl Sink, s: &str) {
    out.put("\"");
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        // Bytes below 0x80 are whole ASCII characters in UTF-8, so slicing at them is safe.
        let esc: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.put(&s[start..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let u = [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 0xf) as usize],
            ];
            out.put(std::str::from_utf8(&u).unwrap_or("\\ufffd"));
        } else {
            out.put(esc);
        }
        start = i + 1;
    }
    out.put(&s[start..]);
    out.put("\"");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn jcs_of(text: &str) -> String {
        let v: Value = serde_json::from_str(text).expect("test JSON parses");
        to_jcs(&v).expect("canonical")
    }

    /// AGS 1.0.1 Appendix C.
    #[test]
    fn ags_appendix_c_vectors() {
        assert_eq!(jcs_of(r#"{"b":2,"a":1}"#), r#"{"a":1,"b":2}"#);
        assert_eq!(jcs_of(r#"{"n":1.0}"#), r#"{"n":1}"#);
        assert_eq!(jcs_of(r#"{"s":"é","z":-0.0}"#), r#"{"s":"é","z":0}"#);
    }

    /// RFC 8785 §3.2.2 (the example in the section on serialization).
    #[test]
    fn rfc8785_serialization_example() {
        let input = r#"{
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }"#;
        assert_eq!(
            jcs_of(input),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
    }

    /// RFC 8785 §3.2.3 (sorting of object members by UTF-16 code units).
    #[test]
    fn rfc8785_sorting_example() {
        let input = r#"{
          "\u20ac": "Euro Sign",
          "\r": "Carriage Return",
          "\ufb33": "Hebrew Letter Dalet With Dagesh",
          "1": "One",
          "\ud83d\ude00": "Emoji: Grinning Face",
          "\u0080": "Control",
          "\u00f6": "Latin Small Letter O With Diaeresis"
        }"#;
        let want = concat!(
            r#"{"\r":"Carriage Return","1":"One","#,
            "\"\u{80}\":\"Control\",",
            r#""ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","#,
            "\"\u{1F600}\":\"Emoji: Grinning Face\",",
            "\"\u{FB33}\":\"Hebrew Letter Dalet With Dagesh\"}"
        );
        assert_eq!(jcs_of(input), want);
    }

    #[test]
    fn utf16_order_agrees_with_encoded_units() {
        // Every pair from a set mixing ASCII, BMP and supplementary characters at the point of
        // difference, against the definition: the sequences of UTF-16 code units.
        let parts = [
            "",
            "a",
            "b",
            "z~",
            "\u{7f}",
            "é",
            "\u{FB33}",
            "\u{FFFF}",
            "\u{1F600}",
            "\u{10FFFF}",
        ];
        let mut words = Vec::new();
        for p in parts {
            for q in parts {
                words.push(format!("k{p}{q}"));
            }
        }
        for a in &words {
            for b in &words {
                assert_eq!(
                    cmp_utf16(a, b),
                    a.encode_utf16().cmp(b.encode_utf16()),
                    "{a:?} vs {b:?}"
                );
            }
        }
    }

    #[test]
    fn utf16_order_differs_from_utf8_order() {
        // U+FB33 > U+1F600 in code points, but its UTF-16 unit 0xFB33 > 0xD83D.
        assert_eq!(cmp_utf16("\u{FB33}", "\u{1F600}"), Ordering::Greater);
        assert_eq!("\u{FB33}".cmp("\u{1F600}"), Ordering::Less);
        assert_eq!(cmp_utf16("a", "ab"), Ordering::Less);
        assert_eq!(cmp_utf16("ab", "a"), Ordering::Greater);
        assert_eq!(cmp_utf16("b", "ab"), Ordering::Greater);
        assert_eq!(cmp_utf16("", ""), Ordering::Equal);
        assert_eq!(cmp_utf16("\u{1F600}x", "\u{1F600}y"), Ordering::Less);
        assert_eq!(
            jcs_of(r#"{"\ufb33":1,"\ud83d\ude00":2,"\uffff":3,"z":4}"#),
            "{\"z\":4,\"\u{1F600}\":2,\"\u{FB33}\":1,\"\u{FFFF}\":3}"
        );
    }

    #[test]
    fn string_escapes() {
        let all_controls: String = (0u8..0x20).map(char::from).collect();
        let v = json!([all_controls, "\u{7f}/\u{2028}\u{2029}é\"\\", ""]);
        let want = concat!(
            r#"["\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f"#,
            r#"\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c"#,
            r#"\u001d\u001e\u001f","#,
            "\"\u{7f}/\u{2028}\u{2029}é\\\"\\\\\",\"\"]"
        );
        assert_eq!(to_jcs(&v).unwrap(), want);
        // Keys are escaped the same way.
        assert_eq!(
            to_jcs(&json!({"a\nb": 1, "\u{1}": 2})).unwrap(),
            r#"{"\u0001":2,"a\nb":1}"#
        );
    }

    #[test]
    fn structure_and_literals() {
        assert_eq!(to_jcs(&json!(null)).unwrap(), "null");
        assert_eq!(to_jcs(&json!(true)).unwrap(), "true");
        assert_eq!(to_jcs(&json!([])).unwrap(), "[]");
        assert_eq!(to_jcs(&json!({})).unwrap(), "{}");
        assert_eq!(to_jcs(&json!("x")).unwrap(), r#""x""#);
        assert_eq!(
            jcs_of(r#" { "b" : [ 1 , { "d" : [ ] , "c" : { } } , [ [ ] ] ] , "a" : null } "#),
            r#"{"a":null,"b":[1,{"c":{},"d":[]},[[]]]}"#
        );
        // Array order is kept; only object members are sorted.
        assert_eq!(jcs_of(r#"[3,1,2,"b","a"]"#), r#"[3,1,2,"b","a"]"#);
    }

    #[test]
    fn numbers_in_documents() {
        assert_eq!(
            jcs_of(r#"[1.0, -0.0, 1e21, 1e-7, 100, 1E2, 0.1e1, -1.5e-10, 123456789012]"#),
            "[1,0,1e+21,1e-7,100,100,1,-1.5e-10,123456789012]"
        );
    }

    #[test]
    fn integers_beyond_2_pow_53_become_doubles() {
        assert_eq!(
            to_jcs(&json!([
                9007199254740992u64,
                9007199254740993u64,
                u64::MAX,
                i64::MIN,
                -9007199254740993i64
            ]))
            .unwrap(),
            "[9007199254740992,9007199254740992,18446744073709552000,-9223372036854776000,-9007199254740992]"
        );
    }

    #[test]
    fn non_finite_numbers_are_rejected_with_a_pointer() {
        // serde_json cannot hold a non-finite number unless `arbitrary_precision` is on, where
        // `1e400` parses and reads back as infinity. Either way it must never be written.
        match serde_json::from_str::<Value>(r#"{"a":[0,{"b~/":1e400}]}"#) {
            Ok(v) => assert_eq!(
                to_jcs(&v),
                Err(CanonError::NonFinite {
                    pointer: "/a/1/b~0~1".into()
                })
            ),
            Err(e) => assert!(e.to_string().contains("out of range"), "{e}"),
        }
        let mut out = String::new();
        assert!(!write_number(&mut out, f64::INFINITY));
        assert!(out.is_empty());
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        // Far deeper than any call stack would allow with one frame per level.
        let depth = 200_000;
        let mut v = json!(0);
        for i in 0..depth {
            v = if i % 2 == 0 {
                Value::Array(vec![v])
            } else {
                let mut m = serde_json::Map::new();
                m.insert("k".into(), v);
                Value::Object(m)
            };
        }
        let text = to_jcs(&v).unwrap();
        assert_eq!(text.len(), 1 + depth / 2 * 2 + depth / 2 * 6);
        assert!(text.starts_with(r#"{"k":[{"k":["#));
        // Dropping such a value recursively would overflow; unwind it by hand.
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            match v {
                Value::Array(a) => stack.extend(a),
                Value::Object(m) => stack.extend(m.into_iter().map(|(_, v)| v)),
                _ => {}
            }
        }
    }
}
