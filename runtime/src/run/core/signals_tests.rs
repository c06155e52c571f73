//! AWP signal waits and interrupts, driven through the pure core.

use super::super::sim::{Sim, answer, done, loc};
use crate::plan::{NodeKind, Plan};
use crate::run::handler::GateOutcome;
use crate::run::record::{NodeStatus, RunStatus};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// start → pay (wait for the signal `payment`) → review (interrupt) → done; the state has
/// `notes` (reducer `append`), `approved_by` and `intent`.
fn plan() -> Arc<Plan> {
    let node = |id: &str, kind: &str, origin: &str, attributes: Value, outputs: Value| {
        json!({
            "id": id, "local_id": id, "kind": kind, "origin_kind": origin,
            "inputs": [], "outputs": outputs, "retry": {"max_attempts": 1},
            "attributes": attributes, "location": loc()
        })
    };
    let seq = |from: &str, to: &str| {
        json!({"from": from, "to": to, "kind": "sequence", "outcomes": ["succeeded"],
               "implicit": false, "location": loc()})
    };
    let resume_schema = json!({"type": "object", "required": ["intent"],
        "properties": {"intent": {"type": "string"}, "notes": {"type": "array"}}});
    Arc::new(
        Plan::from_value(json!({
            "format": "agc.plan/v2",
            "source": {"dialect": "awp", "path": "t.yaml"},
            "graph": {"id": "t", "title": null},
            "params": [
                {"name": "notes", "type": "array", "required": false},
                {"name": "approved_by", "type": "string", "required": false},
                {"name": "intent", "type": "string", "required": false,
                 "enum": ["billing", "bug"]}
            ],
            "attrs": {"reducers": {"notes": "append", "approved_by": "overwrite",
                                   "intent": "overwrite"}},
            "entrypoints": ["pay"], "constraints": {},
            "nodes": [
                node("pay", "wait", "wait",
                     json!({"wait": {"kind": "signal", "signal": "payment"}}), json!([])),
                node("review", "gate", "interrupt",
                     json!({"resume_schema": resume_schema,
                            "config": {"prompt": "Which intent?"}}),
                     json!([{"name": "intent", "type": "string", "required": true},
                            {"name": "notes", "type": "array", "required": false}])),
                node("done", "task", "step", json!({}), json!([])),
            ],
            "edges": [seq("pay", "review"), seq("review", "done")],
            "regions": [], "links": [],
            "bounds": {"max_node_executions": 0.0, "projected_cost_usd": 0.0,
                       "projected_wall_clock_seconds": 0.0, "unestimated_nodes": 0}
        }))
        .expect("plan"),
    )
}

fn opened() -> Map<String, Value> {
    json!({"notes": ["opened"]}).as_object().cloned().unwrap()
}

/// The signal is held back (pending); the interrupt answers `review` now.
fn sim(review: Value) -> Sim {
    Sim::run_with(plan(), opened(), move |c| match c.kind {
        NodeKind::Wait => answer(None, json!({})),
        NodeKind::Gate => answer(Some(GateOutcome::Approved), review.clone()),
        _ => done(0),
    })
}

fn state(s: &Sim) -> Value {
    Value::Object(s.st.dialect_state.clone().unwrap())
}

#[test]
fn a_signal_wait_pauses_until_its_signal_and_reduces_the_payload() {
    let mut s = sim(json!({"intent": "billing"}));
    assert_eq!(s.st.status(), RunStatus::AwaitingHuman);
    assert_eq!(s.st.awaiting_gates(), vec!["pay".to_string()]);
    let pay = s.node("pay");
    assert_eq!(pay["status"], "awaiting_human");
    assert_eq!(pay["x-signal"], "payment");
    assert_eq!(s.calls.len(), 1, "the wait asked for its signal once");
    assert_eq!(s.calls[0].kind, NodeKind::Wait);

    s.decide(
        "pay",
        GateOutcome::Approved,
        json!({"notes": ["paid"], "approved_by": "alice"}),
    );
    assert_eq!(s.st.status(), RunStatus::Succeeded);
    let pay = s.node("pay");
    assert_eq!(
        pay["outputs"],
        json!({"notes": ["paid"], "approved_by": "alice"})
    );
    assert_eq!(pay["human_events"][0]["at_stage"], "signal");
    assert_eq!(pay["human_events"][0]["outcome"], "provided");
    // `append` concatenated the payload's notes to the initial state's.
    assert_eq!(state(&s)["notes"], json!(["opened", "paid"]));
    assert_eq!(state(&s)["approved_by"], "alice");
    s.replays();
}

#[test]
fn an_interrupt_overwrites_the_state_where_a_signal_reduces() {
    let mut s = sim(json!({"intent": "billing", "notes": ["reviewed"]}));
    s.decide("pay", GateOutcome::Approved, json!({"notes": ["paid"]}));
    assert_eq!(s.st.status(), RunStatus::Succeeded);
    // The resume payload replaced `notes` (no reducer), and is the node's output as it is:
    // no `decision` key in it or in the state.
    let st = state(&s);
    assert_eq!(st["notes"], json!(["reviewed"]));
    assert_eq!(st["intent"], "billing");
    assert!(st.get("decision").is_none(), "{st}");
    let review = s.node("review");
    assert_eq!(
        review["outputs"],
        json!({"intent": "billing", "notes": ["reviewed"]})
    );
    assert_eq!(review["decision"], "approved");
    assert_eq!(review["human_events"][0]["at_stage"], "interrupt");
    assert_eq!(review["human_events"][0]["outcome"], "provided");
}

#[test]
fn a_payload_that_does_not_fit_the_state_fails_the_wait() {
    let mut s = sim(json!({"intent": "billing"}));
    s.decide("pay", GateOutcome::Approved, json!({"approved_by": 42}));
    assert_eq!(s.st.status(), RunStatus::Failed);
    assert_eq!(s.st.node_status("pay"), Some(NodeStatus::Failed));
    let rec = s.record();
    let d = &rec["diagnostics"][0];
    assert_eq!(d["code"], "AGC325");
    assert_eq!(d["node_id"], "pay");
    let msg = d["message"].as_str().unwrap();
    assert!(
        msg.contains("`payment`") && msg.contains("`approved_by`") && msg.contains("RT031"),
        "{msg}"
    );
    assert_eq!(s.node("pay")["attempts"][0]["status"], "failed");
    // Nothing of the payload reached the state.
    assert_eq!(state(&s), json!({"notes": ["opened"]}));
    // A value outside the declared `enum` does not fit either.
    let mut s = sim(json!({"intent": "billing"}));
    s.decide("pay", GateOutcome::Approved, json!({"intent": "sales"}));
    assert_eq!(s.record()["diagnostics"][0]["code"], "AGC325");
    s.replays();
}

#[test]
fn a_resume_payload_that_does_not_fit_its_schema_fails_the_interrupt() {
    let mut s = sim(json!({"notes": ["no intent"]}));
    s.decide("pay", GateOutcome::Approved, json!({}));
    assert_eq!(s.st.status(), RunStatus::Failed);
    assert_eq!(s.st.node_status("review"), Some(NodeStatus::Failed));
    let rec = s.record();
    assert_eq!(rec["diagnostics"][0]["code"], "AGC326");
    assert!(
        rec["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("intent"),
        "{}",
        rec["diagnostics"][0]["message"]
    );
    // An empty signal payload is delivered: recorded `approved`, the state unchanged.
    assert_eq!(s.node("pay")["human_events"][0]["outcome"], "approved");
    assert_eq!(state(&s), json!({"notes": ["opened"]}));
}

#[test]
fn a_refused_signal_fails_the_wait_and_a_decision_for_another_path_does_nothing() {
    let mut s = sim(json!({"intent": "billing"}));
    s.decide("payment", GateOutcome::Approved, json!({}));
    assert_eq!(
        s.st.status(),
        RunStatus::AwaitingHuman,
        "the signal's name is not the wait's path"
    );
    s.decide("pay", GateOutcome::Rejected, json!({}));
    assert_eq!(s.st.status(), RunStatus::Failed);
    let pay = s.node("pay");
    assert_eq!(pay["human_events"][0]["outcome"], "rejected");
    assert_eq!(
        pay["attempts"][0]["error"],
        "the signal `payment` was refused"
    );
    s.replays();
}

#[test]
fn a_handler_that_delivers_the_signal_at_once_does_not_pause() {
    let s = Sim::run_with(plan(), opened(), |c| match c.kind {
        NodeKind::Wait => answer(Some(GateOutcome::Approved), json!({"notes": ["paid"]})),
        NodeKind::Gate => answer(Some(GateOutcome::Approved), json!({"intent": "bug"})),
        _ => done(0),
    });
    assert_eq!(s.st.status(), RunStatus::Succeeded);
    let st = state(&s);
    assert_eq!(st["notes"], json!(["opened", "paid"]));
    assert_eq!(st["intent"], "bug");
    // A signal wait's question is no AGC307 construct any more.
    assert!(
        s.record()["diagnostics"]
            .as_array()
            .is_none_or(Vec::is_empty)
    );
}
