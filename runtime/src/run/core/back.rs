//! Bounded back edges: the cycles other dialects allow (Agent Graph `repeat` edges, AWP loops
//! through a switch), followed at run time up to their bound.
//!
//! Semantics (agc's decisions; AGS itself has no back edges, its cycles are loops):
//! - A back edge `A → B` is active like any edge (outcomes, named outcomes, guard). When it is
//!   active and has been followed fewer times than its bound in this scope instance, it is
//!   followed: every node forward-reachable from `B` in the same scope (the cycle and what
//!   follows it) is re-armed. A node that already ran (or was skipped) gets a new run whose
//!   scope path carries its pass, `review#1` for the second pass (0-based like loop indices;
//!   the first pass is plain `review`); a node that was never reached keeps its run and
//!   forgets the resolutions of edges from re-armed nodes. `B` becomes ready at once; the
//!   others wait for their joins again (edges from nodes outside the cycle keep their last
//!   resolution). When `A` is itself re-armed (a true cycle), its forward edges are not
//!   resolved on that pass: the pass is redone; when it is not (an edge back to a node `A`
//!   does not descend from), they resolve as usual.
//! - A back edge without a bound is followed at most [`DEFAULT_BOUND`] times per scope
//!   instance; the run record says so at the start (AGC305, a warning).
//! - At the bound the edge is recorded as not taken, the record gets AGC306 (a warning) and
//!   `A`'s forward edges resolve as usual: the run goes on with what `A` produced.
//! - `nodes.<id>` reads the latest pass of a node.
//! - In the run record a followed back edge is an `edges_taken` entry of kind `conditional`
//!   (AGS has no back kind) whose `to` is the target's new pass.

use super::RunId;
use super::passes::DEFAULT_BOUND;
use super::{Run, State};
use crate::plan::EdgeKind;
use crate::run::record::{EdgeTaken, NodeStatus};

/// How a back edge appears in the run record's `edges_taken`: AGS knows no back edges, and a
/// back edge is taken on a condition (its outcomes and guard), so `conditional`; its `to` is
/// the target's new pass (`build#1`), which tells it apart.
const RECORD_KIND: &str = "conditional";

impl State {
    /// AGC305 for every back edge without a bound (at the start of the run).
    pub(super) fn note_unbounded_back_edges(&mut self) {
        let plan = std::sync::Arc::clone(&self.plan);
        for e in &plan.edges {
            if e.kind == EdgeKind::Back && e.bound.is_none() {
                self.diag(
                    "AGC305",
                    "warning",
                    format!(
                        "back edge `{}` → `{}` has no bound; it is followed at most {DEFAULT_BOUND} times per scope instance",
                        e.from, e.to
                    ),
                    None,
                );
            }
        }
    }

    /// Records the resolution of forward edge `e` in `scope` (plans with back edges only).
    pub(super) fn note_resolution(&mut self, scope: usize, e: usize, active: bool) {
        if self.has_back {
            self.scopes[scope]
                .passes
                .get_or_insert_with(Box::default)
                .resolved
                .insert(e, active);
        }
    }

    /// Follows the first active back edge leaving run `r`, if its bound allows. Returns
    /// whether one was followed (then `r`'s forward edges do not resolve).
    pub(super) fn follow_back_edges(&mut self, r: RunId) -> bool {
        let plan = std::sync::Arc::clone(&self.plan);
        let idx = std::sync::Arc::clone(&self.idx);
        let node = self.runs[r].node;
        let scope = self.runs[r].scope;
        let status = self.runs[r].status;
        for &e in &idx.outgoing[node] {
            let edge = &plan.edges[e];
            if edge.kind != EdgeKind::Back {
                continue;
            }
            let mut active = self.edge_matches(r, edge);
            let mut when_result = None;
            if let Some((routed, when)) = self.routed(r, edge) {
                // An AWP switch routed when it ran (`switch`).
                active = active && routed;
                when_result = when;
            } else if active && let Some(g) = &edge.guard {
                let anchor = super::env::Anchor {
                    run: Some(r),
                    inputs: None,
                };
                match self.eval_bool(scope, g, &anchor) {
                    Ok(b) => {
                        when_result = Some(b);
                        active = b;
                    }
                    Err(err) => {
                        self.diag(
                            "RT062",
                            "warning",
                            format!("a back edge's guard failed and counts as false: {err}"),
                            Some(r),
                        );
                        when_result = Some(false);
                        active = false;
                    }
                }
            }
            if !active || self.earlier_branch_matches(r, edge.order) {
                continue;
            }
            let bound = edge.bound.unwrap_or(DEFAULT_BOUND);
            let followed = self.scopes[scope]
                .passes
                .as_ref()
                .and_then(|p| p.followed.get(&e).copied())
                .unwrap_or(0);
            let Some(target) = idx.node_of.get(&edge.to).copied() else {
                continue;
            };
            let to_path = self.scopes[scope]
                .run_of(&self.pos, target)
                .map(|t| self.runs[t].path.clone())
                .unwrap_or_default();
            if followed >= bound {
                self.edges_taken.push(EdgeTaken {
                    from: self.runs[r].path.clone(),
                    to: to_path,
                    kind: RECORD_KIND.into(),
                    active: false,
                    when_result,
                    at: self.now.clone(),
                });
                self.diag(
                    "AGC306",
                    "warning",
                    format!(
                        "back edge `{}` → `{}` reached its bound ({bound}) and is not followed again",
                        edge.from, edge.to
                    ),
                    Some(r),
                );
                continue;
            }
            if matches!(status, NodeStatus::Failed | NodeStatus::Blocked) {
                self.runs[r].absorbed = true;
            }
            self.scopes[scope]
                .passes
                .get_or_insert_with(Box::default)
                .followed
                .insert(e, followed + 1);
            let cycle = self.rearm(scope, target, node);
            // The edge leads to the target's new pass.
            let to_path = self.scopes[scope]
                .run_of(&self.pos, target)
                .map(|t| self.runs[t].path.clone())
                .unwrap_or(to_path);
            self.edges_taken.push(EdgeTaken {
                from: self.runs[r].path.clone(),
                to: to_path,
                kind: RECORD_KIND.into(),
                active: true,
                when_result,
                at: self.now.clone(),
            });
            // Only when the source is part of what re-runs is its pass redone; an edge back
            // to a node the source does not descend from leaves the source's edges as usual.
            return cycle;
        }
        false
    }

    /// First-match order across back and forward edges (an AWP switch whose case loops back):
    /// whether a forward edge of `r` with a lower `order` than `order` is active.
    fn earlier_branch_matches(&self, r: RunId, order: Option<u32>) -> bool {
        let Some(k) = order else {
            return false;
        };
        if let Some(route) = self.runs[r].route {
            return route < k;
        }
        let scope = self.runs[r].scope;
        self.idx.outgoing[self.runs[r].node].iter().any(|&e| {
            let edge = &self.plan.edges[e];
            edge.kind != EdgeKind::Back
                && edge.order.is_some_and(|o| o < k)
                && self.edge_matches(r, edge)
                && edge.guard.as_ref().is_none_or(|g| {
                    let anchor = super::env::Anchor {
                        run: Some(r),
                        inputs: None,
                    };
                    self.eval_bool(scope, g, &anchor).unwrap_or(false)
                })
        })
    }

    /// Re-arms `target` and every node forward-reachable from it in `scope`. Returns whether
    /// `source` (the back edge's source) is among them.
    fn rearm(&mut self, scope: usize, target: usize, source: usize) -> bool {
        let plan = std::sync::Arc::clone(&self.plan);
        let idx = std::sync::Arc::clone(&self.idx);
        let kind = self.scopes[scope].kind;
        // The cycle: forward-reachable from the target, in scope-node (plan) order.
        let mut inside = vec![false; idx.scope_nodes[kind].len()];
        let mut stack = vec![target];
        inside[self.pos[target]] = true;
        while let Some(n) = stack.pop() {
            for &e in &idx.outgoing[n] {
                let edge = &plan.edges[e];
                if edge.kind == EdgeKind::Back {
                    continue;
                }
                if let Some(&m) = idx.node_of.get(&edge.to)
                    && idx.node_scope[m] == kind
                    && !inside[self.pos[m]]
                {
                    inside[self.pos[m]] = true;
                    stack.push(m);
                }
            }
        }
        let nodes: Vec<usize> = idx.scope_nodes[kind]
            .iter()
            .copied()
            .filter(|&n| inside[self.pos[n]])
            .collect();
        // Resolutions of edges leaving the cycle's nodes are forgotten: they resolve again.
        if let Some(p) = self.scopes[scope].passes.as_mut() {
            p.resolved.retain(|&e, _| {
                idx.node_of
                    .get(&plan.edges[e].from)
                    .is_none_or(|&m| idx.node_scope[m] != kind || !inside[self.pos[m]])
            });
        }
        let mut rearmed = Vec::with_capacity(nodes.len());
        for &n in &nodes {
            let Some(cur) = self.scopes[scope].run_of(&self.pos, n) else {
                continue;
            };
            let run = &self.runs[cur];
            let r = if run.status == NodeStatus::Pending && !run.triggered {
                cur
            } else if run.status.is_terminal() {
                self.new_pass(scope, cur)
            } else {
                // Still ready or running from the previous pass: it finishes there and its
                // edges feed the new pass.
                continue;
            };
            // Edges from outside the cycle keep their last resolution.
            let (mut resolved, mut active) = (0, 0);
            let passes = self.scopes[scope].passes.as_deref();
            for &e in &idx.incoming[n] {
                if plan.edges[e].kind == EdgeKind::Back {
                    continue;
                }
                if let Some(&a) = passes.and_then(|p| p.resolved.get(&e)) {
                    resolved += 1;
                    active += u32::from(a);
                }
            }
            self.runs[r].resolved = resolved;
            self.runs[r].active = active;
            rearmed.push((n, r));
        }
        for (n, r) in rearmed {
            if n == target {
                self.make_ready(r);
            } else {
                self.join_check(r);
            }
        }
        idx.node_scope[source] == kind && inside[self.pos[source]]
    }

    /// A fresh run of the node of terminal run `cur`, its next pass.
    fn new_pass(&mut self, scope: usize, cur: RunId) -> RunId {
        let old = &self.runs[cur];
        let pass = old.pass + 1;
        let node = old.node;
        let path = format!(
            "{}{}#{pass}",
            self.scopes[scope].prefix, self.plan.nodes[node].local_id
        );
        let mut run = Run::pending(node, scope, path);
        run.pass = pass;
        let r = self.runs.add(run);
        self.scopes[scope].open += 1;
        self.scopes[scope]
            .passes
            .get_or_insert_with(Box::default)
            .latest
            .insert(node, r);
        r
    }
}

#[cfg(test)]
#[path = "back_tests.rs"]
mod tests;
