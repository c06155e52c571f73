//! Plans written within `agc.plan/v5` before its last typed fields (the format was not
//! released between them, so the tag did not change): the reader moves what they kept in
//! attributes into those fields (`read.rs`, `early_v5`).

use super::tests::older_plans_read_as_current;
use super::*;
use serde_json::{Value, json};
use std::path::Path;

/// The plan of each example that changed, as agc wrote it before (kept in
/// `tests/fixtures/plans/v5-early/`), reads to the same plan as the example's current plan.
#[test]
fn early_v5_plans_read_as_their_current_plans() {
    let typed = older_plans_read_as_current("v5-early", "v5", 1);
    let nodes = || typed.iter().flat_map(|p| &p.nodes);
    assert!(
        nodes().any(|n| n.generations.is_some()),
        "some example has generations"
    );
    assert!(
        typed
            .iter()
            .any(|p| p.on_node_failure == OnNodeFailure::Halt),
        "some example halts on a node's failure"
    );
    assert!(
        typed.iter().any(|p| !p.attachments.is_empty()),
        "some example declares attachments"
    );
    assert!(
        typed.iter().any(|p| p.state_schema.is_some()),
        "some example has a state schema"
    );
    assert!(
        nodes().any(|n| !n.side_effects),
        "some example has a node without side effects"
    );
}

/// The early v5 plan of an example, as JSON.
fn early(name: &str) -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = root.join(format!("tests/fixtures/plans/v5-early/{name}.plan.json"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("early v5 plan")).expect("json")
}

/// An agh gate's `attributes.routes` reads into its typed table, a verdict left out or
/// routed where no route is taking upstream's route, with its revision limit; the loop's
/// `attributes.generations` into its `generations`, a fan-out's `attributes.batch_size`
/// into its `body`. Outside agh's loop rules they stay attributes.
#[test]
fn early_v5_routes_and_generations_read_into_typed_fields() {
    let mut v = early("reserved-agh");
    let nodes = v["nodes"].as_array_mut().expect("nodes");
    nodes[1]["kind"] = "gate".into();
    nodes[1]["attributes"] = json!({"class": "control", "max_revisions": 2, "routes": {
        "pass": {"route": "continue"},
        "fail": {"route": "halt", "terminal_status": "blocked", "reason_code": "no"},
        "error": {"route": "teleport"},
    }});
    nodes[2]["kind"] = "map".into();
    nodes[2]["attributes"] = json!({"class": "control", "batch_size": 3});
    let plan = Plan::from_value(v.clone()).expect("plan");
    let (owner, gate) = (&plan.nodes[0], &plan.nodes[1]);
    // A fan-out's chunks (the attribute as written stays).
    assert_eq!(
        plan.nodes[2].body.as_ref().and_then(|b| b.batch_size),
        Some(3)
    );
    assert_eq!(plan.nodes[2].attributes["batch_size"], 3);
    assert_eq!(
        owner.generations,
        Some(Generations {
            iteration_cap: 1,
            unbounded: false,
            watch: false
        })
    );
    assert!(!owner.attributes.contains_key("generations"));
    let routes = gate.routes.as_deref().expect("routes");
    assert_eq!(routes.pass, Route::default_for(Verdict::Pass));
    assert_eq!(routes.fail.route, RouteAction::Halt);
    assert_eq!(routes.fail.terminal_status.as_deref(), Some("blocked"));
    assert_eq!(routes.fail.reason_code.as_deref(), Some("no"));
    assert_eq!(routes.error, Route::default_for(Verdict::Error));
    assert_eq!(routes.timeout, Route::default_for(Verdict::Timeout));
    // The gate's own limit: the Loop does not watch.
    assert_eq!(routes.max_revisions, 2);
    assert_eq!(
        gate.attributes,
        *json!({"class": "control", "max_revisions": 2})
            .as_object()
            .unwrap()
    );
    // Written as the compiler writes them, every verdict in order.
    let out = serde_json::to_value(&plan).expect("ser");
    let verdicts: Vec<&str> = out["nodes"][1]["routes"]
        .as_object()
        .expect("routes")
        .keys()
        .map(String::as_str)
        .collect();
    let mut keys = Verdict::ALL.map(Verdict::as_str).to_vec();
    keys.push("max_revisions");
    assert_eq!(verdicts, keys, "{out:#}");
    assert_eq!(
        out["nodes"][1]["routes"]["approval"],
        json!({"route": "escalate", "terminal_status": "needs-approval"})
    );
    // Not an agh plan: attributes of these names are not its.
    v["semantics"]["loop_rules"] = "plain".into();
    let plain = Plan::from_value(v).expect("plan");
    assert!(plain.nodes[0].generations.is_none() && plain.nodes[1].routes.is_none());
    assert!(plain.nodes[1].attributes.contains_key("routes"));
}

/// An `attachments` list reads into typed attachments (extension keys carried, an item
/// without a name left out), each read by expressions as its path, else its URI, else null.
#[test]
fn attachments_read_into_typed_declarations() {
    let list = json!([
        {"name": "readme", "path": "README.md", "uri": "https://x.invalid", "x-owner": "docs"},
        {"name": "spec", "uri": "https://spec.invalid", "media_type": "text/html"},
        {"name": "note", "inline": "short"},
        {"path": "nameless.md"},
    ]);
    let all = Attachment::list_from(&list);
    let refs: Vec<(&str, Value)> = all
        .iter()
        .map(|a| (a.name.as_str(), a.reference()))
        .collect();
    assert_eq!(
        refs,
        [
            ("readme", json!("README.md")),
            ("spec", json!("https://spec.invalid")),
            ("note", Value::Null)
        ]
    );
    assert_eq!(
        all[0].extensions,
        *json!({"x-owner": "docs"}).as_object().unwrap()
    );
    assert_eq!(all[2].inline.as_deref(), Some("short"));
    let text = serde_json::to_string(&all).expect("ser");
    assert_eq!(
        serde_json::from_str::<Vec<Attachment>>(&text).expect("de"),
        all
    );
    assert!(!text.contains("\"extensions\":{}"), "{text}");
}

/// A node may have side effects unless its requirements rule them out: none declared, a
/// `read_write` workspace or a permission on AG902's list (or under one) says it may.
#[test]
fn requirements_decide_whether_a_node_may_have_side_effects() {
    let may = |req: Value| may_have_side_effects(Some(&req));
    assert!(may_have_side_effects(None));
    assert!(may(json!({"workspace": "read_write"})));
    assert!(may(
        json!({"permissions": ["net:fetch", "git:push:origin"]})
    ));
    assert!(!may(json!({})));
    assert!(!may(
        json!({"workspace": "read_only", "permissions": ["fs:read"]})
    ));
    // An early v5 plan's node decides it from its requirements, which stay.
    let mut v = early("reserved-agh");
    v["nodes"][1]["attributes"]["requirements"] = json!({"workspace": "read_only"});
    v["nodes"][2]["attributes"]["requirements"] = json!({"permissions": ["shell:exec"]});
    let plan = Plan::from_value(v).expect("plan");
    assert!(plan.nodes[0].side_effects);
    assert!(!plan.nodes[1].side_effects);
    assert!(plan.nodes[2].side_effects);
    assert!(plan.nodes[1].attributes.contains_key("requirements"));
    let out = serde_json::to_value(&plan).expect("ser");
    assert_eq!(out["nodes"][1]["side_effects"], false);
    assert!(out["nodes"][2].get("side_effects").is_none());
}
