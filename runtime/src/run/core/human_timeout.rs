//! Timeouts of human checkpoints (AGS `human[].timeout_seconds` and `on_timeout`) and of the
//! failure ladder's hand-offs.
//!
//! When a required checkpoint's question goes unanswered (the node run is `awaiting_human`),
//! its timeout is armed: the checkpoint's `timeout_seconds` (else
//! `policy.default_human_timeout_seconds`) and `on_timeout` (else `policy.on_human_timeout`,
//! default `hold`). The hand-offs (`escalation`, `takeover`) declare neither, so the policy's
//! apply. `hold`, or no time at all, arms nothing: the checkpoint waits for ever. An answer
//! before the timer fires cancels it. When it fires first, the checkpoint gets a human event
//! with outcome `timed_out` (its `checkpoint_id`, stage and mode, and a note saying what
//! applied), and then:
//!
//! - `approve`: the checkpoint's own answer path, with an approval and no outputs, as if the
//!   human had approved at that stage: the node starts, the attempt's call is made, the
//!   outputs under review stand, the failed criteria are overruled, the ladder goes on, the
//!   last call's outputs settle the hand-off if they fit. (An `input` checkpoint whose
//!   `collect` requires values gets none: it fails as such an approval would.)
//! - `fail`: a rejection at that stage, except that where the attempt's outputs are under
//!   review (`after_outputs`, `on_criteria_failure`) the attempt fails with class `timeout`
//!   (attempt status `timeout`), so `retry_on: [timeout]` and `timeout_action` govern it as
//!   for a gate. So: `before_start` and `before_side_effects`: the node fails without making
//!   that attempt (a veto; no ladder); `on_failure` and `on_escalation`: `on_exhausted`;
//!   a `takeover`: the next fallback step.
//! - `escalate`: the node goes to its escalation (marked escalated; forced, so a node
//!   without an `escalation` block escalates to a human), skipping whatever of the ladder
//!   lies before it; an attempt under review is closed `timeout` first. At `on_escalation`
//!   (and at the escalation's hand-off) the escalation has happened already: `on_exhausted`.
//!
//! The timer is one of the run's human timeouts (`timers`): it does not keep a paused run
//! running, and on a paused run it applies when it fires (or, locally, on `--resume`).

use super::RunId;
use super::State;
use super::asks::{Ask, Stage};
use super::timer_set::{HumanWait, OnTimeout};
use crate::run::handler::{FailureClass, GateOutcome, GateResponse, HandlerError};
use crate::run::record::{AttemptStatus, NodeStatus};
use serde_json::Map;

impl State {
    /// Run `r` awaits a human's answer to `ask`: arms its timeout, if it has one.
    pub(super) fn arm_checkpoint_timeout(&mut self, r: RunId, ask: &Ask) {
        let own = ask
            .index
            .and_then(|i| self.declared(r).and_then(|l| l.get(i)));
        let (seconds, on) = own.map_or((None, None), |c| (c.timeout_seconds, c.on_timeout));
        let Some((seconds, on_timeout)) = self.timeout_or_policy(seconds, on) else {
            return;
        };
        let wait = HumanWait {
            stage: ask.stage.as_str().into(),
            mode: ask.cp.mode.clone(),
        };
        self.arm_human_timeout(r, wait, seconds, on_timeout);
    }

    /// Run `r`'s awaited question got no answer within `seconds`: `on` applies (see the
    /// module docs). `note` goes on the `timed_out` event.
    pub(super) fn checkpoint_timed_out(
        &mut self,
        r: RunId,
        on: OnTimeout,
        seconds: f64,
        note: String,
    ) {
        let Some(ask) = self.runs[r].human.as_ref().and_then(|h| h.ask.clone()) else {
            return;
        };
        if on == OnTimeout::Hold {
            // Never armed: `hold` waits for ever.
            return;
        }
        // Nobody can decide it any more.
        self.waiting.remove(&ask.cp.name);
        self.runs[r].status = NodeStatus::Running;
        let resp = GateResponse {
            outcome: Some(GateOutcome::Approved),
            outputs: Map::new(),
            actor: None,
            note: Some(note),
        };
        if on == OnTimeout::Approve {
            // The checkpoint's own answer path; then its event says whose answer it was.
            let event = self.runs[r].human_events.len();
            self.answer(r, resp, true);
            if let Some(ev) = self.runs[r].human_events.get_mut(event) {
                ev.outcome = "timed_out".into();
            }
            return;
        }
        self.record_event(r, &ask, "timed_out", &resp);
        self.asks(r).ask = None;
        let mut err = HandlerError::new(
            FailureClass::Timeout,
            format!(
                "no human answer at checkpoint `{}` within {seconds} s",
                ask.cp.id
            ),
        );
        let reviewing = matches!(ask.stage, Stage::AfterOutputs | Stage::OnCriteriaFailure);
        if reviewing {
            err.usage = self
                .ladder(r)
                .candidate
                .take()
                .map(|c| c.usage)
                .unwrap_or_default();
        }
        match (on, reviewing) {
            (OnTimeout::Fail, true) => self.attempt_failed(r, err, AttemptStatus::Timeout),
            (OnTimeout::Fail, false) => self.resume_after(r, &ask, false, Map::new()),
            (_, _) => {
                if reviewing {
                    let usage = err.usage.clone();
                    self.close_attempt(r, AttemptStatus::Timeout, &usage, Some(err.to_string()));
                }
                // The failure being handled: the timeout, unless an attempt's failure is.
                if matches!(
                    ask.stage,
                    Stage::BeforeStart
                        | Stage::BeforeSideEffects
                        | Stage::AfterOutputs
                        | Stage::OnCriteriaFailure
                ) {
                    self.ladder(r).failure = Some(err);
                }
                self.escalate(r, true);
            }
        }
    }
}

#[cfg(test)]
#[path = "human_timeout_tests.rs"]
mod tests;
