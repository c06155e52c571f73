use super::*;
use serde_json::json;

fn sample() -> serde_json::Value {
    let big: serde_json::Map<String, serde_json::Value> =
        (0..40).map(|i| (format!("k{i}"), json!(i))).collect();
    json!({
        "a": [1, -2, 2.5, "x", null, true],
        "b": {"c": {"d/e": "slash", "t~": "tilde"}},
        "big": big,
        "": "empty key",
    })
}

#[test]
fn a_value_is_24_bytes() {
    assert_eq!(std::mem::size_of::<Value>(), 24);
    assert_eq!(std::mem::size_of::<Map>(), 16);
    assert_eq!(std::mem::size_of::<Str>(), 16);
}

#[test]
fn converting_to_and_from_serde_json_keeps_every_value_and_order() {
    let j = sample();
    let v = Value::from(&j);
    assert_eq!(v, j);
    assert_eq!(v.to_json(), j);
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        serde_json::to_string(&j).unwrap()
    );
    assert_eq!(format!("{v}"), format!("{j}"));
    assert_eq!(format!("{v:#}"), format!("{j:#}"));
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(keys, ["a", "b", "big", ""]);
}

#[test]
fn reading_follows_serde_json() {
    let j = sample();
    let v = Value::from(&j);
    for p in [
        "",
        "/a/0",
        "/a/2",
        "/a/9",
        "/b/c/d~1e",
        "/b/c/t~0",
        "/big/k39",
        "/big/k40",
        "/",
        "x",
    ] {
        assert_eq!(
            v.pointer(p).map(Value::to_json),
            j.pointer(p).cloned(),
            "{p}"
        );
    }
    assert_eq!(v["a"][3], "x");
    assert!(v["nope"]["deeper"].is_null());
    assert_eq!(v["a"][1].as_i64(), Some(-2));
    assert_eq!(v["a"][0].as_u64(), Some(1));
    assert_eq!(v["a"][2].as_f64(), Some(2.5));
    assert_eq!(v["a"][5].as_bool(), Some(true));
    assert_eq!(v.get("a").and_then(|a| a.get(4)), Some(&Value::Null));
    assert_eq!(v["a"][1].type_name(), "integer");
    assert_eq!(v["a"][2].type_name(), "number");
}

#[test]
fn large_mappings_are_indexed_and_small_ones_scanned_with_the_same_answers() {
    for n in [0, 1, LINEAR_MAX, LINEAR_MAX + 1, 200] {
        let map: Map = (0..n)
            .map(|i| (format!("k{i}"), Value::from(i as u64)))
            .collect();
        for i in 0..n + 2 {
            let got = map.get_full(&format!("k{i}"));
            let want = (i < n).then(|| (i, Value::from(i as u64)));
            assert_eq!(got.map(|(p, v)| (p, v.clone())), want, "{n} entries, k{i}");
        }
        assert!(!map.contains_key(""));
    }
}

#[test]
fn a_repeated_key_keeps_its_first_position_and_its_last_value() {
    for n in [3, 30] {
        let mut entries: Vec<(String, Value)> = (0..n)
            .map(|i| (format!("k{i}"), Value::from(i as u64)))
            .collect();
        entries.push(("k1".into(), Value::from("again")));
        let map: Map = entries.into_iter().collect();
        assert_eq!(map.len(), n);
        assert_eq!(
            map.get_full("k1").map(|(i, v)| (i, v.clone())),
            Some((1, Value::from("again")))
        );
        assert_eq!(map.get_index(1).map(|(k, _)| k.as_str()), Some("k1"));
    }
}

#[test]
fn mappings_compare_without_regard_to_order() {
    let a: Map = [("x", Value::from(1u64)), ("y", Value::from(2u64))]
        .into_iter()
        .collect();
    let b: Map = [("y", Value::from(2u64)), ("x", Value::from(1u64))]
        .into_iter()
        .collect();
    let c: Map = [("y", Value::from(3u64)), ("x", Value::from(1u64))]
        .into_iter()
        .collect();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn insert_replaces_in_place_or_appends_as_serde_json_does() {
    // Across the scanned/indexed boundary: every answer must match serde_json's map.
    let mut ours = Map::new();
    let mut theirs = serde_json::Map::new();
    // Every key twice (7 is coprime to 17): appends in the first round, replaces in the second.
    let keys = super::map::LINEAR_MAX + 5;
    assert_eq!(keys, 17);
    for i in 0..2 * keys {
        let k = format!("k{}", (i * 7) % keys);
        let old = ours.insert(k.as_str(), Value::from(i as u64));
        let old_json = theirs.insert(k.clone(), serde_json::Value::from(i as u64));
        assert_eq!(old.map(|v| v.to_json()), old_json, "key {k}");
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&theirs).unwrap()
        );
        assert_eq!(ours.get(&k), Some(&Value::from(i as u64)));
    }
    assert!(ours.len() > super::map::LINEAR_MAX);
    for (k, v) in &theirs {
        assert_eq!(ours.get(k).map(Value::to_json).as_ref(), Some(v));
    }
}
