//! `evaluate`: the next legal steps of a graph under the given facts, outcomes and authorities.
//!
//! This is upstream's `evaluateGraph` (`src/evaluator.ts` of `@c4a/agent-graph` 0.2.6) step for
//! step: fixpoint reachability from the entry, the settle precedence (`satisfiedBy` facts, then
//! `completed` without proof → `unverified`, then the recorded outcome, then a terminal's
//! `terminalOutcome`, else `pending`), repeat edges re-arming their target, subgraph frames in
//! place, terminal reachability winning over pending work, the candidate sort (availability,
//! then higher priority, then route id) and the cap of three alternatives.
//!
//! Differences in cost, not in answers: the reachability fixpoint is incremental (`Fixpoint`),
//! linear in nodes plus edges per frame, where upstream rescans the graph on every pass
//! (quadratic in the depth of a chain).

use super::canon::{digest_value, locale_compare, utf16_compare};
use super::model::{Graph, Input, Node, NodeKind, Provider};
use super::{Error, Outcome};
use indexmap::IndexSet;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// At most this many alternatives are returned.
pub const MAX_ALTERNATIVE_ROUTES: usize = 3;

/// A diagnostic of an evaluation (`agent-graph.evaluation.v1` `diagnostics[]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnostic {
    pub code: String,
    pub severity: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
}

impl Diagnostic {
    fn error(code: &str, message: String) -> Diagnostic {
        Diagnostic {
            code: code.to_string(),
            severity: "error".to_string(),
            message,
            path: None,
            detail: None,
        }
    }
}

/// One route summary (`primaryRoute`, `alternativeRoutes[]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteSummary {
    pub route_id: String,
    pub graph: String,
    pub node: String,
    pub status_code: &'static str,
    pub reason_code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub availability: &'static str,
    pub label: String,
}

/// `agent-graph.evaluation.v1`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluation {
    pub schema: &'static str,
    pub provider: String,
    pub graph: String,
    pub entry: String,
    pub revision: String,
    pub status_code: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primary_route: Option<RouteSummary>,
    pub alternative_routes: Vec<RouteSummary>,
    pub diagnostics: Vec<Diagnostic>,
}

/// A route candidate: a summary plus what route resolution needs.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub summary: RouteSummary,
    pub call_path: Vec<String>,
    pub state_key: String,
    pub priority: i64,
    /// Gates: `user` or `session-authority`.
    pub gate_resolution: Option<&'static str>,
}

/// An evaluation with every candidate (the evaluation itself shows at most four).
#[derive(Clone, Debug)]
pub struct Evaluated {
    pub evaluation: Evaluation,
    pub candidates: Vec<Candidate>,
}

struct Frame {
    status: &'static str,
    outcome: Option<Outcome>,
    candidates: Vec<Candidate>,
    diagnostics: Vec<Diagnostic>,
}

struct Ctx<'a> {
    provider: &'a Provider,
    input: &'a Input,
    authorities: Vec<String>,
    revision: String,
}

/// The state key of a node: `frameKey/node`, where the frame key is the graph id, prefixed by
/// the call path joined with `>` inside subgraphs.
pub fn state_key(graph: &str, node: &str, call_path: &[String]) -> String {
    if call_path.is_empty() {
        format!("{graph}/{node}")
    } else {
        format!("{}>{graph}/{node}", call_path.join(">"))
    }
}

/// `route:` + the first 20 hex digits of the digest of `{revision, graph, node, callPath}`.
pub fn route_id(revision: &str, graph: &str, node: &str, call_path: &[String]) -> String {
    let d = digest_value(&json!({
        "revision": revision, "graph": graph, "node": node, "callPath": call_path,
    }));
    format!("route:{}", &d["sha256:".len().."sha256:".len() + 20])
}

/// Authorities as upstream normalises them: unique, in JavaScript's default sort order.
pub fn normalized_authorities(list: &[String]) -> Vec<String> {
    let mut v: Vec<String> = list.to_vec();
    v.sort_by(|a, b| utf16_compare(a, b));
    v.dedup();
    v
}

/// The revision: the digest of the graph's closure digest, graph id, entry, facts, outcomes
/// (reduced to strings) and sorted authorities.
pub fn revision(provider: &Provider, graph: &str, entry: &str, input: &Input) -> String {
    let mut outcomes: Vec<(&String, &String)> = input.outcomes.iter().collect();
    outcomes.sort_by(|a, b| locale_compare(a.0, b.0));
    let outcomes: Map<String, Value> = outcomes
        .into_iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let facts = if input.facts.is_null() {
        Value::Object(Map::new())
    } else {
        input.facts.clone()
    };
    digest_value(&json!({
        "provider": provider.graph_digests.get(graph).cloned().unwrap_or_default(),
        "graphId": graph,
        "entry": entry,
        "facts": facts,
        "outcomes": outcomes,
        "authorities": normalized_authorities(&input.authorities),
    }))
}

/// Evaluates `graph` from `entry`. Fails only with `graph-missing`.
pub fn evaluate(
    provider: &Provider,
    graph_id: &str,
    entry: &str,
    input: &Input,
) -> Result<Evaluated, Error> {
    let Some(graph) = provider.graphs.get(graph_id) else {
        return Err(Error::new(
            "graph-missing",
            format!("Provider {} has no graph {graph_id}", provider.id),
        ));
    };
    let ctx = Ctx {
        provider,
        input,
        authorities: normalized_authorities(&input.authorities),
        revision: revision(provider, graph_id, entry, input),
    };
    let mut stack = Vec::new();
    let result = frame(&ctx, graph, entry, &[], &mut stack);
    let mut diagnostics = result.diagnostics;
    let mut iter = result.candidates.iter();
    let primary = iter.next().map(|c| c.summary.clone());
    let alternatives: Vec<&Candidate> = iter.collect();
    if alternatives.len() > MAX_ALTERNATIVE_ROUTES {
        diagnostics.push(Diagnostic {
            code: "route-alternatives-truncated".to_string(),
            severity: "info".to_string(),
            message: format!(
                "Evaluation returned {MAX_ALTERNATIVE_ROUTES} of {} alternative routes",
                alternatives.len()
            ),
            path: None,
            detail: Some(
                json!({"available": alternatives.len(), "returned": MAX_ALTERNATIVE_ROUTES}),
            ),
        });
    }
    let evaluation = Evaluation {
        schema: "agent-graph.evaluation.v1",
        provider: provider.id.clone(),
        graph: graph_id.to_string(),
        entry: entry.to_string(),
        revision: ctx.revision.clone(),
        status_code: result.status,
        outcome: result.outcome,
        primary_route: primary,
        alternative_routes: alternatives
            .iter()
            .take(MAX_ALTERNATIVE_ROUTES)
            .map(|c| c.summary.clone())
            .collect(),
        diagnostics,
    };
    Ok(Evaluated {
        evaluation,
        candidates: result.candidates,
    })
}

fn error_frame(diag: Diagnostic) -> Frame {
    Frame {
        status: "error",
        outcome: None,
        candidates: Vec::new(),
        diagnostics: vec![diag],
    }
}

fn all_match(facts: &Value, checks: Option<&Vec<super::model::FactCheck>>) -> bool {
    checks.is_none_or(|cs| cs.iter().all(|c| c.matches(facts)))
}

fn edge_matches(outcome: Option<&Outcome>, outcomes: &[String]) -> bool {
    outcome.is_some_and(|o| outcomes.iter().any(|x| x == o))
}

/// One frame: a graph entered at `entry` under `call_path`. The recursion follows subgraph
/// nesting, which is bounded by the number of graphs (a graph already on `stack` is an error).
fn frame(
    ctx: &Ctx<'_>,
    graph: &Graph,
    entry: &str,
    call_path: &[String],
    stack: &mut Vec<String>,
) -> Frame {
    if stack.iter().any(|g| g == &graph.id) {
        let mut trail = stack.clone();
        trail.push(graph.id.clone());
        return error_frame(Diagnostic::error(
            "graph-recursion",
            format!("Runtime graph recursion detected: {}", trail.join(" -> ")),
        ));
    }
    let index: HashMap<&str, usize> = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let Some(&entry_node) = graph
        .entrypoints
        .get(entry)
        .and_then(|id| index.get(id.as_str()))
    else {
        return error_frame(Diagnostic::error(
            "entry-missing",
            format!("Graph {} has no entry {entry}", graph.id),
        ));
    };
    let facts = &ctx.input.facts;
    let mut children: HashMap<usize, Frame> = HashMap::new();
    let mut diagnostics = Vec::new();
    let (reached, outcomes) = reach(graph, &index, entry_node, |n| {
        let node = &graph.nodes[n];
        if !all_match(facts, node.requires_facts.as_ref()) {
            diagnostics.push(Diagnostic {
                path: Some(graph.path.clone()),
                ..Diagnostic::error(
                    "required-fact-missing",
                    format!(
                        "Node {}/{} requires facts that are not satisfied",
                        graph.id, node.id
                    ),
                )
            });
            return "blocked".to_string();
        }
        if node.kind != NodeKind::Subgraph {
            return settle(ctx, graph, node, call_path);
        }
        let child_id = node.graph.as_deref().unwrap_or_default();
        let Some(child) = ctx.provider.graphs.get(child_id) else {
            diagnostics.push(Diagnostic::error(
                "subgraph-missing",
                format!("Missing subgraph {child_id}"),
            ));
            return "failed".to_string();
        };
        let mut child_path = call_path.to_vec();
        child_path.push(format!("{}/{}", graph.id, node.id));
        stack.push(graph.id.clone());
        let result = frame(
            ctx,
            child,
            node.entry.as_deref().unwrap_or_default(),
            &child_path,
            stack,
        );
        stack.pop();
        let outcome = match (result.status, &result.outcome) {
            ("complete", Some(o)) => o.clone(),
            ("error", _) => "failed".to_string(),
            ("waiting-user", _) => "waiting-user".to_string(),
            _ => "pending".to_string(),
        };
        children.insert(n, result);
        outcome
    });

    let mut candidates = Vec::new();
    for &n in &reached {
        let node = &graph.nodes[n];
        if node.kind == NodeKind::Subgraph {
            if let Some(child) = children.remove(&n)
                && child.status != "complete"
            {
                candidates.extend(child.candidates);
                diagnostics.extend(child.diagnostics);
            }
            continue;
        }
        let o = outcomes[n].as_deref();
        if o != Some("pending") && o != Some("waiting-user") {
            continue;
        }
        match node.kind {
            NodeKind::Action => {
                candidates.push(candidate(
                    ctx,
                    graph,
                    node,
                    call_path,
                    "actionable",
                    "immediate",
                    None,
                ));
            }
            NodeKind::Gate => {
                let delegated = node.gate.as_ref().is_some_and(|g| {
                    g.delegatable == Some(true)
                        && g.authority
                            .as_ref()
                            .is_some_and(|a| ctx.authorities.contains(a))
                });
                candidates.push(if delegated {
                    candidate(
                        ctx,
                        graph,
                        node,
                        call_path,
                        "actionable",
                        "immediate",
                        Some("session-authority"),
                    )
                } else {
                    candidate(
                        ctx,
                        graph,
                        node,
                        call_path,
                        "waiting-user",
                        "requires-user",
                        Some("user"),
                    )
                });
            }
            _ => {}
        }
    }

    let mut terminal: Vec<Outcome> = reached
        .iter()
        .filter(|&&n| graph.nodes[n].kind == NodeKind::Terminal)
        .filter_map(|&n| outcomes[n].clone())
        .collect();
    terminal.sort_by(|a, b| utf16_compare(a, b));
    terminal.dedup();
    if terminal.len() > 1 {
        diagnostics.push(Diagnostic {
            path: Some(graph.path.clone()),
            detail: Some(json!({ "outcomes": terminal })),
            ..Diagnostic::error(
                "terminal-outcome-ambiguous",
                format!(
                    "Graph {} reached terminals with conflicting outcomes: {}",
                    graph.id,
                    terminal.join(", ")
                ),
            )
        });
        return Frame {
            status: "error",
            outcome: None,
            candidates: Vec::new(),
            diagnostics,
        };
    }
    if let Some(o) = terminal.pop() {
        return Frame {
            status: "complete",
            outcome: Some(o),
            candidates: Vec::new(),
            diagnostics,
        };
    }
    candidates.sort_by(|a, b| {
        rank(a.summary.availability)
            .cmp(&rank(b.summary.availability))
            .then(b.priority.cmp(&a.priority))
            .then_with(|| locale_compare(&a.summary.route_id, &b.summary.route_id))
    });
    if !candidates.is_empty() {
        let status = if candidates
            .iter()
            .any(|c| c.summary.availability == "immediate")
        {
            "actionable"
        } else if candidates
            .iter()
            .any(|c| c.summary.availability == "requires-user")
        {
            "waiting-user"
        } else {
            "blocked"
        };
        return Frame {
            status,
            outcome: None,
            candidates,
            diagnostics,
        };
    }
    if diagnostics.is_empty() {
        diagnostics.push(Diagnostic::error(
            "no-route",
            format!(
                "Graph {} cannot reach a terminal or actionable node from entry {entry}",
                graph.id
            ),
        ));
    }
    Frame {
        status: "blocked",
        outcome: None,
        candidates: Vec::new(),
        diagnostics,
    }
}

fn rank(availability: &str) -> u8 {
    match availability {
        "immediate" => 0,
        "requires-user" => 1,
        _ => 2,
    }
}

/// The settled outcome of an action, gate or terminal node.
fn settle(ctx: &Ctx<'_>, graph: &Graph, node: &Node, call_path: &[String]) -> Outcome {
    let recorded = ctx
        .input
        .outcomes
        .get(&state_key(&graph.id, &node.id, call_path));
    if node.kind != NodeKind::Terminal
        && let Some(proof) = &node.satisfied_by
    {
        if proof.iter().all(|c| c.matches(&ctx.input.facts)) {
            return "completed".to_string();
        }
        if recorded.map(String::as_str) == Some("completed") {
            return "unverified".to_string();
        }
    }
    if let Some(r) = recorded {
        return r.clone();
    }
    match (&node.kind, &node.terminal_outcome) {
        (NodeKind::Terminal, Some(t)) => t.clone(),
        _ => "pending".to_string(),
    }
}

fn candidate(
    ctx: &Ctx<'_>,
    graph: &Graph,
    node: &Node,
    call_path: &[String],
    status: &'static str,
    availability: &'static str,
    gate_resolution: Option<&'static str>,
) -> Candidate {
    let reason = node.reason_code.clone().unwrap_or_default();
    let hint = ctx
        .provider
        .catalog
        .as_ref()
        .and_then(|c| c.get(&reason))
        .map(|e| e.summary.clone())
        .filter(|s| !s.is_empty());
    Candidate {
        summary: RouteSummary {
            route_id: route_id(&ctx.revision, &graph.id, &node.id, call_path),
            graph: graph.id.clone(),
            node: node.id.clone(),
            status_code: status,
            reason_code: reason,
            hint,
            availability,
            label: node.description.clone().unwrap_or_else(|| node.id.clone()),
        },
        call_path: call_path.to_vec(),
        state_key: state_key(&graph.id, &node.id, call_path),
        priority: node.priority,
        gate_resolution,
    }
}

/// The reachability fixpoint of a frame entered at `entry`: the reached nodes in reaching
/// order and their outcomes. `settle` gives a reached node's outcome; it is called once per
/// node, in upstream's order (pass by pass, in reaching order).
fn reach(
    graph: &Graph,
    index: &HashMap<&str, usize>,
    entry: usize,
    mut settle: impl FnMut(usize) -> Outcome,
) -> (IndexSet<usize>, Vec<Option<Outcome>>) {
    let mut fix = Fixpoint::new(graph, index, entry);
    loop {
        // Settle, in reaching order, the nodes reached since the last pass (every earlier one
        // has its outcome already).
        let mut changed = false;
        for n in std::mem::take(&mut fix.fresh) {
            if fix.outcomes[n].is_none() {
                changed = true;
                let o = settle(n);
                fix.set(n, o);
            }
        }
        changed |= fix.repeat_edges();
        changed |= fix.joins();
        if !changed {
            return (fix.reached, fix.outcomes);
        }
    }
}

/// The reachability fixpoint of one frame, kept incrementally so that a pass costs what
/// changed in it, not the size of the graph: upstream rescans every repeat edge and every
/// unreached node on each pass, which is quadratic in the depth of a chain. The answers, and
/// the order nodes are reached and settled in, are upstream's:
///
/// - a pass settles the nodes reached in the previous one ([`Self::fresh`], in reaching order);
/// - then the repeat edges whose source changed, in declared order (an edge re-armed by an
///   earlier edge of the same pass is seen in that pass, one re-armed by a later edge in the
///   next, as upstream's single in-order scan does);
/// - then the unreached nodes with an incoming edge whose match changed, in declared order,
///   against a count of matching incoming edges (`join: any` needs one, `all` every one).
///
/// An edge's match only changes when its source's outcome does (settled once, re-armed to
/// `pending` at most once more), so the whole fixpoint is linear in nodes plus edges.
struct Fixpoint<'g> {
    graph: &'g Graph,
    reached: IndexSet<usize>,
    outcomes: Vec<Option<Outcome>>,
    /// Reached since the last settle phase, in reaching order.
    fresh: Vec<usize>,
    /// Per edge: (source, target) indices when both exist.
    ends: Vec<Option<(usize, usize)>>,
    /// Per node: its outgoing flow (non-repeat) and repeat edges, in declared order.
    out_flow: Vec<Vec<usize>>,
    out_repeat: Vec<Vec<usize>>,
    /// Per node: incoming non-repeat edges, and how many of them match now.
    in_degree: Vec<usize>,
    hits: Vec<usize>,
    /// Per edge: whether it matches now.
    matched: Vec<bool>,
    dirty_repeat: std::collections::BTreeSet<usize>,
    dirty_join: std::collections::BTreeSet<usize>,
}

impl<'g> Fixpoint<'g> {
    fn new(graph: &'g Graph, index: &HashMap<&str, usize>, entry: usize) -> Fixpoint<'g> {
        let n = graph.nodes.len();
        let mut fix = Fixpoint {
            graph,
            reached: IndexSet::new(),
            outcomes: vec![None; n],
            fresh: vec![entry],
            ends: Vec::with_capacity(graph.edges.len()),
            out_flow: vec![Vec::new(); n],
            out_repeat: vec![Vec::new(); n],
            in_degree: vec![0; n],
            hits: vec![0; n],
            matched: vec![false; graph.edges.len()],
            dirty_repeat: Default::default(),
            dirty_join: Default::default(),
        };
        fix.reached.insert(entry);
        for (i, e) in graph.edges.iter().enumerate() {
            let from = index.get(e.from.as_str()).copied();
            let to = index.get(e.to.as_str()).copied();
            if !e.is_repeat()
                && let Some(to) = to
            {
                fix.in_degree[to] += 1;
            }
            let ends = from.zip(to);
            if let Some((from, _)) = ends {
                if e.is_repeat() {
                    fix.out_repeat[from].push(i);
                } else {
                    fix.out_flow[from].push(i);
                }
            }
            fix.ends.push(ends);
        }
        fix
    }

    /// Sets a reached node's outcome and marks what depends on it.
    fn set(&mut self, n: usize, outcome: Outcome) {
        self.outcomes[n] = Some(outcome);
        for &e in &self.out_flow[n] {
            let m = edge_matches(self.outcomes[n].as_ref(), &self.graph.edges[e].outcomes);
            if m != self.matched[e] {
                self.matched[e] = m;
                let Some((_, to)) = self.ends[e] else {
                    continue;
                };
                if m {
                    self.hits[to] += 1;
                } else {
                    self.hits[to] -= 1;
                }
                self.dirty_join.insert(to);
            }
        }
        self.dirty_repeat.extend(self.out_repeat[n].iter().copied());
    }

    /// The repeat edges whose source changed, in declared order; whether anything changed.
    fn repeat_edges(&mut self) -> bool {
        let mut changed = false;
        let mut at = 0;
        while let Some(&e) = self.dirty_repeat.range(at..).next() {
            self.dirty_repeat.remove(&e);
            at = e + 1;
            let Some((from, to)) = self.ends[e] else {
                continue;
            };
            if !edge_matches(self.outcomes[from].as_ref(), &self.graph.edges[e].outcomes) {
                continue;
            }
            if self.reached.insert(to) {
                changed = true;
            }
            if self.outcomes[to].as_deref() != Some("pending") {
                self.set(to, "pending".to_string());
                changed = true;
            }
        }
        changed
    }

    /// The unreached nodes whose incoming matches changed, in declared order; whether any
    /// was reached.
    fn joins(&mut self) -> bool {
        let mut changed = false;
        for n in std::mem::take(&mut self.dirty_join) {
            if self.reached.contains(&n) || self.in_degree[n] == 0 {
                continue;
            }
            let ok = if self.graph.nodes[n].join_any {
                self.hits[n] > 0
            } else {
                self.hits[n] == self.in_degree[n]
            };
            if ok {
                self.reached.insert(n);
                self.fresh.push(n);
                changed = true;
            }
        }
        changed
    }
}

#[cfg(test)]
#[path = "eval_tests.rs"]
mod tests;
