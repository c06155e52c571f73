//! The failure ladder and human checkpoints, driven through the pure core: every fallback
//! strategy, the escalation targets, `on_exhausted`, `timeout_action`, and every checkpoint
//! stage and mode.

use super::super::{Call, Command, State};
use crate::plan::Plan;
use crate::run::event::{CallResult, Event};
use crate::run::handler::{Completion, FailureClass, GateOutcome, GateResponse, HandlerError};
use crate::run::record::{Harness, NodeStatus, RunStatus};
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::sync::Arc;

fn loc() -> Value {
    json!({"path": "t.yaml", "line": 1, "column": 1})
}

fn expr(source: &str, core: Value) -> Value {
    json!({"lang": "agx", "source": source, "core": core, "location": loc()})
}

fn template(source: &str, core: Value) -> Value {
    json!({"lang": "agx-template", "source": source, "core": core, "location": loc()})
}

/// `self.outputs.n >= k`.
fn n_at_least(k: i64) -> Value {
    expr(
        &format!("self.outputs.n >= {k}"),
        json!([">=", ["$", "self", "outputs", "n"], k]),
    )
}

/// A task node `id` with output `n` (integer) and `extra` attributes / exprs.
fn task(id: &str, attributes: Value, exprs: Value, attempts: u32) -> Value {
    json!({
        "id": id, "local_id": id, "kind": "task", "origin_kind": "task",
        "outputs": [{"name": "n", "type": "integer", "required": true},
                    {"name": "note", "type": "string", "required": false}],
        "exprs": exprs, "retry": {"max_attempts": attempts},
        "attributes": attributes, "location": loc()
    })
}

fn plan(nodes: Vec<Value>, entrypoints: &[&str], edges: Value, max_parallel: u32) -> Arc<Plan> {
    Arc::new(
        serde_json::from_value(json!({
            "format": "agc.plan/v2",
            "source": {"dialect": "ags", "path": "t.yaml"},
            "graph": {"id": "t", "title": null},
            "params": [], "entrypoints": entrypoints,
            "constraints": {"max_parallel_nodes": max_parallel},
            "nodes": nodes, "edges": edges, "regions": [], "links": [],
            "bounds": {"max_node_executions": 0.0, "projected_cost_usd": 0.0,
                       "projected_wall_clock_seconds": 0.0, "unestimated_nodes": 0}
        }))
        .expect("plan"),
    )
}

/// One node `a` (an entrypoint) plus `others` (not reachable unless named).
fn one(a: Value, others: Vec<Value>) -> Arc<Plan> {
    let mut nodes = vec![a];
    nodes.extend(others);
    plan(nodes, &["a"], json!([]), 1)
}

fn done(n: i64) -> CallResult {
    let mut o = Map::new();
    o.insert("n".into(), json!(n));
    CallResult::Completed(Completion {
        outputs: o,
        usage: Default::default(),
    })
}

fn fail() -> CallResult {
    CallResult::Failed(HandlerError::new(FailureClass::ToolError, "boom"))
}

fn answer(outcome: Option<GateOutcome>, outputs: Value) -> CallResult {
    CallResult::Gate(GateResponse {
        outcome,
        outputs: outputs.as_object().cloned().unwrap_or_default(),
        actor: Some("tester".into()),
        note: None,
    })
}

type Answer = Box<dyn FnMut(&Call) -> CallResult>;

/// Drives the core synchronously: calls are answered one per step, oldest first, by
/// `answer`; every call is kept.
struct Sim {
    st: State,
    calls: Vec<Call>,
    events: Vec<Event>,
    inflight: VecDeque<Call>,
    answer: Answer,
    tick: u32,
}

impl Sim {
    fn run(plan: Arc<Plan>, answer: impl FnMut(&Call) -> CallResult + 'static) -> Sim {
        let mut sim = Sim {
            st: State::new(plan).expect("state"),
            calls: Vec::new(),
            events: Vec::new(),
            inflight: VecDeque::new(),
            answer: Box::new(answer),
            tick: 0,
        };
        let at = sim.at();
        sim.feed(Event::Started {
            run_id: "r".into(),
            graph_id: "t".into(),
            graph_digest: None,
            params: Map::new(),
            context: Map::new(),
            at,
        });
        sim
    }

    fn at(&mut self) -> String {
        self.tick += 1;
        format!("2026-01-01T00:{:02}:{:02}Z", self.tick / 60, self.tick % 60)
    }

    fn step(&mut self, ev: Event) {
        self.events.push(ev.clone());
        for c in self.st.step(ev) {
            if let Command::Call(call) = c {
                let started = Event::CallStarted {
                    path: call.path.clone(),
                    attempt: call.attempt,
                    at: self.at(),
                };
                self.events.push(started.clone());
                self.st.step(started);
                self.calls.push(call.clone());
                self.inflight.push_back(call);
            }
        }
        assert!(
            self.inflight.len() <= self.st.max_parallel(),
            "more calls in flight than allowed"
        );
    }

    /// Feeds `ev`, then answers calls until none is outstanding.
    fn feed(&mut self, ev: Event) {
        self.step(ev);
        self.drain();
    }

    /// Answers calls until none is outstanding.
    fn drain(&mut self) {
        while let Some(call) = self.inflight.pop_front() {
            let result = (self.answer)(&call);
            let ev = Event::CallFinished {
                path: call.path.clone(),
                attempt: call.attempt,
                result,
                at: self.at(),
            };
            self.step(ev);
            assert!(self.calls.len() < 200, "the run does not end");
        }
    }

    fn decide(&mut self, name: &str, outcome: GateOutcome, outputs: Value) {
        let at = self.at();
        self.feed(Event::Resumed { at: at.clone() });
        self.feed(Event::Decided {
            path: name.into(),
            response: GateResponse {
                outcome: Some(outcome),
                outputs: outputs.as_object().cloned().unwrap_or_default(),
                actor: Some("ops".into()),
                note: None,
            },
            at,
        });
    }

    fn record(&self) -> Value {
        serde_json::to_value(self.st.record(&Harness::default())).unwrap()
    }

    /// The record of node run `path`.
    fn node(&self, path: &str) -> Value {
        self.record()["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["scope_path"] == path)
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// Calls that asked a checkpoint, by name.
    fn asked(&self) -> Vec<String> {
        self.calls
            .iter()
            .filter_map(|c| c.checkpoint.as_ref().map(|k| k.name.clone()))
            .collect()
    }

    /// The same events through a fresh state give the same record.
    fn replays(&self) {
        let mut st = State::new(Arc::clone(self.st.plan())).unwrap();
        for ev in &self.events {
            st.step(ev.clone());
        }
        assert_eq!(
            serde_json::to_value(st.record(&Harness::default())).unwrap(),
            self.record()
        );
    }
}

fn statuses(node: &Value) -> Vec<String> {
    node["attempts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| a["status"].as_str().unwrap().to_string())
        .collect()
}

fn events(node: &Value) -> Vec<(String, String, String)> {
    node["human_events"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["checkpoint_id"].as_str().unwrap_or("").to_string(),
                e["at_stage"].as_str().unwrap().to_string(),
                e["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn failure(block: Value) -> Value {
    json!({"failure": block})
}

#[test]
fn an_alternate_node_makes_the_call_after_the_retries_and_its_outputs_are_the_nodes() {
    let p = one(
        task(
            "a",
            failure(json!({"retry": {"max_attempts": 2},
                "fallback": [{"strategy": "alternate_node", "node": "b"}]})),
            json!({}),
            2,
        ),
        vec![task("b", json!({}), json!({}), 1)],
    );
    let b = 1;
    let sim = Sim::run(p, move |c| if c.node == b { done(7) } else { fail() });
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(a["outputs"]["n"], 7);
    assert_eq!(a["fallback_used"], "alternate_node");
    assert_eq!(statuses(&a), ["failed", "failed", "succeeded"]);
    assert_eq!(a["attempts"][2]["x-node"], "b");
    // The alternate's own run is its own business: unreachable here, so skipped.
    assert_eq!(sim.node("b")["status"], "skipped");
    assert_eq!(sim.st.status(), RunStatus::Succeeded);
    sim.replays();
}

#[test]
fn a_fallback_whose_when_is_false_is_passed_over() {
    let never = expr("false", json!(false));
    let p = one(
        task(
            "a",
            failure(json!({"fallback": [
                {"strategy": "alternate_node", "node": "b", "when": "false"},
                {"strategy": "skip"}]})),
            json!({"fallback.0.when": never}),
            1,
        ),
        vec![task("b", json!({}), json!({}), 1)],
    );
    let sim = Sim::run(p, |_| fail());
    let a = sim.node("a");
    assert_eq!(a["status"], "skipped");
    assert_eq!(a["skip_reason"], "fallback");
    assert_eq!(a["fallback_used"], "skip");
    assert_eq!(sim.calls.len(), 1, "the alternate never ran");
}

#[test]
fn an_unknown_alternate_is_agc308_and_the_next_step_follows() {
    let p = one(
        task(
            "a",
            failure(
                json!({"fallback": [{"strategy": "alternate_node", "node": "nope"}],
                "on_exhausted": "skip"}),
            ),
            json!({}),
            1,
        ),
        vec![],
    );
    let sim = Sim::run(p, |_| fail());
    assert_eq!(sim.node("a")["skip_reason"], "on_exhausted");
    let r = sim.record();
    assert!(
        r["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "AGC308")
    );
}

/// A node whose criterion `n >= 3` holds only for big enough outputs.
fn judged(block: Value) -> Value {
    judged_with(block, 1)
}

fn judged_with(block: Value, attempts: u32) -> Value {
    let mut attributes = failure(block);
    attributes["success"] = json!({"criteria": [
        {"id": "big", "kind": "expression", "description": "n is big enough"}]});
    task(
        "a",
        attributes,
        json!({"criteria.big": n_at_least(3)}),
        attempts,
    )
}

#[test]
fn degrade_outputs_accepts_the_listed_outputs_and_the_run_is_partial() {
    let p = one(
        judged(json!({"fallback": [{"strategy": "degrade_outputs", "outputs": ["n"]}]})),
        vec![],
    );
    let sim = Sim::run(p, |_| done(1));
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(a["fallback_used"], "degrade_outputs");
    assert_eq!(a["outputs"], json!({"n": 1}));
    assert_eq!(statuses(&a), ["criteria_failed"]);
    assert_eq!(sim.st.status(), RunStatus::Partial);
    let r = sim.record();
    assert!(
        r["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "RT042")
    );
}

#[test]
fn degrade_outputs_does_not_apply_without_outputs_and_relax_criteria_judges_again() {
    // A failed call has no outputs to degrade; the criteria relaxed let the outputs pass.
    let p = one(
        judged(json!({"fallback": [
            {"strategy": "degrade_outputs", "outputs": ["note"]},
            {"strategy": "relax_criteria", "criteria": ["big"]}]})),
        vec![],
    );
    let sim = Sim::run(p, |_| done(1));
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(a["fallback_used"], "relax_criteria");
    assert_eq!(sim.st.status(), RunStatus::Succeeded);
}

#[test]
fn criteria_evidence_is_recorded_on_each_attempt() {
    let p = one(judged_with(json!({}), 2), vec![]);
    let mut k = 0;
    let sim = Sim::run(p, move |_| {
        k += 2;
        done(k)
    });
    let a = sim.node("a");
    assert_eq!(statuses(&a), ["criteria_failed", "succeeded"]);
    let first = &a["attempts"][0]["success"];
    assert_eq!(first["passed"], false);
    assert_eq!(first["mode"], "all");
    assert_eq!(first["results"][0]["id"], "big");
    assert_eq!(first["results"][0]["passed"], false);
    assert_eq!(first["results"][0]["evidence"], "the expression is false");
    assert!(first["results"][0]["evaluated_at"].is_string());
    assert_eq!(a["attempts"][1]["success"]["passed"], true);
}

#[test]
fn a_takeover_settles_the_node_and_a_rejected_one_falls_through_to_on_exhausted() {
    let block = json!({"fallback": [{"strategy": "human_takeover"}], "on_exhausted": "skip"});
    let p = one(task("a", failure(block.clone()), json!({}), 1), vec![]);
    let sim = Sim::run(p, |c| match &c.checkpoint {
        Some(k) => {
            assert_eq!(
                (k.id.as_str(), k.stage.as_str()),
                ("takeover", "human_takeover")
            );
            answer(Some(GateOutcome::Approved), json!({"n": 9}))
        }
        None => fail(),
    });
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(a["outputs"]["n"], 9);
    assert_eq!(a["fallback_used"], "human_takeover");
    assert_eq!(
        events(&a),
        [(
            "takeover".into(),
            "human_takeover".into(),
            "provided".into()
        )]
    );

    let p = one(task("a", failure(block), json!({}), 1), vec![]);
    let sim = Sim::run(p, |c| match &c.checkpoint {
        Some(_) => answer(Some(GateOutcome::Rejected), json!({})),
        None => fail(),
    });
    let a = sim.node("a");
    assert_eq!(a["status"], "skipped");
    assert_eq!(a["skip_reason"], "on_exhausted");
    assert_eq!(events(&a)[0].2, "rejected");
}

#[test]
fn an_escalation_to_a_human_pauses_until_a_decision_settles_it() {
    let block = json!({"escalation": {"to": "human", "message": "failed"}, "on_exhausted": "fail"});
    let p = one(task("a", failure(block.clone()), json!({}), 1), vec![]);
    let mut sim = Sim::run(p, |c| match &c.checkpoint {
        Some(_) => answer(None, json!({})),
        None => fail(),
    });
    assert_eq!(sim.st.status(), RunStatus::AwaitingHuman);
    assert_eq!(sim.st.awaiting_gates(), ["a.escalation"]);
    let asked = sim.calls.last().unwrap().checkpoint.clone().unwrap();
    assert_eq!(asked.prompt.as_deref(), Some("failed"));
    assert_eq!(asked.escalate_to.as_deref(), Some("human"));
    assert!(asked.error.as_deref().unwrap().contains("boom"));
    assert_eq!(sim.node("a")["status"], "awaiting_human");
    sim.decide("a.escalation", GateOutcome::Approved, json!({"n": 4}));
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(a["escalated"], true);
    assert_eq!(a["outputs"]["n"], 4);
    assert_eq!(sim.st.status(), RunStatus::Succeeded);
    sim.replays();

    // Rejected: `on_exhausted`.
    let p = one(task("a", failure(block), json!({}), 1), vec![]);
    let mut sim = Sim::run(p, |c| match &c.checkpoint {
        Some(_) => answer(None, json!({})),
        None => fail(),
    });
    sim.decide("a.escalation", GateOutcome::Rejected, json!({}));
    let a = sim.node("a");
    assert_eq!(
        (a["status"].as_str(), a["escalated"].as_bool()),
        (Some("failed"), Some(true))
    );
    assert_eq!(sim.st.status(), RunStatus::Failed);
}

#[test]
fn approved_outputs_that_do_not_fit_do_not_settle_an_escalation() {
    let block = json!({"escalation": {"to": "human"}, "on_exhausted": "skip"});
    let p = one(task("a", failure(block), json!({}), 1), vec![]);
    let sim = Sim::run(p, |c| match &c.checkpoint {
        Some(_) => answer(Some(GateOutcome::Approved), json!({"n": "many"})),
        None => fail(),
    });
    assert_eq!(sim.node("a")["status"], "skipped");
}

#[test]
fn an_escalation_to_a_node_runs_it_and_to_a_supervisor_asks_the_handler() {
    let block = json!({"escalation": {"to": "node", "node": "b"}});
    let p = one(
        task("a", failure(block), json!({}), 1),
        vec![task("b", json!({}), json!({}), 1)],
    );
    let sim = Sim::run(p, |c| if c.node == 1 { done(5) } else { fail() });
    let a = sim.node("a");
    assert_eq!(
        (a["status"].as_str(), a["escalated"].as_bool()),
        (Some("succeeded"), Some(true))
    );
    assert_eq!(a["attempts"][1]["x-node"], "b");
    assert!(a.get("fallback_used").is_none());

    let block = json!({"escalation": {"to": "supervisor", "include": ["inputs", "diagnostics"]}});
    let p = one(task("a", failure(block), json!({}), 1), vec![]);
    let sim = Sim::run(p, |c| match &c.checkpoint {
        Some(k) => {
            assert_eq!(k.escalate_to.as_deref(), Some("supervisor"));
            assert!(k.include.contains_key("inputs") && k.include.contains_key("diagnostics"));
            answer(Some(GateOutcome::Approved), json!({"n": 3}))
        }
        None => fail(),
    });
    assert_eq!(sim.node("a")["status"], "succeeded");
}

#[test]
fn on_exhausted_escalate_without_a_block_hands_the_node_to_a_human_once() {
    let p = one(
        task(
            "a",
            failure(json!({"on_exhausted": "escalate"})),
            json!({}),
            1,
        ),
        vec![],
    );
    let mut sim = Sim::run(p, |c| match &c.checkpoint {
        Some(_) => answer(None, json!({})),
        None => fail(),
    });
    assert_eq!(sim.st.awaiting_gates(), ["a.escalation"]);
    sim.decide("a.escalation", GateOutcome::Rejected, json!({}));
    let a = sim.node("a");
    assert_eq!(
        (a["status"].as_str(), a["escalated"].as_bool()),
        (Some("failed"), Some(true))
    );
}

#[test]
fn timeout_actions() {
    let timed_out = |_: &Call| CallResult::TimedOut { seconds: 1.0 };
    // retry: retried although `retry_on` does not list `timeout`.
    let p = one(
        task(
            "a",
            failure(json!({"timeout_action": "retry"})),
            json!({}),
            2,
        ),
        vec![],
    );
    let sim = Sim::run(p, timed_out);
    assert_eq!(statuses(&sim.node("a")), ["timeout", "timeout"]);
    // fail (the default): not retried.
    let p = one(task("a", json!({}), json!({}), 2), vec![]);
    let sim = Sim::run(p, timed_out);
    assert_eq!(statuses(&sim.node("a")), ["timeout"]);
    // partial: succeeded degraded.
    let p = one(
        task(
            "a",
            failure(json!({"timeout_action": "partial"})),
            json!({}),
            2,
        ),
        vec![],
    );
    let sim = Sim::run(p, timed_out);
    assert_eq!(sim.node("a")["status"], "succeeded");
    assert_eq!(sim.st.status(), RunStatus::Partial);
    // escalate: straight to the escalation, no retry, no fallback.
    let p = one(
        task(
            "a",
            failure(json!({"timeout_action": "escalate",
                "fallback": [{"strategy": "skip"}]})),
            json!({}),
            2,
        ),
        vec![],
    );
    let sim = Sim::run(p, move |c| match &c.checkpoint {
        Some(_) => answer(None, json!({})),
        None => CallResult::TimedOut { seconds: 1.0 },
    });
    assert_eq!(statuses(&sim.node("a")), ["timeout"]);
    assert_eq!(sim.st.awaiting_gates(), ["a.escalation"]);
}

/// Node `a` with checkpoints `human` (and a `when` per `exprs`).
fn checked(human: Value, exprs: Value, attempts: u32) -> Value {
    task("a", json!({"human": human}), exprs, attempts)
}

#[test]
fn before_start_asks_first_and_a_rejection_is_a_veto() {
    let human = json!([{"id": "go", "at": "before_start", "mode": "approve"}]);
    let p = one(checked(human.clone(), json!({}), 3), vec![]);
    let sim = Sim::run(p, |c| match &c.checkpoint {
        Some(k) => {
            assert_eq!(c.attempt, 1, "the checkpoint belongs to the first attempt");
            assert_eq!(k.name, "a.go");
            answer(Some(GateOutcome::Approved), json!({}))
        }
        None => done(1),
    });
    assert_eq!(sim.asked(), ["a.go"]);
    assert!(sim.calls[0].checkpoint.is_some() && sim.calls[1].checkpoint.is_none());
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(
        events(&a),
        [("go".into(), "before_start".into(), "approved".into())]
    );

    let p = one(checked(human, json!({}), 3), vec![]);
    let sim = Sim::run(p, |c| match &c.checkpoint {
        Some(_) => answer(Some(GateOutcome::Rejected), json!({})),
        None => panic!("a vetoed node makes no call"),
    });
    let a = sim.node("a");
    assert_eq!(a["status"], "failed");
    assert!(a.get("attempts").is_none());
}

#[test]
fn a_checkpoint_whose_when_is_false_is_not_asked() {
    let human = json!([{"at": "before_start", "mode": "approve", "when": "false"}]);
    let p = one(
        checked(
            human,
            json!({"human.0.when": expr("false", json!(false))}),
            1,
        ),
        vec![],
    );
    let sim = Sim::run(p, |_| done(1));
    assert!(sim.asked().is_empty());
    assert!(sim.node("a").get("human_events").is_none());
}

#[test]
fn a_required_checkpoint_pauses_and_an_optional_one_is_not_waited_for() {
    let human = json!([
        {"id": "look", "at": "after_outputs", "mode": "review", "required": false},
        {"id": "sign", "at": "after_outputs", "mode": "approve"}]);
    let p = one(checked(human, json!({}), 1), vec![]);
    let mut sim = Sim::run(p, |c| match &c.checkpoint {
        Some(_) => answer(None, json!({})),
        None => done(1),
    });
    assert_eq!(sim.st.status(), RunStatus::AwaitingHuman);
    assert_eq!(sim.st.awaiting_gates(), ["a.sign"]);
    let a = sim.node("a");
    assert_eq!(
        events(&a),
        [("look".into(), "after_outputs".into(), "notified".into())]
    );
    // The attempt is not closed while its outputs are under review.
    assert!(a.get("attempts").is_none());
    sim.decide("a.sign", GateOutcome::Approved, json!({}));
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(statuses(&a), ["succeeded"]);
    // The attempt finished when its call returned, not when the human answered.
    assert!(a["attempts"][0]["finished_at"].as_str() < a["finished_at"].as_str());
    sim.replays();
}

#[test]
fn notify_never_blocks() {
    let human = json!([{"id": "fyi", "at": "before_start", "mode": "notify", "prompt": "hi"}]);
    let p = one(checked(human, json!({}), 1), vec![]);
    let sim = Sim::run(p, |c| match &c.checkpoint {
        Some(k) => {
            assert_eq!(k.prompt.as_deref(), Some("hi"));
            answer(None, json!({}))
        }
        None => done(1),
    });
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(
        events(&a),
        [("fyi".into(), "before_start".into(), "notified".into())]
    );
}

#[test]
fn a_review_edits_the_outputs_and_a_rejected_review_fails_the_attempt() {
    let human = json!([{"id": "check", "at": "after_outputs", "mode": "review",
        "prompt": "n is ${{ self.outputs.n }}"}]);
    let prompt = template(
        "n is ${{ self.outputs.n }}",
        json!(["tmpl", "n is ", ["$", "self", "outputs", "n"]]),
    );
    let p = one(
        checked(human.clone(), json!({"human.0.prompt": prompt}), 1),
        vec![],
    );
    let sim = Sim::run(p, |c| match &c.checkpoint {
        Some(k) => {
            assert_eq!(k.prompt.as_deref(), Some("n is 1"));
            assert_eq!(k.outputs.as_ref().unwrap()["n"], 1);
            answer(
                Some(GateOutcome::Approved),
                json!({"note": "fixed by hand", "n": 2}),
            )
        }
        None => done(1),
    });
    let a = sim.node("a");
    assert_eq!(a["outputs"], json!({"n": 2, "note": "fixed by hand"}));
    assert_eq!(events(&a)[0].2, "edited");

    // Rejected on the first attempt, approved on the second: `criteria_failed`, retried.
    let p = one(checked(human, json!({}), 2), vec![]);
    let mut asked = 0;
    let sim = Sim::run(p, move |c| match &c.checkpoint {
        Some(_) => {
            asked += 1;
            let o = if asked == 1 {
                GateOutcome::Rejected
            } else {
                GateOutcome::Approved
            };
            answer(Some(o), json!({}))
        }
        None => done(1),
    });
    let a = sim.node("a");
    assert_eq!(statuses(&a), ["criteria_failed", "succeeded"]);
    assert_eq!(sim.asked(), ["a.check", "a.check#1"]);
}

#[test]
fn an_edit_that_does_not_fit_fails_the_attempt() {
    let human = json!([{"id": "check", "at": "after_outputs", "mode": "review"}]);
    let p = one(checked(human, json!({}), 1), vec![]);
    let sim = Sim::run(p, |c| match &c.checkpoint {
        Some(_) => answer(Some(GateOutcome::Approved), json!({"n": "two"})),
        None => done(1),
    });
    let a = sim.node("a");
    assert_eq!(a["status"], "failed");
    assert!(
        a["attempts"][0]["error"]
            .as_str()
            .unwrap()
            .contains("validation_error")
    );
}

#[test]
fn on_criteria_failure_approval_overrules_the_criteria() {
    let mut node = judged(json!({}));
    node["attributes"]["human"] =
        json!([{"id": "ok_anyway", "at": "on_criteria_failure", "mode": "approve"}]);
    let sim = Sim::run(one(node, vec![]), |c| match &c.checkpoint {
        Some(k) => {
            assert_eq!(k.stage, "on_criteria_failure");
            answer(Some(GateOutcome::Approved), json!({}))
        }
        None => done(1),
    });
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(a["attempts"][0]["status"], "succeeded");
    assert_eq!(a["attempts"][0]["success"]["passed"], false);
}

#[test]
fn on_failure_rejection_skips_the_rest_of_the_ladder() {
    let node = task(
        "a",
        json!({"human": [{"id": "keep_going", "at": "on_failure", "mode": "approve"}],
               "failure": {"retry": {"max_attempts": 3}, "on_exhausted": "skip",
                           "fallback": [{"strategy": "human_takeover"}]}}),
        json!({}),
        3,
    );
    let mut n = 0;
    let sim = Sim::run(one(node, vec![]), move |c| match &c.checkpoint {
        Some(k) => {
            n += 1;
            assert_eq!(k.stage, "on_failure");
            let o = if n == 1 {
                GateOutcome::Approved
            } else {
                GateOutcome::Rejected
            };
            answer(Some(o), json!({}))
        }
        None => fail(),
    });
    let a = sim.node("a");
    // Approved after the first failure (retried), rejected after the second: no third
    // attempt, no takeover, `on_exhausted: skip`.
    assert_eq!(statuses(&a), ["failed", "failed"]);
    assert_eq!(a["status"], "skipped");
    assert_eq!(sim.asked(), ["a.keep_going", "a.keep_going#1"]);
}

#[test]
fn declared_on_escalation_checkpoints_are_the_human_escalation() {
    let node = task(
        "a",
        json!({"human": [{"id": "page", "at": "on_escalation", "mode": "input"}],
               "failure": {"escalation": {"to": "human"}}}),
        json!({}),
        1,
    );
    let sim = Sim::run(one(node, vec![]), |c| match &c.checkpoint {
        Some(_) => answer(Some(GateOutcome::Approved), json!({"n": 1})),
        None => fail(),
    });
    assert_eq!(sim.asked(), ["a.page"]);
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(
        events(&a),
        [("page".into(), "on_escalation".into(), "provided".into())]
    );
}

#[test]
fn before_side_effects_is_asked_before_each_attempt_of_a_node_that_writes() {
    let human = json!([{"id": "upload", "at": "before_side_effects", "mode": "approve"}]);
    let writes = json!({"human": human, "requirements": {"permissions": ["shell:exec:twine*"]}});
    let p = one(task("a", writes, json!({}), 2), vec![]);
    let mut k = 0;
    let sim = Sim::run(p, move |c| match &c.checkpoint {
        Some(_) => answer(Some(GateOutcome::Approved), json!({})),
        None => {
            k += 1;
            if k == 1 { fail() } else { done(1) }
        }
    });
    assert_eq!(sim.asked(), ["a.upload", "a.upload#1"]);
    let kinds: Vec<bool> = sim.calls.iter().map(|c| c.checkpoint.is_some()).collect();
    assert_eq!(kinds, [true, false, true, false]);
    assert_eq!(sim.node("a")["status"], "succeeded");

    let reads = json!({"human": human, "requirements": {"permissions": ["fs:read:**"]}});
    let sim = Sim::run(one(task("a", reads, json!({}), 1), vec![]), |_| done(1));
    assert!(
        sim.asked().is_empty(),
        "a read-only node has no side effects to guard"
    );
}

#[test]
fn decisions_continue_within_max_parallel_nodes() {
    // Two independent nodes paused at `before_start`; both decided at once; `Sim` checks
    // that at most one call is in flight.
    let human = json!([{"id": "go", "at": "before_start", "mode": "approve"}]);
    let mut b = checked(human.clone(), json!({}), 1);
    b["id"] = json!("b");
    b["local_id"] = json!("b");
    let p = plan(
        vec![checked(human, json!({}), 1), b],
        &["a", "b"],
        json!([]),
        1,
    );
    let mut sim = Sim::run(p, |c| match &c.checkpoint {
        Some(_) => answer(None, json!({})),
        None => done(1),
    });
    assert_eq!(sim.st.awaiting_gates(), ["a.go", "b.go"]);
    let at = sim.at();
    sim.step(Event::Resumed { at: at.clone() });
    for name in ["a.go", "b.go"] {
        sim.step(Event::Decided {
            path: name.into(),
            response: GateResponse::decided(GateOutcome::Approved),
            at: at.clone(),
        });
    }
    sim.drain();
    assert_eq!(sim.st.status(), RunStatus::Succeeded);
    assert_eq!(sim.st.node_status("b"), Some(NodeStatus::Succeeded));
    sim.replays();
}

#[test]
fn a_checkpoint_the_handler_cannot_present_waits_for_a_decision() {
    let human = json!([{"id": "go", "at": "before_start", "mode": "approve"}]);
    let mut sim = Sim::run(one(checked(human, json!({}), 1), vec![]), |c| {
        match &c.checkpoint {
            Some(_) => CallResult::Failed(HandlerError::new(FailureClass::ToolError, "no channel")),
            None => done(1),
        }
    });
    assert_eq!(sim.st.awaiting_gates(), ["a.go"]);
    let r = sim.record();
    assert!(
        r["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "RT015")
    );
    sim.decide("a.go", GateOutcome::Approved, json!({}));
    assert_eq!(sim.st.status(), RunStatus::Succeeded);
    // A decision for what no longer waits changes nothing.
    let before = sim.record();
    sim.decide("a.go", GateOutcome::Rejected, json!({}));
    assert_eq!(sim.record()["nodes"], before["nodes"]);
}
