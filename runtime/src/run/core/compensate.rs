//! Compensation (AGS §17 FINALIZE): undoing what succeeded when the run fails.
//!
//! Decisions:
//! - When the run ends `failed` (a failure nothing absorbed, `policy.on_node_failure:
//!   halt`, a constraint crossed: RT061), every node run that succeeded and whose node sets
//!   `failure.compensation: <node>` is compensated: the compensation node's call runs once
//!   for it, one at a time, in reverse completion order. A run that succeeded degraded
//!   (`on_exhausted: succeed_degraded`) did not complete its work and is not compensated.
//!   Runs that end `succeeded` or `partial` compensate nothing.
//! - The compensation call's inputs resolve in the scope instance of the run it
//!   compensates: `nodes.<id>` reads that run and its siblings, a map item's body sees its
//!   item, a loop body its iteration.
//! - In the record, a compensation is a node run of the compensation node with scope path
//!   `compensate.<compensated path>` and `x-compensates: <compensated path>`, listed after
//!   every other node run, in the order they ran. The compensation node's own run in its
//!   scope (no incoming edges, not an entrypoint) is skipped with reason `compensation`: it
//!   never runs otherwise. Scripts address a compensation by the compensation node's id,
//!   or one of them as `compensate/<compensated path>`.
//! - Compensation calls take the failure ladder like any call (retries, backoff,
//!   `on_exhausted`) and count in `node_executions` and usage, but are exempt from
//!   `max_node_executions`, `max_cost_usd` and `max_wall_clock_seconds`: an undo must not be
//!   refused because the run that needs it ran out of budget.
//! - A compensation that fails (or cannot start: an input that does not resolve, a node
//!   kind that makes no call) is reported (AGC315, a warning) and the remaining
//!   compensations still run, undoing as much as possible. The run stays `failed`.

use super::RunId;
use super::{Command, Run, State};
use crate::plan::NodeKind;
use crate::run::record::{NodeStatus, RunStatus};

impl State {
    /// Why a node that nothing reaches is skipped: `compensation` for compensation nodes
    /// (they run only to compensate), else `unreachable`.
    pub(super) fn unreachable_reason(&self, node: usize) -> &'static str {
        if self.compensation.is_target(node) {
            "compensation"
        } else {
            "unreachable"
        }
    }

    /// Run `r` succeeded: remembered when its node has a compensation.
    pub(super) fn note_success(&mut self, r: RunId) {
        let run = &self.runs[r];
        if !run.degraded {
            self.compensation.succeeded(r, run.node);
        }
    }

    /// The run ends `failed`: starts compensating, if anything needs it. Returns false when
    /// nothing does (the caller finishes the run).
    pub(super) fn begin_compensation(&mut self) -> bool {
        if !self.compensation.begin() {
            return false;
        }
        self.status = RunStatus::Running;
        self.finished_at = None;
        self.next_compensation();
        true
    }

    /// Starts the next compensation, or ends the run when none is left.
    fn next_compensation(&mut self) {
        while let Some((c, node)) = self.compensation.next() {
            let kind = self.plan.nodes[node].kind;
            let path = format!("compensate.{}", self.runs[c].path);
            if !matches!(
                kind,
                NodeKind::Task | NodeKind::Decision | NodeKind::Gate | NodeKind::External
            ) {
                let msg = format!(
                    "`{}` cannot compensate `{}`: a {} node makes no call",
                    self.plan.nodes[node].id,
                    self.runs[c].path,
                    kind.as_str()
                );
                self.diag("AGC315", "warning", msg, None);
                continue;
            }
            let mut run = Run::pending(node, self.runs[c].scope, path);
            run.triggered = true;
            let r = self.runs.add(run);
            self.compensation.started(r, c);
            self.launch(r);
            return;
        }
        self.compensation.end();
        self.status = RunStatus::Failed;
        self.finished_at = Some(self.now.clone());
        self.out.push(Command::Finish {
            status: RunStatus::Failed,
        });
    }

    /// Compensation run `r` ended (it has no edges to resolve): reports a failure, goes on.
    /// Returns false when `r` is not a compensation run.
    pub(super) fn compensation_done(&mut self, r: RunId) -> bool {
        if !self.compensation.active() {
            return false;
        }
        let Some((_, c)) = self.compensation.of_run(r) else {
            return false;
        };
        let status = self.runs[r].status;
        if status != NodeStatus::Succeeded {
            let msg = format!(
                "the compensation of `{}` ended {}; the run stays failed and the other compensations still run",
                self.runs[c].path,
                status.as_str()
            );
            self.diag("AGC315", "warning", msg, Some(r));
        }
        self.next_compensation();
        true
    }

    /// While compensating: the run pauses when the compensation in progress awaits a human.
    pub(super) fn compensation_paused(&self) -> bool {
        self.compensation
            .current()
            .is_some_and(|r| self.runs[r].status == NodeStatus::AwaitingHuman)
    }
}

#[cfg(test)]
#[path = "compensate_tests.rs"]
mod tests;
