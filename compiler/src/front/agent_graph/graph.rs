//! The semantic rules of one graph file (upstream `validateGraphSemantics`), every finding at once:
//! `graph-node-duplicate`, `graph-terminal-missing`, `graph-entry-missing`,
//! `graph-edge-node-missing`, `graph-terminal-edge-invalid`, `graph-edge-duplicate`,
//! `graph-repeat-target-invalid`, `graph-gated-by-source-invalid`, `graph-flow-cycle`.
//!
//! Runs on a schema-valid graph document; reads it defensively all the same.

use super::span_at;
use crate::diag::Diagnostic;
use crate::source::Document;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// The graph's findings.
pub(super) fn check(doc: &Document) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let v = &doc.value;
    let gid = s(&v["id"]);
    let empty = Vec::new();
    let nodes = v["nodes"].as_array().unwrap_or(&empty);
    let edges = v["edges"].as_array().unwrap_or(&empty);
    let mut kinds: HashMap<&str, &str> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        let id = s(&n["id"]);
        if kinds.insert(id, s(&n["kind"])).is_some() {
            diags.push(
                Diagnostic::error(
                    "graph-node-duplicate",
                    format!("graph `{gid}` contains the node id `{id}` twice"),
                )
                .at(span_at(doc, &format!("/nodes/{i}/id"))),
            );
        }
    }
    if !nodes.iter().any(|n| n["kind"] == "terminal") {
        diags.push(
            Diagnostic::error(
                "graph-terminal-missing",
                format!("graph `{gid}` must declare at least one terminal node"),
            )
            .at(span_at(doc, "/nodes"))
            .with_help("add a node of `kind: terminal` with a `terminalOutcome`"),
        );
    }
    if let Some(eps) = v["entrypoints"].as_object() {
        for (name, target) in eps {
            if !kinds.contains_key(s(target)) {
                diags.push(
                    Diagnostic::error(
                        "graph-entry-missing",
                        format!(
                            "entry `{name}` of graph `{gid}` targets the missing node `{}`",
                            s(target)
                        ),
                    )
                    .at(span_at(
                        doc,
                        &format!("/entrypoints/{}", crate::source::tree::escape_token(name)),
                    )),
                );
            }
        }
    }
    let mut keys = HashSet::new();
    let mut adjacency: HashMap<&str, Vec<(&str, usize)>> = HashMap::new();
    for (i, e) in edges.iter().enumerate() {
        let (from, to) = (s(&e["from"]), s(&e["to"]));
        let kind = e["kind"].as_str().unwrap_or("flow");
        let at = |field: &str| span_at(doc, &format!("/edges/{i}/{field}"));
        let mut missing = false;
        for (field, id) in [("from", from), ("to", to)] {
            if !kinds.contains_key(id) {
                missing = true;
                diags.push(
                    Diagnostic::error(
                        "graph-edge-node-missing",
                        format!(
                            "edge {from} -> {to} of graph `{gid}` names the missing node `{id}`"
                        ),
                    )
                    .at(at(field)),
                );
            }
        }
        if missing {
            continue;
        }
        if kinds.get(from) == Some(&"terminal") {
            diags.push(
                Diagnostic::error(
                    "graph-terminal-edge-invalid",
                    format!("terminal node `{from}` of graph `{gid}` cannot have outgoing edges: {from} -> {to}"),
                )
                .at(at("from")),
            );
        }
        let outcomes: Vec<&str> = match e["outcomes"].as_array() {
            Some(a) => a.iter().map(s).collect(),
            None => vec!["completed"],
        };
        let key = format!("{kind}:{from}:{to}:{}", outcomes.join(","));
        if !keys.insert(key) {
            diags.push(
                Diagnostic::error(
                    "graph-edge-duplicate",
                    format!("graph `{gid}` contains the edge {from} -> {to} twice"),
                )
                .at(span_at(doc, &format!("/edges/{i}"))),
            );
        }
        if kind == "repeat" && !matches!(kinds.get(to), Some(&"action") | Some(&"gate")) {
            diags.push(
                Diagnostic::error(
                    "graph-repeat-target-invalid",
                    format!(
                        "repeat edge {from} -> {to} of graph `{gid}` must target an action or gate"
                    ),
                )
                .at(at("to")),
            );
        }
        if kind == "gatedBy" && kinds.get(from) != Some(&"gate") {
            diags.push(
                Diagnostic::error(
                    "graph-gated-by-source-invalid",
                    format!("gatedBy edge {from} -> {to} of graph `{gid}` must start at a gate"),
                )
                .at(at("from")),
            );
        }
        if kind != "repeat" {
            adjacency.entry(from).or_default().push((to, i));
        }
    }
    // Implicit flow cycles: an iterative DFS over non-repeat edges, in node order; each cycle
    // is reported once, at the edge that closes it.
    let order: Vec<&str> = nodes.iter().map(|n| s(&n["id"])).collect();
    let mut state: HashMap<&str, u8> = HashMap::new(); // 1 visiting, 2 done
    for &start in &order {
        if state.contains_key(start) {
            continue;
        }
        let mut stack: Vec<(&str, usize)> = vec![(start, 0)];
        let mut trail: Vec<&str> = vec![start];
        state.insert(start, 1);
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let outs = adjacency.get(node).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(&(to, edge)) = outs.get(*next) {
                *next += 1;
                match state.get(to) {
                    Some(1) => {
                        let from = trail.iter().position(|n| *n == to).unwrap_or(0);
                        let mut cycle: Vec<&str> = trail[from..].to_vec();
                        cycle.push(to);
                        diags.push(
                            Diagnostic::error(
                                "graph-flow-cycle",
                                format!(
                                    "graph `{gid}` contains an implicit flow cycle: {}",
                                    cycle.join(" -> ")
                                ),
                            )
                            .at(span_at(doc, &format!("/edges/{edge}")))
                            .with_help(
                                "loops must be explicit: make the closing edge `kind: repeat`",
                            ),
                        );
                    }
                    Some(_) => {}
                    None => {
                        state.insert(to, 1);
                        stack.push((to, 0));
                        trail.push(to);
                    }
                }
            } else {
                state.insert(node, 2);
                stack.pop();
                trail.pop();
            }
        }
    }
    diags
}
