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

/// A hand-edited plan whose region lists disagree with the nodes' own `region`, or whose
/// entrypoints lie in another scope, is refused before anything runs.
#[test]
fn inconsistent_regions_are_refused() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/golden/plans/corpus-test-repair-loop.agraph.yaml.plan.json"),
    )
    .expect("plan");
    let good = Plan::from_json(&text).expect("plan");
    assert!(good.index().is_ok());
    let body = good.regions[0].nodes[0].clone();

    let mut extra = good.clone();
    extra.regions[0].nodes.push(extra.nodes[0].id.clone());
    let err = extra.index().unwrap_err();
    assert!(err.0.contains("lists nodes"), "{err}");

    let mut missing = good.clone();
    missing.regions[0].nodes.pop();
    assert!(missing.index().unwrap_err().0.contains("lists nodes"));

    let mut entry = good.clone();
    entry.entrypoints.push(body.clone());
    let err = entry.index().unwrap_err();
    assert!(err.0.contains("is inside a region"), "{err}");
}
