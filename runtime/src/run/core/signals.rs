//! AWP's outside inputs: signal waits and interrupts, run as AWP runs them (issue #11).
//!
//! - **Signal waits** (`wait` with `config.kind: signal`, the name in `config.signal`). The
//!   wait asks its handler for the signal ([`crate::run::Handler::signal`]; the call counts
//!   toward concurrency and `max_node_executions` like a gate's). The handler delivers it now
//!   (approved, the payload in `outputs`) or answers pending: the node run is
//!   `awaiting_human` (upstream `awaiting_signal`) and the run pauses (exit 4) until a
//!   decision names the wait by its scope path (as a gate; two branches may await the same
//!   signal, a path is unique). The record names the signal on the node run (`x-signal`).
//!   - The payload's keys are merged into the workflow state **through the reducers**
//!     (`append`, `merge`, `overwrite`), as the node's outputs (`dialects::absorb_outputs`).
//!   - Each key the state schema declares must fit its declaration (type, `enum`, schema);
//!     one that does not fails the wait (AGC325, upstream `SIGNAL_VALIDATION_ERROR`; no
//!     retry: AWP ignores `retry` on waits). Keys the state schema does not declare are
//!     merged as they are (a state schema without `additionalProperties: false` allows them).
//!   - A rejected decision fails the wait (AWP has no refusal; agc's: the signal was refused).
//!   - Every delivery is a `human_events` entry at stage `signal`, mode `input`: `provided`
//!     (a payload), `approved` (an empty one) or `rejected`.
//! - **Interrupts** (lowered to a `Gate` with its `resume_schema`). The resume payload
//!   (the decision's `outputs`) is checked against `config.resume_schema` as a whole; one
//!   that does not fit fails the node (AGC326, upstream `INVALID_RESUME_PAYLOAD`,
//!   `resume_validation_failed`). It becomes the node's output as it is (no `decision` key,
//!   unlike an AGS gate; the outcome is the run's `decision`) and is merged into the state by
//!   **plain shallow overwrite**: reducers are not applied (`resume_overwrites`). A rejected
//!   interrupt fails the node (AGS `on_reject: fail`; AWP has no refusal). The interrupt's
//!   `config.timeout` is not enforced (as upstream). The human event is at stage `interrupt`.

use super::RunId;
use super::State;
use crate::plan::{Declared, StateModel};
use crate::run::handler::{GateOutcome, GateResponse, Usage};
use crate::run::record::{AttemptStatus, HumanEvent, NodeStatus};
use serde_json::{Map, Value};

impl State {
    /// The signal run `r` waits for, when its node is an AWP signal wait.
    pub(crate) fn signal_of(&self, r: RunId) -> Option<&str> {
        let node = &self.plan.nodes[self.runs[r].node];
        if node.kind != crate::plan::NodeKind::Wait {
            return None;
        }
        node.signal()
    }

    /// Run `r` is an AWP interrupt (its resume payload overwrites the state).
    pub(crate) fn resume_overwrites(&self, r: RunId) -> bool {
        let node = &self.plan.nodes[self.runs[r].node];
        matches!(self.plan.semantics.state, StateModel::Workflow { .. })
            && node.kind == crate::plan::NodeKind::Gate
            && node.origin_kind == "interrupt"
    }

    /// Run `r` takes an outside input: a signal wait or an interrupt.
    pub(super) fn takes_outside_input(&self, r: RunId) -> bool {
        self.signal_of(r).is_some() || self.resume_overwrites(r)
    }

    /// A signal wait or an interrupt (`takes_outside_input`) got its answer (from the
    /// handler or a decision).
    pub(super) fn outside_input_answered(
        &mut self,
        r: RunId,
        outcome: GateOutcome,
        resp: GateResponse,
    ) {
        let stage = match self.signal_of(r) {
            Some(name) => Stage::Signal(name.to_string()),
            None => Stage::Interrupt,
        };
        if self.runs[r].status == NodeStatus::AwaitingHuman {
            self.close_attempt(r, AttemptStatus::Succeeded, &Usage::default(), None);
        }
        let payload = resp.outputs;
        let result = match outcome {
            GateOutcome::Rejected => Err(None),
            GateOutcome::Approved => match &stage {
                Stage::Signal(name) => self.check_signal(name, &payload).map_err(Some),
                Stage::Interrupt => self.check_resume(r, &payload).map_err(Some),
            },
        };
        let human = HumanEvent {
            checkpoint_id: None,
            at_stage: stage.as_str().into(),
            mode: "input".into(),
            outcome: match (outcome, payload.is_empty()) {
                (GateOutcome::Rejected, _) => "rejected",
                (GateOutcome::Approved, true) => "approved",
                (GateOutcome::Approved, false) => "provided",
            }
            .into(),
            actor: resp.actor,
            note: resp.note,
            at: Some(self.now.clone()),
        };
        let run = &mut self.runs[r];
        run.human_events.push(human);
        if matches!(stage, Stage::Interrupt) {
            // A gate's outcome; a signal wait is no decision (its event says it all).
            run.decision = Some(outcome.as_str().into());
        }
        match result {
            Ok(()) => {
                run.outputs = Some(payload);
                self.terminate(r, NodeStatus::Succeeded);
            }
            Err(why) => {
                let message = match (&stage, why) {
                    (_, Some((code, m))) => {
                        self.diag(code, "error", m.clone(), Some(r));
                        m
                    }
                    (Stage::Signal(name), None) => format!("the signal `{name}` was refused"),
                    (Stage::Interrupt, None) => "the interrupt was rejected".to_string(),
                };
                // The answer's attempt is the one recorded above: mark it failed.
                if let Some(a) = self.runs[r].attempts.last_mut() {
                    a.status = AttemptStatus::Failed;
                    a.error = Some(message);
                }
                self.terminate(r, NodeStatus::Failed);
            }
        }
    }

    /// A signal's payload against the state's declarations (AGC325).
    fn check_signal(
        &self,
        name: &str,
        payload: &Map<String, Value>,
    ) -> Result<(), (&'static str, String)> {
        for (k, v) in payload {
            let Some(p) = self.plan.params.iter().find(|p| &p.name == k) else {
                continue;
            };
            if let Err(m) = super::check(v, &p.ty, &p.decl) {
                let message = if p.decl.redact {
                    format!("the value does not fit `{}` (redacted)", p.ty)
                } else {
                    m.message
                };
                return Err((
                    "AGC325",
                    format!(
                        "the signal `{name}`'s payload does not fit the workflow state: `{k}`: {message} ({})",
                        m.code
                    ),
                ));
            }
        }
        Ok(())
    }

    /// An interrupt's resume payload against its `resume_schema` (AGC326).
    fn check_resume(
        &self,
        r: RunId,
        payload: &Map<String, Value>,
    ) -> Result<(), (&'static str, String)> {
        let node = &self.plan.nodes[self.runs[r].node];
        let Some(schema) = &node.resume_schema else {
            return Ok(());
        };
        let decl = Declared {
            schema: Some(Value::clone(schema)),
            ..Declared::default()
        };
        super::check(&Value::Object(payload.clone()), "object", &decl).map_err(|m| {
            (
                "AGC326",
                format!(
                    "the resume payload does not fit the interrupt's `resume_schema`: {} ({})",
                    m.message, m.code
                ),
            )
        })
    }
}

/// Where an outside input arrives.
enum Stage {
    Signal(String),
    Interrupt,
}

impl Stage {
    fn as_str(&self) -> &'static str {
        match self {
            Stage::Signal(_) => "signal",
            Stage::Interrupt => "interrupt",
        }
    }
}

#[cfg(test)]
#[path = "signals_tests.rs"]
mod tests;
