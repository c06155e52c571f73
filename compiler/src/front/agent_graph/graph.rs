//! The semantic rules of one graph file (upstream `validateGraphSemantics`), every finding at once:
//! `graph-node-duplicate`, `graph-terminal-missing`, `graph-entry-missing`,
//! `graph-edge-node-missing`, `graph-terminal-edge-invalid`, `graph-edge-duplicate`,
//! `graph-repeat-target-invalid`, `graph-gated-by-source-invalid`, `graph-flow-cycle`.
//!
//! Runs on a schema-valid graph document; reads it defensively all the same.

use super::spans::span_at;
use crate::analysis::grouped::Grouped;
use crate::diag::Diagnostic;
use crate::source::Document;
use crate::source::Value;
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
    // Node id -> (kind, position in `kinds`' order of first appearance); a repeated id keeps
    // its first position and takes the later node's kind, as upstream's `Map.set` does.
    let mut kinds: HashMap<&str, (&str, u32)> = HashMap::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        let id = s(&n["id"]);
        let next = kinds.len() as u32;
        if let Some(prev) = kinds.insert(id, (s(&n["kind"]), next)) {
            kinds.insert(id, (s(&n["kind"]), prev.1));
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
    let mut keys = HashSet::with_capacity(edges.len());
    // The non-repeat edges as (from, to, edge index), by node position.
    let mut flow: Vec<(usize, (u32, u32))> = Vec::with_capacity(edges.len());
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
        if kinds.get(from).map(|k| k.0) == Some("terminal") {
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
        if kind == "repeat" && !matches!(kinds.get(to).map(|k| k.0), Some("action" | "gate")) {
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
        if kind == "gatedBy" && kinds.get(from).map(|k| k.0) != Some("gate") {
            diags.push(
                Diagnostic::error(
                    "graph-gated-by-source-invalid",
                    format!("gatedBy edge {from} -> {to} of graph `{gid}` must start at a gate"),
                )
                .at(at("from")),
            );
        }
        if kind != "repeat" {
            flow.push((kinds[from].1 as usize, (kinds[to].1, i as u32)));
        }
    }
    // Each node's (target, edge) pairs, in edge order, in one array.
    let flow = Grouped::new(kinds.len(), &flow);
    let mut names = vec![""; kinds.len()];
    for (&id, &(_, k)) in &kinds {
        names[k as usize] = id;
    }
    // Implicit flow cycles: a depth-first search over non-repeat edges, in node order; each
    // cycle is reported once, at the edge that closes it.
    let starts = nodes.iter().map(|n| kinds[s(&n["id"])].1 as usize);
    let succ = |v: usize| {
        flow.items()[flow.range(v)]
            .iter()
            .map(|&(to, edge)| (to as usize, edge))
    };
    crate::analysis::cycles::back_edges(kinds.len(), starts, succ, |path, edge| {
        let trail: Vec<&str> = path.iter().map(|&v| names[v]).collect();
        diags.push(
            Diagnostic::error(
                "graph-flow-cycle",
                format!(
                    "graph `{gid}` contains an implicit flow cycle: {}",
                    cycle_text(&trail, names[path[0]])
                ),
            )
            .at(span_at(doc, &format!("/edges/{edge}")))
            .with_help("loops must be explicit: make the closing edge `kind: repeat`"),
        );
    });
    diags
}

/// Nodes of a cycle shown in full; a longer one shows its first [`CYCLE_HEAD`] and last
/// [`CYCLE_TAIL`] nodes around a count of the rest.
const CYCLE_SHOWN: usize = 16;
const CYCLE_HEAD: usize = 8;
const CYCLE_TAIL: usize = 6;

/// `a -> b -> … -> a` for the nodes `path` (from the cycle's first node to the one whose edge
/// closes it) and the node it returns to. agc's own decision: a graph may have as many
/// closing edges as nodes, each on a path as long as the graph, and listing every node of
/// each made the output grow with the square of the graph's size.
fn cycle_text(path: &[&str], back_to: &str) -> String {
    let mut parts: Vec<String> = Vec::with_capacity(CYCLE_SHOWN + 2);
    if path.len() <= CYCLE_SHOWN {
        parts.extend(path.iter().map(|n| n.to_string()));
    } else {
        let hidden = path.len() - CYCLE_HEAD - CYCLE_TAIL;
        parts.extend(path[..CYCLE_HEAD].iter().map(|n| n.to_string()));
        parts.push(format!("… ({hidden} more nodes) …"));
        parts.extend(
            path[path.len() - CYCLE_TAIL..]
                .iter()
                .map(|n| n.to_string()),
        );
    }
    parts.push(back_to.to_string());
    parts.join(" -> ")
}

#[cfg(test)]
mod tests {
    use super::cycle_text;
    use crate::diag::Diagnostic;

    /// The graph rules' findings on `text`, sorted as the driver sorts them.
    fn check_test_text(name: &str, text: String) -> Vec<Diagnostic> {
        let mut sources = crate::source::SourceMap::new();
        let limits = crate::source::Limits::default();
        let (_, loaded) = crate::source::load::load_str(&mut sources, name, text, limits);
        let mut diags = super::check(&loaded.doc.expect("the graph loads"));
        crate::diag::sort(&mut diags);
        diags
    }

    #[test]
    fn short_cycles_list_every_node_long_ones_their_ends() {
        assert_eq!(cycle_text(&["a", "b"], "a"), "a -> b -> a");
        let names: Vec<String> = (0..17).map(|i| format!("n{i}")).collect();
        let path: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(
            cycle_text(&path[..16], "n0"),
            "n0 -> n1 -> n2 -> n3 -> n4 -> n5 -> n6 -> n7 -> n8 -> n9 -> n10 -> n11 -> n12 -> n13 -> n14 -> n15 -> n0"
        );
        assert_eq!(
            cycle_text(&path, "n0"),
            "n0 -> n1 -> n2 -> n3 -> n4 -> n5 -> n6 -> n7 -> … (3 more nodes) … -> n11 -> n12 -> n13 -> n14 -> n15 -> n16 -> n0"
        );
    }

    /// A chain whose every node has an edge back to its start: one cycle per closing edge,
    /// each message bounded, whatever the chain's length.
    #[test]
    fn every_closing_edge_is_reported_with_a_bounded_message() {
        let n = 400;
        let mut text = String::from(
            "schema: agent-graph.graph.v1\nid: big\nentrypoints:\n  default: n0\nnodes:\n",
        );
        for i in 0..n {
            text += &format!(
                "- {{ id: n{i}, kind: action, action: actions/a.yaml, reasonCode: route.big.n{i} }}\n"
            );
        }
        text += "- { id: done, kind: terminal, terminalOutcome: completed }\nedges:\n";
        for i in 1..n {
            text += &format!(
                "- {{ from: n{}, to: n{i} }}\n- {{ from: n{i}, to: n0, outcomes: [failed] }}\n",
                i - 1
            );
        }
        text += &format!("- {{ from: n{}, to: done }}\n", n - 1);
        let diags = check_test_text("big.yaml", text);
        let cycles: Vec<&str> = diags
            .iter()
            .filter(|d| d.code == "graph-flow-cycle")
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(cycles.len(), n - 1);
        assert_eq!(
            cycles[0],
            "graph `big` contains an implicit flow cycle: n0 -> n1 -> n0"
        );
        assert_eq!(
            cycles[n - 2],
            "graph `big` contains an implicit flow cycle: n0 -> n1 -> n2 -> n3 -> n4 -> n5 -> n6 -> n7 -> … (386 more nodes) … -> n394 -> n395 -> n396 -> n397 -> n398 -> n399 -> n0"
        );
        assert!(cycles.iter().all(|m| m.len() < 250), "{cycles:?}");
    }
}
