//! AWP `parallel` joins that need only some branches: `any` and `n_of_m`.
//!
//! A fork owning a parallel region runs its branches as one scope instance; the fork's join
//! (the synthetic `fork/join` node after it) says how many branches must succeed.
//!
//! Decisions:
//! - A branch has succeeded when one of the region's tails (a node with no outgoing edge
//!   inside the region: the branch's last node, whose edge to the join target is the
//!   region's end) succeeds.
//! - `any` needs one branch, `n_of_m` needs `n`. Once that many have succeeded, every run of
//!   the region still open is cancelled (`skip_reason: parallel_join_met`; a call in flight
//!   gets a `cancelled` attempt and its answer is ignored; a pending timer is cancelled),
//!   and the fork succeeds as soon as the cancellations are through.
//! - Under `any` and `n_of_m` a failed branch does not fail the fork by itself: the fork
//!   fails when every branch has ended and fewer than `n` succeeded (AWP's
//!   `parallel_join_failed`).
//! - `all` is unchanged: every branch runs, and an unabsorbed failure fails the fork.

use super::RunId;
use super::State;
use crate::plan::{Join, NodeKind};
use crate::run::handler::Usage;
use crate::run::record::{Attempt, AttemptStatus, NodeStatus};

impl State {
    /// How many branches fork `r`'s join needs (`None`: all of them, or not a parallel fork).
    pub(super) fn branches_needed(&self, r: RunId) -> Option<usize> {
        let node = self.runs[r].node;
        if self.plan.nodes[node].kind != NodeKind::Fork {
            return None;
        }
        self.idx.outgoing[node].iter().find_map(|&e| {
            let to = self.idx.node_of.get(&self.plan.edges[e].to)?;
            let join = &self.plan.nodes[*to];
            match (join.kind, &join.join) {
                (NodeKind::Join, Join::Any) => Some(1),
                (NodeKind::Join, Join::NOf { count }) => Some(*count as usize),
                _ => None,
            }
        })
    }

    /// Run `r` reached a terminal status: when it is the tail of a branch of a fork that
    /// needs only some branches, counts it, and cancels the rest once enough succeeded.
    pub(super) fn branch_ended(&mut self, r: RunId) {
        let run = &self.runs[r];
        if run.status != NodeStatus::Succeeded || !self.idx.outgoing[run.node].is_empty() {
            return;
        }
        let s = run.scope;
        let Some(fork) = self.scopes[s].owner else {
            return;
        };
        let Some(needed) = self.branches_needed(fork) else {
            return;
        };
        let Some(c) = self.runs[fork].container.as_mut() else {
            return;
        };
        c.succeeded += 1;
        if c.succeeded != needed {
            return;
        }
        let now = self.now.clone();
        for x in self.scope_runs(s) {
            let run = &mut self.runs[x];
            if run.status.is_terminal() {
                continue;
            }
            if run.dispatched {
                run.dispatched = false;
                run.attempts.push(Attempt {
                    attempt: run.attempt,
                    status: AttemptStatus::Cancelled,
                    started_at: run.attempt_started.clone().unwrap_or_else(|| now.clone()),
                    finished_at: Some(now.clone()),
                    usage: Usage::default(),
                    success: None,
                    error: Some("the parallel join was met".into()),
                    node: None,
                });
                self.sched.release_slot();
            }
            self.runs[x].skip_reason = Some("parallel_join_met".into());
            self.terminate(x, NodeStatus::Cancelled);
        }
    }

    /// Whether fork `r`'s parallel instance failed: by the count of succeeded branches when
    /// its join needs only some, else by an unabsorbed failure inside.
    pub(super) fn parallel_failed(&self, r: RunId, s: usize) -> bool {
        match self.branches_needed(r) {
            Some(needed) => self.runs[r]
                .container
                .as_ref()
                .is_none_or(|c| c.succeeded < needed),
            None => self.scopes[s].failed,
        }
    }
}

#[cfg(test)]
#[path = "parallel_tests.rs"]
mod tests;
