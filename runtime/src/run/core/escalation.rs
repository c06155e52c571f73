//! The end of a node's failure ladder: its escalation and `on_exhausted`.
//!
//! Escalation (the plan's `failure.escalation`, once per node run; `escalated: true` from then on):
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

use super::RunId;
use super::State;
use super::asks::{HandOff, Stage};
use super::ladder_state::Phase;
use crate::plan::{DEFAULT_INCLUDE, EscalateTo, OnExhausted};
use crate::run::handler::{FailureClass, HandlerError};
use crate::run::record::NodeStatus;
use serde_json::{Map, Value};

impl State {
    /// The escalation (once per run): declared `on_escalation` checkpoints, then the
    /// hand-off. `forced`: escalate even without an `escalation` block (`on_exhausted:
    /// escalate`, `timeout_action: escalate`), to a human.
    pub(crate) fn escalate(&mut self, r: RunId, forced: bool) {
        let has_block = self.failure(r).is_some_and(|f| f.escalation.is_some());
        if self.ladder(r).escalation_done || !(has_block || forced) {
            return self.exhausted(r);
        }
        self.ladder(r).escalation_done = true;
        self.runs[r].escalated = true;
        self.escalation_checkpoints(r, 0);
    }

    pub(crate) fn escalation_checkpoints(&mut self, r: RunId, from: usize) {
        if let Some(i) = self.next_checkpoint(r, Stage::OnEscalation, from) {
            self.ladder(r).escalation_asked = true;
            let hand_off = self.hand_off_material(r);
            return self.ask(r, Stage::OnEscalation, Some(i), 0, hand_off);
        }
        let (to, node) = match self.failure(r).and_then(|f| f.escalation.as_ref()) {
            Some(esc) => (esc.to, esc.node.clone()),
            None => (EscalateTo::Human, None),
        };
        match to {
            EscalateTo::Node => {
                let name = node.unwrap_or_default();
                if !self.call_other(r, &name, Phase::EscalationNode, "escalation") {
                    self.exhausted(r);
                }
            }
            EscalateTo::Human if self.ladder(r).escalation_asked => self.exhausted(r),
            to => {
                let mut hand_off = self.hand_off_material(r);
                hand_off.escalate_to = Some(to.as_str().to_string());
                self.ask(r, Stage::OnEscalation, None, 0, hand_off);
            }
        }
    }

    /// An escalation's rendered `message`, `roles` and `include` material.
    pub(crate) fn hand_off_material(&mut self, r: RunId) -> HandOff {
        let esc = self.failure(r).and_then(|f| f.escalation.clone());
        let prompt = match esc.as_ref().and_then(|e| e.message.as_ref()) {
            Some(e) => {
                let seen = self.runs[r]
                    .ladder
                    .as_ref()
                    .and_then(|l| l.last_outputs.clone());
                match self.eval_seeing(r, e, seen) {
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
            None => None,
        };
        let include = match &esc {
            Some(e) => e.include.clone(),
            None => DEFAULT_INCLUDE.map(String::from).to_vec(),
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
            roles: esc.map(|e| e.roles).unwrap_or_default(),
            include: material,
        }
    }

    /// A node that cannot go on by itself escalates (a loop's `on_max_iterations:
    /// escalate`): `why` is the failure, `outputs` stand as its last outputs.
    pub(crate) fn escalate_stuck(&mut self, r: RunId, why: String, outputs: Map<String, Value>) {
        self.runs[r].outputs = Some(outputs.clone());
        let l = self.ladder(r);
        l.failure = Some(HandlerError::new(FailureClass::ToolError, why));
        l.last_outputs = Some(outputs);
        l.last_fit = true;
        self.escalate(r, true);
    }

    /// `on_exhausted`: the ladder's last step.
    pub(crate) fn exhausted(&mut self, r: RunId) {
        match self.failure(r).map(|f| f.on_exhausted) {
            Some(OnExhausted::Skip) => {
                self.runs[r].skip_reason = Some("on_exhausted".into());
                self.terminate(r, NodeStatus::Skipped);
            }
            Some(OnExhausted::SucceedDegraded) => self.succeed_degraded(r),
            Some(OnExhausted::Escalate) if !self.ladder(r).escalation_done => {
                self.escalate(r, true)
            }
            _ => self.terminate(r, NodeStatus::Failed),
        }
    }

    /// Succeeded degraded (RT042): the last call's outputs that fit, else none.
    pub(crate) fn succeed_degraded(&mut self, r: RunId) {
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
    pub(crate) fn settle(
        &mut self,
        r: RunId,
        given: Map<String, Value>,
    ) -> Option<Map<String, Value>> {
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
}
