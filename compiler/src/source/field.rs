//! `field(key)`: a key lookup on a mapping, or on a value that may not be one (`None` then).
//!
//! On a document's values it is `get` (a [`Map`] scans small mappings and indexes large ones).
//! On a `serde_json::Map` (an `IndexMap` with SipHash, which hashes the key on every `get`), the
//! few keys of a small mapping are compared in order instead, which costs a fraction of the hash;
//! above [`LINEAR_MAX`] entries the map's index answers. The result is `get`'s either way.

use super::value::{LINEAR_MAX, Map, Value};

/// `get` by a string key, on a mapping or on a value (`None` for a value that is no mapping).
pub trait Field {
    type Value;
    fn field(&self, key: &str) -> Option<&Self::Value>;
}

impl Field for Map {
    type Value = Value;
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        self.get(key)
    }
}

impl Field for Value {
    type Value = Value;
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }
}

impl Field for serde_json::Map<String, serde_json::Value> {
    type Value = serde_json::Value;
    #[inline]
    fn field(&self, key: &str) -> Option<&serde_json::Value> {
        if self.len() <= LINEAR_MAX {
            self.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
        } else {
            self.get(key)
        }
    }
}

impl Field for serde_json::Value {
    type Value = serde_json::Value;
    #[inline]
    fn field(&self, key: &str) -> Option<&serde_json::Value> {
        self.as_object()?.field(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn field_gives_what_get_gives_below_and_above_the_scan_limit() {
        for n in [0, 1, 2, LINEAR_MAX - 1, LINEAR_MAX, LINEAR_MAX + 1, 40] {
            let map: serde_json::Map<String, serde_json::Value> =
                (0..n).map(|i| (format!("k{i}"), json!(i))).collect();
            let value = serde_json::Value::Object(map.clone());
            let doc = Value::from(&value);
            for key in (0..n + 2)
                .map(|i| format!("k{i}"))
                .chain(["".into(), "k".into()])
            {
                assert_eq!(map.field(&key), map.get(&key), "{n} entries, key {key}");
                assert_eq!(value.field(&key), value.get(&key), "{n} entries, key {key}");
                assert_eq!(doc.field(&key).map(Value::to_json).as_ref(), map.get(&key));
            }
        }
        assert_eq!(json!([1, 2]).field("0"), None);
        assert_eq!(json!("k0").field("k0"), None);
        assert_eq!(Value::from(&json!([1, 2])).field("0"), None);
    }
}
