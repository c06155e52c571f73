//! A checked graph document into the runtime's model ([`agc_runtime::agent_graph::model`]).

use crate::source::Value;
use agc_runtime::agent_graph::model::{
    Delegated, Edge, FactCheck, Gate, Graph, Node, NodeKind, NodeResources,
};
use agc_runtime::agent_graph::route::normalize_relative;

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(String::from)
}

fn checks(v: Option<&Value>) -> Option<Vec<FactCheck>> {
    v.and_then(Value::as_array).map(|a| {
        a.iter()
            .map(|c| FactCheck {
                path: string(c, "path").unwrap_or_default(),
                exists: c.get("exists").and_then(Value::as_bool),
                equals: c.get("equals").map(Value::to_json),
            })
            .collect()
    })
}

fn resources(v: Option<&Value>) -> Option<NodeResources> {
    let v = v?;
    let list = |k: &str| -> Vec<String> {
        v.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    };
    Some(NodeResources {
        required: list("required"),
        recommended: list("recommended"),
    })
}

fn action_path(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(normalize_relative)
}

/// The model of one graph whose file is at the absolute `path`.
pub(super) fn graph(v: &Value, path: String) -> Graph {
    let nodes = v["nodes"]
        .as_array()
        .unwrap_or_default()
        .iter()
        .map(node)
        .collect();
    let edges = v["edges"]
        .as_array()
        .unwrap_or_default()
        .iter()
        .map(|e| Edge {
            from: string(e, "from").unwrap_or_default(),
            to: string(e, "to").unwrap_or_default(),
            outcomes: e
                .get("outcomes")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_else(|| vec!["completed".to_string()]),
            kind: string(e, "kind").unwrap_or_else(|| "flow".to_string()),
        })
        .collect();
    Graph {
        id: string(v, "id").unwrap_or_default(),
        path,
        entrypoints: v["entrypoints"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, t)| (k.to_string(), t.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default(),
        nodes,
        edges,
    }
}

fn node(n: &Value) -> Node {
    let kind = match n.get("kind").and_then(Value::as_str) {
        Some("gate") => NodeKind::Gate,
        Some("subgraph") => NodeKind::Subgraph,
        Some("terminal") => NodeKind::Terminal,
        _ => NodeKind::Action,
    };
    let mut out = Node::bare(
        n.get("id").and_then(Value::as_str).unwrap_or_default(),
        kind,
    );
    out.description = string(n, "description");
    out.priority = n.get("priority").and_then(Value::as_i64).unwrap_or(0);
    out.join_any = n.get("join").and_then(Value::as_str) == Some("any");
    out.requires_facts = checks(n.get("requiresFacts"));
    out.satisfied_by = checks(n.get("satisfiedBy"));
    out.reason_code = string(n, "reasonCode");
    out.action = action_path(n, "action");
    out.gate = n.get("gate").and_then(Value::as_object).map(|g| Gate {
        id: g
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        authority: g.get("authority").and_then(Value::as_str).map(String::from),
        delegatable: g.get("delegatable").and_then(Value::as_bool),
        raw: g
            .iter()
            .map(|(k, x)| (k.to_string(), x.to_json()))
            .collect(),
    });
    out.inspection_action = action_path(n, "inspectionAction");
    out.resolution_action = action_path(n, "resolutionAction");
    out.delegated = n.get("delegated").map(|d| Delegated {
        skip_inspection: d.get("inspection").and_then(Value::as_str) == Some("skip"),
        resolution_action: action_path(d, "resolutionAction"),
        resources: resources(d.get("resources")),
    });
    out.resources = resources(n.get("resources"));
    out.graph = string(n, "graph");
    out.entry = string(n, "entry");
    out.terminal_outcome = string(n, "terminalOutcome");
    out
}
