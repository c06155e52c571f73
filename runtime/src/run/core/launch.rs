//! Starting node runs and handling call results: inputs, budgets, retries, the failure
//! ladder, output checks, gates.

use super::RunId;
use super::env::Anchor;
use super::{State, check};
use crate::plan::{
    Decisions, HumanMode, InputSource, NodeKind, OnReject, Produces, RetryOn, StateUpdates,
};
use crate::run::event::CallResult;
use crate::run::handler::{FailureClass, GateOutcome, GateResponse, HandlerError, Usage};
use crate::run::record::{Attempt, AttemptStatus, HumanEvent, NodeStatus};
use serde_json::{Map, Value};

impl State {
    /// Starts ready run `r` (or continues it: a parked call, the work after `before_start`).
    pub(super) fn launch(&mut self, r: RunId) {
        if self.runs[r].parked {
            return self.send(r);
        }
        self.runs[r].relaunch = false;
        if self.runs[r].guard_pending && !self.guard_allows(r) {
            return;
        }
        let node = self.runs[r].node;
        let kind = self.plan.nodes[node].kind;
        let now = self.now.clone();
        self.runs[r].status = NodeStatus::Running;
        self.runs[r].started_at.get_or_insert(now);
        if self.runs[r].inputs.is_none() {
            // An agh transform's inputs are its map's entries, evaluated by its own rules.
            let inputs = if self.is_transform(node) {
                self.transform_map(r)
            } else {
                self.resolve_inputs_of(r, node)
            };
            let inputs = match inputs {
                Ok(i) => i,
                // An exceeded evaluation limit is a failed attempt, whose class the retry
                // policy and the failure edges see (issue 47); the next attempt evaluates the
                // inputs again.
                Err(msg) if super::env::is_limit(&msg) => return self.limit_failed(r, msg),
                Err(msg) => {
                    self.diag("RT033", "error", msg, Some(r));
                    self.terminate(r, NodeStatus::Failed);
                    return;
                }
            };
            self.runs[r].inputs = Some(inputs);
        }
        if self.before_start(r, 0) {
            return;
        }
        match kind {
            NodeKind::Loop => self.start_loop(r),
            NodeKind::Map => self.start_map(r),
            NodeKind::Subgraph => self.start_subgraph(r),
            NodeKind::Fork if self.idx.region_of_owner.contains_key(&node) => {
                self.start_parallel(r)
            }
            NodeKind::Decision if self.decide_by_expression(r) => {}
            // A switch (AWP) routes now, on the state as it is (`switch`).
            NodeKind::Decision if self.plan.semantics.decisions == Decisions::Switch => {
                match self.route_switch(r) {
                    Ok(order) => {
                        self.runs[r].route = Some(order);
                        self.runs[r].outputs = Some(Map::new());
                        self.terminate(r, NodeStatus::Succeeded);
                    }
                    Err(msg) if super::env::is_limit(&msg) => self.limit_failed(r, msg),
                    Err(msg) => {
                        self.diag("AGC327", "error", msg, Some(r));
                        self.terminate(r, NodeStatus::Failed);
                    }
                }
            }
            // Decisions by edges (agh `branch`, Agent Graph) carry their conditions on their
            // outgoing edges (guards, first-match order): the node itself makes no call.
            NodeKind::Decision if self.plan.semantics.decisions == Decisions::Edges => {
                self.runs[r].outputs = Some(Map::new());
                self.terminate(r, NodeStatus::Succeeded);
            }
            NodeKind::Task | NodeKind::Decision | NodeKind::Gate | NodeKind::External => {
                self.new_attempt(r)
            }
            // A state update's outputs are its assignments; an end node's its mapping (AWP's
            // `output`, which is also the run's output).
            NodeKind::StateUpdate | NodeKind::Terminal => {
                let node = &self.plan.nodes[node];
                let outputs = if kind == NodeKind::Terminal
                    || self.plan.semantics.state_updates == StateUpdates::Assignments
                {
                    self.runs[r].inputs.clone().unwrap_or_default()
                } else if self.is_transform(self.runs[r].node) {
                    // agh `transform`: its output is the evaluated map (`transform.rs`).
                    let map = self.runs[r].inputs.clone().unwrap_or_default();
                    Map::from_iter([("output".to_string(), Value::Object(map))])
                } else if let Some(Produces::Param(name)) = &node.produces {
                    // agh `input` source: its output is the Loop input it names.
                    let mut m = Map::new();
                    let v = self.params().get(name).cloned().unwrap_or(Value::Null);
                    m.insert("output".into(), v);
                    m
                } else {
                    Map::new()
                };
                // AWP: the workflow's result is the run's outputs (an object result's keys;
                // any other value as `result`), docs/awp.md.
                if kind == NodeKind::Terminal
                    && let Some(v) = outputs.get("output")
                {
                    self.outputs = match v {
                        Value::Object(o) => o.clone(),
                        other => Map::from_iter([("result".to_string(), other.clone())]),
                    };
                }
                self.runs[r].outputs = Some(outputs);
                self.terminate(r, NodeStatus::Succeeded);
            }
            NodeKind::Wait => self.start_wait(r),
            // Structural nodes do no work of their own.
            NodeKind::Fork | NodeKind::Join => {
                self.runs[r].outputs = Some(Map::new());
                self.terminate(r, NodeStatus::Succeeded);
            }
        }
    }

    /// An evaluation limit met before `r`'s call (`msg` ends in AGC043): a failed attempt of
    /// class `budget_exceeded`, the same wherever it was met (the run's `when`, its inputs,
    /// a decision's branches, a switch's cases), which the retry policy and the failure edges
    /// see like any failed attempt (issue 47). A retry starts over from `launch`.
    pub(super) fn limit_failed(&mut self, r: RunId, msg: String) {
        self.diag("AGC043", "error", msg.clone(), Some(r));
        let now = self.now.clone();
        let run = &mut self.runs[r];
        run.status = NodeStatus::Running;
        run.started_at.get_or_insert_with(|| now.clone());
        run.attempt += 1;
        run.attempt_started = Some(now);
        run.relaunch = true;
        let err = HandlerError::new(FailureClass::BudgetExceeded, msg);
        self.attempt_failed(r, err, AttemptStatus::Failed);
    }

    /// Evaluates run `r`'s own `when` (true without one): false skips the run, an
    /// evaluation limit fails its attempt ([`State::limit_failed`]) and leaves the guard to
    /// evaluate again, another error fails the run (RT062). Whether the run goes on.
    pub(super) fn guard_allows(&mut self, r: RunId) -> bool {
        let plan = std::sync::Arc::clone(&self.plan);
        let Some(guard) = &plan.nodes[self.runs[r].node].guard else {
            return true;
        };
        let scope = self.runs[r].scope;
        match self.eval_bool(scope, guard, &Anchor::default()) {
            Ok(true) => {
                self.runs[r].guard_pending = false;
                true
            }
            Ok(false) => {
                self.runs[r].guard_pending = false;
                self.runs[r].skip_reason = Some("when_false".into());
                self.terminate(r, NodeStatus::Skipped);
                false
            }
            Err(e) if super::env::is_limit(&e) => {
                self.runs[r].guard_pending = true;
                self.limit_failed(r, format!("the node's `when` failed: {e}"));
                false
            }
            Err(e) => {
                self.runs[r].guard_pending = false;
                self.diag(
                    "RT062",
                    "error",
                    format!("the node's `when` failed: {e}"),
                    Some(r),
                );
                self.terminate(r, NodeStatus::Failed);
                false
            }
        }
    }

    /// Issues the next attempt of `r`, if the run's budgets allow (after its
    /// `before_side_effects` checkpoints).
    pub(super) fn new_attempt(&mut self, r: RunId) {
        // Compensation calls are exempt from the run's budgets (see `compensate`).
        let exempt = self.compensation.active();
        if !exempt
            && let Some(max) = self
                .plan
                .constraints
                .get("max_node_executions")
                .and_then(Value::as_u64)
            && self.executions >= max
        {
            self.halt(format!(
                "`{}` would be node execution {}, over max_node_executions ({max})",
                self.runs[r].path,
                self.executions + 1
            ));
            return;
        }
        if !exempt
            && let Some(max) = self
                .plan
                .constraints
                .get("max_cost_usd")
                .and_then(Value::as_f64)
        {
            let spent = self.usage.cost_usd.unwrap_or(0.0);
            if spent > max {
                self.halt(format!(
                    "the run has spent ${spent:.2}, over max_cost_usd (${max:.2})"
                ));
                return;
            }
        }
        let own = self.runs[r]
            .ladder
            .as_ref()
            .is_none_or(|l| l.phase == super::ladder_state::Phase::Attempts);
        if own
            && (self.runs[r].inputs.is_none() || self.runs[r].relaunch)
            && !self.runs[r].status.is_terminal()
        {
            // The attempt before failed on an evaluation limit before its call: evaluate
            // again (`launch`), which issues this attempt when everything resolves.
            return self.launch(r);
        }
        if self.before_side_effects(r, 0) {
            return;
        }
        self.executions += 1;
        let run = &mut self.runs[r];
        run.attempt += 1;
        run.attempt_started = None;
        self.send(r);
    }

    /// Resolves plan node `node`'s declared inputs in run `r`'s scope, `r` being `self`
    /// (once per run: retries reuse them; a fallback node's for its call).
    pub(super) fn resolve_inputs_of(
        &mut self,
        r: RunId,
        node: usize,
    ) -> Result<Map<String, Value>, String> {
        let node = &self.plan.nodes[node];
        let scope = self.runs[r].scope;
        let mut out = Map::new();
        // AWP: `null` is a value like any other (a jq result, an unset state key), not an
        // absent one.
        let null_is_value = self.plan.semantics.null_is_value;
        for input in &node.inputs {
            let anchor = Anchor {
                run: Some(r),
                inputs: Some(&out),
            };
            let value = match &input.source {
                InputSource::From(e) | InputSource::Template(e) => {
                    match self.eval(scope, e, &anchor) {
                        Ok(Value::Null) if !null_is_value => None,
                        Ok(v) => Some(v),
                        Err(err) if input.required => {
                            return Err(format!(
                                "input `{}` could not be resolved: {err}",
                                input.name
                            ));
                        }
                        Err(_) => None,
                    }
                }
                InputSource::Value(v) => Some(v.clone()),
                InputSource::Implicit(_) => self
                    .scope_params(scope)
                    .get(&input.name)
                    .or_else(|| self.context().get(&input.name))
                    .cloned(),
            };
            // An absent value takes the input's declared `default`, then is checked.
            match value.or_else(|| input.default.clone()) {
                Some(v) => {
                    if let Err(m) = check(&v, &input.ty, &input.decl) {
                        // A redacted value must not leak through the message.
                        let message = if input.decl.redact {
                            format!("the value does not fit `{}` (redacted)", input.ty)
                        } else {
                            m.message
                        };
                        return Err(format!("input `{}`: {message} ({})", input.name, m.code));
                    }
                    out.insert(input.name.clone(), v);
                }
                None if input.required => {
                    return Err(format!("required input `{}` has no value", input.name));
                }
                None => {}
            }
        }
        Ok(out)
    }

    /// A call for `r` returned.
    pub(super) fn finished_call(&mut self, r: RunId, result: CallResult) {
        if self.asking(r) {
            return self.ask_returned(r, result);
        }
        match result {
            CallResult::Completed(c) => self.completed(r, c),
            CallResult::Gate(resp) => {
                // The gate's attempt is recorded when the decision arrives (now or on resume).
                self.runs[r].status = NodeStatus::AwaitingHuman;
                if resp.outcome.is_none() {
                    self.arm_gate_timeout(r);
                }
                self.gate_answered(r, resp);
            }
            CallResult::Failed(err) => self.attempt_failed(r, err, AttemptStatus::Failed),
            CallResult::TimedOut { seconds } => self.attempt_failed(
                r,
                HandlerError::new(
                    FailureClass::Timeout,
                    format!("no result within {seconds} s"),
                ),
                AttemptStatus::Timeout,
            ),
        }
    }

    /// Records the current attempt as finished (its criteria results, the other node whose
    /// call it was, and when that call returned come from the ladder's bookkeeping).
    pub(super) fn close_attempt(
        &mut self,
        r: RunId,
        status: AttemptStatus,
        usage: &Usage,
        error: Option<String>,
    ) {
        let now = self.now.clone();
        self.usage.add(usage);
        let (success, returned, other) = match self.runs[r].ladder.as_mut() {
            Some(l) => (l.success.take(), l.returned_at.take(), l.call.take()),
            None => (None, None, None),
        };
        let node = other.map(|(n, _)| self.plan.nodes[n].local_id.clone());
        let run = &mut self.runs[r];
        run.usage.add(usage);
        // Most runs make one attempt: room for one, not the four a first push makes (an
        // attempt is 272 bytes: a 10k-node run touched 11 MB of pages for attempts never
        // made).
        if run.attempts.capacity() == 0 {
            run.attempts.reserve_exact(1);
        }
        run.attempts.push(Attempt {
            attempt: run.attempt,
            status,
            started_at: run.attempt_started.clone().unwrap_or_else(|| now.clone()),
            finished_at: Some(returned.unwrap_or(now)),
            usage: usage.clone(),
            success,
            error,
            node,
        });
    }

    /// A failed attempt: closed, then the failure stages and the ladder (`ladder.rs`).
    pub(super) fn attempt_failed(&mut self, r: RunId, err: HandlerError, status: AttemptStatus) {
        let status = match (status, err.class) {
            (AttemptStatus::Failed, FailureClass::Timeout) => AttemptStatus::Timeout,
            (AttemptStatus::Failed, FailureClass::BudgetExceeded) => AttemptStatus::BudgetExceeded,
            (AttemptStatus::Failed, FailureClass::CriteriaFailed) => AttemptStatus::CriteriaFailed,
            (s, _) => s,
        };
        self.close_attempt(r, status, &err.usage.clone(), Some(err.to_string()));
        self.after_failure(r, err);
    }

    /// Retry (`retry_on`, `max_attempts`, `timeout_action`), else the fallbacks.
    pub(super) fn retry_or_ladder(&mut self, r: RunId) {
        let Some(anyway) = self.timeout_action(r) else {
            return;
        };
        let class = self.runs[r]
            .ladder
            .as_ref()
            .and_then(|l| l.failure.as_ref())
            .map_or(FailureClass::ToolError, |e| e.class);
        let node = &self.plan.nodes[self.runs[r].node];
        let retryable = anyway
            || match &node.failure {
                Some(f) => f.retry_on.iter().any(|on| on.matches(class)),
                None => RetryOn::DEFAULT.iter().any(|on| on.matches(class)),
            };
        if retryable && self.runs[r].attempt < node.retry.max_attempts.max(1) {
            self.retry_later(r);
            return;
        }
        self.fallbacks(r, 0);
    }

    /// Checks a completion's outputs against the node's declared outputs.
    pub(super) fn check_outputs(
        &self,
        r: RunId,
        outputs: &Map<String, Value>,
        kind: NodeKind,
    ) -> Result<(), (&'static str, String)> {
        let node = &self.plan.nodes[self.runs[r].node];
        for o in &node.outputs {
            match outputs.get(&o.name) {
                Some(v) => {
                    if let Err(m) = check(v, &o.ty, &o.decl) {
                        let message = if o.decl.redact {
                            format!("the value does not fit `{}` (redacted)", o.ty)
                        } else {
                            m.message
                        };
                        return Err((m.code, format!("output `{}`: {message}", o.name)));
                    }
                }
                None if o.required && !(kind == NodeKind::Gate && o.name == "decision") => {
                    return Err(("RT033", format!("required output `{}` is missing", o.name)));
                }
                None => {}
            }
        }
        Ok(())
    }

    /// A gate got its answer (from the handler or a resume decision).
    pub(super) fn gate_answered(&mut self, r: RunId, resp: GateResponse) {
        let Some(outcome) = resp.outcome else {
            return;
        };
        if self.takes_outside_input(r) {
            // AWP signal waits and interrupts (`signals`).
            return self.outside_input_answered(r, outcome, resp);
        }
        if self.runs[r].status == NodeStatus::AwaitingHuman {
            self.close_attempt(r, AttemptStatus::Succeeded, &Usage::default(), None);
        }
        let gate = self.plan.nodes[self.runs[r].node].gate.as_deref();
        let mode = gate
            .map_or(HumanMode::Approve, |g| g.mode)
            .as_str()
            .to_string();
        let on_reject = gate.map_or(OnReject::Fail, |g| g.on_reject);
        let now = self.now.clone();
        let run = &mut self.runs[r];
        run.human_events.push(HumanEvent {
            checkpoint_id: None,
            at_stage: "gate".into(),
            mode,
            outcome: outcome.as_str().into(),
            actor: resp.actor.clone(),
            note: resp.note.clone(),
            at: Some(now),
        });
        let mut outputs = resp.outputs;
        outputs.insert("decision".into(), Value::from(outcome.as_str()));
        run.decision = Some(outcome.as_str().into());
        run.outputs = Some(outputs);
        if self.routes_gate(r) {
            // agh: the gate's routing table decides (see `agh`).
            return self.route_gate(r, outcome);
        }
        match (outcome, on_reject) {
            (GateOutcome::Approved, _) | (GateOutcome::Rejected, OnReject::Route) => {
                self.terminate(r, NodeStatus::Succeeded)
            }
            (GateOutcome::Rejected, OnReject::SkipDependents) => {
                self.runs[r].skip_reason = Some("gate_rejected".into());
                self.terminate(r, NodeStatus::Skipped);
            }
            (GateOutcome::Rejected, _) => self.terminate(r, NodeStatus::Failed),
        }
    }
}
