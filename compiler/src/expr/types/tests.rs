use serde_json::json;

use super::*;

fn t(schema: serde_json::Value) -> Type {
    Type::from_json_schema(&crate::source::Value::from(&schema))
}

#[test]
fn scalar_schemas() {
    assert_eq!(t(json!({"type": "integer"})), Type::Int);
    assert_eq!(t(json!({"type": "number"})), Type::Double);
    assert_eq!(t(json!({"type": "string"})), Type::String);
    assert_eq!(
        t(json!({"type": "string", "format": "date-time"})),
        Type::String
    );
    assert_eq!(t(json!({"type": "boolean"})), Type::Bool);
    assert_eq!(t(json!({"type": "null"})), Type::Null);
    assert_eq!(t(json!({"type": ["string", "null"]})), Type::String);
    assert_eq!(t(json!({"type": ["string", "integer"]})), Type::Dyn);
    assert_eq!(t(json!({})), Type::Dyn);
    assert_eq!(t(json!(true)), Type::Dyn);
    assert_eq!(t(json!({"$ref": "#/defs/x"})), Type::Dyn);
}

#[test]
fn enum_and_const() {
    assert_eq!(t(json!({"enum": ["a", "b"]})), Type::String);
    assert_eq!(t(json!({"enum": [1, 2]})), Type::Int);
    assert_eq!(t(json!({"enum": [1, "a"]})), Type::Dyn);
    assert_eq!(t(json!({"const": true})), Type::Bool);
    assert_eq!(t(json!({"allOf": [{"type": "integer"}]})), Type::Int);
}

#[test]
fn arrays_and_objects() {
    assert_eq!(
        t(json!({"type": "array", "items": {"type": "string"}})),
        Type::list(Type::String)
    );
    assert_eq!(t(json!({"type": "array"})), Type::list(Type::Dyn));
    assert_eq!(
        t(json!({"items": {"type": "integer"}})),
        Type::list(Type::Int)
    );
    let closed = t(json!({
        "type": "object",
        "properties": {"ok": {"type": "boolean"}, "n": {"type": "integer"}},
        "additionalProperties": false
    }));
    assert_eq!(closed, Type::closed([("ok", Type::Bool), ("n", Type::Int)]));
    assert_eq!(closed.to_string(), "{ok: bool, n: int}");
    let open = t(json!({"properties": {"a": {"type": "string"}}}));
    assert_eq!(open, Type::open([("a", Type::String)]));
    assert_eq!(open.to_string(), "{a: string, ...}");
    assert_eq!(
        t(json!({"type": "object", "additionalProperties": {"type": "number"}})),
        Type::map(Type::String, Type::Double)
    );
    assert_eq!(
        t(json!({"type": "object"})),
        Type::map(Type::String, Type::Dyn)
    );
}

#[test]
fn deep_schemas_are_cut_off_not_recursed_without_bound() {
    let mut schema = json!({"type": "integer"});
    for _ in 0..(MAX_SCHEMA_DEPTH + 10) {
        schema = json!({"type": "array", "items": schema});
    }
    let mut ty = t(schema);
    let mut depth = 0;
    while let Type::List(inner) = ty {
        ty = *inner;
        depth += 1;
    }
    assert_eq!(ty, Type::Dyn);
    assert_eq!(depth, MAX_SCHEMA_DEPTH);
}

#[test]
fn join_and_json_number_view() {
    assert_eq!(Type::Int.join(&Type::Int), Type::Int);
    assert_eq!(Type::Int.join(&Type::Double), Type::Dyn);
    assert_eq!(
        Type::list(Type::Int).join(&Type::list(Type::String)),
        Type::list(Type::Dyn)
    );
    let obj = Type::closed([("n", Type::Int), ("xs", Type::list(Type::Uint))]);
    assert_eq!(
        obj.json_numbers_as_double(),
        Type::closed([("n", Type::Double), ("xs", Type::list(Type::Double))])
    );
}

#[test]
fn names_per_language() {
    let l = Type::map(Type::String, Type::list(Type::Int));
    assert_eq!(l.describe(Lang::Cel), "map(string, list(int))");
    assert_eq!(l.describe(Lang::Agx), "object");
    assert_eq!(Type::Double.describe(Lang::Agx), "number");
    assert_eq!(
        Type::Timestamp.describe(Lang::Cel),
        "google.protobuf.Timestamp"
    );
}

#[test]
fn serializes_externally_tagged() {
    let t = Type::closed([
        ("xs", Type::list(Type::Int)),
        ("m", Type::map(Type::String, Type::Dyn)),
    ]);
    let j = serde_json::to_value(&t).unwrap();
    assert_eq!(
        j,
        json!({"object": {"fields": {"xs": {"list": "int"}, "m": {"map": ["string", "dyn"]}}, "open": false}})
    );
    assert_eq!(serde_json::from_value::<Type>(j).unwrap(), t);
}
