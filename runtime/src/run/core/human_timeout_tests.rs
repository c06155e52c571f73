//! Checkpoint timeouts through the pure core: every stage × `on_timeout`, the policy's
//! defaults, `hold`, and a decision racing its timeout. The driver fires a pending timeout
//! once nothing else is outstanding, as the fixed-clock driver does.

use super::super::sim::*;
use crate::plan::Plan;
use crate::run::core::TimerKind;
use crate::run::event::{CallResult, Event};
use crate::run::handler::{GateOutcome, GateResponse};
use crate::run::record::RunStatus;
use serde_json::{Value, json};
use std::sync::Arc;

/// Node `a` with one checkpoint `h` at `at` that times out after 30 s with `on`, a
/// `failure` block, and (with `criteria`) the criterion `n >= 3`.
fn node(at: &str, on: &str, failure: Value, criteria: bool, attempts: u32) -> Value {
    let human = json!([{"id": "h", "at": at, "mode": "approve",
                        "timeout_seconds": 30, "on_timeout": on}]);
    let mut attributes = json!({"human": human, "failure": failure});
    let mut exprs = json!({});
    if criteria {
        attributes["success"] = json!({"criteria": [
            {"id": "big", "kind": "expression", "description": "n is big enough"}]});
        exprs = json!({"criteria.big": n_at_least(3)});
    }
    task("a", attributes, exprs, attempts)
}

/// The plan with the human-timeout defaults of an AGS `policy` (as lowering makes them).
fn with_policy(p: Arc<Plan>, policy: Value) -> Arc<Plan> {
    let mut p = (*p).clone();
    p.human_timeouts = crate::plan::HumanTimeouts::from_policy(&policy);
    Arc::new(p)
}

/// Nobody answers the checkpoint `a.h`; other questions get `other`; the node's own calls
/// return `n`, in order (the last repeats).
fn silent(other: CallResult, ns: &'static [i64]) -> impl FnMut(&super::super::Call) -> CallResult {
    let mut calls = 0;
    move |c| match &c.checkpoint {
        Some(k) if k.id == "h" => answer(None, json!({})),
        Some(_) => other.clone(),
        None => {
            calls += 1;
            match ns[(calls - 1).min(ns.len() - 1)] {
                0 => fail(),
                n => done(n),
            }
        }
    }
}

fn no_answer() -> CallResult {
    answer(None, json!({}))
}

/// The node's calls that were not checkpoint questions.
fn own_calls(sim: &Sim) -> usize {
    sim.calls.iter().filter(|c| c.checkpoint.is_none()).count()
}

fn timed_out_at(a: &Value, stage: &str, on: &str) {
    let ev = a["human_events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["outcome"] == "timed_out")
        .unwrap_or_else(|| panic!("no timed_out event: {a}"));
    assert_eq!(ev["checkpoint_id"], "h");
    assert_eq!(ev["at_stage"], stage);
    assert_eq!(ev["mode"], "approve");
    assert!(ev.get("actor").is_none(), "nobody answered: {ev}");
    let note = ev["note"].as_str().unwrap();
    assert!(
        note.contains("no answer within 30 s") && note.contains(&format!("on_timeout: {on}")),
        "{note}"
    );
}

#[test]
fn approve_goes_on_as_an_approval_at_every_stage() {
    // before_start and before_side_effects: the node makes its call.
    for stage in ["before_start", "before_side_effects"] {
        let sim = Sim::run(
            one(node(stage, "approve", json!({}), false, 1), vec![]),
            silent(no_answer(), &[1]),
        );
        let a = sim.node("a");
        assert_eq!(a["status"], "succeeded", "{stage}");
        assert_eq!(statuses(&a), ["succeeded"]);
        timed_out_at(&a, stage, "approve");
        sim.replays();
    }
    // after_outputs: the outputs under review stand.
    let sim = Sim::run(
        one(
            node("after_outputs", "approve", json!({}), false, 1),
            vec![],
        ),
        silent(no_answer(), &[1]),
    );
    let a = sim.node("a");
    assert_eq!(a["outputs"]["n"], 1);
    assert_eq!(a["status"], "succeeded");
    timed_out_at(&a, "after_outputs", "approve");
    // The event is stamped when the timer fired, 30 s after the question paused the run.
    let asked: jiff::Timestamp = "2026-01-01T00:00:04Z".parse().unwrap();
    let at: jiff::Timestamp = a["human_events"][0]["at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(at.duration_since(asked).as_secs() >= 30, "{at}");
    // on_criteria_failure: the failed criteria are overruled.
    let sim = Sim::run(
        one(
            node("on_criteria_failure", "approve", json!({}), true, 1),
            vec![],
        ),
        silent(no_answer(), &[1]),
    );
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(a["attempts"][0]["success"]["passed"], false);
    timed_out_at(&a, "on_criteria_failure", "approve");
    // on_failure: the ladder goes on (the retry succeeds).
    let sim = Sim::run(
        one(node("on_failure", "approve", json!({}), false, 2), vec![]),
        silent(no_answer(), &[0, 5]),
    );
    let a = sim.node("a");
    assert_eq!(statuses(&a), ["failed", "succeeded"]);
    timed_out_at(&a, "on_failure", "approve");
    // on_escalation: the last call's outputs settle the escalation.
    let block = json!({"escalation": {"to": "human"}});
    let sim = Sim::run(
        one(node("on_escalation", "approve", block, true, 1), vec![]),
        silent(no_answer(), &[1]),
    );
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(a["escalated"], true);
    assert_eq!(a["outputs"]["n"], 1);
    timed_out_at(&a, "on_escalation", "approve");
    sim.replays();
}

#[test]
fn fail_rejects_or_fails_the_attempt_with_timeout() {
    // before_start and before_side_effects: a veto, the node makes no call.
    for stage in ["before_start", "before_side_effects"] {
        let sim = Sim::run(
            one(node(stage, "fail", json!({}), false, 3), vec![]),
            silent(no_answer(), &[1]),
        );
        let a = sim.node("a");
        assert_eq!(a["status"], "failed", "{stage}");
        assert_eq!(own_calls(&sim), 0);
        assert!(a.get("attempts").is_none());
        timed_out_at(&a, stage, "fail");
        assert_eq!(sim.st.status(), RunStatus::Failed);
    }
    // after_outputs: the attempt fails `timeout`; `retry_on: [timeout]` asks again, and an
    // answer in time then approves.
    let block = json!({"retry": {"retry_on": ["timeout"], "backoff": "none"}});
    let mut asked = 0;
    let sim = Sim::run(
        one(node("after_outputs", "fail", block, false, 2), vec![]),
        move |c| match &c.checkpoint {
            Some(_) => {
                asked += 1;
                answer((asked == 2).then_some(GateOutcome::Approved), json!({}))
            }
            None => done(4),
        },
    );
    let a = sim.node("a");
    assert_eq!(statuses(&a), ["timeout", "succeeded"]);
    assert!(
        a["attempts"][0]["error"]
            .as_str()
            .unwrap()
            .contains("no human answer at checkpoint `h` within 30 s")
    );
    assert_eq!(a["status"], "succeeded");
    sim.replays();
    // on_criteria_failure: the attempt fails `timeout` (not retried by default).
    let sim = Sim::run(
        one(
            node("on_criteria_failure", "fail", json!({}), true, 3),
            vec![],
        ),
        silent(no_answer(), &[1]),
    );
    let a = sim.node("a");
    assert_eq!(statuses(&a), ["timeout"]);
    assert_eq!(a["status"], "failed");
    // on_failure: straight to on_exhausted, no retry left to run.
    let block = json!({"on_exhausted": "skip"});
    let sim = Sim::run(
        one(node("on_failure", "fail", block, false, 3), vec![]),
        silent(no_answer(), &[0]),
    );
    let a = sim.node("a");
    assert_eq!(statuses(&a), ["failed"]);
    assert_eq!(a["status"], "skipped");
    assert_eq!(a["skip_reason"], "on_exhausted");
    // on_escalation: on_exhausted.
    let block = json!({"escalation": {"to": "human"}, "on_exhausted": "succeed_degraded"});
    let sim = Sim::run(
        one(node("on_escalation", "fail", block, true, 1), vec![]),
        silent(no_answer(), &[1]),
    );
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(a["escalated"], true);
    assert_eq!(sim.st.status(), RunStatus::Partial, "degraded");
    timed_out_at(&a, "on_escalation", "fail");
}

#[test]
fn escalate_goes_to_the_escalation() {
    // before_start, no escalation block: escalated to a human, who supplies the outputs.
    let sim = Sim::run(
        one(
            node("before_start", "escalate", json!({}), false, 1),
            vec![],
        ),
        silent(answer(Some(GateOutcome::Approved), json!({"n": 7})), &[1]),
    );
    let a = sim.node("a");
    assert_eq!(own_calls(&sim), 0);
    assert_eq!(a["status"], "succeeded");
    assert_eq!(a["escalated"], true);
    assert_eq!(a["outputs"]["n"], 7);
    assert_eq!(
        events(&a),
        [
            ("h".into(), "before_start".into(), "timed_out".into()),
            (
                "escalation".into(),
                "on_escalation".into(),
                "provided".into()
            )
        ]
    );
    let handed = sim
        .calls
        .iter()
        .filter_map(|c| c.checkpoint.as_ref())
        .find(|k| k.id == "escalation")
        .expect("the escalation was asked");
    assert!(
        handed.error.as_deref().unwrap().contains("no human answer"),
        "the hand-off says why: {:?}",
        handed.error
    );
    sim.replays();
    // after_outputs: the attempt is closed `timeout`, then the escalation (rejected here:
    // on_exhausted fails the node). No retry runs although two attempts remain.
    let sim = Sim::run(
        one(
            node("after_outputs", "escalate", json!({}), false, 3),
            vec![],
        ),
        silent(answer(Some(GateOutcome::Rejected), json!({})), &[1]),
    );
    let a = sim.node("a");
    assert_eq!(statuses(&a), ["timeout"]);
    assert_eq!(a["status"], "failed");
    assert_eq!(a["escalated"], true);
    // on_escalation: the escalation happened already, so on_exhausted.
    let block = json!({"escalation": {"to": "human"}, "on_exhausted": "skip"});
    let sim = Sim::run(
        one(node("on_escalation", "escalate", block, true, 1), vec![]),
        silent(no_answer(), &[1]),
    );
    let a = sim.node("a");
    assert_eq!(a["status"], "skipped");
    assert_eq!(a["skip_reason"], "on_exhausted");
}

#[test]
fn hand_offs_take_the_policy_and_a_takeover_that_times_out_is_passed_over() {
    let block = json!({"fallback": [{"strategy": "human_takeover"}, {"strategy": "skip"}]});
    let mut a = node("after_outputs", "approve", block, true, 1);
    a["attributes"].as_object_mut().unwrap().remove("human");
    let p = with_policy(
        one(a, vec![]),
        json!({"default_human_timeout_seconds": 60, "on_human_timeout": "fail"}),
    );
    let sim = Sim::run(p, silent(no_answer(), &[1]));
    let a = sim.node("a");
    assert_eq!(a["status"], "skipped");
    assert_eq!(a["skip_reason"], "fallback");
    assert_eq!(
        events(&a),
        [(
            "takeover".into(),
            "human_takeover".into(),
            "timed_out".into()
        )]
    );
    sim.replays();
}

#[test]
fn the_policy_fills_in_and_hold_waits_for_ever() {
    // A checkpoint without a timeout of its own takes the policy's time and action.
    let human = json!([{"id": "h", "at": "before_start", "mode": "approve"}]);
    let plain = task("a", json!({"human": human}), json!({}), 1);
    let policy = json!({"default_human_timeout_seconds": 5, "on_human_timeout": "approve"});
    let sim = Sim::run(
        with_policy(one(plain.clone(), vec![]), policy.clone()),
        silent(no_answer(), &[1]),
    );
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(events(&a)[0].2, "timed_out");
    // Its own `on_timeout: hold` beats the policy: nothing is armed, the run pauses.
    let held = node("before_start", "hold", json!({}), false, 1);
    let sim = Sim::run(
        with_policy(one(held, vec![]), policy),
        silent(no_answer(), &[1]),
    );
    assert_eq!(sim.st.status(), RunStatus::AwaitingHuman);
    assert!(sim.st.pending_timers().is_empty());
    // No time anywhere (the policy's action alone arms nothing).
    let sim = Sim::run(
        with_policy(one(plain, vec![]), json!({"on_human_timeout": "fail"})),
        silent(no_answer(), &[1]),
    );
    assert_eq!(sim.st.status(), RunStatus::AwaitingHuman);
    assert!(sim.st.pending_timers().is_empty());
    // An optional checkpoint is not waited for, so it has nothing to time out.
    let optional = json!([{"id": "h", "at": "before_start", "mode": "approve",
                           "required": false, "timeout_seconds": 1, "on_timeout": "fail"}]);
    let sim = Sim::run(
        one(task("a", json!({"human": optional}), json!({}), 1), vec![]),
        silent(no_answer(), &[1]),
    );
    let a = sim.node("a");
    assert_eq!(a["status"], "succeeded");
    assert_eq!(events(&a)[0].2, "notified");
}

#[test]
fn a_decision_in_time_cancels_the_timeout_and_a_late_one_is_ignored() {
    use super::super::sim_tests::{Sim as Manual, at};
    let p = one(node("before_start", "fail", json!({}), false, 1), vec![]);
    // In time: the decision cancels the timer; its late firing changes nothing.
    let mut s = Manual::start(Arc::clone(&p), "r");
    s.answer(1, no_answer());
    assert_eq!(s.st.status(), RunStatus::AwaitingHuman);
    assert_eq!(s.timers.len(), 1);
    let t = s.timers[0].clone();
    assert_eq!(t.kind, TimerKind::HumanTimeout);
    assert_eq!(t.path, "a", "the timer belongs to the node run");
    assert_eq!(t.fire_at, at(31));
    assert_eq!(
        s.st.awaited_by(t.id),
        Some(("a.h".to_string(), "checkpoint"))
    );
    s.feed(Event::Resumed { at: at(10) });
    s.feed(Event::Decided {
        path: "a.h".into(),
        response: GateResponse::decided(GateOutcome::Approved),
        at: at(10),
    });
    assert!(s.timers.is_empty(), "the driver was told to cancel it");
    s.feed(Event::TimerFired {
        id: t.id,
        path: t.path.clone(),
        at: at(31),
    });
    assert_eq!(s.calls, [("a".to_string(), 1)], "the node runs");
    s.answer(1, done(1));
    assert_eq!(s.st.status(), RunStatus::Succeeded);
    s.check_replay(Arc::clone(&p));
    // Too late: the timeout applied, and a decision for the checkpoint is ignored.
    let mut s = Manual::start(Arc::clone(&p), "r");
    s.answer(1, no_answer());
    s.fire();
    assert_eq!(s.st.status(), RunStatus::Failed);
    assert!(s.st.awaiting_gates().is_empty());
    s.feed(Event::Decided {
        path: "a.h".into(),
        response: GateResponse::decided(GateOutcome::Approved),
        at: at(40),
    });
    assert!(s.calls.is_empty());
    assert_eq!(s.st.status(), RunStatus::Failed);
    s.check_replay(p);
}
