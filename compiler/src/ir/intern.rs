//! Identical literal values held once: a front end that copies values out of the document into
//! the IR (an agh node's params, its `output_schema`) hands each to an [`Interner`], which
//! returns the [`Shared`] copy it already holds when an identical value came before.
//!
//! A generated or hand-written Loop repeats the same schema and the same literals on every node
//! (`agent: coder`, the same five-property `output_schema`): 10k nodes held 10k deep copies of
//! one schema. Sharing changes nothing a reader of the IR can see, because identical means
//! identical *as written out*: objects compare their entries in order (serde_json's `==` on
//! maps ignores order, which would print one node's schema in another's key order), and
//! numbers compare by representation (`1` and `1.0`, `0.0` and `-0.0` stay apart).
//!
//! Both the hash and the comparison walk with an explicit stack, so a deep value cannot
//! exhaust the thread's stack.

use super::Shared;
use crate::canon::jcs::{Json, View};
use serde_json::Number;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

/// Values seen so far, by a hash of their written form.
#[derive(Default)]
pub struct Interner {
    seen: HashMap<u64, Vec<Shared>>,
}

impl Interner {
    /// The shared copy of `value` (a `serde_json::Value` or a document's value): one made
    /// earlier for an identical value, else a new one.
    pub fn intern<V: Json>(&mut self, value: &V) -> Shared {
        let bucket = self.seen.entry(digest(value)).or_default();
        if let Some(same) = bucket.iter().find(|s| identical(&***s, value)) {
            return same.clone();
        }
        let shared = Shared::new(value.to_json());
        bucket.push(shared.clone());
        shared
    }
}

/// A hash of the value as written: kinds, keys in order, scalars by representation.
fn digest<V: Json>(value: &V) -> u64 {
    let mut h = foldhash::fast::FixedState::with_seed(0x5eed).build_hasher();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v.view() {
            View::Null => h.write_u8(0),
            View::Bool(b) => h.write_u8(1 + u8::from(b)),
            View::Number(n) => {
                h.write_u8(3);
                hash_number(&mut h, n);
            }
            View::String(s) => {
                h.write_u8(4);
                h.write_usize(s.len());
                h.write(s.as_bytes());
            }
            View::Array(items) => {
                h.write_u8(5);
                h.write_usize(items.len());
                stack.extend(items.iter().rev());
            }
            View::Object(members) => {
                h.write_u8(6);
                h.write_usize(members.len());
                for (k, _) in &members {
                    h.write_usize(k.len());
                    h.write(k.as_bytes());
                }
                stack.extend(members.iter().rev().map(|(_, v)| *v));
            }
        }
    }
    h.finish()
}

fn hash_number(h: &mut impl Hasher, n: &Number) {
    if let Some(u) = n.as_u64() {
        h.write_u8(0);
        h.write_u64(u);
    } else if let Some(i) = n.as_i64() {
        h.write_u8(1);
        h.write_i64(i);
    } else {
        h.write_u8(2);
        h.write_u64(n.as_f64().unwrap_or(0.0).to_bits());
    }
}

/// Whether two numbers are written the same: the same kind (unsigned, signed, float) and value,
/// floats bit for bit.
fn same_number(a: &Number, b: &Number) -> bool {
    match (a.as_u64(), b.as_u64(), a.as_i64(), b.as_i64()) {
        (Some(x), Some(y), ..) => x == y,
        (None, None, Some(x), Some(y)) => x == y,
        (None, None, None, None) => a.as_f64().map(f64::to_bits) == b.as_f64().map(f64::to_bits),
        _ => false,
    }
}

/// Whether two values are written the same (see the module docs).
fn identical<A: Json, B: Json>(a: &A, b: &B) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        let same = match (a.view(), b.view()) {
            (View::Null, View::Null) => true,
            (View::Bool(x), View::Bool(y)) => x == y,
            (View::Number(x), View::Number(y)) => same_number(x, y),
            (View::String(x), View::String(y)) => x == y,
            (View::Array(x), View::Array(y)) => {
                stack.extend(x.iter().zip(y));
                x.len() == y.len()
            }
            (View::Object(x), View::Object(y)) => {
                let keys = x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| p.0 == q.0);
                stack.extend(x.iter().zip(&y).map(|(p, q)| (p.1, q.1)));
                keys
            }
            _ => false,
        };
        if !same {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use std::sync::Arc;

    fn from_text(text: &str) -> Value {
        serde_json::from_str(text).expect("test JSON")
    }

    #[test]
    fn identical_values_are_held_once() {
        let mut i = Interner::default();
        let schema = json!({"type": "object", "properties": {"status": {"type": "string"}}});
        let a = i.intern(&schema);
        let b = i.intern(&schema.clone());
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(*a, schema);
        let c = i.intern(&json!("coder"));
        assert!(Arc::ptr_eq(&c, &i.intern(&json!("coder"))));
        assert!(!Arc::ptr_eq(&c, &a));
    }

    #[test]
    fn values_written_differently_stay_apart() {
        // Pairs serde_json's `==` calls equal (or that hash alike) but that print differently.
        let pairs = [
            (r#"{"a": 1, "b": 2}"#, r#"{"b": 2, "a": 1}"#),
            ("1", "1.0"),
            ("0.0", "-0.0"),
            ("-1", "18446744073709551615"),
            ("[1, [2]]", "[[1], 2]"),
            (r#"{"a": {"b": null}}"#, r#"{"a": {"b": false}}"#),
            (r#"["ab", "c"]"#, r#"["a", "bc"]"#),
            ("[]", "{}"),
        ];
        for (x, y) in pairs {
            let mut i = Interner::default();
            let (x, y) = (from_text(x), from_text(y));
            let (a, b) = (i.intern(&x), i.intern(&y));
            assert!(!Arc::ptr_eq(&a, &b), "{x} and {y} shared");
            assert_eq!(
                (
                    serde_json::to_string(&*a).unwrap(),
                    serde_json::to_string(&*b).unwrap()
                ),
                (
                    serde_json::to_string(&x).unwrap(),
                    serde_json::to_string(&y).unwrap()
                )
            );
        }
    }

    #[test]
    fn deep_values_need_no_deep_stack() {
        // The walks here are iterative; serde_json's own clone and drop of such a value
        // recurse, so the test runs on a thread with room for those.
        let run = std::thread::Builder::new().stack_size(1 << 30).spawn(|| {
            let mut v = json!(null);
            for _ in 0..100_000 {
                v = Value::Array(vec![v]);
            }
            let mut i = Interner::default();
            let a = i.intern(&v);
            assert!(identical(&*a, &v));
            assert!(Arc::ptr_eq(&a, &i.intern(&v)));
        });
        run.expect("a thread").join().expect("no overflow");
    }
}
