//! Building the AGS run record from the state.
//!
//! Node runs are listed in a structural order that does not depend on which call happened
//! to finish first: by enclosing instance (owner node, then item or iteration index), then
//! plan order; compensation runs last, in the order they ran. Edges taken follow their
//! source run in the same order.

use super::RunId;
use super::State;
use crate::run::record::{Harness, NodeRun, RunRecord};
use serde_json::{Map, Value};

/// What a redacted value is replaced with in records.
pub const REDACTED: &str = "[redacted]";

/// `values` with every value whose declaration says `redact: true` replaced by
/// [`REDACTED`] (AGS: records omit redacted values; the key stays, so the record still
/// says the value was there).
fn redacted<'a>(
    mut values: Map<String, Value>,
    decls: impl Iterator<Item = (&'a str, bool)>,
) -> Map<String, Value> {
    for (name, redact) in decls {
        if redact && let Some(v) = values.get_mut(name) {
            *v = Value::from(REDACTED);
        }
    }
    values
}

/// The values of a run that its record entry holds: cloned for the record of a run that
/// goes on ([`State::record`]), moved out of one that ended ([`State::into_record`]: a 10k-node
/// run cloned every input and output map and attempt to build its last record, then dropped
/// them all).
struct Held {
    skip_reason: Option<String>,
    started_at: Option<String>,
    finished_at: Option<String>,
    inputs: Option<Map<String, Value>>,
    outputs: Option<Map<String, Value>>,
    attempts: Vec<crate::run::record::Attempt>,
    human_events: Vec<crate::run::record::HumanEvent>,
    decision: Option<String>,
    usage: crate::run::handler::Usage,
}

impl Held {
    fn cloned(run: &super::types::Run) -> Held {
        Held {
            skip_reason: run.skip_reason.clone(),
            started_at: run.started_at.clone(),
            finished_at: run.finished_at.clone(),
            inputs: run.inputs.clone(),
            outputs: run.outputs.clone(),
            attempts: run.attempts.clone(),
            human_events: run.human_events.clone(),
            decision: run.decision.clone(),
            usage: run.usage.clone(),
        }
    }

    fn taken(run: &mut super::types::Run) -> Held {
        use std::mem::take;
        Held {
            skip_reason: take(&mut run.skip_reason),
            started_at: take(&mut run.started_at),
            finished_at: take(&mut run.finished_at),
            inputs: take(&mut run.inputs),
            outputs: take(&mut run.outputs),
            attempts: take(&mut run.attempts),
            human_events: take(&mut run.human_events),
            decision: take(&mut run.decision),
            usage: take(&mut run.usage),
        }
    }
}

impl State {
    /// The run record as it stands (final once the run ended or paused).
    pub fn record(&self, harness: &Harness) -> RunRecord {
        let order = self.record_order();
        let nodes = order
            .iter()
            .map(|&r| self.node_run(r, Held::cloned(&self.runs[r])))
            .collect();
        let edges = self.edges_in_order(&order).into_iter();
        self.record_with(
            harness,
            nodes,
            edges.map(|i| self.edges_taken[i].clone()).collect(),
        )
    }

    /// The run record, the state used up: what [`State::record`] gives, its values moved
    /// instead of cloned (the last record of a run, which ends with it).
    pub fn into_record(mut self, harness: &Harness) -> RunRecord {
        let order = self.record_order();
        // Each run's values are moved out as its entry is built (no list of every run's
        // values first: 10k of them, fresh pages for what is moved again at once). An entry
        // reads no other run's values (`node_run`), and `order` holds every run once. The
        // list has its final length (a node run is 608 bytes).
        let mut nodes = Vec::with_capacity(order.len());
        for &r in &order {
            let held = Held::taken(&mut self.runs[r]);
            nodes.push(self.node_run(r, held));
        }
        let edges = self.edges_in_order(&order);
        let mut taken: Vec<Option<crate::run::record::EdgeTaken>> =
            std::mem::take(&mut self.edges_taken)
                .into_iter()
                .map(Some)
                .collect();
        let mut kept = Vec::with_capacity(edges.len());
        kept.extend(edges.into_iter().filter_map(|i| taken[i].take()));
        let edges = kept;
        self.record_with(harness, nodes, edges)
    }

    /// Run indexes in the record's order (see the module docs).
    fn record_order(&self) -> Vec<RunId> {
        let keys = self.sort_keys();
        let mut order: Vec<RunId> = self.runs.ids().collect();
        order.sort_by(|&a, &b| keys[a.index()].cmp(&keys[b.index()]));
        order
    }

    /// Indexes of the edges taken, each after its source run in the record's `order`.
    fn edges_in_order(&self, order: &[RunId]) -> Vec<usize> {
        let mut rank = vec![0usize; self.runs.len()];
        for (i, &r) in order.iter().enumerate() {
            rank[r.index()] = i;
        }
        let mut keyed: Vec<(usize, usize)> = self
            .edges_taken
            .iter()
            .enumerate()
            .map(|(i, e)| {
                (
                    self.runs
                        .find(&e.from)
                        .map_or(usize::MAX, |r| rank[r.index()]),
                    i,
                )
            })
            .collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|(_, i)| i).collect()
    }

    /// The record around its `nodes` and `edges_taken`, in order.
    fn record_with(
        &self,
        harness: &Harness,
        nodes: Vec<NodeRun>,
        edges_taken: Vec<crate::run::record::EdgeTaken>,
    ) -> RunRecord {
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
            params: redacted(self.params().clone(), self.redacted_params().into_iter()),
            context: self.context().clone(),
            outputs: redacted(
                self.outputs.clone(),
                self.plan
                    .outputs
                    .iter()
                    .map(|o| (o.name.as_str(), o.decl.redact)),
            ),
            usage,
            diagnostics: self.diagnostics.clone(),
            nodes,
            edges_taken,
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

    /// Run `r`'s record entry, its values from `held`. It reads no run's values from the
    /// state ([`State::into_record`] moves each run's out as its entry is built).
    fn node_run(&self, r: RunId, held: Held) -> NodeRun {
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
            skip_reason: held.skip_reason,
            started_at: held.started_at,
            finished_at: held.finished_at,
            inputs: held.inputs.map(|i| {
                redacted(
                    i,
                    node.inputs.iter().map(|d| (d.name.as_str(), d.decl.redact)),
                )
            }),
            outputs: held.outputs.map(|o| {
                redacted(
                    o,
                    node.outputs
                        .iter()
                        .map(|d| (d.name.as_str(), d.decl.redact)),
                )
            }),
            attempts: held.attempts,
            fallback_used: run.ladder.as_ref().and_then(|l| l.fallback_used.clone()),
            escalated: run.escalated,
            human_events: held.human_events,
            decision: held.decision,
            iterations: run.iterations,
            items: run.items,
            usage: held.usage,
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
                if let Some((order, _)) = self.compensation.of_run(RunId::at(r)) {
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
