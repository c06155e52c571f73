use super::super::Value;
use agc_runtime::run::script::{Entry, Script};
use serde::Deserialize;
use serde_json::json;

/// `T::deserialize(&value)` and `serde_json::from_value(value.to_json())`: the same value, or
/// the same error message.
fn same<T: for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(j: serde_json::Value) {
    let v = Value::from(&j);
    let direct = T::deserialize(&v).map_err(|e| e.to_string());
    let through = serde_json::from_value::<T>(v.to_json()).map_err(|e| e.to_string());
    assert_eq!(direct, through, "{j}");
}

#[test]
fn script_entries_read_as_serde_json_reads_them() {
    let entries = [
        json!({"outputs": {"result": "r0", "n": 3, "neg": -4, "f": 2.5, "deep": [1, {"a": null}]}}),
        json!({"decision": "approved", "delay_ms": 1500}),
        json!({"fail": "rate limited", "usage": {"cost_usd": 0.25, "tokens": 12}}),
        json!({"fail": {"class": "tool_error", "message": "refused"}}),
        json!({"results": [{"fail": "once"}, {"outputs": {"x": true}}]}),
        json!({"checkpoints": {"pre_upload": {"decision": "pending"}}}),
        json!({}),
        // Refused, with serde's messages.
        json!({"outptus": {}}),
        json!({"delay_ms": -1}),
        json!({"delay_ms": "soon"}),
        json!({"delay_ms": 1.5}),
        json!({"fail": {"class": "no_such_class", "message": "m"}}),
        json!({"fail": 3}),
        json!({"results": {"not": "a list"}}),
        json!({"outputs": [1, 2]}),
        json!("an entry is a mapping"),
        json!(null),
        json!([{"outputs": {}}]),
    ];
    for e in entries {
        same::<Entry>(e.clone());
        same::<Option<Entry>>(e);
    }
}

#[test]
fn whole_scripts_and_plain_values_read_as_serde_json_reads_them() {
    same::<Script>(json!({"format": "agc.script/v1", "nodes": {"a": {"outputs": {"x": 1}}}}));
    same::<Script>(json!({"format": 3, "nodes": {}}));
    same::<Option<String>>(json!(null));
    same::<Option<String>>(json!("agc.script/v1"));
    same::<Vec<u8>>(json!([1, 2, 300]));
    same::<(u8, u8)>(json!([1, 2]));
    same::<(u8, u8)>(json!([1, 2, 3]));
    same::<(u8, u8)>(json!([1]));
    same::<i64>(json!(-9_007_199_254_740_993_i64));
    same::<u64>(json!(u64::MAX));
    same::<f64>(json!(1e300));
    same::<serde_json::Value>(json!({"k": [1, -1, 0.5, "s", null, false, {"n": {}}]}));
    same::<std::collections::BTreeMap<String, u32>>(json!({"a": 1, "b": 2}));
    same::<agc_runtime::run::FailureClass>(json!("tool_error"));
    same::<agc_runtime::run::FailureClass>(json!("nope"));
    same::<agc_runtime::run::FailureClass>(json!({"tool_error": null}));
    same::<agc_runtime::run::FailureClass>(json!({"a": 1, "b": 2}));
    same::<agc_runtime::run::FailureClass>(json!(3));
    same::<agc_runtime::run::FailureClass>(json!(-3));
    same::<agc_runtime::run::FailureClass>(json!(0.5));
    same::<agc_runtime::run::FailureClass>(json!([1]));
    same::<agc_runtime::run::FailureClass>(json!(true));
    same::<agc_runtime::run::FailureClass>(json!(null));
    same::<std::collections::BTreeMap<String, (u8,)>>(json!({"a": [1, 2]}));
}
