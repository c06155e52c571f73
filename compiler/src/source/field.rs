//! Key lookups in the small mappings a workflow is made of, without hashing.
//!
//! serde_json's `Map` (an `IndexMap` with SipHash) hashes the key on every `get`. Most mappings
//! of a workflow (a node, its `outputs`, a port, a block of defaults) hold a handful of entries,
//! and the front ends read them field by field many times over; comparing the few keys in
//! order costs a fraction of the hash. [`Field::field`] does that up to [`LINEAR_MAX`] entries
//! (the bound below which the span tree's key index scans a mapping too) and asks the map's
//! index above, so large mappings (a 100k-entry `nodes`) stay `O(1)`. The result is `get`'s: keys of a map are unique (tested).

use super::tree::index::LINEAR_MAX;
use serde_json::{Map, Value};

/// `get` by a string key, on a mapping or on a value (`None` for a value that is no mapping).
pub trait Field {
    fn field(&self, key: &str) -> Option<&Value>;
}

impl Field for Map<String, Value> {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        if self.len() <= LINEAR_MAX {
            self.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
        } else {
            self.get(key)
        }
    }
}

impl Field for Value {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
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
            let map: Map<String, Value> = (0..n).map(|i| (format!("k{i}"), json!(i))).collect();
            let value = Value::Object(map.clone());
            for key in (0..n + 2)
                .map(|i| format!("k{i}"))
                .chain(["".into(), "k".into()])
            {
                assert_eq!(map.field(&key), map.get(&key), "{n} entries, key {key}");
                assert_eq!(value.field(&key), value.get(&key), "{n} entries, key {key}");
            }
        }
        assert_eq!(json!([1, 2]).field("0"), None);
        assert_eq!(json!("k0").field("k0"), None);
    }
}
