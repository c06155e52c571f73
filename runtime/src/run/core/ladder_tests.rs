//! The failure ladder driven through the pure core: every fallback strategy, the escalation
//! targets, `on_exhausted`, `timeout_action`, and criteria evidence.

use super::super::Call;
use super::super::sim::*;
use crate::run::event::CallResult;
use crate::run::handler::GateOutcome;
use crate::run::record::RunStatus;
use serde_json::{Value, json};
use std::sync::Arc;

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

/// One random node: (attempts, fallback steps, escalation, on_exhausted, timeout_action,
/// checkpoints (stage, mode, required), judged, predecessor).
type Spec = (
    u32,
    Vec<u8>,
    u8,
    u8,
    u8,
    Vec<(u8, u8, bool)>,
    bool,
    Option<usize>,
);

fn spec() -> impl proptest::strategy::Strategy<Value = Spec> {
    use proptest::prelude::*;
    (
        1u32..3,
        proptest::collection::vec(0u8..5, 0..3),
        0u8..4,
        0u8..4,
        0u8..4,
        proptest::collection::vec((0u8..6, 0u8..4, any::<bool>()), 0..3),
        any::<bool>(),
        proptest::option::of(0usize..8),
    )
}

fn hash(parts: &[&str], seed: u64) -> u64 {
    let mut h: u64 = seed ^ 0x9e37_79b9_7f4a_7c15;
    for b in parts.iter().flat_map(|p| p.bytes().chain([0])) {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

fn random_plan(specs: &[Spec], max_par: u32) -> Arc<crate::plan::Plan> {
    let n = specs.len();
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let mut entries = Vec::new();
    for (i, (attempts, steps, esc, exhausted, timeout, human, judged, pred)) in
        specs.iter().enumerate()
    {
        let other = format!("n{}", (i + 1) % n);
        let fallback: Vec<Value> = steps
            .iter()
            .map(|s| match s {
                0 => json!({"strategy": "skip"}),
                1 => json!({"strategy": "alternate_node", "node": other}),
                2 => json!({"strategy": "human_takeover"}),
                3 => json!({"strategy": "degrade_outputs", "outputs": ["n"]}),
                _ => json!({"strategy": "relax_criteria", "criteria": ["big"]}),
            })
            .collect();
        let on_exhausted = ["fail", "skip", "escalate", "succeed_degraded"][*exhausted as usize];
        let timeout_action = ["fail", "retry", "escalate", "partial"][*timeout as usize];
        let mut failure = json!({
            "fallback": fallback,
            "on_exhausted": on_exhausted,
            "timeout_action": timeout_action,
        });
        match esc {
            1 => failure["escalation"] = json!({"to": "human"}),
            2 => failure["escalation"] = json!({"to": "node", "node": other}),
            3 => failure["escalation"] = json!({"to": "supervisor"}),
            _ => {}
        }
        let stages = [
            "before_start",
            "before_side_effects",
            "after_outputs",
            "on_criteria_failure",
            "on_failure",
            "on_escalation",
        ];
        let human: Vec<Value> = human
            .iter()
            .map(|(st, m, req)| {
                let mode = ["approve", "review", "input", "notify"][*m as usize];
                json!({"at": stages[*st as usize], "mode": mode, "required": req})
            })
            .collect();
        let mut attributes = json!({"failure": failure, "human": human});
        let mut exprs = json!({});
        if *judged {
            attributes["success"] = json!({"criteria": [
                {"id": "big", "kind": "expression", "description": "d"}]});
            exprs = json!({"criteria.big": n_at_least(3)});
        }
        let id = format!("n{i}");
        nodes.push(task(&id, attributes, exprs, *attempts));
        match pred.map(|p| p % n).filter(|&p| p < i) {
            Some(p) => edges.push(json!({
                "from": format!("n{p}"), "to": id, "kind": "sequence",
                "outcomes": ["succeeded"], "implicit": false, "location": loc()
            })),
            None => entries.push(id),
        }
    }
    let entries: Vec<&str> = entries.iter().map(String::as_str).collect();
    plan(nodes, &entries, json!(edges), max_par)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(150))]

    /// Random ladders and checkpoints, random answers and decisions: the run always ends
    /// (every decision made), every node run is terminal, attempts stay within the ladder's
    /// bounds, and the journal replays to the same record.
    #[test]
    fn random_ladders_and_checkpoints_always_end(
        specs in proptest::collection::vec(spec(), 1..5),
        seed in proptest::prelude::any::<u64>(),
        max_par in 1u32..3,
    ) {
        use crate::run::handler::{FailureClass, HandlerError};
        let p = random_plan(&specs, max_par);
        let mut sim = Sim::run(Arc::clone(&p), move |c: &Call| {
            let attempt = c.attempt.to_string();
            match &c.checkpoint {
                Some(k) => match hash(&[&k.name, &attempt], seed) % 4 {
                    0 => answer(Some(GateOutcome::Approved), json!({})),
                    1 => answer(Some(GateOutcome::Approved), json!({"n": 4})),
                    2 => answer(Some(GateOutcome::Rejected), json!({})),
                    _ => answer(None, json!({})),
                },
                None => match hash(&[&c.path, &attempt, &c.node.to_string()], seed) % 5 {
                    0 => fail(),
                    1 => CallResult::TimedOut { seconds: 1.0 },
                    2 => CallResult::Failed(HandlerError::new(FailureClass::Transient, "t")),
                    k => done(k as i64),
                },
            }
        });
        let mut rounds = 0;
        while sim.st.status() == RunStatus::AwaitingHuman {
            rounds += 1;
            proptest::prop_assert!(rounds < 50, "the run keeps pausing");
            for name in sim.st.awaiting_gates() {
                let o = if hash(&[&name], seed).is_multiple_of(3) {
                    GateOutcome::Rejected
                } else {
                    GateOutcome::Approved
                };
                sim.decide(&name, o, json!({}));
            }
        }
        let status = sim.st.status();
        proptest::prop_assert!(
            matches!(status, RunStatus::Succeeded | RunStatus::Failed | RunStatus::Partial),
            "run ended {status:?}"
        );
        for (path, s) in sim.st.node_statuses() {
            proptest::prop_assert!(s.is_terminal(), "{path} ended {s:?}");
        }
        for r in sim.st.runs.iter() {
            let (attempts, steps, ..) = &specs[r.node];
            let bound = *attempts as usize + steps.len() + 1;
            proptest::prop_assert!(r.attempts.len() <= bound, "{}: {} attempts", r.path, r.attempts.len());
        }
        sim.replays();
    }
}
