//! Lowering a checked Provider's graphs into the IR: one [`ir::Graph`] per Agent Graph graph.
//!
//! - Actions become `Task` nodes, gates `Gate` nodes, terminals `Terminal` nodes; the runner,
//!   effect, reason code, priority, resources, the gate block and its inspection / resolution /
//!   delegated policy stay in the node's `attrs` under their Agent Graph names.
//! - `requiresFacts` becomes the node's guard, a fact expression (`ExprLang::Fact`) such as
//!   `release.ready == true && artifact.digest exists`; `satisfiedBy` is kept in `attrs` in the
//!   same form. `join: any` is `Join::Any`.
//! - Edges keep their outcome list in `Edge::on` (named outcomes; `completed` and `failed` also
//!   map to `Outcome::Succeeded` / `Failed`). `[completed]` edges are `Sequence`, edges taken
//!   only on `failed` are `Failure`, other outcome lists `Conditional`. A `repeat` edge is a
//!   `Back` edge with no bound: Agent Graph sets no iteration limit (the host decides when to
//!   stop recording the outcome that re-arms it). The edge kind (`gatedBy`, `requires`,
//!   `consumes`) is the edge's label.
//! - A `subgraph` node owns a `Subgraph` region (source `graph:<id>#<entry>`) holding the called
//!   graph's nodes, inlined with scoped ids `<call>/<node>`, recursively. Expansion is iterative
//!   and leaves the deeper calls empty (warning AGC205) beyond [`MAX_NODES`] nodes in one
//!   graph, [`MAX_CALL_DEPTH`] levels of calls, or [`MAX_INLINED`] inlined nodes over all the
//!   Provider's graphs, so neither diamond-shaped call trees nor long chains can explode: every
//!   graph is lowered with its calls inlined, so a chain of 1,600 graphs each calling the next
//!   inlined 1.3 million nodes with ids up to 1,600 levels long (77 s and 14 GB to check).

use super::spans::span_at;
use super::unit::Unit;
use crate::diag::Diagnostic;
use crate::front::Lowered;
use crate::ir::expr::{ExprLang, IrExpr};
use crate::ir::{
    self, Edge, EdgeKind, Join, Node, NodeId, NodeKind, Outcome, Region, RegionId, RegionKind,
};
use crate::source::{Document, SourceMap, Value};
use serde_json::json;
use std::collections::HashMap;

/// The most nodes one lowered graph may hold after inlining subgraph calls.
pub const MAX_NODES: usize = 100_000;

/// The most levels of subgraph calls inlined into one graph (AGS bodies and AWP parallels
/// have the same bound: each level repeats its callers' ids in its nodes' ids).
pub const MAX_CALL_DEPTH: usize = 64;

/// The most nodes inlined from subgraph calls over all of a Provider's graphs (their own
/// nodes are not counted).
pub const MAX_INLINED: usize = 1_000_000;

fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// A fact check list as one expression text.
fn facts_text(checks: &Value) -> String {
    checks
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| {
                    let path = str_at(c, "path").unwrap_or_default();
                    match (c.get("exists"), c.get("equals")) {
                        (Some(Value::Bool(true)), _) => format!("{path} exists"),
                        (Some(_), _) => format!("{path} missing"),
                        (None, Some(v)) => format!("{path} == {v}"),
                        (None, None) => path.to_string(),
                    }
                })
                .collect::<Vec<_>>()
                .join(" && ")
        })
        .unwrap_or_default()
}

pub(super) fn lower(_sources: &SourceMap, unit: &Unit) -> (Vec<Lowered>, Vec<Diagnostic>) {
    let Some(loaded) = &unit.provider else {
        return (Vec::new(), Vec::new());
    };
    let Some(model) = &loaded.provider else {
        return (Vec::new(), Vec::new());
    };
    let docs: HashMap<&str, &Document> = loaded
        .graphs
        .iter()
        .filter_map(|g| str_at(&g.doc.value, "id").map(|id| (id, &g.doc)))
        .collect();
    let mut out = Vec::new();
    let mut diags = Vec::new();
    let mut inlined = 0;
    for g in &loaded.graphs {
        let id = str_at(&g.doc.value, "id").unwrap_or_default().to_string();
        let mut graph = ir::Graph::new("agent-graph", id.clone());
        // A fact store, read by fact checks; decisions by their edges' outcomes.
        graph.semantics = ir::Semantics {
            state: ir::StateModel::Facts,
            expression_errors: ir::ExpressionErrors::Reading,
            decisions: ir::Decisions::Edges,
            ..ir::Semantics::default()
        };
        graph.title = str_at(&g.doc.value, "description").map(String::from);
        graph.attrs.insert(
            "provider",
            json!({"id": model.id, "version": model.version}).into(),
        );
        if let Some(d) = model.graph_digests.get(&id) {
            graph.attrs.insert("graphDigest", d.as_str().into());
        }
        graph
            .attrs
            .insert("entrypoints", g.doc.value["entrypoints"].clone());
        let mut l = Lowerer {
            graph,
            docs: &docs,
            capped: None,
            inlined,
        };
        let top = l.frame(&g.doc, "", None);
        if let Some(eps) = g.doc.value.get("entrypoints").and_then(Value::as_object) {
            l.graph.entrypoints = eps
                .values()
                .filter_map(|t| t.as_str().and_then(|t| top.get(t).copied()))
                .collect();
            l.graph.entrypoints.sort();
            l.graph.entrypoints.dedup();
        }
        inlined = l.inlined;
        if let Some(cap) = l.capped {
            let why = match cap {
                Cap::Nodes => {
                    format!(
                        "graph `{id}` has more than {MAX_NODES} nodes with its subgraph calls inlined"
                    )
                }
                Cap::Depth => format!(
                    "graph `{id}`'s subgraph calls nest more than {MAX_CALL_DEPTH} levels deep"
                ),
                Cap::Provider => format!(
                    "by graph `{id}`, the Provider's graphs have more than {MAX_INLINED} nodes inlined from subgraph calls"
                ),
            };
            diags.push(
                Diagnostic::warning("AGC205", format!("{why}; the deeper calls are left empty"))
                    .at(span_at(&g.doc, "/nodes")),
            );
        }
        out.push(Lowered {
            graph: l.graph,
            digest: crate::canon::graph_digest(&g.doc.value).ok(),
            display: g.display.clone(),
        });
    }
    (out, diags)
}

struct Lowerer<'a> {
    graph: ir::Graph,
    docs: &'a HashMap<&'a str, &'a Document>,
    /// Which limit left calls empty, if one did.
    capped: Option<Cap>,
    /// Nodes inlined from calls so far, over the Provider's graphs lowered until now.
    inlined: usize,
}

/// The limit that stopped inlining (AGC205).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cap {
    Nodes,
    Depth,
    Provider,
}

/// A subgraph call still to inline.
struct Pending<'a> {
    doc: &'a Document,
    prefix: String,
    region: RegionId,
    entry: String,
    /// Levels of calls down to this one (1 for a call in the graph itself).
    depth: usize,
}

impl<'a> Lowerer<'a> {
    /// Lowers `doc` with ids prefixed by `prefix` into `region`, then every call inside it
    /// (breadth first, iteratively). Gives the ids of the frame's own nodes.
    fn frame(
        &mut self,
        doc: &'a Document,
        prefix: &str,
        region: Option<RegionId>,
    ) -> HashMap<String, NodeId> {
        let mut queue = std::collections::VecDeque::new();
        let top = self.one(doc, prefix, region, 0, &mut queue);
        // Breadth first, so the calls come in order of depth: the first past a limit ends it.
        while let Some(p) = queue.pop_front() {
            let cap = if self.graph.nodes.len() > MAX_NODES {
                Some(Cap::Nodes)
            } else if p.depth > MAX_CALL_DEPTH {
                Some(Cap::Depth)
            } else if self.inlined > MAX_INLINED {
                Some(Cap::Provider)
            } else {
                None
            };
            if cap.is_some() {
                self.capped = cap;
                break;
            }
            let before = self.graph.nodes.len();
            let ids = self.one(p.doc, &p.prefix, Some(p.region), p.depth, &mut queue);
            self.inlined += self.graph.nodes.len() - before;
            let entry = p
                .doc
                .value
                .pointer(&format!(
                    "/entrypoints/{}",
                    crate::source::tree::escape_token(&p.entry)
                ))
                .and_then(Value::as_str)
                .and_then(|t| ids.get(t).copied());
            let mut members: Vec<NodeId> = ids.values().copied().collect();
            members.sort();
            let r = &mut self.graph.regions[p.region.index()];
            r.nodes = members;
            r.entrypoints = entry.into_iter().collect();
        }
        top
    }

    /// Lowers one frame (`doc` at call depth `depth`), queueing its calls.
    fn one(
        &mut self,
        doc: &'a Document,
        prefix: &str,
        region: Option<RegionId>,
        depth: usize,
        queue: &mut std::collections::VecDeque<Pending<'a>>,
    ) -> HashMap<String, NodeId> {
        let v = &doc.value;
        let mut ids = HashMap::new();
        for (i, n) in v["nodes"].as_array().unwrap_or_default().iter().enumerate() {
            let local = str_at(n, "id").unwrap_or_default().to_string();
            let origin = str_at(n, "kind").unwrap_or_default();
            let kind = match origin {
                "gate" => NodeKind::Gate,
                "subgraph" => NodeKind::Subgraph,
                "terminal" => NodeKind::Terminal,
                _ => NodeKind::Task,
            };
            let mut node = Node::bare(format!("{prefix}{local}"), local.clone(), kind, origin);
            node.region = region;
            node.title = str_at(n, "description").map(Box::from);
            node.join = if str_at(n, "join") == Some("any") {
                Join::Any
            } else {
                Join::All
            };
            if let Some(checks) = n
                .get("requiresFacts")
                .filter(|c| c.as_array().is_some_and(|a| !a.is_empty()))
            {
                node.guard = Some(Box::new(IrExpr {
                    lang: ExprLang::Fact,
                    source: facts_text(checks).into(),
                    core: None,
                    span: span_at(doc, &format!("/nodes/{i}/requiresFacts")),
                }));
            }
            let mut attrs = ir::Attrs::new();
            for key in [
                "reasonCode",
                "action",
                "priority",
                "resources",
                "gate",
                "inspectionAction",
                "resolutionAction",
                "delegated",
                "terminalOutcome",
                "graph",
                "entry",
            ] {
                if let Some(x) = n.get(key) {
                    attrs.insert(key, x.clone());
                }
            }
            if let Some(s) = n.get("satisfiedBy") {
                attrs.insert("satisfiedBy", facts_text(s).into());
            }
            node.attrs = attrs;
            let span = span_at(doc, &format!("/nodes/{i}"));
            let id = self.graph.add_node(node, span);
            ids.insert(local.clone(), id);
            if kind == NodeKind::Subgraph {
                let child = str_at(n, "graph").unwrap_or_default();
                let entry = str_at(n, "entry").unwrap_or_default().to_string();
                let r = self.graph.add_region(
                    Region {
                        kind: RegionKind::Subgraph {
                            source: ir::SubgraphSource::Graph {
                                graph: child.to_string(),
                                entry: entry.clone(),
                            },
                            params: Vec::new(),
                            outputs: Vec::new(),
                            inherit_context: false,
                        },
                        owner: id,
                        parent: region,
                        entrypoints: Vec::new(),
                        nodes: Vec::new(),
                    },
                    span,
                );
                self.graph.nodes[id.index()].owns = Some(r);
                if let Some(&cdoc) = self.docs.get(child) {
                    queue.push_back(Pending {
                        doc: cdoc,
                        prefix: format!("{prefix}{local}/"),
                        region: r,
                        entry,
                        depth: depth + 1,
                    });
                }
            }
        }
        for (i, e) in v["edges"].as_array().unwrap_or_default().iter().enumerate() {
            let (Some(&from), Some(&to)) = (
                str_at(e, "from").and_then(|f| ids.get(f)),
                str_at(e, "to").and_then(|t| ids.get(t)),
            ) else {
                continue;
            };
            let on: Vec<String> = match e.get("outcomes").and_then(Value::as_array) {
                Some(a) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect(),
                None => vec!["completed".to_string()],
            };
            let edge_kind = str_at(e, "kind").unwrap_or("flow");
            let mut outcomes = ir::Outcomes::NONE;
            if on.iter().any(|o| o == "completed") {
                outcomes.push(Outcome::Succeeded);
            }
            if on.iter().any(|o| o == "failed") {
                outcomes.push(Outcome::Failed);
            }
            let kind = if edge_kind == "repeat" {
                EdgeKind::Back
            } else if on == ["completed"] {
                EdgeKind::Sequence
            } else if on == ["failed"] {
                EdgeKind::Failure
            } else {
                EdgeKind::Conditional
            };
            self.graph.add_edge(
                Edge {
                    from,
                    to,
                    kind,
                    outcomes,
                    guard: None,
                    order: None,
                    bound: None,
                    implicit: false,
                    label: (edge_kind != "flow").then(|| edge_kind.to_string()),
                    on,
                },
                span_at(doc, &format!("/edges/{i}")),
            );
        }
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{Limits, load};

    /// Graphs `g0` … `g{n-1}`, each calling the next (the last one an action).
    fn chain(sources: &mut SourceMap, n: usize) -> Vec<Document> {
        (0..n)
            .map(|i| {
                let call = if i + 1 < n {
                    format!(
                        "{{id: call, kind: subgraph, graph: g{}, entry: default}}",
                        i + 1
                    )
                } else {
                    format!("{{id: call, kind: action, action: a.yaml, reasonCode: route.g{i}}}")
                };
                let text = format!(
                    "schema: agent-graph.graph.v1\nid: g{i}\nentrypoints: {{default: call}}\n\
                     nodes: [{call}, {{id: done, kind: terminal, terminalOutcome: completed}}]\n\
                     edges: [{{from: call, to: done}}]\n"
                );
                let (_, loaded) =
                    load::load_str(sources, &format!("g{i}.yaml"), text, Limits::default());
                loaded.doc.expect("a graph")
            })
            .collect()
    }

    fn by_id(docs: &[Document]) -> HashMap<&str, &Document> {
        docs.iter()
            .map(|d| (str_at(&d.value, "id").unwrap(), d))
            .collect()
    }

    /// `g0` lowered after earlier graphs inlined `inlined` nodes.
    fn lower_first<'a>(
        docs: &'a [Document],
        by_id: &'a HashMap<&'a str, &'a Document>,
        inlined: usize,
    ) -> Lowerer<'a> {
        let mut l = Lowerer {
            graph: ir::Graph::new("agent-graph", "g0".into()),
            docs: by_id,
            capped: None,
            inlined,
        };
        l.frame(&docs[0], "", None);
        l
    }

    #[test]
    fn calls_inline_at_most_64_levels_deep() {
        let mut sources = SourceMap::new();
        let docs = chain(&mut sources, 70);
        let ids = by_id(&docs);
        let l = lower_first(&docs, &ids, 0);
        assert_eq!(l.capped, Some(Cap::Depth));
        let deepest = l
            .graph
            .nodes
            .iter()
            .map(|n| n.scoped_id.split('/').count())
            .max();
        assert_eq!(deepest, Some(MAX_CALL_DEPTH + 1));
        // 64 levels exactly inline in full.
        let docs = chain(&mut sources, MAX_CALL_DEPTH + 1);
        let ids = by_id(&docs);
        let l = lower_first(&docs, &ids, 0);
        assert_eq!(l.capped, None);
        assert_eq!(l.graph.nodes.len(), 2 * (MAX_CALL_DEPTH + 1));
        assert_eq!(l.inlined, 2 * MAX_CALL_DEPTH);
    }

    #[test]
    fn the_providers_inlining_budget_is_shared_by_its_graphs() {
        let mut sources = SourceMap::new();
        let docs = chain(&mut sources, 3);
        let ids = by_id(&docs);
        // Earlier graphs spent the budget: this one keeps its own nodes, its call stays empty.
        let l = lower_first(&docs, &ids, MAX_INLINED + 1);
        assert_eq!(l.capped, Some(Cap::Provider));
        assert_eq!(l.graph.nodes.len(), 2);
        assert!(l.graph.regions[0].nodes.is_empty());
        let l = lower_first(&docs, &ids, 0);
        assert_eq!((l.capped, l.graph.nodes.len(), l.inlined), (None, 6, 4));
    }
}
