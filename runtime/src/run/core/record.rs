//! Building the AGS run record from the state.
//!
//! Node runs are listed in a structural order that does not depend on which call happened
//! to finish first: by enclosing instance (owner node, then item or iteration index), then
//! plan order; compensation runs last, in the order they ran. Edges taken follow their
//! source run in the same order.

use super::State;
use crate::run::record::{Harness, NodeRun, RunRecord};
use serde_json::{Map, Value};

/// What a redacted value is replaced with in records.
pub const REDACTED: &str = "[redacted]";

/// `values` with every value whose declaration says `redact: true` replaced by
/// [`REDACTED`] (AGS: records omit redacted values; the key stays, so the record still
/// says the value was there).
fn redacted<'a>(
    values: &Map<String, Value>,
    decls: impl Iterator<Item = (&'a str, bool)>,
) -> Map<String, Value> {
    let mut out = values.clone();
    for (name, redact) in decls {
        if redact && let Some(v) = out.get_mut(name) {
            *v = Value::from(REDACTED);
        }
    }
    out
}

impl State {
    /// The run record as it stands (final once the run ended or paused).
    pub fn record(&self, harness: &Harness) -> RunRecord {
        let keys = self.sort_keys();
        let mut order: Vec<usize> = (0..self.runs.len()).collect();
        order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
        let mut rank = vec![0usize; self.runs.len()];
        for (i, &r) in order.iter().enumerate() {
            rank[r] = i;
        }
        let nodes = order.iter().map(|&r| self.node_run(r)).collect();
        let mut edges: Vec<(usize, usize, &crate::run::record::EdgeTaken)> = self
            .edges_taken
            .iter()
            .enumerate()
            .map(|(i, e)| {
                (
                    self.by_path.get(&e.from).map_or(usize::MAX, |&r| rank[r]),
                    i,
                    e,
                )
            })
            .collect();
        edges.sort_by_key(|&(k, i, _)| (k, i));
        let mut usage = self.usage.clone();
        usage.node_executions = Some(self.executions);
        RunRecord {
            ags_version: "1.0".into(),
            kind: "AgenticGraphRun".into(),
            run_id: self.run_id.clone(),
            graph_id: self.plan.graph.id.clone(),
            graph_digest: self
                .plan
                .source
                .graph_digest
                .clone()
                .unwrap_or_else(|| "sha256-unknown=".into()),
            harness: harness.clone(),
            status: self.status,
            started_at: self.started_at.clone(),
            finished_at: self.finished_at.clone(),
            params: redacted(self.params(), self.redacted_params().into_iter()),
            context: self.context().clone(),
            outputs: redacted(
                &self.outputs,
                self.plan
                    .outputs
                    .iter()
                    .map(|o| (o.name.as_str(), o.decl.redact)),
            ),
            usage,
            diagnostics: self.diagnostics.clone(),
            nodes,
            edges_taken: edges.into_iter().map(|(_, _, e)| e.clone()).collect(),
            terminal: self.terminal.clone(),
        }
    }

    /// Params whose values the record hides: those declared `redact`, and those a redacted
    /// input reads (`from: params.token` with `redact: true` makes `token` a secret too;
    /// AGS params have no `redact` of their own).
    fn redacted_params(&self) -> Vec<(&str, bool)> {
        let mut names: Vec<String> = Vec::new();
        for node in &self.plan.nodes {
            for input in node.inputs.iter().filter(|i| i.decl.redact) {
                match &input.source {
                    crate::plan::InputSource::From(e) | crate::plan::InputSource::Template(e) => {
                        if let Some(core) = &e.core {
                            super::env::root_refs(core, "params", false, &mut names);
                        }
                    }
                    crate::plan::InputSource::Implicit(_) => names.push(input.name.clone()),
                    crate::plan::InputSource::Value(_) => {}
                }
            }
        }
        self.plan
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.decl.redact || names.contains(&p.name)))
            .collect()
    }

    fn node_run(&self, r: usize) -> NodeRun {
        let run = &self.runs[r];
        let node = &self.plan.nodes[run.node];
        let ty = match node.kind {
            crate::plan::NodeKind::Decision => "decision",
            crate::plan::NodeKind::Gate => "gate",
            crate::plan::NodeKind::Loop => "loop",
            crate::plan::NodeKind::Map => "map",
            crate::plan::NodeKind::Subgraph => "subgraph",
            _ => "task",
        };
        NodeRun {
            node_id: node.local_id.clone(),
            scope_path: run.path.clone(),
            ty: ty.into(),
            status: run.status,
            skip_reason: run.skip_reason.clone(),
            started_at: run.started_at.clone(),
            finished_at: run.finished_at.clone(),
            inputs: run.inputs.as_ref().map(|i| {
                redacted(
                    i,
                    node.inputs.iter().map(|d| (d.name.as_str(), d.decl.redact)),
                )
            }),
            outputs: run.outputs.as_ref().map(|o| {
                redacted(
                    o,
                    node.outputs
                        .iter()
                        .map(|d| (d.name.as_str(), d.decl.redact)),
                )
            }),
            attempts: run.attempts.clone(),
            fallback_used: run.ladder.as_ref().and_then(|l| l.fallback_used.clone()),
            escalated: run.escalated,
            human_events: run.human_events.clone(),
            decision: run.decision.clone(),
            iterations: run.iterations,
            items: run.items,
            usage: run.usage.clone(),
            awaiting: run
                .human
                .as_ref()
                .and_then(|h| h.ask.as_ref())
                .filter(|_| run.status == crate::run::record::NodeStatus::AwaitingHuman)
                .map(|a| a.cp.name.clone()),
            signal: self.signal_of(r).map(str::to_string),
            compensates: self
                .compensation
                .of_run(r)
                .map(|(_, c)| self.runs[c].path.clone()),
        }
    }

    /// Per run: (owner key ..., instance index, plan node index, pass), flattened.
    fn sort_keys(&self) -> Vec<Vec<u64>> {
        let mut scope_keys: Vec<Vec<u64>> = Vec::with_capacity(self.scopes.len());
        for sc in &self.scopes {
            // Owners are created before the scopes they own, so their keys exist already.
            let key = match sc.owner {
                None => Vec::new(),
                Some(o) => {
                    let owner = &self.runs[o];
                    let mut k = scope_keys[owner.scope].clone();
                    k.push(owner.node as u64);
                    k.push(u64::from(owner.pass));
                    let index = if sc.item.is_some() && sc.item != self.scopes[owner.scope].item {
                        sc.item
                    } else if sc.iteration != self.scopes[owner.scope].iteration {
                        sc.iteration
                    } else {
                        None
                    };
                    k.push(index.map_or(0, |i| i + 1));
                    k
                }
            };
            scope_keys.push(key);
        }
        self.runs
            .iter()
            .enumerate()
            .map(|(r, run)| {
                // Compensations come last, in the order they ran.
                if let Some((order, _)) = self.compensation.of_run(r) {
                    return vec![u64::MAX, order];
                }
                let mut k = scope_keys[run.scope].clone();
                k.push(run.node as u64);
                k.push(u64::from(run.pass));
                k
            })
            .collect()
    }
}
