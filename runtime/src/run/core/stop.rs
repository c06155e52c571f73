//! Stopping a run: the wall-clock constraint, a global constraint crossed (RT061), and the
//! stop itself (every open run cancelled, then compensation or the end).

use super::{Command, State};
use crate::run::handler::Usage;
use crate::run::record::{Attempt, AttemptStatus, NodeStatus, RunStatus};
use serde_json::Value;

impl State {
    /// `max_wall_clock_seconds`, checked against event times.
    pub(super) fn check_wall_clock(&mut self) {
        // Compensation is exempt: the run already failed, and its undo must finish.
        if self.is_over() || self.compensation.active() {
            return;
        }
        let Some(limit) = self
            .plan
            .constraints
            .get("max_wall_clock_seconds")
            .and_then(Value::as_f64)
        else {
            return;
        };
        let (Some(start), Ok(now)) = (self.start_ts, self.now.parse::<jiff::Timestamp>()) else {
            return;
        };
        let elapsed = now.duration_since(start).as_secs_f64();
        if elapsed > limit {
            self.halt(format!(
                "the run took {elapsed:.0} s, over max_wall_clock_seconds ({limit})"
            ));
        }
    }

    /// Stops the run as failed with `RT061` (a global constraint): nothing more runs; every
    /// open run is cancelled.
    pub(super) fn halt(&mut self, message: String) {
        self.diag("RT061", "error", message, None);
        self.stop();
    }

    /// Stops the run as failed: every open run is cancelled.
    pub(super) fn stop(&mut self) {
        for run in self.runs.iter_mut() {
            if !run.status.is_terminal() {
                let asking = run.human.as_ref().is_some_and(|h| h.ask.is_some());
                if run.dispatched && !asking {
                    run.attempts.push(Attempt {
                        attempt: run.attempt,
                        status: AttemptStatus::Cancelled,
                        started_at: run
                            .attempt_started
                            .clone()
                            .unwrap_or_else(|| self.now.clone()),
                        finished_at: Some(self.now.clone()),
                        usage: Usage::default(),
                        success: None,
                        error: Some("the run was stopped".into()),
                        node: None,
                    });
                }
                run.dispatched = false;
                run.status = NodeStatus::Cancelled;
                run.finished_at = Some(self.now.clone());
            }
        }
        self.sched.clear();
        self.disarm_all();
        self.status = RunStatus::Failed;
        self.finished_at = Some(self.now.clone());
        self.out.retain(|c| !matches!(c, Command::Call(_)));
        if self.begin_compensation() {
            return;
        }
        self.out.push(Command::Finish {
            status: RunStatus::Failed,
        });
    }
}
