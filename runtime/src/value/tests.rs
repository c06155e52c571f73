use serde_json::json;

use super::*;

#[test]
fn json_round_trip_keeps_kinds_and_order() {
    let j = json!({"z": 1, "a": [1.5, "s", null, true, {"k": -2}], "big": 18446744073709551615u64});
    let v = Value::from_json(&j);
    let Value::Map(m) = &v else {
        panic!("not a map: {v:?}")
    };
    let keys: Vec<String> = m.keys().map(Key::to_text).collect();
    assert_eq!(keys, ["z", "a", "big"]);
    assert_eq!(m[&Key::String("z".into())].kind(), Kind::Int);
    assert_eq!(m[&Key::String("big".into())].kind(), Kind::Uint);
    assert_eq!(v.to_json(), j);
    assert_eq!(v.to_json().to_string(), j.to_string());
}

#[test]
fn non_json_kinds_to_json() {
    assert_eq!(Value::Bytes(b"hi!?".to_vec()).to_json(), json!("aGkhPw=="));
    assert_eq!(Value::Bytes(b"a".to_vec()).to_json(), json!("YQ=="));
    assert_eq!(Value::Double(f64::NAN).to_json(), json!("NaN"));
    assert_eq!(
        Value::Double(f64::NEG_INFINITY).to_json(),
        json!("-Infinity")
    );
    let t = jiff::Timestamp::from_second(86_400).unwrap();
    assert_eq!(Value::Timestamp(t).to_json(), json!("1970-01-02T00:00:00Z"));
    let d = jiff::SignedDuration::new(-1, -500_000_000);
    assert_eq!(Value::Duration(d).to_json(), json!("-1.5s"));
    let mut m = ValueMap::new();
    m.insert(Key::Int(3), Value::Bool(true));
    assert_eq!(Value::Map(m).to_json(), json!({"3": true}));
    assert_eq!(Value::Type(Kind::Int).to_json(), json!("int"));
}

#[test]
fn equality_rules() {
    assert_eq!(Value::Int(1), Value::Double(1.0));
    assert_eq!(Value::Uint(1), Value::Int(1));
    assert_ne!(Value::Int(1), Value::str("1"));
    assert_ne!(Value::Double(f64::NAN), Value::Double(f64::NAN));
    assert_ne!(
        Value::Int(i64::MAX),
        Value::Double(9_223_372_036_854_775_807.0)
    );
    assert_ne!(Value::Null, Value::Bool(false));
    assert_ne!(Value::List(vec![Value::Int(1)]), Value::List(vec![]));
}

#[test]
fn int_and_uint_keys_find_each_other() {
    let mut m = ValueMap::new();
    m.insert(Key::Uint(2), Value::str("two"));
    assert!(map_get(&m, &Key::Int(2)).is_some());
    assert!(map_get(&m, &Key::Int(-2)).is_none());
    assert_eq!(Key::from_value(&Value::Double(2.0)), Some(Key::Int(2)));
    assert_eq!(Key::from_value(&Value::Double(2.5)), None);
}
