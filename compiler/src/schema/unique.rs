//! `uniqueItems` answered from the document's own values. jsonschema's default answer copies
//! every element into a `serde_json::Value` first; under a `uniqueItems` rule a list of a
//! million scalars then held a second, larger copy of itself (a 2 MB flow list: 78 -> 149 MB
//! peak for `agc check`). Equality is JSON's, as jsonschema's own: numbers compare
//! mathematically (`1` equals `1.0`), mappings ignore key order.
//!
//! Recursion follows the values' nesting, which the loader bounds (`Limits::max_depth`).

use crate::source::Value;
use hashbrown::HashTable;
use jsonschema::json::cmp;
use std::hash::{DefaultHasher, Hash, Hasher};

/// Lists up to this long are compared pair by pair (no hashing).
const PAIRWISE_MAX: usize = 15;

/// Whether no two of `items` are equal as JSON.
pub(super) fn is_unique(items: &[Value]) -> bool {
    if items.len() <= PAIRWISE_MAX {
        return items
            .iter()
            .enumerate()
            .all(|(i, a)| items[i + 1..].iter().all(|b| !equal(a, b)));
    }
    let mut seen: HashTable<usize> = HashTable::with_capacity(items.len());
    let hash_of = |v: &Value| {
        let mut h = DefaultHasher::new();
        hash(v, &mut h);
        h.finish()
    };
    for (i, item) in items.iter().enumerate() {
        let h = hash_of(item);
        if seen.find(h, |&j| equal(&items[j], item)).is_some() {
            return false;
        }
        seen.insert_unique(h, i, |&j| hash_of(&items[j]));
    }
    true
}

/// JSON equality of two document values.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => cmp::equal_numbers(x, y),
        (Value::String(x), Value::String(y)) => x.as_str() == y.as_str(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k.as_str()).is_some_and(|w| equal(v, w)))
        }
        _ => false,
    }
}

/// A hash that agrees with [`equal`]: equal numbers hash alike (by their `f64` value, `-0`
/// as `0`), a mapping's entries combine without regard to order.
fn hash(v: &Value, h: &mut impl Hasher) {
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            (2u8, if f == 0.0 { 0 } else { f.to_bits() }).hash(h)
        }
        Value::String(s) => (3u8, s.as_str()).hash(h),
        Value::Array(items) => {
            (4u8, items.len()).hash(h);
            for item in items.iter() {
                hash(item, h);
            }
        }
        Value::Object(map) => {
            let mut all = 0u64;
            for (k, v) in map.iter() {
                let mut entry = DefaultHasher::new();
                k.as_str().hash(&mut entry);
                hash(v, &mut entry);
                all ^= entry.finish();
            }
            (5u8, map.len(), all).hash(h)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_unique;
    use crate::source::Value;

    fn values(json: &str) -> Vec<Value> {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        v.as_array().unwrap().iter().map(Value::from).collect()
    }

    /// Each case as a short list (compared pair by pair) and padded past the pairwise bound
    /// with distinct strings (hashed): the answer is the same, and jsonschema's own.
    #[test]
    fn duplicates_are_found_as_json_equality_finds_them() {
        let cases = [
            (r#"[1, 2, 3]"#, true),
            (r#"[1, 1.0]"#, false),
            (r#"[0, -0.0]"#, false),
            (r#"[1, "1"]"#, true),
            (r#"[null, false, 0, ""]"#, true),
            (r#"[{"a": 1, "b": [2]}, {"b": [2.0], "a": 1}]"#, false),
            (r#"[{"a": 1}, {"a": 1, "b": 2}]"#, true),
            (r#"[[1, 2], [2, 1]]"#, true),
            (r#"[[1, [true]], [1.0, [true]]]"#, false),
            (r#"[18446744073709551615, 18446744073709551615]"#, false),
            (r#"[-5, 5]"#, true),
        ];
        for (json, unique) in cases {
            let short = values(json);
            assert_eq!(is_unique(&short), unique, "{json}");
            let mut long: Vec<Value> = (0..20)
                .map(|i| Value::from(&serde_json::json!(format!("pad{i}"))))
                .collect();
            long.splice(7..7, short);
            assert_eq!(is_unique(&long), unique, "{json} padded");
            let reference: Vec<serde_json::Value> = long.iter().map(Value::to_json).collect();
            let schema = serde_json::json!({"uniqueItems": true});
            assert_eq!(
                jsonschema::is_valid(&schema, &serde_json::Value::Array(reference)),
                unique,
                "{json}: jsonschema disagrees"
            );
        }
    }
}
