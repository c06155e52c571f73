use super::*;
use std::path::Path;

/// Every golden plan the compiler wrote reads into these types and writes back to the same
/// bytes: the streaming writer and the serde types agree field by field.
#[test]
fn golden_plans_round_trip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/plans");
    let mut seen = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("golden plans")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read plan");
        let plan = Plan::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let back = plan.to_pretty_string();
        assert!(back == text, "{} does not round-trip", path.display());
        plan.index()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        seen += 1;
    }
    assert!(seen >= 10, "expected the golden plans, found {seen}");
}

#[test]
fn wrong_format_is_refused() {
    let err = Plan::from_json(r#"{"format":"agc.plan/v9"}"#).unwrap_err();
    assert!(
        err.0.contains("unknown field") || err.0.contains("missing field"),
        "{err}"
    );
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/golden/plans/corpus-minimal.agraph.yaml.plan.json"),
    )
    .expect("plan");
    let bad = text.replacen("agc.plan/v1", "agc.plan/v9", 1);
    let err = Plan::from_json(&bad).unwrap_err();
    assert!(err.0.contains("unsupported plan format"), "{err}");
}

#[test]
fn input_sources_and_declarations_round_trip() {
    let json = r#"{"name":"x","type":"string","required":false,"value":null,"schema":{"type":"string"},"enum":["a"],"description":"d"}"#;
    let input: Input = serde_json::from_str(json).expect("input");
    assert_eq!(input.source, InputSource::Value(Value::Null));
    assert_eq!(input.decl.enum_values, Some(vec![Value::from("a")]));
    assert_eq!(serde_json::to_string(&input).expect("ser"), json);
    let implicit = r#"{"name":"y","type":"any","required":true,"implicit":true}"#;
    let input: Input = serde_json::from_str(implicit).expect("input");
    assert_eq!(input.source, InputSource::Implicit(true));
    assert_eq!(serde_json::to_string(&input).expect("ser"), implicit);
}
