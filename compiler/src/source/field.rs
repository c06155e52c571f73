//! `field(key)`: a key lookup on a document's mapping, or on a value that may not be one
//! (`None` then). It is [`Map::get`] (which scans small mappings and indexes large ones); the
//! trait lets the front ends read `node.field("when")` alike on a node's `Map` and on a value.

use super::value::{Map, Value};

/// `get` by a string key, on a mapping or on a value (`None` for a value that is no mapping).
pub trait Field {
    fn field(&self, key: &str) -> Option<&Value>;
}

impl Field for Map {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        self.get(key)
    }
}

impl Field for Value {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::value::LINEAR_MAX;
    use serde_json::json;

    #[test]
    fn field_gives_what_serde_json_gives_below_and_above_the_scan_limit() {
        for n in [0, 1, 2, LINEAR_MAX - 1, LINEAR_MAX, LINEAR_MAX + 1, 40] {
            let map: serde_json::Map<String, serde_json::Value> =
                (0..n).map(|i| (format!("k{i}"), json!(i))).collect();
            let doc = Value::from(serde_json::Value::Object(map.clone()));
            for key in (0..n + 2)
                .map(|i| format!("k{i}"))
                .chain(["".into(), "k".into()])
            {
                let want = map.get(&key);
                assert_eq!(
                    doc.field(&key).map(Value::to_json).as_ref(),
                    want,
                    "{n}, {key}"
                );
                let m = doc.as_object().unwrap();
                assert_eq!(
                    m.field(&key).map(Value::to_json).as_ref(),
                    want,
                    "{n}, {key}"
                );
            }
        }
        assert_eq!(Value::from(json!([1, 2])).field("0"), None);
        assert_eq!(Value::from(json!("k0")).field("k0"), None);
    }
}
