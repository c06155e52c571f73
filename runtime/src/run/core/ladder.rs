//! A node's way from a call's result to its terminal status: the output review
//! (`after_outputs` checkpoints), the success criteria, and the failure ladder (AGS §17:
//! `attempt → retry(max_attempts) → fallback[0..n] → escalation → on_exhausted`), with the
//! checkpoints of the failure stages in between.
//!
//! Completed call: outputs checked against the declarations → `after_outputs` checkpoints
//! (approved goes on, `review`/`input` answers' outputs are merged in and checked again;
//! rejected fails the attempt as `criteria_failed`) → criteria → passed: succeeded; failed:
//! `on_criteria_failure` checkpoints (approved accepts the outputs as they are, a human
//! overruling the criteria; rejected asks the next one) → the attempt fails.
//!
//! Failed attempt: `on_failure` checkpoints (approved: the ladder goes on; rejected: straight
//! to `on_exhausted`) → retry (`launch.rs`, `retry_or_ladder`) → the fallback steps in order,
//! each with its `when` evaluated when reached (false or an error skips it):
//! - `alternate_node`: the named node of the same scope makes its call (its inputs, its
//!   handler entry) as the next attempt of this run (`x-node` on the attempt); its outputs
//!   are checked against this node's declarations and criteria and become this node's
//!   (`fallback_used: alternate_node`). The alternate node's own run is untouched: it runs
//!   only if reachable, as any node. A node that makes no call of its own (a loop, map,
//!   subgraph or gate), an unknown one, or inputs that cannot be resolved skip the step
//!   (AGC308). A failed alternate call is not retried: the next step follows.
//! - `degrade_outputs`: the last completed call's outputs named in `outputs`, each present
//!   and fitting its declaration, become the node's outputs: succeeded, degraded (RT042; the
//!   run ends `partial` at best). Otherwise the step does not apply.
//! - `relax_criteria`: the last completed call's outputs (if they fit their declarations) are
//!   judged again with the named criteria advisory; passing succeeds.
//! - `human_takeover`: the hand-off `takeover` is asked; approved with outputs that, merged
//!   over the last call's outputs, fit the declarations: succeeded. Otherwise the next step.
//! - `skip`: the node is skipped (`skip_reason: fallback`).
//!
//! Escalation and `on_exhausted`: see `escalation`.
//!
//! `timeout_action` for an attempt that timed out: `fail` (the default: an ordinary failure
//! of class `timeout`, retried only when `retry_on` lists it), `retry` (retried whatever
//! `retry_on` says, within `max_attempts`), `escalate` (straight to the escalation, as if
//! `on_exhausted: escalate`), `partial` (succeeded degraded, RT042).
//!
//! A rejection at `before_start` or `before_side_effects` is a human veto: the node does not
//! run (or does not make that attempt) and ends `failed`, without the ladder.

use super::RunId;
use super::State;
use super::asks::{Ask, HandOff, Stage};
use super::ladder_state::{Candidate, Ladder, Phase};
use crate::plan::{Expr, Failure, NodeKind, Strategy, TimeoutAction};
use crate::run::handler::{Completion, FailureClass, HandlerError};
use crate::run::record::{AttemptStatus, NodeStatus};
use serde_json::{Map, Value};

impl State {
    /// Run `r`'s ladder bookkeeping, created on first use.
    pub(crate) fn ladder(&mut self, r: RunId) -> &mut Ladder {
        self.runs[r].ladder.get_or_insert_with(Box::default)
    }

    /// The node's failure ladder, when its document declares one.
    pub(crate) fn failure(&self, r: RunId) -> Option<&Failure<Expr>> {
        self.plan.nodes[self.runs[r].node].failure.as_deref()
    }

    /// Issues run `r`'s prepared call when a slot is free; otherwise parks it in the ready
    /// set (a call that follows a human's decision waits for a slot like any ready node, so
    /// `max_parallel_nodes` holds).
    pub(crate) fn send(&mut self, r: RunId) {
        let node = self.runs[r].node;
        if !self.sched.slot_free() {
            let run = &mut self.runs[r];
            run.parked = true;
            run.status = NodeStatus::Ready;
            // A parked call waits for a slot whatever its node's kind.
            self.sched.push_ready(node, r, true);
            return;
        }
        self.sched.take_slot();
        let run = &mut self.runs[r];
        run.parked = false;
        run.dispatched = true;
        run.status = NodeStatus::Running;
        self.issue(r, false);
    }

    /// Puts run `r` back among the ready runs (its launch continues where it stands).
    pub(crate) fn requeue(&mut self, r: RunId) {
        let node = self.runs[r].node;
        self.runs[r].status = NodeStatus::Ready;
        let slot = super::needs_slot(self.plan.nodes[node].kind);
        self.sched.push_ready(node, r, slot);
    }

    /// `before_start` checkpoints from list index `from`; true when one was asked (the
    /// launch continues after its answer).
    pub(crate) fn before_start(&mut self, r: RunId, from: usize) -> bool {
        if self.runs[r].human.as_ref().is_some_and(|h| h.started) {
            return false;
        }
        if let Some(i) = self.next_checkpoint(r, Stage::BeforeStart, from) {
            self.ask(r, Stage::BeforeStart, Some(i), 0, HandOff::default());
            return true;
        }
        if self.runs[r].human.is_some() || self.plan.nodes[self.runs[r].node].human.is_some() {
            self.asks(r).started = true;
        }
        false
    }

    /// `before_side_effects` checkpoints for the attempt about to start; true when one was
    /// asked. They apply when the node may have side effects (see `side_effects`).
    pub(crate) fn before_side_effects(&mut self, r: RunId, from: usize) -> bool {
        let next = self.runs[r].attempt + 1;
        if self.runs[r]
            .human
            .as_ref()
            .is_some_and(|h| h.cleared == next)
            || self.plan.nodes[self.runs[r].node].human.is_none()
            || !self.side_effects(r)
        {
            return false;
        }
        if let Some(i) = self.next_checkpoint(r, Stage::BeforeSideEffects, from) {
            self.ask(r, Stage::BeforeSideEffects, Some(i), 0, HandOff::default());
            return true;
        }
        self.asks(r).cleared = next;
        false
    }

    /// Whether the node may have side effects (the plan's `side_effects`, decided from its
    /// requirements: `plan::may_have_side_effects`). A handler call cannot pause inside
    /// itself, so the checkpoint is taken before the call.
    fn side_effects(&self, r: RunId) -> bool {
        self.plan.nodes[self.runs[r].node].side_effects
    }

    /// A completed call: outputs checked, then reviewed, then judged.
    pub(crate) fn completed(&mut self, r: RunId, c: Completion) {
        let node = &self.plan.nodes[self.runs[r].node];
        let kind = node.kind;
        let reviewed = node.human.is_some();
        let now = self.now.clone();
        let checked = self.check_outputs(r, &c.outputs, kind);
        // The common way (no checkpoints, nothing failed before): judged at once, and no copy
        // of the outputs is kept unless the criteria fail.
        if checked.is_ok() && !reviewed && self.runs[r].ladder.is_none() {
            match self.evaluate_criteria(r, &c.outputs, &[]) {
                Some((results, failures)) if !results.passed => {
                    let l = self.ladder(r);
                    l.returned_at = Some(now);
                    l.last_outputs = Some(c.outputs.clone());
                    l.last_fit = true;
                    l.success = Some(results);
                    l.failed_criteria = failures;
                    l.candidate = Some(Candidate {
                        outputs: c.outputs,
                        usage: c.usage,
                    });
                    self.criteria_failure(r, 0);
                }
                verdict => {
                    if let Some((results, _)) = verdict {
                        self.ladder(r).success = Some(results);
                    }
                    self.close_attempt(r, AttemptStatus::Succeeded, &c.usage, None);
                    self.succeed_with(r, c.outputs);
                }
            }
            return;
        }
        let l = self.ladder(r);
        l.returned_at = Some(now);
        l.last_outputs = Some(c.outputs.clone());
        l.last_fit = checked.is_ok();
        match checked {
            Ok(()) => {
                l.candidate = Some(Candidate {
                    outputs: c.outputs,
                    usage: c.usage,
                });
                self.review(r, 0);
            }
            Err((code, msg)) => {
                let class = if code == "RT033" {
                    FailureClass::OutputMissing
                } else {
                    FailureClass::ValidationError
                };
                self.diag(code, "error", msg.clone(), Some(r));
                let mut err = HandlerError::new(class, msg);
                err.usage = c.usage;
                self.attempt_failed(r, err, AttemptStatus::Failed);
            }
        }
    }

    /// `after_outputs` checkpoints from index `from`, then the criteria.
    pub(crate) fn review(&mut self, r: RunId, from: usize) {
        if let Some(i) = self.next_checkpoint(r, Stage::AfterOutputs, from) {
            return self.ask(r, Stage::AfterOutputs, Some(i), 0, HandOff::default());
        }
        self.judge(r);
    }

    /// The success criteria on the candidate outputs.
    fn judge(&mut self, r: RunId) {
        let outputs = self
            .ladder(r)
            .candidate
            .as_ref()
            .map(|c| c.outputs.clone())
            .unwrap_or_default();
        match self.evaluate_criteria(r, &outputs, &[]) {
            Some((results, failures)) if !results.passed => {
                let l = self.ladder(r);
                l.success = Some(results);
                l.failed_criteria = failures;
                self.criteria_failure(r, 0);
            }
            verdict => {
                self.ladder(r).success = verdict.map(|(results, _)| results);
                self.accept(r);
            }
        }
    }

    /// `on_criteria_failure` checkpoints from index `from`, then the failed attempt.
    pub(crate) fn criteria_failure(&mut self, r: RunId, from: usize) {
        if let Some(i) = self.next_checkpoint(r, Stage::OnCriteriaFailure, from) {
            return self.ask(r, Stage::OnCriteriaFailure, Some(i), 0, HandOff::default());
        }
        let l = self.ladder(r);
        let usage = l.candidate.take().map(|c| c.usage).unwrap_or_default();
        let msg = format!("success criteria failed: {}", l.failed_criteria.join("; "));
        let mut err = HandlerError::new(FailureClass::CriteriaFailed, msg);
        err.usage = usage;
        self.attempt_failed(r, err, AttemptStatus::Failed);
    }

    /// The candidate outputs are the node's: the attempt succeeded.
    pub(crate) fn accept(&mut self, r: RunId) {
        let l = self.ladder(r);
        let cand = l.candidate.take();
        if let Phase::Fallback(_) = l.phase {
            l.fallback_used = Some("alternate_node".into());
        }
        let Some(cand) = cand else { return };
        self.close_attempt(r, AttemptStatus::Succeeded, &cand.usage, None);
        self.succeed_with(r, cand.outputs);
    }

    pub(crate) fn succeed_with(&mut self, r: RunId, outputs: Map<String, Value>) {
        if let Some(Value::String(d)) = outputs.get("decision") {
            self.runs[r].decision = Some(d.clone());
        }
        self.runs[r].outputs = Some(outputs);
        self.terminate(r, NodeStatus::Succeeded);
    }

    /// After a failed attempt was closed: the failure stages, then the ladder.
    pub(crate) fn after_failure(&mut self, r: RunId, err: HandlerError) {
        let l = self.ladder(r);
        l.candidate = None;
        match l.phase {
            Phase::Fallback(i) => self.fallbacks(r, i + 1),
            Phase::EscalationNode => self.exhausted(r),
            Phase::Attempts => {
                l.failure = Some(err);
                self.failure_checkpoints(r, 0);
            }
        }
    }

    /// `on_failure` checkpoints from index `from`, then retry or the ladder.
    pub(crate) fn failure_checkpoints(&mut self, r: RunId, from: usize) {
        if let Some(i) = self.next_checkpoint(r, Stage::OnFailure, from) {
            return self.ask(r, Stage::OnFailure, Some(i), 0, HandOff::default());
        }
        self.retry_or_ladder(r);
    }

    /// `timeout_action` for a timed-out attempt: `Some(retry anyway)` to go on, `None` when
    /// it settled the run.
    pub(crate) fn timeout_action(&mut self, r: RunId) -> Option<bool> {
        let timed_out = self.runs[r]
            .ladder
            .as_ref()
            .and_then(|l| l.failure.as_ref())
            .is_some_and(|e| e.class == FailureClass::Timeout);
        if !timed_out {
            return Some(false);
        }
        match self.failure(r).map(|f| f.timeout_action) {
            Some(TimeoutAction::Retry) => Some(true),
            Some(TimeoutAction::Escalate) => {
                self.escalate(r, true);
                None
            }
            Some(TimeoutAction::Partial) => {
                self.succeed_degraded(r);
                None
            }
            Some(TimeoutAction::Fail) | None => Some(false),
        }
    }

    /// The fallback steps from index `from`, then the escalation.
    pub(crate) fn fallbacks(&mut self, r: RunId, from: usize) {
        let steps = self.failure(r).map_or(0, |f| f.fallback.len());
        for i in from..steps {
            if !self.step_holds(r, i) {
                continue;
            }
            let step = &self.failure(r).expect("it has steps").fallback[i];
            let (strategy, description) = (step.strategy, step.description.clone());
            let done = match strategy {
                Strategy::AlternateNode => {
                    let name = step.node.clone().unwrap_or_default();
                    self.call_other(r, &name, Phase::Fallback(i), &format!("fallback {i}"))
                }
                Strategy::DegradeOutputs => {
                    let names = step.outputs.clone();
                    self.degrade(r, &names)
                }
                Strategy::RelaxCriteria => {
                    let names = step.criteria.clone();
                    self.relax(r, &names)
                }
                Strategy::HumanTakeover => {
                    self.ladder(r).phase = Phase::Fallback(i);
                    let hand_off = HandOff {
                        prompt: description,
                        ..HandOff::default()
                    };
                    self.ask(r, Stage::Takeover, None, i, hand_off);
                    true
                }
                Strategy::Skip => {
                    self.ladder(r).fallback_used = Some("skip".into());
                    self.runs[r].skip_reason = Some("fallback".into());
                    self.terminate(r, NodeStatus::Skipped);
                    true
                }
                Strategy::Unknown => {
                    self.diag(
                        "AGC308",
                        "warning",
                        format!("fallback {i}: its strategy is not one the runtime knows; skipped"),
                        Some(r),
                    );
                    false
                }
            };
            if done {
                return;
            }
        }
        self.escalate(r, false);
    }

    /// Fallback step `i`'s `when` (true without one; an error counts as false, RT062).
    fn step_holds(&mut self, r: RunId, i: usize) -> bool {
        let Some(e) = self.failure(r).and_then(|f| f.fallback[i].when.clone()) else {
            return true;
        };
        let seen = self.runs[r]
            .ladder
            .as_ref()
            .and_then(|l| l.last_outputs.clone());
        match self.eval_seeing(r, &e, seen) {
            Ok(Value::Bool(b)) => b,
            Err(err) => {
                let what = format!("fallback {i}'s `when` failed");
                self.expression_failed(Some(r), &what, "the step is skipped", &err);
                false
            }
            Ok(_) => {
                self.diag(
                    "RT062",
                    "warning",
                    format!("fallback {i}'s `when` did not give a boolean; the step is skipped"),
                    Some(r),
                );
                false
            }
        }
    }

    /// Another node's call as this run's next attempt (`alternate_node`, escalation
    /// `to: node`). False (AGC308) when it cannot be made.
    pub(crate) fn call_other(&mut self, r: RunId, name: &str, phase: Phase, what: &str) -> bool {
        let scope = self.runs[r].scope;
        let kind = self.scopes[scope].kind;
        let found = self.idx.scope_nodes[kind]
            .iter()
            .copied()
            .find(|&n| self.plan.nodes[n].local_id == name);
        let why = match found {
            None => Some(format!("no node `{name}` in this scope")),
            Some(n)
                if !matches!(
                    self.plan.nodes[n].kind,
                    NodeKind::Task | NodeKind::Decision | NodeKind::External
                ) =>
            {
                Some(format!("`{name}` makes no call of its own"))
            }
            Some(_) => None,
        };
        if let Some(why) = why {
            self.diag(
                "AGC308",
                "warning",
                format!("{what}: {why}; skipped"),
                Some(r),
            );
            return false;
        }
        let n = found.expect("checked above");
        let anchor = self.scopes[scope].run_of(&self.pos, n).unwrap_or(r);
        let inputs = match self.resolve_inputs_of(anchor, n) {
            Ok(i) => i,
            Err(e) => {
                self.diag(
                    "AGC308",
                    "warning",
                    format!("{what}: `{name}`'s inputs cannot be resolved ({e}); skipped"),
                    Some(r),
                );
                return false;
            }
        };
        let l = self.ladder(r);
        l.phase = phase;
        l.call = Some((n, inputs));
        self.new_attempt(r);
        true
    }

    /// `degrade_outputs`: the listed outputs of the last call, if each is there and fits.
    fn degrade(&mut self, r: RunId, names: &[String]) -> bool {
        let Some(last) = self.runs[r]
            .ladder
            .as_ref()
            .and_then(|l| l.last_outputs.clone())
        else {
            return false;
        };
        let node = &self.plan.nodes[self.runs[r].node];
        let mut kept = Map::new();
        for name in names {
            let Some(v) = last.get(name) else {
                return false;
            };
            if let Some(decl) = node.outputs.iter().find(|o| &o.name == name)
                && super::check(v, &decl.ty, &decl.decl).is_err()
            {
                return false;
            }
            kept.insert(name.clone(), v.clone());
        }
        self.diag(
            "RT042",
            "warning",
            format!(
                "the node failed and succeeds degraded with outputs {} (fallback degrade_outputs)",
                names.join(", ")
            ),
            Some(r),
        );
        self.ladder(r).fallback_used = Some("degrade_outputs".into());
        self.runs[r].degraded = true;
        self.succeed_with(r, kept);
        true
    }

    /// `relax_criteria`: the last call's outputs judged again with `names` advisory.
    fn relax(&mut self, r: RunId, names: &[String]) -> bool {
        let Some(l) = self.runs[r].ladder.as_ref() else {
            return false;
        };
        let (Some(last), true) = (l.last_outputs.clone(), l.last_fit) else {
            return false;
        };
        match self.evaluate_criteria(r, &last, names) {
            Some((results, _)) if !results.passed => false,
            _ => {
                self.ladder(r).fallback_used = Some("relax_criteria".into());
                self.succeed_with(r, last);
                true
            }
        }
    }

    /// What an answer to `ask` does (see the module docs).
    pub(crate) fn resume_after(
        &mut self,
        r: RunId,
        ask: &Ask,
        approved: bool,
        outputs: Map<String, Value>,
    ) {
        let next = ask.index.map_or(usize::MAX, |i| i + 1);
        match ask.stage {
            Stage::BeforeStart if approved => {
                if !self.before_start(r, next) {
                    self.asks(r).started = true;
                    self.requeue(r);
                }
            }
            Stage::BeforeSideEffects if approved => {
                if !self.before_side_effects(r, next) {
                    self.new_attempt(r);
                }
            }
            Stage::BeforeStart | Stage::BeforeSideEffects => {
                self.terminate(r, NodeStatus::Failed);
            }
            Stage::AfterOutputs | Stage::OnCriteriaFailure => {
                let misfit = approved
                    .then(|| self.collect_misfit(r, ask, &outputs))
                    .flatten();
                if !outputs.is_empty() || misfit.is_some() {
                    let kind = self.plan.nodes[self.runs[r].node].kind;
                    let mut merged = self
                        .ladder(r)
                        .candidate
                        .as_ref()
                        .map(|c| c.outputs.clone())
                        .unwrap_or_default();
                    merged.extend(outputs);
                    let checked = match misfit {
                        Some(m) => Err(m),
                        None => self.check_outputs(r, &merged, kind),
                    };
                    if let Err((code, msg)) = checked {
                        self.diag(code, "error", format!("the edited outputs: {msg}"), Some(r));
                        let usage = self.ladder(r).candidate.take().map(|c| c.usage);
                        let mut err = HandlerError::new(FailureClass::ValidationError, msg);
                        err.usage = usage.unwrap_or_default();
                        return self.attempt_failed(r, err, AttemptStatus::Failed);
                    }
                    if let Some(c) = self.ladder(r).candidate.as_mut() {
                        c.outputs = merged;
                    }
                }
                match (ask.stage, approved) {
                    (Stage::AfterOutputs, true) => self.review(r, next),
                    (Stage::AfterOutputs, false) => {
                        let usage = self.ladder(r).candidate.take().map(|c| c.usage);
                        let mut err = HandlerError::new(
                            FailureClass::CriteriaFailed,
                            format!("rejected at checkpoint `{}`", ask.cp.id),
                        );
                        err.usage = usage.unwrap_or_default();
                        self.attempt_failed(r, err, AttemptStatus::Failed);
                    }
                    (_, true) => self.accept(r),
                    (_, false) => self.criteria_failure(r, next),
                }
            }
            Stage::OnFailure if approved => self.failure_checkpoints(r, next),
            Stage::OnFailure => self.exhausted(r),
            Stage::Takeover | Stage::OnEscalation => {
                let misfit = approved
                    .then(|| self.collect_misfit(r, ask, &outputs))
                    .flatten();
                if let Some((code, msg)) = &misfit {
                    let msg = format!("the human's answer does not settle the node: {msg}");
                    self.diag(code, "warning", msg, Some(r));
                }
                let settled = if approved && misfit.is_none() {
                    self.settle(r, outputs)
                } else {
                    None
                };
                match (settled, ask.stage) {
                    (Some(o), Stage::Takeover) => {
                        self.ladder(r).fallback_used = Some("human_takeover".into());
                        self.succeed_with(r, o);
                    }
                    (Some(o), _) => self.succeed_with(r, o),
                    (None, Stage::Takeover) => self.fallbacks(r, ask.step + 1),
                    (None, _) if !approved || ask.index.is_none() => self.exhausted(r),
                    (None, _) => self.escalation_checkpoints(r, next),
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "ladder_tests.rs"]
mod tests;
