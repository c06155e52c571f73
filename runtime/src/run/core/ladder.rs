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
//! Escalation (`failure.escalation`, once per node run; `escalated: true` from then on):
//! the node's `on_escalation` checkpoints, then the hand-off: `to: node` runs that node's
//! call like an alternate; `to: human` is the `escalation` hand-off unless a declared
//! `on_escalation` checkpoint was asked already; `supervisor` and `external` are the handler's:
//! the same `escalation` hand-off with `escalate_to` set (a handler that routes it answers,
//! else the run waits for a decision like for a human). Approved with fitting outputs
//! (merged over the last call's): succeeded. Rejected, or nothing settled: `on_exhausted`.
//!
//! `on_exhausted`: `fail`, `skip`, `succeed_degraded` (RT042), `escalate` (the escalation
//! above when it has not happened yet, with an implicit `to: human` when the node has no
//! `escalation` block; then, or if it already happened, `failed`).
//!
//! `timeout_action` for an attempt that timed out: `fail` (the default: an ordinary failure
//! of class `timeout`, retried only when `retry_on` lists it), `retry` (retried whatever
//! `retry_on` says, within `max_attempts`), `escalate` (straight to the escalation, as if
//! `on_exhausted: escalate`), `partial` (succeeded degraded, RT042).
//!
//! A rejection at `before_start` or `before_side_effects` is a human veto: the node does not
//! run (or does not make that attempt) and ends `failed`, without the ladder.

use super::State;
use super::human::{HandOff, Stage};
use crate::plan::NodeKind;
use crate::run::handler::{Completion, FailureClass, HandlerError, Usage};
use crate::run::record::{AttemptStatus, CriteriaResults, NodeStatus};
use serde_json::{Map, Value};

/// Outputs of a completed call on their way through review and criteria.
#[derive(Clone, Debug)]
pub(crate) struct Candidate {
    pub(crate) outputs: Map<String, Value>,
    pub(crate) usage: Usage,
}

/// Where a node run is on its ladder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Its own attempts.
    #[default]
    Attempts,
    /// Fallback step `n` is being carried out.
    Fallback(usize),
    /// The escalation's node makes its call.
    EscalationNode,
}

/// A node run's ladder bookkeeping.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ladder {
    pub(crate) candidate: Option<Candidate>,
    /// The last completed call's outputs, and whether they fit the declarations.
    pub(crate) last_outputs: Option<Map<String, Value>>,
    last_fit: bool,
    /// The failure being handled.
    pub(crate) failure: Option<HandlerError>,
    pub(crate) phase: Phase,
    /// Another node's call made as this run's attempt: (plan node, its inputs).
    pub(crate) call: Option<(usize, Map<String, Value>)>,
    escalation_done: bool,
    /// A declared `on_escalation` checkpoint was asked.
    escalation_asked: bool,
    pub(crate) fallback_used: Option<String>,
    /// The current attempt's criteria results (recorded when it closes).
    pub(crate) success: Option<CriteriaResults>,
    /// When the current attempt's call returned (its `finished_at`).
    pub(crate) returned_at: Option<String>,
    /// Why the last criteria evaluation failed (escalation `include`).
    failed_criteria: Vec<String>,
}

impl State {
    /// Run `r`'s ladder bookkeeping, created on first use.
    pub(crate) fn ladder(&mut self, r: usize) -> &mut Ladder {
        self.runs[r].ladder.get_or_insert_with(Box::default)
    }

    /// The node's `failure` block (defaults merged).
    fn failure_block(&self, r: usize) -> Option<&Value> {
        self.plan.nodes[self.runs[r].node].attributes.get("failure")
    }

    fn failure_str(&self, r: usize, key: &str) -> Option<String> {
        self.failure_block(r)
            .and_then(|f| f.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    /// Issues run `r`'s prepared call when a slot is free; otherwise parks it in the ready
    /// set (a call that follows a human's decision waits for a slot like any ready node, so
    /// `max_parallel_nodes` holds).
    pub(crate) fn send(&mut self, r: usize) {
        let node = self.runs[r].node;
        if self.running >= self.max_parallel {
            let run = &mut self.runs[r];
            run.parked = true;
            run.status = NodeStatus::Ready;
            self.ready.insert((node, r));
            return;
        }
        self.running += 1;
        let run = &mut self.runs[r];
        run.parked = false;
        run.dispatched = true;
        run.status = NodeStatus::Running;
        self.issue(r, false);
    }

    /// Puts run `r` back among the ready runs (its launch continues where it stands).
    fn requeue(&mut self, r: usize) {
        let node = self.runs[r].node;
        self.runs[r].status = NodeStatus::Ready;
        if super::needs_slot(self.plan.nodes[node].kind) {
            self.ready.insert((node, r));
        } else {
            self.ready_free.insert((node, r));
        }
    }

    /// `before_start` checkpoints from list index `from`; true when one was asked (the
    /// launch continues after its answer).
    pub(crate) fn before_start(&mut self, r: usize, from: usize) -> bool {
        if self.runs[r].human.as_ref().is_some_and(|h| h.started) {
            return false;
        }
        if let Some(i) = self.next_checkpoint(r, Stage::BeforeStart, from) {
            self.ask(r, Stage::BeforeStart, Some(i), 0, HandOff::default());
            return true;
        }
        if self.runs[r].human.is_some()
            || self.plan.nodes[self.runs[r].node]
                .attributes
                .contains_key("human")
        {
            self.asks(r).started = true;
        }
        false
    }

    /// `before_side_effects` checkpoints for the attempt about to start; true when one was
    /// asked. They apply when the node may have side effects (see `side_effects`).
    pub(crate) fn before_side_effects(&mut self, r: usize, from: usize) -> bool {
        let next = self.runs[r].attempt + 1;
        if self.runs[r]
            .human
            .as_ref()
            .is_some_and(|h| h.cleared == next)
            || !self.plan.nodes[self.runs[r].node]
                .attributes
                .contains_key("human")
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

    /// Whether the node may have side effects: no `requirements` (nothing says it cannot), a
    /// `read_write` workspace, or a permission that writes (`fs:write`, `fs:delete`,
    /// `git:commit`, `git:push`, `shell:exec`: AG902's list). A handler call cannot pause
    /// inside itself, so the checkpoint is taken before the call.
    fn side_effects(&self, r: usize) -> bool {
        let Some(req) = self.plan.nodes[self.runs[r].node]
            .attributes
            .get("requirements")
        else {
            return true;
        };
        req.get("workspace").and_then(Value::as_str) == Some("read_write")
            || super::human::strings(req.get("permissions"))
                .iter()
                .any(|p| {
                    [
                        "fs:write",
                        "fs:delete",
                        "git:commit",
                        "git:push",
                        "shell:exec",
                    ]
                    .iter()
                    .any(|w| p.starts_with(w))
                })
    }

    /// A completed call: outputs checked, then reviewed, then judged.
    pub(crate) fn completed(&mut self, r: usize, c: Completion) {
        let kind = self.plan.nodes[self.runs[r].node].kind;
        let now = self.now.clone();
        let checked = self.check_outputs(r, &c.outputs, kind);
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
    fn review(&mut self, r: usize, from: usize) {
        if let Some(i) = self.next_checkpoint(r, Stage::AfterOutputs, from) {
            return self.ask(r, Stage::AfterOutputs, Some(i), 0, HandOff::default());
        }
        self.judge(r);
    }

    /// The success criteria on the candidate outputs.
    fn judge(&mut self, r: usize) {
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
    fn criteria_failure(&mut self, r: usize, from: usize) {
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
    fn accept(&mut self, r: usize) {
        let l = self.ladder(r);
        let cand = l.candidate.take();
        if let Phase::Fallback(_) = l.phase {
            l.fallback_used = Some("alternate_node".into());
        }
        let Some(cand) = cand else { return };
        self.close_attempt(r, AttemptStatus::Succeeded, &cand.usage, None);
        self.succeed_with(r, cand.outputs);
    }

    fn succeed_with(&mut self, r: usize, outputs: Map<String, Value>) {
        if let Some(Value::String(d)) = outputs.get("decision") {
            self.runs[r].decision = Some(d.clone());
        }
        self.runs[r].outputs = Some(outputs);
        self.terminate(r, NodeStatus::Succeeded);
    }

    /// After a failed attempt was closed: the failure stages, then the ladder.
    pub(crate) fn after_failure(&mut self, r: usize, err: HandlerError) {
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
    fn failure_checkpoints(&mut self, r: usize, from: usize) {
        if let Some(i) = self.next_checkpoint(r, Stage::OnFailure, from) {
            return self.ask(r, Stage::OnFailure, Some(i), 0, HandOff::default());
        }
        self.retry_or_ladder(r);
    }

    /// `timeout_action` for a timed-out attempt: `Some(retry anyway)` to go on, `None` when
    /// it settled the run.
    pub(crate) fn timeout_action(&mut self, r: usize) -> Option<bool> {
        let timed_out = self.runs[r]
            .ladder
            .as_ref()
            .and_then(|l| l.failure.as_ref())
            .is_some_and(|e| e.class == FailureClass::Timeout);
        if !timed_out {
            return Some(false);
        }
        match self.failure_str(r, "timeout_action").as_deref() {
            Some("retry") => Some(true),
            Some("escalate") => {
                self.escalate(r, true);
                None
            }
            Some("partial") => {
                self.succeed_degraded(r);
                None
            }
            _ => Some(false),
        }
    }

    /// The fallback steps from index `from`, then the escalation.
    pub(crate) fn fallbacks(&mut self, r: usize, from: usize) {
        let steps: Vec<Value> = self
            .failure_block(r)
            .and_then(|f| f.get("fallback"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (i, step) in steps.iter().enumerate().skip(from) {
            if !self.step_holds(r, i) {
                continue;
            }
            let done = match step.get("strategy").and_then(Value::as_str) {
                Some("alternate_node") => {
                    let name = step.get("node").and_then(Value::as_str).unwrap_or("");
                    self.call_other(r, name, Phase::Fallback(i), &format!("fallback {i}"))
                }
                Some("degrade_outputs") => {
                    self.degrade(r, &super::human::strings(step.get("outputs")))
                }
                Some("relax_criteria") => {
                    self.relax(r, &super::human::strings(step.get("criteria")))
                }
                Some("human_takeover") => {
                    self.ladder(r).phase = Phase::Fallback(i);
                    let hand_off = HandOff {
                        prompt: step
                            .get("description")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        ..HandOff::default()
                    };
                    self.ask(r, Stage::Takeover, None, i, hand_off);
                    true
                }
                Some("skip") => {
                    self.ladder(r).fallback_used = Some("skip".into());
                    self.runs[r].skip_reason = Some("fallback".into());
                    self.terminate(r, NodeStatus::Skipped);
                    true
                }
                other => {
                    self.diag(
                        "AGC308",
                        "warning",
                        format!(
                            "fallback {i}: strategy {other:?} is not one the runtime knows; skipped"
                        ),
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
    fn step_holds(&mut self, r: usize, i: usize) -> bool {
        let Some(e) = self.plan.nodes[self.runs[r].node]
            .exprs
            .get(&format!("fallback.{i}.when"))
            .cloned()
        else {
            return true;
        };
        let seen = self.runs[r]
            .ladder
            .as_ref()
            .and_then(|l| l.last_outputs.clone());
        match self.eval_seeing(r, &e, seen) {
            Ok(Value::Bool(b)) => b,
            Ok(_) | Err(_) => {
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
    fn call_other(&mut self, r: usize, name: &str, phase: Phase, what: &str) -> bool {
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
    fn degrade(&mut self, r: usize, names: &[String]) -> bool {
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
    fn relax(&mut self, r: usize, names: &[String]) -> bool {
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

    /// The escalation (once per run): declared `on_escalation` checkpoints, then the
    /// hand-off. `forced`: escalate even without an `escalation` block (`on_exhausted:
    /// escalate`, `timeout_action: escalate`), to a human.
    pub(crate) fn escalate(&mut self, r: usize, forced: bool) {
        let has_block = self
            .failure_block(r)
            .is_some_and(|f| f.get("escalation").is_some());
        if self.ladder(r).escalation_done || !(has_block || forced) {
            return self.exhausted(r);
        }
        self.ladder(r).escalation_done = true;
        self.runs[r].escalated = true;
        self.escalation_checkpoints(r, 0);
    }

    fn escalation_checkpoints(&mut self, r: usize, from: usize) {
        if let Some(i) = self.next_checkpoint(r, Stage::OnEscalation, from) {
            self.ladder(r).escalation_asked = true;
            let hand_off = self.hand_off_material(r);
            return self.ask(r, Stage::OnEscalation, Some(i), 0, hand_off);
        }
        let esc = self
            .failure_block(r)
            .and_then(|f| f.get("escalation"))
            .cloned()
            .unwrap_or(Value::Null);
        match esc.get("to").and_then(Value::as_str).unwrap_or("human") {
            "node" => {
                let name = esc.get("node").and_then(Value::as_str).unwrap_or("");
                if !self.call_other(r, name, Phase::EscalationNode, "escalation") {
                    self.exhausted(r);
                }
            }
            "human" if self.ladder(r).escalation_asked => self.exhausted(r),
            to => {
                let mut hand_off = self.hand_off_material(r);
                hand_off.escalate_to = Some(to.to_string());
                self.ask(r, Stage::OnEscalation, None, 0, hand_off);
            }
        }
    }

    /// An escalation's rendered `message`, `roles` and `include` material.
    fn hand_off_material(&mut self, r: usize) -> HandOff {
        let esc = self
            .failure_block(r)
            .and_then(|f| f.get("escalation"))
            .cloned()
            .unwrap_or(Value::Null);
        let node = self.runs[r].node;
        let prompt = match self.plan.nodes[node]
            .exprs
            .get("escalation.message")
            .cloned()
        {
            Some(e) => {
                let seen = self.runs[r]
                    .ladder
                    .as_ref()
                    .and_then(|l| l.last_outputs.clone());
                match self.eval_seeing(r, &e, seen) {
                    Ok(Value::String(s)) => Some(s),
                    Ok(v) => Some(v.to_string()),
                    Err(err) => {
                        self.diag(
                            "RT062",
                            "warning",
                            format!("the escalation message could not be rendered: {err}"),
                            Some(r),
                        );
                        None
                    }
                }
            }
            None => esc
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string),
        };
        let include = match esc.get("include") {
            Some(v) => super::human::strings(Some(v)),
            None => vec!["failed_criteria".into(), "diagnostics".into()],
        };
        let mut material = Map::new();
        for what in include {
            let v = match what.as_str() {
                "inputs" => self.runs[r].inputs.clone().map(Value::Object),
                "outputs" => self.runs[r]
                    .ladder
                    .as_ref()
                    .and_then(|l| l.last_outputs.clone())
                    .map(Value::Object),
                "failed_criteria" => self.runs[r]
                    .ladder
                    .as_ref()
                    .map(|l| Value::from(l.failed_criteria.clone())),
                "diagnostics" => {
                    let path = &self.runs[r].path;
                    Some(Value::from(
                        self.diagnostics
                            .iter()
                            .filter(|d| d.node_id.as_ref() == Some(path))
                            .map(|d| format!("{}: {}", d.code, d.message))
                            .collect::<Vec<_>>(),
                    ))
                }
                _ => None,
            };
            if let Some(v) = v {
                material.insert(what, v);
            }
        }
        HandOff {
            prompt,
            escalate_to: None,
            roles: super::human::strings(esc.get("roles")),
            include: material,
        }
    }

    /// A node that cannot go on by itself escalates (a loop's `on_max_iterations:
    /// escalate`): `why` is the failure, `outputs` stand as its last outputs.
    pub(crate) fn escalate_stuck(&mut self, r: usize, why: String, outputs: Map<String, Value>) {
        self.runs[r].outputs = Some(outputs.clone());
        let l = self.ladder(r);
        l.failure = Some(HandlerError::new(FailureClass::ToolError, why));
        l.last_outputs = Some(outputs);
        l.last_fit = true;
        self.escalate(r, true);
    }

    /// `on_exhausted`: the ladder's last step.
    pub(crate) fn exhausted(&mut self, r: usize) {
        match self.failure_str(r, "on_exhausted").as_deref() {
            Some("skip") => {
                self.runs[r].skip_reason = Some("on_exhausted".into());
                self.terminate(r, NodeStatus::Skipped);
            }
            Some("succeed_degraded") => self.succeed_degraded(r),
            Some("escalate") if !self.ladder(r).escalation_done => self.escalate(r, true),
            _ => self.terminate(r, NodeStatus::Failed),
        }
    }

    /// Succeeded degraded (RT042): the last call's outputs that fit, else none.
    fn succeed_degraded(&mut self, r: usize) {
        let err = self.runs[r]
            .ladder
            .as_ref()
            .and_then(|l| l.failure.as_ref())
            .map_or_else(|| "it failed".to_string(), |e| e.to_string());
        self.diag(
            "RT042",
            "warning",
            format!("the node failed ({err}) and succeeds degraded"),
            Some(r),
        );
        self.runs[r].degraded = true;
        self.runs[r].outputs.get_or_insert_with(Map::new);
        self.terminate(r, NodeStatus::Succeeded);
    }

    /// Merges `given` over the last call's outputs; `Some` when the result fits the
    /// declarations (else a warning with the check's code).
    fn settle(&mut self, r: usize, given: Map<String, Value>) -> Option<Map<String, Value>> {
        let mut merged = self.runs[r]
            .ladder
            .as_ref()
            .and_then(|l| l.last_outputs.clone())
            .unwrap_or_default();
        merged.extend(given);
        let kind = self.plan.nodes[self.runs[r].node].kind;
        match self.check_outputs(r, &merged, kind) {
            Ok(()) => Some(merged),
            Err((code, msg)) => {
                self.diag(
                    code,
                    "warning",
                    format!("the human's answer does not settle the node: {msg}"),
                    Some(r),
                );
                None
            }
        }
    }

    /// What an answer to `ask` does (see the module docs).
    pub(crate) fn resume_after(
        &mut self,
        r: usize,
        ask: &super::human::Ask,
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
                if !outputs.is_empty() {
                    let kind = self.plan.nodes[self.runs[r].node].kind;
                    let mut merged = self
                        .ladder(r)
                        .candidate
                        .as_ref()
                        .map(|c| c.outputs.clone())
                        .unwrap_or_default();
                    merged.extend(outputs);
                    if let Err((code, msg)) = self.check_outputs(r, &merged, kind) {
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
                let settled = if approved {
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
