//! Human checkpoints driven through the pure core: every stage and mode, `when`,
//! `required`, pauses and decisions.

use super::super::sim::*;
use crate::run::event::{CallResult, Event};
use crate::run::handler::{FailureClass, GateOutcome, GateResponse, HandlerError};
use crate::run::record::{NodeStatus, RunStatus};
use serde_json::{Value, json};

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

#[test]
fn an_input_checkpoint_supplies_values_into_the_outputs() {
    let human = json!([{"id": "fill", "at": "after_outputs", "mode": "input",
        "collect": {"note": {"type": "string"}}}]);
    let sim = Sim::run(one(checked(human, json!({}), 1), vec![]), |c| {
        match &c.checkpoint {
            Some(k) => {
                assert_eq!(k.mode, "input");
                answer(
                    Some(GateOutcome::Approved),
                    json!({"note": "from a person"}),
                )
            }
            None => done(1),
        }
    });
    let a = sim.node("a");
    assert_eq!(a["outputs"], json!({"n": 1, "note": "from a person"}));
    assert_eq!(
        events(&a),
        [("fill".into(), "after_outputs".into(), "provided".into())]
    );

    // Values are checked against `collect`: a wrong type, or a required value missing,
    // fails the attempt.
    for (given, code) in [(json!({"note": 5}), "RT031"), (json!({}), "RT033")] {
        let human = json!([{"id": "fill", "at": "after_outputs", "mode": "input",
            "collect": {"note": {"type": "string"}}}]);
        let answered = given.clone();
        let sim = Sim::run(
            one(checked(human, json!({}), 1), vec![]),
            move |c| match &c.checkpoint {
                Some(_) => answer(Some(GateOutcome::Approved), answered.clone()),
                None => done(1),
            },
        );
        let a = sim.node("a");
        assert_eq!(a["status"], "failed", "{given}");
        let r = sim.record();
        let codes: Vec<&str> = r["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap())
            .collect();
        assert!(codes.contains(&code), "{given}: {codes:?}");
    }
}

/// A map item cancelled while its checkpoint waits (`fail_fast` after a sibling failed) takes
/// no decision: the run ends, and a late decision changes nothing.
#[test]
fn a_cancelled_run_takes_no_decision() {
    let item = json!({
        "id": "mp/item", "local_id": "item", "region": "mp", "kind": "task",
        "origin_kind": "task", "retry": {"max_attempts": 1},
        "attributes": {"human": [{"id": "go", "at": "before_start", "mode": "approve"}]},
        "location": loc()
    });
    let mut owner = task("mp", json!({}), json!({}), 1);
    owner["kind"] = json!("map");
    owner["outputs"] = json!([]);
    let p = crate::plan::Plan::from_value(json!({
        "format": "agc.plan/v2",
        "source": {"dialect": "ags", "path": "t.yaml"},
        "graph": {"id": "t", "title": null},
        "params": [], "entrypoints": ["mp"], "constraints": {"max_parallel_nodes": 2},
        "nodes": [owner, item], "edges": [], "links": [],
        "regions": [{"owner": "mp", "kind": "map",
            "over": expr("[0, 1]", json!(["list", 0, 1])), "as": "it", "index_as": "index", "max_items": 5,
            "max_parallel": 2, "on_item_failure": "fail_fast", "collect": {},
            "entrypoints": ["mp/item"], "nodes": ["mp/item"], "location": loc()}],
        "bounds": {"max_node_executions": 0.0, "projected_cost_usd": 0.0,
                   "projected_wall_clock_seconds": 0.0, "unestimated_nodes": 0}
    }))
    .expect("plan");
    // Item 0 waits at its checkpoint; item 1's is approved and its call fails.
    let mut sim = Sim::run(std::sync::Arc::new(p), |c| {
        match (&c.checkpoint, c.path.as_str()) {
            (Some(_), "mp[0].item") => answer(None, json!({})),
            (Some(_), _) => answer(Some(GateOutcome::Approved), json!({})),
            (None, _) => CallResult::Failed(HandlerError::new(FailureClass::ToolError, "no")),
        }
    });
    assert_eq!(sim.st.status(), RunStatus::Failed);
    assert_eq!(
        sim.st.node_status("mp[0].item"),
        Some(NodeStatus::Cancelled)
    );
    let before = sim.record();
    sim.decide("mp[0].item.go", GateOutcome::Approved, json!({}));
    assert_eq!(
        sim.st.node_status("mp[0].item"),
        Some(NodeStatus::Cancelled)
    );
    assert_eq!(sim.record()["nodes"], before["nodes"]);
    assert_eq!(
        sim.calls.iter().filter(|c| c.checkpoint.is_none()).count(),
        1
    );
}

/// A checkpoint question in flight when the process died is asked again on resume, under
/// the same name.
#[test]
fn a_question_in_flight_is_asked_again_after_a_crash() {
    use super::super::{Command, State};
    let human = json!([{"id": "go", "at": "before_start", "mode": "approve"}]);
    let p = one(checked(human, json!({}), 1), vec![]);
    let mut st = State::new(std::sync::Arc::clone(&p)).unwrap();
    let started = Event::Started {
        run_id: "r".into(),
        graph_id: "t".into(),
        graph_digest: None,
        params: serde_json::Map::new(),
        context: serde_json::Map::new(),
        at: "2026-01-01T00:00:00Z".into(),
    };
    let asked: Vec<Command> = st.step(started.clone());
    let Some(Command::Call(first)) = asked.first() else {
        panic!("the checkpoint is asked first: {asked:?}")
    };
    let call_started = Event::CallStarted {
        path: first.path.clone(),
        attempt: first.attempt,
        at: "2026-01-01T00:00:01Z".into(),
    };
    // The process dies here; a new one replays the journal and resumes.
    let mut again = State::new(p).unwrap();
    again.step(started);
    again.step(call_started);
    let cmds = again.step(Event::Resumed {
        at: "2026-01-01T00:00:02Z".into(),
    });
    let Some(Command::Call(call)) = cmds.first() else {
        panic!("the question is asked again: {cmds:?}")
    };
    assert!(call.resumed);
    assert_eq!(call.attempt, first.attempt);
    assert_eq!(
        call.checkpoint.as_ref().map(|c| c.name.as_str()),
        Some("a.go")
    );
}
