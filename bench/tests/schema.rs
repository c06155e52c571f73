//! The generated graphs are valid AGS 1.0 documents: their YAML loads through agc's loader to
//! exactly the generated value, and that value passes the official JSON Schema.

use agc::source::{Limits, SourceMap, load::load_str};
use agc_bench::{generate, yaml::to_yaml};
use serde_json::Value;
use std::path::Path;

const SCHEMA: &str = "../../shared/corpus/ags/schema/agentic-graph-1.0.schema.json";

fn load_yaml(text: String) -> Value {
    let mut sources = SourceMap::new();
    let (_, loaded) = load_str(&mut sources, "gen.agraph.yaml", text, Limits::default());
    assert!(
        loaded.diags.is_empty(),
        "loader reported {:?}",
        loaded.diags
    );
    loaded.doc.expect("a document").value.to_json()
}

#[test]
fn generated_yaml_round_trips_through_the_loader() {
    for (n, seed) in [(1, 1), (7, 3), (200, 1), (1000, 42)] {
        let doc = generate(n, seed);
        assert_eq!(doc["nodes"].as_object().map(|m| m.len()), Some(n));
        assert_eq!(load_yaml(to_yaml(&doc)), doc, "n={n} seed={seed}");
    }
}

#[test]
fn deterministic_for_a_seed() {
    assert_eq!(to_yaml(&generate(300, 9)), to_yaml(&generate(300, 9)));
    assert_ne!(to_yaml(&generate(300, 9)), to_yaml(&generate(300, 10)));
}

#[test]
fn has_the_promised_features() {
    let doc = generate(200, 1);
    let text = serde_json::to_string(&doc).unwrap();
    let nodes = doc["nodes"].as_object().unwrap();
    let count = |f: &dyn Fn(&Value) -> bool| nodes.values().filter(|n| f(n)).count();
    assert!(count(&|n| n["type"] == "decision") >= 3);
    assert!(count(&|n| n.get("when").is_some()) >= 10);
    assert!(text.contains("${{ "));
    let edges = doc["edges"].as_array().unwrap();
    assert!(edges.iter().all(|e| e["kind"] == "conditional"));
    assert!(edges.len() >= 3);
    // Every non-entrypoint depends on one or two nodes, all declared.
    let entry: Vec<&Value> = doc["entrypoints"].as_array().unwrap().iter().collect();
    for (id, node) in nodes {
        match node.get("depends_on").and_then(Value::as_array) {
            Some(deps) => {
                assert!((1..=2).contains(&deps.len()), "{id}");
                assert!(deps.iter().all(|d| nodes.contains_key(d.as_str().unwrap())));
            }
            None => assert!(entry.iter().any(|e| e.as_str() == Some(id)), "{id}"),
        }
    }
}

#[test]
fn generated_graph_passes_the_ags_schema() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCHEMA);
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!(
            "note: {} is absent; skipping the schema test",
            path.display()
        );
        return;
    };
    let schema: Value = serde_json::from_str(&text).expect("schema JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let doc = load_yaml(to_yaml(&generate(200, 1)));
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .take(10)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "schema errors: {errors:#?}");
    // The check has teeth: a node without a description fails.
    let mut bad = doc.clone();
    bad["nodes"]["n0"]
        .as_object_mut()
        .unwrap()
        .remove("description");
    assert!(!validator.is_valid(&bad));
}
