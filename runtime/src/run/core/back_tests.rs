//! Back edges: passes, bounds, the default bound.

use super::super::{Command, State};
use crate::plan::Plan;
use crate::run::event::{CallResult, Event};
use crate::run::handler::Completion;
use crate::run::record::{NodeStatus, RunStatus};
use serde_json::{Map, Value, json};
use std::sync::Arc;

fn loc() -> Value {
    json!({"path": "t.yaml", "line": 1, "column": 1})
}

fn node(id: &str) -> Value {
    json!({
        "id": id, "local_id": id, "kind": "task", "origin_kind": "action",
        "inputs": [], "outputs": [], "join": {"mode": "all"}, "retry": {"max_attempts": 1},
        "estimate": {}, "attributes": {}, "location": loc()
    })
}

fn edge(from: &str, to: &str, kind: &str, on: &[&str], bound: Option<u32>) -> Value {
    let mut e = json!({
        "from": from, "to": to, "kind": kind, "outcomes": [],
        "on": on, "implicit": false, "location": loc()
    });
    if on.contains(&"completed") {
        e["outcomes"] = json!(["succeeded"]);
    }
    if let Some(b) = bound {
        e["bound"] = json!(b);
    }
    e
}

/// start → implement → review; review → merge on `completed`; review → implement again on
/// `changes_requested` (a back edge with `bound`).
fn review_plan(bound: Option<u32>) -> Arc<Plan> {
    let plan = json!({
        "format": "agc.plan/v1",
        "source": {"dialect": "agent-graph", "path": "t.yaml"},
        "graph": {"id": "t", "title": null},
        "params": [], "entrypoints": ["start"], "constraints": {"max_parallel_nodes": 2},
        "nodes": [node("start"), node("implement"), node("review"), node("merge")],
        "edges": [
            edge("start", "implement", "sequence", &["completed"], None),
            edge("implement", "review", "sequence", &["completed"], None),
            edge("review", "merge", "sequence", &["completed"], None),
            edge("review", "implement", "back", &["changes_requested"], bound),
        ],
        "regions": [], "links": [],
        "bounds": {"max_node_executions": 0.0, "projected_cost_usd": 0.0, "projected_wall_clock_seconds": 0.0, "unestimated_nodes": 0}
    });
    Arc::new(Plan::from_value(plan).expect("plan"))
}

/// Runs `plan`, answering each call with `outcome(path)` as the `outcome` output (or no
/// output for `None`). Returns the final state and the call paths in order.
fn drive(plan: Arc<Plan>, outcome: impl Fn(&str) -> Option<&'static str>) -> (State, Vec<String>) {
    let mut st = State::new(plan).expect("state");
    let mut queue = vec![Event::Started {
        run_id: "r".into(),
        graph_id: "t".into(),
        graph_digest: None,
        params: Map::new(),
        context: Map::new(),
        at: "2026-01-01T00:00:00Z".into(),
    }];
    let mut calls = Vec::new();
    while let Some(ev) = queue.pop() {
        for c in st.step(ev) {
            if let Command::Call(call) = c {
                calls.push(call.path.clone());
                let mut outputs = Map::new();
                if let Some(o) = outcome(&call.path) {
                    outputs.insert("outcome".into(), json!(o));
                }
                queue.insert(
                    0,
                    Event::CallFinished {
                        path: call.path,
                        attempt: call.attempt,
                        result: CallResult::Completed(Completion {
                            outputs,
                            usage: Default::default(),
                        }),
                        at: "2026-01-01T00:00:01Z".into(),
                    },
                );
            }
        }
        assert!(calls.len() < 1000, "the run does not end");
    }
    (st, calls)
}

#[test]
fn a_back_edge_reruns_the_cycle_as_a_new_pass() {
    let (st, calls) = drive(review_plan(Some(3)), |p| match p {
        "review" => Some("changes_requested"),
        "review#1" => Some("completed"),
        _ => None,
    });
    assert_eq!(
        calls,
        [
            "start",
            "implement",
            "review",
            "implement#1",
            "review#1",
            "merge"
        ]
    );
    assert_eq!(st.status(), RunStatus::Succeeded);
    assert_eq!(st.node_status("merge"), Some(NodeStatus::Succeeded));
    assert!(st.diagnostics.is_empty(), "{:?}", st.diagnostics);
    let back: Vec<_> = st
        .edges_taken
        .iter()
        .filter(|e| e.from == "review" && e.to.starts_with("implement"))
        .collect();
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].to, "implement#1");
    assert_eq!(back[0].kind, "conditional");
    assert!(back[0].active);
    // The record lists passes after the first, in plan order.
    let rec = st.record(&Default::default());
    let paths: Vec<&str> = rec.nodes.iter().map(|n| n.scope_path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "start",
            "implement",
            "implement#1",
            "review",
            "review#1",
            "merge"
        ]
    );
}

#[test]
fn at_the_bound_the_edge_is_not_followed_and_the_run_goes_on() {
    let (st, calls) = drive(review_plan(Some(2)), |p| {
        p.starts_with("review").then_some("changes_requested")
    });
    assert_eq!(
        calls,
        [
            "start",
            "implement",
            "review",
            "implement#1",
            "review#1",
            "implement#2",
            "review#2"
        ]
    );
    // review#2 asked for changes again: the bound stops the cycle, merge's edge is inactive.
    assert_eq!(st.node_status("merge"), Some(NodeStatus::Skipped));
    assert_eq!(st.status(), RunStatus::Succeeded);
    let codes: Vec<&str> = st.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["AGC306"]);
    assert_eq!(st.diagnostics[0].node_id.as_deref(), Some("review#2"));
    let last = st
        .edges_taken
        .iter()
        .rfind(|e| e.from == "review#2" && e.to.starts_with("implement"))
        .expect("back edge");
    assert!(!last.active);
    assert_eq!(last.to, "implement#2");
}

#[test]
fn a_back_edge_without_a_bound_gets_the_default_and_a_warning() {
    let (st, calls) = drive(review_plan(None), |p| {
        p.starts_with("review").then_some("changes_requested")
    });
    let reviews = calls.iter().filter(|c| c.starts_with("review")).count();
    assert_eq!(reviews as u32, super::DEFAULT_BOUND + 1);
    let codes: Vec<&str> = st.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["AGC305", "AGC306"]);
}

#[test]
fn nodes_reads_the_latest_pass_and_replay_gives_the_same_state() {
    let outcome = |p: &str| match p {
        "review" => Some("changes_requested"),
        "review#1" => Some("completed"),
        _ => None,
    };
    let (a, _) = drive(review_plan(Some(3)), outcome);
    let (b, _) = drive(review_plan(Some(3)), outcome);
    assert_eq!(a.node_statuses(), b.node_statuses());
    let run = a.scopes[0].run_of(&a.pos, 2).expect("review");
    assert_eq!(a.runs[run].path, "review#1");
}
