//! Compensation in the pure core: order, failures, budgets.

use super::super::sim_tests::*;
use crate::plan::Plan;
use crate::run::record::{Harness, NodeStatus, RunStatus};
use serde_json::{Value, json};
use std::sync::Arc;

/// a → b → c, where a and b are compensated by undo_a and undo_b.
fn compensated(extra: Value, undo_a_attempts: u32) -> Arc<Plan> {
    plan(
        "ags",
        vec![
            node(
                "a",
                "task",
                1,
                json!({"failure": {"compensation": "undo_a"}}),
            ),
            node(
                "b",
                "task",
                1,
                json!({"failure": {"compensation": "undo_b"}}),
            ),
            node("c", "task", 1, json!({})),
            node(
                "undo_a",
                "task",
                undo_a_attempts,
                json!({"failure": {"retry": {"backoff": "none"}}}),
            ),
            node("undo_b", "task", 1, json!({})),
        ],
        vec![seq("a", "b"), seq("b", "c")],
        &["a"],
        extra,
    )
}

#[test]
fn a_failed_run_compensates_in_reverse_completion_order() {
    let p = compensated(json!({}), 1);
    let mut s = Sim::start(p.clone(), "r");
    s.answer(1, ok());
    s.answer(1, ok());
    s.answer(1, fail());
    assert_eq!(s.st.status(), RunStatus::Running, "compensating");
    assert_eq!(s.answer(1, ok()).0, "compensate.b");
    assert_eq!(s.answer(1, ok()).0, "compensate.a");
    assert_eq!(s.st.status(), RunStatus::Failed);
    let rec = s.st.record(&Harness::default());
    let paths: Vec<(&str, &str, Option<&str>)> = rec
        .nodes
        .iter()
        .map(|n| {
            (
                n.scope_path.as_str(),
                n.status.as_str(),
                n.compensates.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        paths,
        [
            ("a", "succeeded", None),
            ("b", "succeeded", None),
            ("c", "failed", None),
            ("undo_a", "skipped", None),
            ("undo_b", "skipped", None),
            ("compensate.b", "succeeded", Some("b")),
            ("compensate.a", "succeeded", Some("a")),
        ]
    );
    assert_eq!(rec.nodes[3].skip_reason.as_deref(), Some("compensation"));
    assert_eq!(rec.nodes[5].node_id, "undo_b");
    s.check_replay(p);
}

#[test]
fn a_failed_compensation_is_reported_and_the_others_still_run() {
    let p = compensated(json!({}), 1);
    let mut s = Sim::start(p, "r");
    s.answer(1, ok());
    s.answer(1, ok());
    s.answer(1, fail());
    s.answer(1, fail()); // undo_b fails
    assert_eq!(s.answer(1, ok()).0, "compensate.a");
    assert_eq!(s.st.status(), RunStatus::Failed);
    let rec = s.st.record(&Harness::default());
    let d: Vec<_> = rec
        .diagnostics
        .iter()
        .filter(|d| d.code == "AGC315")
        .collect();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].node_id.as_deref(), Some("compensate.b"));
}

#[test]
fn a_run_that_succeeds_compensates_nothing() {
    let mut s = Sim::start(compensated(json!({}), 1), "r");
    for _ in 0..3 {
        s.answer(1, ok());
    }
    assert_eq!(s.st.status(), RunStatus::Succeeded);
    assert!(s.calls.is_empty());
}

#[test]
fn compensation_runs_past_a_spent_budget_with_its_own_retries() {
    // Two executions allowed: a and b run, c would be the third (RT061 stops the run);
    // the compensations still run, and undo_a's retry too.
    let p = compensated(
        json!({"constraints": {"max_parallel_nodes": 1, "max_node_executions": 2}}),
        2,
    );
    let mut s = Sim::start(p, "r");
    s.answer(1, ok());
    s.answer(1, ok());
    assert_eq!(s.answer(1, ok()).0, "compensate.b");
    assert_eq!(s.answer(1, fail()), ("compensate.a".to_string(), 1));
    assert_eq!(s.answer(1, ok()), ("compensate.a".to_string(), 2));
    let rec = s.st.record(&Harness::default());
    assert_eq!(rec.status, RunStatus::Failed);
    assert!(rec.diagnostics.iter().any(|d| d.code == "RT061"));
    assert_eq!(rec.usage.node_executions, Some(5));
    assert_eq!(s.status("c"), NodeStatus::Cancelled);
}

/// The record a run ends with, its values moved out of the state (`into_record`), is the
/// record as it stands: the order with compensations last, the runs they compensate, the
/// inputs, outputs and attempts, the edges taken.
#[test]
fn the_final_record_is_the_record_as_it_stands() {
    let p = compensated(json!({}), 1);
    let mut s = Sim::start(p, "r");
    s.answer(1, ok());
    s.answer(1, ok());
    s.answer(1, fail());
    s.answer(1, ok());
    s.answer(1, ok());
    assert_eq!(s.st.status(), RunStatus::Failed);
    let standing = s.st.record(&Harness::default());
    assert!(!standing.edges_taken.is_empty());
    assert!(standing.nodes.iter().any(|n| n.compensates.is_some()));
    assert!(standing.nodes.iter().any(|n| n.outputs.is_some()));
    assert_eq!(s.st.into_record(&Harness::default()), standing);
}
