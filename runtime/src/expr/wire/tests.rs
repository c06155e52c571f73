use super::*;
use serde::de::{Deserialize, Deserializer, Error as _};
use serde_json::json;

/// Builds a tree, numbering its nodes in pre-order as the parsers do.
struct B(NodeId);

impl B {
    fn node(&mut self, kind: impl FnOnce(&mut B) -> ExprKind) -> Expr {
        let id = self.0;
        self.0 += 1;
        Expr {
            id,
            kind: kind(self),
        }
    }
    fn lit(&mut self, value: Literal) -> Expr {
        self.node(|_| ExprKind::Literal { value })
    }
    fn path(&mut self, names: &[&str]) -> Expr {
        let (last, rest) = names.split_last().expect("a name");
        if rest.is_empty() {
            return self.node(|_| ExprKind::Ident {
                name: last.to_string(),
            });
        }
        let field = last.to_string();
        self.node(|b| ExprKind::Member {
            target: Box::new(b.path(rest)),
            field,
        })
    }
}

fn round_trip(e: &Expr) -> Value {
    let v = serde_json::to_value(e).expect("encode");
    let back: Expr = serde_json::from_value(v.clone()).expect("decode");
    assert_eq!(&back, e, "{v}");
    assert!(is_preorder(e));
    v
}

#[test]
fn paths_and_operators_are_short_tagged_arrays() {
    let mut b = B(0);
    let e = b.node(|b| ExprKind::Binary {
        op: BinaryOp::Gt,
        left: Box::new(b.path(&["nodes", "a", "outputs", "count"])),
        right: Box::new(b.lit(Literal::Int(3))),
    });
    assert_eq!(
        round_trip(&e),
        json!([">", ["$", "nodes", "a", "outputs", "count"], 3])
    );
    let mut b = B(0);
    let e = b.path(&["params"]);
    assert_eq!(round_trip(&e), json!(["$", "params"]));
}

#[test]
fn every_kind_round_trips_with_its_ids() {
    let mut b = B(0);
    let e = b.node(|b| ExprKind::Conditional {
        cond: Box::new(b.node(|b| ExprKind::Unary {
            op: UnaryOp::Not,
            operand: Box::new(b.node(|b| ExprKind::Has {
                target: Box::new(b.path(&["x"])),
                field: "f".into(),
            })),
        })),
        then: Box::new(b.node(|b| ExprKind::List {
            items: vec![
                b.lit(Literal::Null),
                b.lit(Literal::Bool(true)),
                b.lit(Literal::Double(1.0)),
                b.lit(Literal::Uint(7)),
                b.lit(Literal::Bytes(vec![104, 105])),
                b.lit(Literal::Double(f64::INFINITY)),
                b.lit(Literal::String("s".into())),
                b.node(|b| ExprKind::Unary {
                    op: UnaryOp::Neg,
                    operand: Box::new(b.lit(Literal::Int(-2))),
                }),
            ],
        })),
        otherwise: Box::new(b.node(|b| ExprKind::Call {
            function: "size".into(),
            target: Some(Box::new(b.node(|b| ExprKind::Member {
                target: Box::new(b.node(|b| ExprKind::Index {
                    target: Box::new(b.path(&["m"])),
                    index: Box::new(b.lit(Literal::String("k".into()))),
                })),
                field: "g".into(),
            }))),
            args: vec![b.node(|b| ExprKind::Map {
                entries: vec![(b.lit(Literal::String("a".into())), b.path(&["y"]))],
            })],
        })),
    });
    assert_eq!(
        round_trip(&e),
        json!([
            "?:",
            ["!", ["has", ["$", "x"], "f"]],
            [
                "list",
                null,
                true,
                1.0,
                ["u", 7],
                ["b", [104, 105]],
                ["f", "inf"],
                "s",
                ["neg", -2]
            ],
            [
                "method",
                [".", ["[]", ["$", "m"], "k"], "g"],
                "size",
                ["map", ["a", ["$", "y"]]]
            ]
        ])
    );
    // 1.0 stays a double and 1 an int.
    let text = serde_json::to_string(&e).expect("text");
    assert!(text.contains("null,true,1.0,"), "{text}");
}

#[test]
fn comprehensions_and_templates() {
    let mut b = B(0);
    let e = b.node(|b| ExprKind::Comprehension {
        mac: Macro::Map,
        range: Box::new(b.path(&["xs"])),
        var: "x".into(),
        filter: Some(Box::new(b.lit(Literal::Bool(true)))),
        body: Box::new(b.node(|b| ExprKind::Call {
            function: "string".into(),
            target: None,
            args: vec![b.path(&["x"])],
        })),
    });
    assert_eq!(
        round_trip(&e),
        json!([
            "comp",
            "map",
            ["$", "xs"],
            "x",
            true,
            ["call", "string", ["$", "x"]]
        ])
    );
    let mut b = B(0);
    let e = b.node(|b| ExprKind::Template {
        parts: vec![
            TemplatePart::Text { text: "Hi ".into() },
            TemplatePart::Expr {
                expr: b.path(&["params", "who"]),
            },
            TemplatePart::Expr {
                expr: b.lit(Literal::String("!".into())),
            },
        ],
    });
    // A string literal part is marked, so that it is not read back as text.
    assert_eq!(
        round_trip(&e),
        json!(["tmpl", "Hi ", ["$", "params", "who"], ["lit", "!"]])
    );
}

#[test]
fn nan_round_trips() {
    let e = Expr {
        id: 0,
        kind: ExprKind::Literal {
            value: Literal::Double(f64::NAN),
        },
    };
    let v = serde_json::to_value(&e).expect("encode");
    assert_eq!(v, json!(["f", "NaN"]));
    let back: Expr = serde_json::from_value(v).expect("decode");
    assert!(matches!(back.kind, ExprKind::Literal { value: Literal::Double(d) } if d.is_nan()));
}

#[test]
fn the_v1_object_form_still_reads() {
    let v1 = json!({"id": 0, "kind": "binary", "op": "eq",
        "left": {"id": 1, "kind": "member", "target": {"id": 2, "kind": "ident", "name": "a"}, "field": "b"},
        "right": {"id": 3, "kind": "literal", "value": {"type": "string", "value": "x"}}});
    let e: Expr = serde_json::from_value(v1).expect("v1");
    assert_eq!(
        serde_json::to_value(&e).expect("encode"),
        json!(["==", ["$", "a", "b"], "x"])
    );
    assert!(is_preorder(&e));
}

#[test]
fn malformed_nodes_are_errors_not_panics() {
    for (bad, says) in [
        (json!([]), "empty core expression node"),
        (json!(["nope", 1]), "unknown core expression tag `nope`"),
        (json!(["+", 1]), "too few elements"),
        (json!(["+", 1, 2, 3]), "too many elements"),
        (json!([1, 2]), "tag must be a string"),
        (json!(["$"]), "needs a name"),
        (json!(["$", 1]), "expected a name"),
        (json!(["u", -1]), "unsigned"),
        (json!(["f", "big"]), "unknown value"),
        (json!(["map", [1]]), "too few elements"),
        (json!(["comp", "fold", ["$", "x"], "v", 1]), "unknown macro"),
        (json!(["list", {"a": 1}]), "array or scalar"),
        (json!(18446744073709551615u64), "out of range"),
    ] {
        let err = serde_json::from_value::<Expr>(bad.clone())
            .unwrap_err()
            .to_string();
        assert!(err.contains(says), "{bad}: {err}");
    }
}

/// How expressions were read before `read.rs`: the whole value first, then decoded.
fn through_a_value<'de, D: Deserializer<'de>>(d: D) -> Result<Expr, D::Error> {
    from_value(Value::deserialize(d)?).map_err(D::Error::custom)
}

#[derive(Debug, PartialEq, serde::Deserialize)]
struct Direct {
    core: Expr,
    after: u32,
}

#[derive(Debug, PartialEq, serde::Deserialize)]
struct Before {
    #[serde(deserialize_with = "through_a_value")]
    core: Expr,
    after: u32,
}

#[test]
fn reading_from_text_gives_what_reading_a_value_gave_errors_and_their_places_too() {
    for core in [
        r#"["$", "nodes", "c4", "outputs", "result"]"#,
        r#"[">", ["$", "nodes", "a", "outputs", "count"], 3]"#,
        r#"["?:", ["!", ["has", ["$", "x"], "f"]], ["list", null, true, 1.0, -2, 9223372036854775807, ["u", 7], ["b", [104, 105]], ["f", "inf"], "s", ["neg", -2]], ["method", [".", ["[]", ["$", "m"], "k"], "g"], "size", ["map", ["a", ["$", "y"]]]]]"#,
        r#"["comp", "map", ["$", "xs"], "x", true, ["call", "string", ["$", "x"]]]"#,
        r#"["tmpl", "Hi ", ["$", "params", "who"], ["lit", "!"]]"#,
        r#"["&&", ["call", "f"], ["list"]]"#,
        r#"{"id": 0, "kind": "ident", "name": "a"}"#,
        r#"{"id": 0, "kind": "nope"}"#,
        "[]",
        r#"["nope", 1, [2, 3]]"#,
        r#"["+", 1]"#,
        r#"["+", 1, 2, 3, [4, {"a": 5}]]"#,
        r#"[1, 2]"#,
        r#"[[1], ["$", 2]]"#,
        r#"["$"]"#,
        r#"["$", "a", 1, "b"]"#,
        r#"["u", -1]"#,
        r#"["u", -1, 2]"#,
        r#"["f", "big"]"#,
        r#"["map", [1]]"#,
        r#"["comp", "fold", ["$", "x"], "v", 1]"#,
        r#"["list", {"a": 1}, ["+", 1]]"#,
        r#"["list", ["+", 1], ["$", 1]]"#,
        r#"[".", ["$", "a"], 7, 8]"#,
        r#"["call", ["x"], ["$", "a"]]"#,
        r#"["method", ["$", "a"]]"#,
        r#"["[]", ["$", "a"], {"b": [1, 2]}, "extra"]"#,
        "18446744073709551615",
        "1e400",
        r#"["+", ["nope"], 1"#,
        r#"["+", ["nope"], 1,]"#,
        r#"["$", "a", tru]"#,
        r#"["\u0024", "a\"b", "c\\d"]"#,
        r#"["\u002e", ["$", "a"], "f\u00e9"]"#,
        r#"["$", "a", null]"#,
        r#"["$", "a", 1.5]"#,
        r#"["$", "a", ["b"]]"#,
        r#"["$", "a", {"b": 1}]"#,
        r#"[null, "a"]"#,
        r#"[{"a": [1]}, "a"]"#,
    ] {
        for text in [
            format!(r#"{{"core": {core}, "after": 1}}"#),
            format!("{{\n  \"core\": {core}\n  ,\n  \"after\": 1\n}}"),
        ] {
            let direct = serde_json::from_str::<Direct>(&text).map_err(|e| e.to_string());
            let before = serde_json::from_str::<Before>(&text).map_err(|e| e.to_string());
            match (&direct, &before) {
                (Ok(d), Ok(b)) => assert_eq!(d.core, b.core, "{text}"),
                (Err(d), Err(b)) => assert_eq!(d, b, "{text}"),
                _ => panic!("{text}: {direct:?} against {before:?}"),
            }
        }
    }
}
