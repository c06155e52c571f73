//! Edge resolution: a terminal run's outgoing edges (activation by outcome, named outcome
//! and guard, first-match order, failure absorption), then its targets' joins.

use super::RunId;
use super::{State, env};
use crate::run::record::{EdgeTaken, NodeStatus};
use serde_json::Value;
use std::sync::Arc;

impl State {
    /// A terminal run's consequences: its outgoing edges, its scope's bookkeeping.
    pub(super) fn propagate(&mut self, r: RunId) {
        if self.compensation.active() && self.compensation_done(r) {
            return;
        }
        if self.runs[r].status == NodeStatus::Succeeded
            && self.dialect_state.is_some()
            && let Err(msg) = self.absorb_outputs(r)
        {
            // AWP: the state the outputs would make does not fit the state schema.
            self.diag("AGC328", "error", msg, Some(r));
            self.runs[r].status = NodeStatus::Failed;
        }
        if self.counting_forks {
            self.branch_ended(r);
        }
        let plan = Arc::clone(&self.plan);
        let idx = Arc::clone(&self.idx);
        let node = self.runs[r].node;
        let scope = self.runs[r].scope;
        let status = self.runs[r].status;
        let failed = matches!(status, NodeStatus::Failed | NodeStatus::Blocked);
        let mut first_match_taken = false;
        let repeated = self.has_back && self.follow_back_edges(r);
        for &e in &idx.outgoing[node] {
            let edge = &plan.edges[e];
            if edge.kind == crate::plan::EdgeKind::Back || repeated {
                continue;
            }
            let matches = self.edge_matches(r, edge);
            let mut when_result = None;
            let mut active = matches && !(edge.order.is_some() && first_match_taken);
            if let Some((routed, when)) = self.routed(r, edge) {
                // An AWP switch routed when it ran (`switch`).
                active = matches && routed;
                when_result = when;
            } else if active && let Some(g) = &edge.guard {
                match self.eval_bool(
                    scope,
                    g,
                    &env::Anchor {
                        run: Some(r),
                        inputs: None,
                    },
                ) {
                    Ok(b) => {
                        when_result = Some(b);
                        active = b;
                    }
                    Err(err) => {
                        self.expression_failed(
                            Some(r),
                            "an edge guard failed",
                            "counts as false",
                            &err,
                        );
                        when_result = Some(false);
                        active = false;
                    }
                }
            }
            if active && edge.order.is_some() {
                first_match_taken = true;
            }
            if active && failed && edge.outcomes.contains(&crate::plan::Outcome::Failed) {
                self.runs[r].absorbed = true;
            }
            let Some(t) = self.scopes[scope].run_of(&self.pos, idx.node_of[&edge.to]) else {
                continue;
            };
            self.edges_taken.push(EdgeTaken {
                from: self.runs[r].path.clone(),
                to: self.runs[t].path.clone(),
                kind: edge.kind.ags_name().into(),
                active,
                when_result,
                at: self.now.clone(),
            });
            self.note_resolution(scope, e, active);
            let target = &mut self.runs[t];
            target.resolved += 1;
            if active {
                target.active += 1;
            }
            self.join_check(t);
        }
        if failed && !self.runs[r].absorbed {
            self.scopes[scope].failed = true;
        }
        if self.runs[r].degraded {
            self.scopes[scope].degraded = true;
        }
        if failed && !self.runs[r].absorbed && self.halt_on_failure() {
            let path = self.runs[r].path.clone();
            self.halt_policy(path);
            return;
        }
        self.scopes[scope].open -= 1;
        if self.scopes[scope].open == 0 {
            self.scope_done(scope);
        }
    }

    /// Whether `edge` is activated by run `r`'s terminal status and named outcome (before
    /// its guard). Edges with named outcomes (`on`) match the run's decision, else its
    /// `outcome` output, else `completed` / `failed` by status; edges without outcome kinds
    /// match on names alone.
    pub(crate) fn edge_matches(&self, r: RunId, edge: &crate::plan::Edge) -> bool {
        let run = &self.runs[r];
        let succeeded = run.status == NodeStatus::Succeeded;
        let failed = matches!(run.status, NodeStatus::Failed | NodeStatus::Blocked);
        let outcome_ok = if edge.outcomes.is_empty() {
            !edge.on.is_empty() && (succeeded || failed)
        } else {
            (succeeded && edge.outcomes.contains(&crate::plan::Outcome::Succeeded))
                || (failed && edge.outcomes.contains(&crate::plan::Outcome::Failed))
        };
        if !outcome_ok || edge.on.is_empty() {
            return outcome_ok;
        }
        let named = run.decision.as_deref().or_else(|| {
            run.outputs
                .as_ref()
                .and_then(|o| o.get("outcome"))
                .and_then(Value::as_str)
        });
        let by_status = if succeeded { "completed" } else { "failed" };
        // A gate's verdict under agh's names: `pass` is approved, `fail` rejected.
        let verdict = match named {
            Some("approved") => Some("pass"),
            Some("rejected") => Some("fail"),
            _ => None,
        };
        edge.on.iter().any(|o| {
            Some(o.as_str()) == named
                || (verdict.is_some() && Some(o.as_str()) == verdict)
                || (named.is_none() && o == by_status)
        })
    }

    /// Readiness or skipping of `t` after one of its incoming edges resolved.
    pub(super) fn join_check(&mut self, t: RunId) {
        let run = &self.runs[t];
        if run.status != NodeStatus::Pending || run.triggered {
            return;
        }
        let node = &self.plan.nodes[run.node];
        let total = self.idx.incoming[run.node]
            .iter()
            .filter(|&&e| self.plan.edges[e].kind != crate::plan::EdgeKind::Back)
            .count() as u32;
        let (a, res) = (run.active, run.resolved);
        let inactive = res - a;
        let unresolved = total - res;
        // An AWP parallel's synthetic join (`fork/join`) has one edge, from its fork: its
        // `any` / `n_of_m` counts the fork's branches (see `parallel`), not its edges.
        let join = if node.kind == crate::plan::NodeKind::Join && node.fork.is_some() {
            crate::plan::Join::All
        } else {
            node.join
        };
        let (ready, skip) = match join {
            crate::plan::Join::All => (res == total && a == total, inactive > 0),
            crate::plan::Join::Any => (a >= 1, res == total && a == 0),
            crate::plan::Join::NOf { count } => (a >= count, a + unresolved < count),
        };
        if ready {
            self.make_ready(t);
        } else if skip {
            self.runs[t].triggered = true;
            self.runs[t].skip_reason = Some("join_unsatisfied".into());
            self.terminate(t, NodeStatus::Skipped);
        }
    }

    /// `policy.on_node_failure: halt`.
    pub(super) fn halt_on_failure(&self) -> bool {
        self.plan.on_node_failure == crate::plan::OnNodeFailure::Halt
    }

    /// `policy.on_node_failure: halt`: the first unabsorbed failure ends the run (no RT code
    /// applies; the failed node's own record says why).
    pub(super) fn halt_policy(&mut self, _path: String) {
        self.stop();
    }
}
