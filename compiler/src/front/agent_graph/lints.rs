//! agc's own Agent Graph lints (warnings; upstream checks none of these):
//! AGC200 a node no entrypoint reaches, AGC201 a gate authority that cannot be delegated,
//! AGC202 an edge that fires on `pending`, `blocked` or `waiting-user`, AGC203 a terminal with
//! `requiresFacts`, AGC204 a `join: all` node that can never be reached (two edges from one
//! source with disjoint outcomes); and the fact path lints of [`crate::expr::facts`] (AGC071,
//! AGC072) on every `requiresFacts` / `satisfiedBy` path.

use super::loader::GraphDoc;
use super::spans::span_at;
use crate::diag::Diagnostic;
use crate::source::Document;
use crate::source::Value;
use agc_runtime::agent_graph::model::CatalogEntry;
use indexmap::IndexMap;
use std::collections::{HashMap, HashSet};

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// An edge outcome's bit. The lints run on schema-valid graphs, whose outcomes are the
/// schema's eight; anything else gets the one bit left, so it never looks disjoint from
/// itself.
fn outcome_bit(outcome: &str) -> u16 {
    agc_runtime::agent_graph::OUTCOMES
        .iter()
        .position(|o| *o == outcome)
        .map_or(1 << 8, |i| 1 << i)
}

/// The lints of every graph that passed its own rules.
pub(super) fn check(
    graphs: &[GraphDoc],
    _catalog: Option<&IndexMap<String, CatalogEntry>>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for g in graphs.iter().filter(|g| g.ok) {
        out.extend(graph(&g.doc));
    }
    out
}

/// The lints of one graph document (schema- and rule-valid).
pub(super) fn graph(doc: &Document) -> Vec<Diagnostic> {
    let v = &doc.value;
    let gid = s(&v["id"]);
    let empty = Vec::new();
    let nodes = v["nodes"].as_array().unwrap_or(&empty);
    let edges = v["edges"].as_array().unwrap_or(&empty);
    let mut out = Vec::new();

    // AGC200: reachability from the entrypoints over every edge, whatever its outcomes.
    let mut succ: HashMap<&str, Vec<&str>> = HashMap::new();
    for e in edges {
        succ.entry(s(&e["from"])).or_default().push(s(&e["to"]));
    }
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack: Vec<&str> = v["entrypoints"]
        .as_object()
        .map(|m| m.values().map(s).collect())
        .unwrap_or_default();
    while let Some(n) = stack.pop() {
        if seen.insert(n) {
            stack.extend(succ.get(n).into_iter().flatten().copied());
        }
    }
    // Each node's incoming flow edges (not `repeat`), in edge order: looked up per node below,
    // where scanning every edge for every node made a 100k-node graph take minutes.
    let mut incoming: HashMap<&str, Vec<&Value>> = HashMap::new();
    for e in edges.iter().filter(|e| e["kind"] != "repeat") {
        incoming.entry(s(&e["to"])).or_default().push(e);
    }
    for (i, n) in nodes.iter().enumerate() {
        let id = s(&n["id"]);
        let at = |f: &str| span_at(doc, &format!("/nodes/{i}/{f}"));
        if !seen.contains(id) {
            out.push(
                Diagnostic::warning(
                    "AGC200",
                    format!("node `{id}` of graph `{gid}` is not reachable from any entrypoint"),
                )
                .at(at("id")),
            );
        }
        let gate = &n["gate"];
        if gate.get("authority").is_some() && gate.get("delegatable") != Some(&Value::Bool(true)) {
            out.push(
                Diagnostic::warning(
                    "AGC201",
                    format!("gate `{gid}/{id}` names an authority that cannot resolve it: `delegatable` is not true"),
                )
                .at(at("gate/authority"))
                .with_help("add `delegatable: true`, or drop `authority`"),
            );
        }
        if n["kind"] == "terminal" && n.get("requiresFacts").is_some() {
            out.push(
                Diagnostic::warning(
                    "AGC203",
                    format!("terminal `{gid}/{id}` has `requiresFacts`: when they fail the graph ends `blocked`"),
                )
                .at(at("requiresFacts")),
            );
        }
        // AGC204: join all over two edges from one source with disjoint outcome sets.
        // The sources in the order of their first edge, so that of several dead sources the
        // first is reported, the same one every run.
        // Each edge's outcome set is a bit mask, and each source keeps its distinct masks only
        // (a few hundred at most), where one source may have over 100,000 edges into a node (every
        // ordering of the eight outcomes is a different edge), and comparing every pair of
        // edges took minutes.
        if n.get("join").and_then(Value::as_str) != Some("any") {
            let mut by_source: IndexMap<&str, Vec<u16>> = IndexMap::new();
            for e in incoming.get(id).into_iter().flatten() {
                let mask = match e["outcomes"].as_array() {
                    Some(a) => a.iter().fold(0, |m, o| m | outcome_bit(s(o))),
                    None => outcome_bit("completed"),
                };
                let masks = by_source.entry(s(&e["from"])).or_default();
                if !masks.contains(&mask) {
                    masks.push(mask);
                }
            }
            let dead = by_source.iter().find(|(_, masks)| {
                masks
                    .iter()
                    .enumerate()
                    .any(|(a, x)| masks[a + 1..].iter().any(|y| x & y == 0))
            });
            if let Some((from, _)) = dead {
                out.push(
                    Diagnostic::warning(
                        "AGC204",
                        format!("node `{gid}/{id}` joins all edges from `{from}`, whose outcomes never match together: it can never be reached"),
                    )
                    .at(at("id"))
                    .with_help("use `join: any`, or merge the edges into one outcome list"),
                );
            }
        }
    }
    // Fact paths: agc's fact path lints (AGC071, AGC072; AGC070 is the schema's pattern).
    for (i, n) in nodes.iter().enumerate() {
        for list in ["requiresFacts", "satisfiedBy"] {
            for (j, c) in n[list].as_array().into_iter().flatten().enumerate() {
                let Some(path) = c["path"].as_str() else {
                    continue;
                };
                let Some(cur) = doc.at(&format!("/nodes/{i}/{list}/{j}/path")) else {
                    continue;
                };
                // The schema allows only `[A-Za-z0-9_.-]` in paths: no escapes, so the text
                // lies verbatim in the file after any opening quote.
                let quoted = matches!(
                    cur.node.style,
                    crate::source::tree::ScalarStyle::SingleQuoted
                        | crate::source::tree::ScalarStyle::DoubleQuoted
                );
                let span = cur.node.span;
                let map = crate::source::scalar::ScalarMap::contiguous(
                    span.file,
                    span.start as usize + usize::from(quoted),
                    path.len(),
                );
                let (_, found) = crate::expr::facts::parse_fact_path(path, &map);
                out.extend(found);
            }
        }
    }
    for (i, e) in edges.iter().enumerate() {
        if let Some(a) = e["outcomes"].as_array()
            && let Some(j) = a
                .iter()
                .position(|o| matches!(s(o), "pending" | "blocked" | "waiting-user"))
        {
            out.push(
                Diagnostic::warning(
                    "AGC202",
                    format!(
                        "edge {} -> {} fires on `{}`, an outcome of unfinished work",
                        s(&e["from"]),
                        s(&e["to"]),
                        s(&a[j])
                    ),
                )
                .at(span_at(doc, &format!("/edges/{i}/outcomes/{j}"))),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::diag::Diagnostic;

    /// The graph rules' and the lints' findings on `text`, as the front end runs them on a
    /// graph checked alone, sorted as the driver sorts them.
    fn check_test_text(name: &str, text: String) -> Vec<Diagnostic> {
        let mut sources = crate::source::SourceMap::new();
        let limits = crate::source::Limits::default();
        let (_, loaded) = crate::source::load::load_str(&mut sources, name, text, limits);
        let doc = loaded.doc.expect("the graph loads");
        let mut diags = crate::front::agent_graph::graph::check(&doc);
        if !diags.iter().any(Diagnostic::is_error) {
            diags.extend(super::graph(&doc));
        }
        crate::diag::sort(&mut diags);
        diags
    }

    /// The AGC204 messages of a graph whose node `b` has the given outcome lists on its edges
    /// from `a`.
    fn dead_joins(lists: &[Vec<&str>]) -> Vec<String> {
        let mut text = String::from(
            "schema: agent-graph.graph.v1\nid: main\nentrypoints:\n  default: a\nnodes:\n\
             - { id: a, kind: action, action: actions/a.yaml, reasonCode: route.main.a }\n\
             - { id: b, kind: terminal, terminalOutcome: completed }\nedges:\n",
        );
        for l in lists {
            text += &format!("- {{ from: a, to: b, outcomes: [{}] }}\n", l.join(", "));
        }
        let diags = check_test_text("main.yaml", text);
        assert!(!diags.iter().any(|d| d.is_error()), "{:?}", diags);
        diags
            .iter()
            .filter(|d| d.code == "AGC204")
            .map(|d| d.message.clone())
            .collect()
    }

    /// Every ordering of four outcomes is its own edge (no duplicate), all sharing outcomes:
    /// no dead join; one more edge on an outcome none of them has makes the join dead.
    #[test]
    fn agc204_compares_outcome_sets_not_edges() {
        let four = ["completed", "partial", "failed", "skipped"];
        let mut lists = Vec::new();
        for a in 0..4 {
            for b in 0..4 {
                for c in 0..4 {
                    for d in 0..4 {
                        let idx = [a, b, c, d];
                        let mut sorted = idx;
                        sorted.sort_unstable();
                        if sorted == [0, 1, 2, 3] {
                            lists.push(idx.iter().map(|&i| four[i]).collect::<Vec<_>>());
                        }
                    }
                }
            }
        }
        assert_eq!(lists.len(), 24);
        assert_eq!(dead_joins(&lists), Vec::<String>::new());
        lists.push(vec!["unverified"]);
        assert_eq!(
            dead_joins(&lists),
            [
                "node `main/b` joins all edges from `a`, whose outcomes never match together: it can never be reached"
            ]
        );
    }

    /// Of two sources whose edges into one `join: all` node never match together, AGC204 names
    /// the one whose edge comes first, on every run (the sources were kept in a hash map, whose
    /// order changes from one map to the next).
    #[test]
    fn agc204_names_the_first_dead_source_in_edge_order() {
        let text = "schema: agent-graph.graph.v1\nid: main\nentrypoints:\n  default: start\nnodes:\n\
            - { id: start, kind: action, action: actions/s.yaml, reasonCode: route.main.start }\n\
            - { id: b, kind: action, action: actions/b.yaml, reasonCode: route.main.b }\n\
            - { id: a, kind: action, action: actions/a.yaml, reasonCode: route.main.a }\n\
            - { id: done, kind: terminal, terminalOutcome: completed }\n\
            edges:\n\
            - { from: start, to: b }\n\
            - { from: start, to: a }\n\
            - { from: b, to: done }\n\
            - { from: b, to: done, outcomes: [partial] }\n\
            - { from: a, to: done }\n\
            - { from: a, to: done, outcomes: [failed] }\n";
        for _ in 0..16 {
            let diags = check_test_text("main.yaml", text.to_string());
            let dead: Vec<&str> = diags
                .iter()
                .filter(|d| d.code == "AGC204")
                .map(|d| d.message.as_str())
                .collect();
            assert_eq!(
                dead,
                [
                    "node `main/done` joins all edges from `b`, whose outcomes never match together: it can never be reached"
                ],
                "{:?}",
                diags
            );
        }
    }
}
