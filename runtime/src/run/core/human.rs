//! Human checkpoints (AGS `human[]` on a node, `defaults.human` replaced whole) and the
//! failure ladder's human hand-offs (an escalation, a `human_takeover`): asking, waiting,
//! answering, recording.
//!
//! - A checkpoint applies at its stage (`at`) when its `when` holds (evaluated when the stage
//!   is reached; an evaluation error counts as true, RT062 warning: a human check is never
//!   dropped by an error). Several at one stage are asked one after another, in declared
//!   order.
//! - Asking is a call: [`crate::run::Handler::checkpoint`] gets a [`Checkpoint`] (rendered
//!   `prompt`, the outputs under review, ...). It answers approved or rejected now, or
//!   pending. Pending on a `required` checkpoint (the default) puts the node run
//!   `awaiting_human`; the run pauses (exit 4) until a decision names the checkpoint:
//!   `<scope path>.<id>` (`publish.pre_upload`), with `#n` from the second time the same run
//!   asks it (`review.check#1`). `required: false` and no answer: recorded with outcome
//!   `notified` and not waited for. `mode: notify` never blocks: whatever the handler
//!   answers, the event is `notified` and the node goes on.
//! - A handler that fails to answer (an error, a timeout) cannot present the checkpoint:
//!   RT015 (warning) and the checkpoint counts as unanswered (a required one waits for a
//!   decision on resume, so a broken channel never skips a human check).
//! - The id is the checkpoint's `id`, else its stage; a repeated one gets `_<index>`. The
//!   hand-offs are `escalation` and `takeover` (mode `input`, required).
//! - Every answer is one `human_events` entry: `approved`, `rejected`, `edited` (review with
//!   outputs), `provided` (input or a hand-off with outputs) or `notified`. What an answer
//!   does at each stage is the ladder's (`ladder.rs`, `resume_after`).
//! - A question awaiting a decision may time out (`timeout_seconds`, `on_timeout`, the
//!   policy's defaults): `timed_out`, then `on_timeout` at its stage (`human_timeout.rs`).

use super::RunId;
use super::State;
use super::asks::{Ask, Asks, HandOff, Stage, checkpoint_ids};
use super::env::Anchor;
use crate::plan::{Expr, HumanCheckpoint};
use crate::run::event::CallResult;
use crate::run::handler::{Checkpoint, GateOutcome, GateResponse};
use crate::run::record::{HumanEvent, NodeStatus};
use serde_json::{Map, Value};

impl State {
    /// Run `r`'s checkpoint bookkeeping, created on first use.
    pub(crate) fn asks(&mut self, r: RunId) -> &mut Asks {
        self.runs[r].human.get_or_insert_with(Box::default)
    }

    /// The node's declared checkpoints (`human`, defaults merged).
    pub(super) fn declared(&self, r: RunId) -> Option<&[HumanCheckpoint<Expr>]> {
        self.plan.nodes[self.runs[r].node].human.as_deref()
    }

    /// The next declared checkpoint of `stage` from list index `from` whose `when` holds.
    pub(crate) fn next_checkpoint(&mut self, r: RunId, stage: Stage, from: usize) -> Option<usize> {
        let len = self.declared(r)?.len();
        for i in from..len {
            let h = &self.declared(r)?[i];
            if h.at.as_str() != stage.as_str() {
                continue;
            }
            let Some(e) = h.when.clone() else {
                return Some(i);
            };
            if e.core.is_none() {
                self.diag(
                    "RT062",
                    "warning",
                    format!("checkpoint {i}'s `when` has no compiled form; it is asked"),
                    Some(r),
                );
                return Some(i);
            }
            let seen = self.outputs_at(r, stage);
            match self.eval_seeing(r, &e, seen) {
                Ok(Value::Bool(false)) => {}
                Ok(Value::Bool(true)) => return Some(i),
                Ok(other) => {
                    self.diag(
                        "RT062",
                        "warning",
                        format!(
                            "checkpoint `{}`'s `when` is {}, not a boolean; it is asked",
                            self.checkpoint_id(r, i),
                            super::check::kind_name(&other)
                        ),
                        Some(r),
                    );
                    return Some(i);
                }
                Err(err) => {
                    let what = format!("checkpoint `{}`'s `when` failed", self.checkpoint_id(r, i));
                    self.expression_failed(Some(r), &what, "counts as true", &err);
                    return Some(i);
                }
            }
        }
        None
    }

    /// The outputs a stage's expressions see as `self.outputs`.
    fn outputs_at(&self, r: RunId, stage: Stage) -> Option<Map<String, Value>> {
        let l = self.runs[r].ladder.as_ref()?;
        if stage.sees_candidate() {
            l.candidate.as_ref().map(|c| c.outputs.clone())
        } else {
            l.last_outputs.clone()
        }
    }

    /// Evaluates `e` for run `r` with `outputs` (if any) as its `self.outputs`.
    pub(crate) fn eval_seeing(
        &mut self,
        r: RunId,
        e: &Expr,
        outputs: Option<Map<String, Value>>,
    ) -> Result<Value, String> {
        let scope = self.runs[r].scope;
        let saved = match outputs {
            Some(o) => Some(self.runs[r].outputs.replace(o)),
            None => None,
        };
        let anchor = Anchor {
            run: Some(r),
            inputs: self.runs[r].inputs.as_ref(),
        };
        let v = self.eval(scope, e, &anchor);
        if let Some(old) = saved {
            self.runs[r].outputs = old;
        }
        v
    }

    /// Declared checkpoint `i`'s id (see [`checkpoint_ids`]).
    pub(crate) fn checkpoint_id(&self, r: RunId, i: usize) -> String {
        checkpoint_ids(&self.plan.nodes[self.runs[r].node])
            .into_iter()
            .nth(i)
            .unwrap_or_else(|| format!("checkpoint_{i}"))
    }

    /// Asks declared checkpoint `index` (or, `None`, the hand-off of `stage`) for run `r`.
    pub(crate) fn ask(
        &mut self,
        r: RunId,
        stage: Stage,
        index: Option<usize>,
        step: usize,
        hand_off: HandOff,
    ) {
        let (id, mode, required, prompt, roles) = match index {
            Some(i) => {
                let h = self.declared(r).and_then(|l| l.get(i));
                let (mode, required, roles) = h.map_or_else(
                    || ("approve", true, Vec::new()),
                    |h| (h.mode.as_str(), h.required, h.roles.clone()),
                );
                let prompt = match h.and_then(|h| h.prompt.clone()) {
                    Some(e) => {
                        let seen = self.outputs_at(r, stage);
                        match self.eval_seeing(r, &e, seen) {
                            Ok(Value::String(s)) => Some(s),
                            Ok(other) => Some(other.to_string()),
                            Err(err) => {
                                self.expression_failed(
                                    Some(r),
                                    "a checkpoint prompt could not be rendered",
                                    "",
                                    &err,
                                );
                                Some(e.source)
                            }
                        }
                    }
                    None => None,
                };
                (
                    self.checkpoint_id(r, i),
                    mode.to_string(),
                    required,
                    prompt,
                    roles,
                )
            }
            None => (
                match stage {
                    Stage::Takeover => "takeover".to_string(),
                    _ => "escalation".to_string(),
                },
                "input".to_string(),
                true,
                hand_off.prompt,
                hand_off.roles,
            ),
        };
        let attempt = match stage {
            Stage::BeforeStart | Stage::BeforeSideEffects => self.runs[r].attempt + 1,
            _ => self.runs[r].attempt.max(1),
        };
        let path = self.runs[r].path.clone();
        let n = self.asks(r).count(&id);
        let name = if n == 0 {
            format!("{path}.{id}")
        } else {
            format!("{path}.{id}#{n}")
        };
        let outputs = self.outputs_at(r, stage);
        let error = self.runs[r]
            .ladder
            .as_ref()
            .and_then(|l| l.failure.as_ref())
            .filter(|_| !matches!(stage, Stage::BeforeStart | Stage::BeforeSideEffects))
            .map(|e| e.message.clone());
        let cp = Checkpoint {
            id,
            name,
            stage: stage.as_str().into(),
            mode,
            required,
            prompt,
            roles,
            outputs,
            escalate_to: hand_off.escalate_to,
            error,
            include: hand_off.include,
        };
        self.asks(r).ask = Some(Ask {
            cp,
            stage,
            index,
            step,
            attempt,
        });
        self.runs[r].status = NodeStatus::Running;
        self.send(r);
    }

    /// The handler answered run `r`'s question (or failed to).
    pub(crate) fn ask_returned(&mut self, r: RunId, result: CallResult) {
        let id = self.runs[r]
            .human
            .as_ref()
            .and_then(|h| h.ask.as_ref())
            .map(|a| a.cp.id.clone())
            .unwrap_or_default();
        let why = match result {
            CallResult::Gate(resp) => return self.answer(r, resp, true),
            CallResult::Failed(e) => e.to_string(),
            CallResult::TimedOut { seconds } => format!("no answer within {seconds} s"),
            CallResult::Completed(_) => "the handler answered with a task's completion".into(),
        };
        self.diag(
            "RT015",
            "warning",
            format!("checkpoint `{id}` could not be presented: {why}"),
            Some(r),
        );
        self.answer(r, GateResponse::pending(), false)
    }

    /// A decision arrived for run `r`'s awaited question.
    pub(crate) fn checkpoint_decided(&mut self, r: RunId, resp: GateResponse) {
        if resp.outcome.is_none() {
            // Still no answer: keep waiting.
            let name = self.runs[r]
                .human
                .as_ref()
                .and_then(|h| h.ask.as_ref())
                .map(|a| a.cp.name.clone());
            if let Some(name) = name {
                self.waiting.insert(name, r);
            }
            return;
        }
        // Answered in time: its timeout no longer applies.
        self.disarm(r);
        self.runs[r].status = NodeStatus::Running;
        self.answer(r, resp, true);
    }

    /// An answer (or its absence) to run `r`'s question: wait (with its timeout armed), or
    /// record and go on.
    pub(super) fn answer(&mut self, r: RunId, resp: GateResponse, presented: bool) {
        let Some(ask) = self.runs[r].human.as_ref().and_then(|h| h.ask.clone()) else {
            return;
        };
        let notify = ask.cp.mode == "notify";
        let outcome = match (resp.outcome, notify) {
            (_, true) => {
                if presented {
                    self.record_event(r, &ask, "notified", &resp);
                }
                self.asks(r).ask = None;
                return self.resume_after(r, &ask, true, Map::new());
            }
            (None, false) if !ask.cp.required => {
                let resp = GateResponse {
                    note: Some("optional checkpoint: no answer, not waited for".into()),
                    ..resp
                };
                self.record_event(r, &ask, "notified", &resp);
                self.asks(r).ask = None;
                return self.resume_after(r, &ask, true, Map::new());
            }
            (None, false) => {
                self.runs[r].status = NodeStatus::AwaitingHuman;
                self.waiting.insert(ask.cp.name.clone(), r);
                self.arm_checkpoint_timeout(r, &ask);
                return;
            }
            (Some(o), false) => o,
        };
        let approved = outcome == GateOutcome::Approved;
        let recorded = match (approved, resp.outputs.is_empty(), ask.cp.mode.as_str()) {
            (false, _, _) => "rejected",
            (true, true, _) => "approved",
            (true, false, "review") => "edited",
            (true, false, _) => "provided",
        };
        self.record_event(r, &ask, recorded, &resp);
        self.asks(r).ask = None;
        self.resume_after(r, &ask, approved, resp.outputs);
    }

    /// An approved `input` checkpoint's values against its `collect` declarations (type,
    /// `enum`, `schema`; a value without a `default` is required unless `required: false`):
    /// `Some((code, message))` when they do not fit.
    pub(crate) fn collect_misfit(
        &self,
        r: RunId,
        ask: &Ask,
        values: &Map<String, Value>,
    ) -> Option<(&'static str, String)> {
        if ask.cp.mode != "input" {
            return None;
        }
        let collect = &self.declared(r)?.get(ask.index?)?.collect;
        for p in collect {
            let name = &p.name;
            match values.get(name) {
                Some(v) => {
                    if let Err(m) = super::check(v, &p.ty, &p.decl) {
                        let why = if p.decl.redact {
                            format!("the value does not fit `{}` (redacted)", p.ty)
                        } else {
                            m.message
                        };
                        return Some((m.code, format!("collected `{name}`: {why}")));
                    }
                }
                None if p.required && p.default.is_none() => {
                    return Some(("RT033", format!("collected `{name}` is missing")));
                }
                None => {}
            }
        }
        None
    }

    pub(super) fn record_event(&mut self, r: RunId, ask: &Ask, outcome: &str, resp: &GateResponse) {
        let at = Some(self.now.clone());
        self.runs[r].human_events.push(HumanEvent {
            checkpoint_id: Some(ask.cp.id.clone()),
            at_stage: ask.stage.as_str().into(),
            mode: ask.cp.mode.clone(),
            outcome: outcome.into(),
            actor: resp.actor.clone(),
            note: resp.note.clone(),
            at,
        });
    }
}

#[cfg(test)]
#[path = "human_tests.rs"]
mod tests;
