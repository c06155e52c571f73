//! Timers in the pure core: backoff, waits, gate timeouts, resumes.

use super::super::sim_tests::*;
use super::super::{Command, State, TimerKind};
use crate::plan::Plan;
use crate::run::event::{CallResult, Event};
use crate::run::handler::GateResponse;
use crate::run::record::{Harness, NodeStatus, RunStatus};
use serde_json::{Value, json};
use std::sync::Arc;

fn retrying(retry: Value, attempts: u32) -> Arc<Plan> {
    plan(
        "ags",
        vec![node(
            "a",
            "task",
            attempts,
            json!({"failure": {"retry": retry}}),
        )],
        vec![],
        &["a"],
        json!({}),
    )
}

fn delays(retry: Value, attempts: u32, run_id: &str) -> Vec<f64> {
    let mut s = Sim::start(retrying(retry, attempts), run_id);
    let mut out = Vec::new();
    for _ in 1..attempts {
        s.answer(0, fail());
        assert!(s.calls.is_empty(), "the retry waits for its backoff");
        let t = s.fire();
        assert_eq!(t.kind, TimerKind::Backoff);
        let fire: jiff::Timestamp = t.fire_at.parse().unwrap();
        out.push((fire.as_millisecond() - START_MS) as f64 / 1000.0);
        assert_eq!(s.calls.len(), 1, "the retry is issued when its timer fires");
    }
    s.answer(0, fail());
    assert_eq!(s.st.status(), RunStatus::Failed);
    out
}

#[test]
fn backoff_schedules_follow_the_policy() {
    // Fire times since the start; every call answers at once, so they add up.
    let exp = json!({"backoff": "exponential", "initial_delay_seconds": 2, "jitter": false});
    assert_eq!(delays(exp, 5, "r"), [2.0, 6.0, 14.0, 30.0]);
    let capped = json!({"initial_delay_seconds": 10, "max_delay_seconds": 15, "jitter": false});
    assert_eq!(delays(capped, 4, "r"), [10.0, 25.0, 40.0]);
    let linear = json!({"backoff": "linear", "initial_delay_seconds": 1.5, "jitter": false});
    assert_eq!(delays(linear, 4, "r"), [1.5, 4.5, 9.0]);
    let fixed = json!({"backoff": "fixed", "initial_delay_seconds": 3, "jitter": false});
    assert_eq!(delays(fixed, 3, "r"), [3.0, 6.0]);
}

#[test]
fn jitter_is_deterministic_per_run_and_stays_within_half_to_whole() {
    let j = json!({"backoff": "fixed", "initial_delay_seconds": 8});
    let a = delays(j.clone(), 2, "run-a");
    assert_eq!(a, delays(j.clone(), 2, "run-a"), "same run id, same delay");
    let spread: Vec<f64> = (0..20)
        .map(|i| delays(j.clone(), 2, &format!("run-{i}"))[0])
        .collect();
    assert!(spread.iter().all(|d| (4.0..8.0).contains(d)), "{spread:?}");
    let mut distinct = spread.clone();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    assert!(distinct.len() > 10, "jitter spreads runs out: {spread:?}");
}

#[test]
fn backoff_none_retries_at_once_and_other_dialects_do_not_wait() {
    let mut s = Sim::start(retrying(json!({"backoff": "none"}), 2), "r");
    s.answer(0, fail());
    assert_eq!(s.calls, [("a".to_string(), 2)]);
    assert!(s.timers.is_empty());
    let p = plan(
        "agent-graph",
        vec![node(
            "a",
            "task",
            2,
            json!({"failure": {"retry": {"retry_on": ["any"]}}}),
        )],
        vec![],
        &["a"],
        json!({}),
    );
    let mut s = Sim::start(p, "r");
    s.answer(0, fail());
    assert_eq!(s.calls.len(), 1);
    assert!(s.timers.is_empty());
}

#[test]
fn awp_backoff_multiplies_its_interval_and_caps_it() {
    let p = plan(
        "awp",
        vec![node(
            "a",
            "task",
            4,
            json!({"retry": {"max_attempts": 4, "initial_interval": "1s",
                             "backoff_coefficient": 3, "max_interval": 5000}}),
        )],
        vec![],
        &["a"],
        json!({}),
    );
    let mut s = Sim::start(p, "r");
    let mut fired = Vec::new();
    for _ in 0..3 {
        s.answer(0, fail());
        fired.push(s.fire().fire_at);
    }
    assert_eq!(fired, [at(1), at(4), at(9)]);
}

#[test]
fn a_due_retry_waits_for_a_free_slot() {
    // a fails and backs off; b starts in the free slot; a's timer fires while b runs.
    let p = plan(
        "ags",
        vec![
            node(
                "a",
                "task",
                2,
                json!({"failure": {"retry": {"backoff": "fixed", "initial_delay_seconds": 1, "jitter": false}}}),
            ),
            node("b", "task", 1, json!({})),
        ],
        vec![],
        &["a", "b"],
        json!({}),
    );
    let mut s = Sim::start(p, "r");
    assert_eq!(s.calls, [("a".to_string(), 1)]);
    s.answer(0, fail());
    assert_eq!(s.calls, [("b".to_string(), 1)]);
    s.fire();
    assert_eq!(s.calls.len(), 1, "the slot is b's until it answers");
    s.answer(0, ok());
    assert_eq!(s.calls, [("a".to_string(), 2)]);
    s.answer(0, ok());
    assert_eq!(s.st.status(), RunStatus::Succeeded);
}

#[test]
fn stale_and_unknown_firings_are_ignored() {
    let p = retrying(json!({"backoff": "fixed", "jitter": false}), 2);
    let mut s = Sim::start(p.clone(), "r");
    s.answer(0, fail());
    let t = s.timers[0].clone();
    s.feed(Event::TimerFired {
        id: t.id + 7,
        path: t.path.clone(),
        at: at(1),
    });
    s.feed(Event::TimerFired {
        id: t.id,
        path: "elsewhere".into(),
        at: at(1),
    });
    assert!(s.calls.is_empty(), "neither firing is the timer's");
    s.fire();
    assert_eq!(s.calls.len(), 1);
    // The same firing again: already fired.
    s.feed(Event::TimerFired {
        id: t.id,
        path: t.path,
        at: at(3),
    });
    assert_eq!(s.calls.len(), 1);
    s.answer(0, ok());
    assert_eq!(s.st.status(), RunStatus::Succeeded);
    s.check_replay(p);
}

#[test]
fn a_resume_hands_pending_timers_to_the_driver_again() {
    let p = retrying(
        json!({"backoff": "fixed", "initial_delay_seconds": 30, "jitter": false}),
        2,
    );
    let mut s = Sim::start(p.clone(), "r");
    s.answer(1, fail());
    let before = s.timers.clone();
    // A new process: replay, then resume.
    let mut st = State::new(p).expect("state");
    for ev in &s.events {
        st.step(ev.clone());
    }
    assert_eq!(st.pending_timers(), before);
    let cmds = st.step(Event::Resumed { at: at(5) });
    assert_eq!(cmds, vec![Command::Timer(before[0].clone())]);
    assert_eq!(
        before[0].fire_at,
        at(31),
        "fire_at is kept across the resume"
    );
}

fn gate_plan(gate: Value, policy: Value) -> Arc<Plan> {
    plan(
        "ags",
        vec![
            node("approve", "gate", 1, json!({"gate": gate})),
            node("ship", "task", 1, json!({})),
        ],
        vec![seq("approve", "ship")],
        &["approve"],
        json!({"attrs": {"policy": policy}}),
    )
}

fn pending_gate(p: Arc<Plan>) -> Sim {
    let mut s = Sim::start(p, "r");
    s.answer(1, CallResult::Gate(GateResponse::pending()));
    assert_eq!(s.st.status(), RunStatus::AwaitingHuman, "the run pauses");
    s
}

#[test]
fn a_gate_timeout_approves_fails_or_escalates() {
    let mut s = pending_gate(gate_plan(
        json!({"mode": "approve", "timeout_seconds": 60, "on_timeout": "approve"}),
        json!({}),
    ));
    assert_eq!(s.timers[0].kind, TimerKind::HumanTimeout);
    assert_eq!(s.timers[0].fire_at, at(61));
    s.fire();
    assert_eq!(s.status("approve"), NodeStatus::Succeeded);
    assert_eq!(s.calls, [("ship".to_string(), 1)]);
    let rec = s.st.record(&Harness::default());
    let gate = &rec.nodes[0];
    assert_eq!(gate.decision.as_deref(), Some("approved"));
    assert_eq!(gate.human_events.len(), 1);
    assert_eq!(gate.human_events[0].outcome, "timed_out");
    assert!(
        gate.human_events[0]
            .note
            .as_deref()
            .unwrap()
            .contains("approve")
    );

    let mut s = pending_gate(gate_plan(
        json!({"mode": "approve", "timeout_seconds": 5, "on_timeout": "fail"}),
        json!({}),
    ));
    s.fire();
    assert_eq!(s.status("approve"), NodeStatus::Failed);
    assert_eq!(s.status("ship"), NodeStatus::Skipped);
    assert_eq!(s.st.status(), RunStatus::Failed);
    let rec = s.st.record(&Harness::default());
    assert_eq!(
        rec.nodes[0].attempts[0].status,
        crate::run::record::AttemptStatus::Timeout
    );
    assert!(!rec.nodes[0].escalated);

    let mut s = pending_gate(gate_plan(
        json!({"mode": "approve", "timeout_seconds": 5, "on_timeout": "escalate"}),
        json!({}),
    ));
    s.fire();
    let rec = s.st.record(&Harness::default());
    assert_eq!(rec.status, RunStatus::Failed);
    assert!(rec.nodes[0].escalated);
}

#[test]
fn policy_defaults_apply_and_hold_arms_nothing() {
    // The policy's timeout and action apply to a gate that sets neither.
    let s = pending_gate(gate_plan(
        json!({"mode": "approve"}),
        json!({"default_human_timeout_seconds": 7, "on_human_timeout": "fail"}),
    ));
    assert_eq!(s.timers.len(), 1);
    assert_eq!(s.timers[0].fire_at, at(8));
    // `hold` (the default action) waits for ever: nothing is armed.
    let s = pending_gate(gate_plan(
        json!({"mode": "approve", "timeout_seconds": 60}),
        json!({}),
    ));
    assert!(s.timers.is_empty());
    assert!(s.st.pending_timers().is_empty());
}

#[test]
fn a_decision_before_the_timeout_cancels_it() {
    let p = gate_plan(
        json!({"mode": "approve", "timeout_seconds": 60, "on_timeout": "fail"}),
        json!({}),
    );
    let mut s = pending_gate(p.clone());
    let t = s.timers[0].clone();
    s.feed(Event::Decided {
        path: "approve".into(),
        response: GateResponse::decided(crate::run::handler::GateOutcome::Approved),
        at: at(10),
    });
    assert!(s.timers.is_empty(), "the driver was told to cancel it");
    // A late firing (a durable sleep cannot be withdrawn) changes nothing.
    s.feed(Event::TimerFired {
        id: t.id,
        path: t.path,
        at: at(61),
    });
    assert_eq!(s.status("approve"), NodeStatus::Succeeded);
    s.answer(1, ok());
    assert_eq!(s.st.status(), RunStatus::Succeeded);
    s.check_replay(p);
}

#[test]
fn a_timed_wait_holds_its_successors_until_it_fires() {
    let p = plan(
        "awp",
        vec![
            node(
                "cool_down",
                "wait",
                1,
                json!({"wait": {"kind": "duration", "ms": 300000}}),
            ),
            // A wait with neither a time nor a signal (as an agh watch source lowers).
            node("watch", "wait", 1, json!({})),
            node("next", "task", 1, json!({})),
        ],
        vec![seq("cool_down", "watch"), seq("watch", "next")],
        &["cool_down"],
        json!({}),
    );
    let mut s = Sim::start(p.clone(), "r");
    assert_eq!(s.status("cool_down"), NodeStatus::Running);
    assert_eq!(s.st.status(), RunStatus::Running, "a wait is not a pause");
    assert!(s.calls.is_empty());
    assert_eq!(s.timers[0].fire_at, at(300));
    s.fire();
    // The watch has no time: it completes at once (AGC307 said so at the start). A signal
    // wait pauses instead (`signals_tests`).
    assert_eq!(s.status("watch"), NodeStatus::Succeeded);
    assert_eq!(s.calls, [("next".to_string(), 1)]);
    s.answer(1, ok());
    assert_eq!(s.st.status(), RunStatus::Succeeded);
    let rec = s.st.record(&Harness::default());
    assert_eq!(rec.nodes[0].finished_at.as_deref(), Some(at(300).as_str()));
    let agc307: Vec<_> = rec
        .diagnostics
        .iter()
        .filter(|d| d.code == "AGC307")
        .collect();
    assert_eq!(agc307.len(), 1, "only the untimed wait: {agc307:?}");
    assert!(agc307[0].message.contains("`watch`"));
    s.check_replay(p);
}

#[test]
fn a_wait_until_a_past_time_completes_at_once() {
    let p = plan(
        "awp",
        vec![node(
            "w",
            "wait",
            1,
            json!({"wait": {"kind": "until", "until": "2025-06-01T00:00:00Z"}}),
        )],
        vec![],
        &["w"],
        json!({}),
    );
    let s = Sim::start(p, "r");
    assert!(s.timers.is_empty());
    assert_eq!(s.st.status(), RunStatus::Succeeded);
}

#[test]
fn a_journal_from_before_backoff_replays_its_immediate_retries() {
    // What agc wrote before retries waited: attempt 2 starts right after attempt 1 failed.
    let p = retrying(json!({"backoff": "fixed", "jitter": false}), 2);
    let mut st = State::new(p).expect("state");
    let events = vec![
        Event::Started {
            run_id: "r".into(),
            graph_id: "t".into(),
            graph_digest: None,
            params: Default::default(),
            context: Default::default(),
            at: at(0),
        },
        Event::CallStarted {
            path: "a".into(),
            attempt: 1,
            at: at(1),
        },
        Event::CallFinished {
            path: "a".into(),
            attempt: 1,
            result: fail(),
            at: at(2),
        },
        Event::CallStarted {
            path: "a".into(),
            attempt: 2,
            at: at(3),
        },
        Event::CallFinished {
            path: "a".into(),
            attempt: 2,
            result: ok(),
            at: at(4),
        },
    ];
    for ev in events {
        st.step(ev);
    }
    assert_eq!(st.status(), RunStatus::Succeeded);
    assert!(st.pending_timers().is_empty());
    let rec = st.record(&Harness::default());
    assert_eq!(rec.nodes[0].attempts.len(), 2);
    assert_eq!(rec.nodes[0].attempts[1].started_at, at(3));
}
