use super::*;
use serde_json::{Value, json};

fn port(space: &mut TypeSpace, vt: &str, schema: Value) -> String {
    let decl = agc_runtime::plan::Declared {
        schema: Some(schema),
        ..Default::default()
    };
    let t = space.port("Port", vt, &decl);
    t.rust(space)
}

fn field_types(space: &TypeSpace, name: &str) -> Vec<(String, String, String)> {
    let def = space.defs.iter().find(|d| d.name == name).expect(name);
    match &def.kind {
        DefKind::Struct { fields } => fields
            .iter()
            .map(|f| (f.ident.clone(), f.json.clone(), f.ty.rust(space)))
            .collect(),
        other => panic!("{name} is not a struct: {other:?}"),
    }
}

#[test]
fn value_types_without_schema() {
    let empty = agc_runtime::plan::Declared::default();
    let mut s = space();
    let r = |s: &mut TypeSpace, vt: &str| {
        let t = s.port("P", vt, &empty);
        t.rust(s)
    };
    assert_eq!(r(&mut s, "markdown"), "String");
    assert_eq!(r(&mut s, "integer"), "i64");
    assert_eq!(r(&mut s, "number"), "f64");
    assert_eq!(r(&mut s, "file_set"), "Vec<String>");
    assert_eq!(r(&mut s, "array"), "Vec<serde_json::Value>");
    assert_eq!(
        r(&mut s, "object"),
        "serde_json::Map<String, serde_json::Value>"
    );
    assert_eq!(r(&mut s, "any"), "serde_json::Value");
}

#[test]
fn objects_enums_maps_and_optionals() {
    let mut s = space();
    let t = port(
        &mut s,
        "array",
        json!({
            "type": "array",
            "items": {
                "type": "object",
                "required": ["title", "kind"],
                "properties": {
                    "title": { "type": "string" },
                    "kind": { "type": "string", "enum": ["feature", "fix", "chore"] },
                    "first-name": { "type": ["string", "null"] },
                    "tags": { "type": "object", "additionalProperties": { "type": "integer" } },
                    "type": { "type": "boolean" }
                }
            }
        }),
    );
    assert_eq!(t, "Vec<PortItem>");
    assert_eq!(
        field_types(&s, "PortItem"),
        vec![
            ("title".into(), "title".into(), "String".into()),
            ("kind".into(), "kind".into(), "PortItemKind".into()),
            (
                "first_name".into(),
                "first-name".into(),
                "Option<String>".into()
            ),
            (
                "tags".into(),
                "tags".into(),
                "Option<BTreeMap<String, i64>>".into()
            ),
            ("r#type".into(), "type".into(), "Option<bool>".into()),
        ]
    );
    let kind = s.defs.iter().find(|d| d.name == "PortItemKind").unwrap();
    let DefKind::Enum { variants } = &kind.kind else {
        panic!()
    };
    let v: Vec<_> = variants
        .iter()
        .map(|v| (v.ident.as_str(), v.json.as_str()))
        .collect();
    assert_eq!(
        v,
        [("Feature", "feature"), ("Fix", "fix"), ("Chore", "chore")]
    );
}

#[test]
fn recursive_refs_are_boxed_outside_collections() {
    let mut s = space();
    let t = port(
        &mut s,
        "object",
        json!({
            "$ref": "#/$defs/tree",
            "$defs": {
                "tree": {
                    "type": "object",
                    "required": ["label", "parent"],
                    "properties": {
                        "label": { "type": "string" },
                        "children": { "type": "array", "items": { "$ref": "#/$defs/tree" } },
                        "parent": { "anyOf": [{ "$ref": "#/$defs/tree" }, { "type": "null" }] }
                    }
                }
            }
        }),
    );
    assert_eq!(t, "Tree");
    assert_eq!(
        field_types(&s, "Tree"),
        vec![
            ("label".into(), "label".into(), "String".into()),
            (
                "children".into(),
                "children".into(),
                "Option<Vec<Tree>>".into()
            ),
            ("parent".into(), "parent".into(), "Option<Box<Tree>>".into()),
        ]
    );
}

#[test]
fn unions_tagged_untagged_and_undecidable() {
    let mut s = space();
    let t = port(
        &mut s,
        "object",
        json!({ "oneOf": [
            { "type": "object", "properties": { "kind": { "const": "cat" }, "lives": { "type": "integer" } } },
            { "type": "object", "properties": { "kind": { "const": "dog" }, "good": { "type": "boolean" } } }
        ]}),
    );
    assert_eq!(t, "Port");
    let DefKind::Tagged { tag, variants } = &s.defs.iter().find(|d| d.name == "Port").unwrap().kind
    else {
        panic!()
    };
    assert_eq!(tag, "kind");
    assert_eq!(variants.len(), 2);
    assert_eq!(
        field_types(&s, "PortCat"),
        vec![("lives".into(), "lives".into(), "Option<i64>".into())]
    );

    let mut s = space();
    let t = port(
        &mut s,
        "any",
        json!({ "anyOf": [{ "type": "number" }, { "type": "integer" }, { "type": "string" }] }),
    );
    assert_eq!(t, "Port");
    let DefKind::Untagged { variants } = &s.defs[0].kind else {
        panic!()
    };
    let names: Vec<&str> = variants.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["Integer", "Number", "String"],
        "integers are tried first"
    );

    let mut s = space();
    let t = port(
        &mut s,
        "any",
        json!({ "oneOf": [{ "type": "string" }, { "type": "string", "minLength": 3 }] }),
    );
    assert_eq!(
        t, "serde_json::Value",
        "two string branches cannot be told apart"
    );
}

#[test]
fn depth_and_reference_cycles_are_bounded() {
    let mut deep = json!({ "type": "string" });
    for _ in 0..500 {
        deep = json!({ "type": "array", "items": deep });
    }
    let mut s = space();
    let t = port(&mut s, "array", deep);
    assert!(t.contains("serde_json::Value"), "cut at MAX_DEPTH");
    let mut s = space();
    let t = port(
        &mut s,
        "any",
        json!({ "$ref": "#/$defs/a", "$defs": { "a": { "$ref": "#/$defs/a" } } }),
    );
    assert_eq!(t, "serde_json::Value");
}

#[test]
fn mutual_recursion_is_boxed_where_the_cycle_closes() {
    let mut s = space();
    let t = port(
        &mut s,
        "object",
        json!({
            "$ref": "#/$defs/a",
            "$defs": {
                "a": { "type": "object", "required": ["b"], "properties": { "b": { "$ref": "#/$defs/b" } } },
                "b": { "type": "object", "required": ["a"], "properties": { "a": { "$ref": "#/$defs/a" } } }
            }
        }),
    );
    assert_eq!(t, "A");
    assert_eq!(
        field_types(&s, "A"),
        vec![("b".into(), "b".into(), "B".into())]
    );
    assert_eq!(
        field_types(&s, "B"),
        vec![("a".into(), "a".into(), "Box<A>".into())]
    );
}

#[test]
fn self_references_that_never_reach_a_definition_are_bounded() {
    let mut s = space();
    let t = port(
        &mut s,
        "any",
        json!({ "$ref": "#/$defs/n", "$defs": { "n": { "anyOf": [{ "$ref": "#/$defs/n" }, { "type": "null" }] } } }),
    );
    assert_eq!(t, "serde_json::Value");
    let mut s = space();
    let t = port(&mut s, "any", json!({ "$ref": "#/$defs/missing" }));
    assert_eq!(t, "serde_json::Value");
    let t = port(
        &mut s,
        "any",
        json!({ "$ref": "https://example.com/x.json" }),
    );
    assert_eq!(t, "serde_json::Value", "no network, no external references");
}
