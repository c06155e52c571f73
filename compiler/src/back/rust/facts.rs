//! Agent Graph's fact store, typed for a generated runner. A run's params are `{ "facts": {..}
//! }` and an action reports back `{ "outcome": .., "facts": {..} }` (its `facts` merged into
//! the store, its `outcome` matched against its edges' `on`), all untyped in the plan: the
//! Provider declares its facts only by the checks that read them (`requiresFacts`, lowered to
//! fact guards). From those checks this module makes the store's JSON Schema (an object per
//! path segment, a leaf typed by what `equals` compares it to), which the type space turns
//! into `Facts`, and from a node's outgoing edges the outcomes it may report.

use agc_runtime::facts::{FactTest, parse_check};
use agc_runtime::plan::{ExprLang, Node, Plan, StateModel};
use serde_json::{Map, Value, json};

/// The JSON Schema of the facts the plan's checks read, or `None` when the plan keeps no fact
/// store (every dialect but Agent Graph).
pub fn schema(plan: &Plan) -> Option<Value> {
    if plan.semantics.state != StateModel::Facts {
        return None;
    }
    let mut root = object();
    root["description"] = "The fact store, as far as the Provider's checks read it.".into();
    let guards = plan
        .nodes
        .iter()
        .filter_map(|n| n.guard.as_ref())
        .chain(plan.edges.iter().filter_map(|e| e.guard.as_ref()));
    for g in guards.filter(|g| g.lang == ExprLang::Fact) {
        for (path, test) in parse_check(&g.source).unwrap_or_default() {
            insert(&mut root, path, &test);
        }
    }
    Some(root)
}

/// The outcomes `node` may report: the `on` names of its outgoing edges, in plan order, each
/// once (`(name, description)`, for an enum).
pub fn outcomes(plan: &Plan, node: &Node) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for e in plan.edges.iter().filter(|e| e.from == node.id) {
        for on in &e.on {
            if !out.iter().any(|(o, _)| o == on) {
                out.push((on.clone(), format!("Routes to {}.", e.to)));
            }
        }
    }
    out
}

fn object() -> Value {
    json!({"type": "object", "properties": {}})
}

/// Adds `path` (dotted) to the schema `root`, its leaf typed by `test`.
fn insert(root: &mut Value, path: &str, test: &FactTest) {
    let segs: Vec<&str> = path.split('.').collect();
    let mut cur = root;
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        let Some(props) = cur.get_mut("properties").and_then(Value::as_object_mut) else {
            return;
        };
        let entry = props
            .entry(seg.to_string())
            .or_insert_with(|| if last { leaf(test) } else { object() });
        let is_object = entry.get("properties").is_some();
        if !last && !is_object {
            // Read as a value by one check and as an object by another: an object.
            *entry = object();
        } else if last && !is_object && *entry != leaf(test) {
            // Compared to values of different kinds: any value.
            *entry = Value::Object(Map::new());
        }
        cur = entry;
    }
}

/// A leaf's schema: the kind of value `equals` compares it to, else any value.
fn leaf(test: &FactTest) -> Value {
    match test {
        FactTest::Equals(Value::Bool(_)) => json!({"type": "boolean"}),
        FactTest::Equals(Value::String(_)) => json!({"type": "string"}),
        FactTest::Equals(Value::Number(_)) => json!({"type": "number"}),
        _ => Value::Object(Map::new()),
    }
}
