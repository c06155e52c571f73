//! Checking an answer supplied from outside (`agc run --resume D --decide NAME=approved
//! --outputs NAME=JSON`, [`crate::run::resume_answering`]) before it is journaled.
//!
//! A decision's outputs go through the core exactly as a handler's answer does (`human.rs`,
//! `ladder.rs`): at `after_outputs`/`on_criteria_failure` an approved `input` checkpoint's
//! values are checked against its `collect`, then merged over the outputs under review and
//! checked against the node's declared outputs, and a misfit fails the attempt
//! (`validation_error`); at a hand-off (`takeover`, `escalation`) a misfit does not settle the
//! node. A human typing at a terminal deserves better than a failed attempt for a typo, so
//! [`State::check_answer`] predicts those same checks without changing anything, and the local
//! resume refuses such an answer before journaling it (the run stays paused).
//!
//! Decisions:
//! - Outputs for a checkpoint at a stage that takes none (`before_start`,
//!   `before_side_effects`, `on_failure`) and outputs with a rejection are refused: the core
//!   would drop them silently.
//! - A gate's outputs are not checked (a handler's are not either: gates do not check their
//!   `collect` yet); they are merged into the gate's outputs with `decision`.

use super::State;
use super::asks::Stage;
use crate::run::handler::{GateOutcome, GateResponse};
use serde_json::{Map, Value};

impl State {
    /// Whether `response`, decided for `name` (an exact name from
    /// [`State::awaiting_gates`]), passes the checks its outputs would meet in the core:
    /// `Err` says why not. An answer without outputs, or for a gate, always passes.
    pub fn check_answer(&self, name: &str, response: &GateResponse) -> Result<(), String> {
        if response.outputs.is_empty() {
            return Ok(());
        }
        let Some(&r) = self.waiting.get(name) else {
            return Ok(());
        };
        let Some(ask) = self.runs[r].human.as_ref().and_then(|h| h.ask.as_ref()) else {
            return Ok(());
        };
        if response.outcome != Some(GateOutcome::Approved) {
            return Err("outputs go with an approval; a rejection takes none".into());
        }
        let ladder = self.runs[r].ladder.as_ref();
        let base: Map<String, Value> = match ask.stage {
            Stage::AfterOutputs | Stage::OnCriteriaFailure => ladder
                .and_then(|l| l.candidate.as_ref())
                .map(|c| c.outputs.clone())
                .unwrap_or_default(),
            Stage::Takeover | Stage::OnEscalation => ladder
                .and_then(|l| l.last_outputs.clone())
                .unwrap_or_default(),
            other => {
                return Err(format!(
                    "checkpoint `{name}` is asked at `{}`, which takes no outputs (its approval lets the node go on)",
                    other.as_str()
                ));
            }
        };
        if let Some((code, m)) = self.collect_misfit(r, ask, &response.outputs) {
            return Err(format!("{m} ({code})"));
        }
        let mut merged = base;
        merged.extend(response.outputs.clone());
        let kind = self.plan.nodes[self.runs[r].node].kind;
        self.check_outputs(r, &merged, kind)
            .map_err(|(code, m)| format!("{m} ({code})"))
    }
}
