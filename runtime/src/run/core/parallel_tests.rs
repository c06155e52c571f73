//! AWP parallel joins `any` and `n_of_m`, driven through the pure core.

use super::super::{Command, State};
use crate::plan::Plan;
use crate::run::event::{CallResult, Event};
use crate::run::handler::{Completion, FailureClass, HandlerError};
use crate::run::record::{AttemptStatus, NodeStatus, RunStatus};
use serde_json::{Map, Value, json};
use std::sync::Arc;

fn loc() -> Value {
    json!({"path": "t.yaml", "line": 1, "column": 1})
}

fn node(id: &str, kind: &str, region: Option<&str>, join: Value) -> Value {
    let mut n = json!({
        "id": id, "local_id": id.rsplit('/').next().unwrap(), "kind": kind,
        "origin_kind": kind, "inputs": [], "outputs": [], "join": join,
        "retry": {"max_attempts": 1}, "estimate": {}, "attributes": {}, "location": loc()
    });
    if let Some(r) = region {
        n["region"] = json!(r);
    }
    n
}

fn seq(from: &str, to: &str) -> Value {
    json!({"from": from, "to": to, "kind": "sequence", "outcomes": ["succeeded"],
           "implicit": false, "location": loc()})
}

/// start → research (branches a; b → b2; c) → research/join (`join`) → after.
fn plan(join: Value) -> Arc<Plan> {
    let all = json!({"mode": "all"});
    let r = Some("research");
    // The synthetic join names its fork, as the AWP front end lowers it.
    let mut join_node = node("research/join", "join", None, join);
    join_node["attributes"] = json!({"fork": "research"});
    Arc::new(
        Plan::from_value(json!({
            "format": "agc.plan/v1",
            "source": {"dialect": "awp", "path": "t.yaml"},
            "graph": {"id": "t", "title": null},
            "params": [], "entrypoints": ["research"],
            "constraints": {"max_parallel_nodes": 3},
            "nodes": [
                node("research", "fork", None, all.clone()),
                node("research/a", "task", r, all.clone()),
                node("research/b", "task", r, all.clone()),
                node("research/b2", "task", r, all.clone()),
                node("research/c", "task", r, all.clone()),
                join_node,
                node("after", "task", None, all),
            ],
            "edges": [
                seq("research/b", "research/b2"),
                seq("research", "research/join"),
                seq("research/join", "after"),
            ],
            "regions": [{"owner": "research", "kind": "parallel",
                "entrypoints": ["research/a", "research/b", "research/c"],
                "nodes": ["research/a", "research/b", "research/b2", "research/c"],
                "location": loc()}],
            "links": [],
            "bounds": {"max_node_executions": 0.0, "projected_cost_usd": 0.0,
                       "projected_wall_clock_seconds": 0.0, "unestimated_nodes": 0}
        }))
        .expect("plan"),
    )
}

struct Sim {
    st: State,
    calls: Vec<(String, u32)>,
}

impl Sim {
    fn start(plan: Arc<Plan>) -> Sim {
        let mut s = Sim {
            st: State::new(plan).expect("state"),
            calls: Vec::new(),
        };
        s.feed(Event::Started {
            run_id: "r".into(),
            graph_id: "t".into(),
            graph_digest: None,
            params: Map::new(),
            context: Map::new(),
            at: "2026-01-01T00:00:00Z".into(),
        });
        s
    }

    fn feed(&mut self, ev: Event) {
        for c in self.st.step(ev) {
            if let Command::Call(c) = c {
                self.calls.push((c.path, c.attempt));
            }
        }
    }

    fn answer(&mut self, path: &str, ok: bool) {
        let i = self
            .calls
            .iter()
            .position(|(p, _)| p == path)
            .unwrap_or_else(|| panic!("{path} was not called: {:?}", self.calls));
        let (path, attempt) = self.calls.remove(i);
        let result = if ok {
            CallResult::Completed(Completion::default())
        } else {
            CallResult::Failed(HandlerError::new(FailureClass::ToolError, "boom"))
        };
        self.feed(Event::CallFinished {
            path,
            attempt,
            result,
            at: "2026-01-01T00:00:01Z".into(),
        });
    }

    fn status(&self, path: &str) -> NodeStatus {
        self.st.node_status(path).expect("run")
    }
}

#[test]
fn n_of_m_cancels_the_branches_still_running_once_met() {
    let mut s = Sim::start(plan(json!({"mode": "n_of", "count": 2})));
    s.answer("research.a", true);
    s.answer("research.b", true);
    assert_eq!(
        s.status("research.b2"),
        NodeStatus::Running,
        "b's branch goes on"
    );
    s.answer("research.c", true);
    // Two branches (a, c) succeeded: b's branch is cancelled mid-call.
    assert_eq!(s.status("research.b2"), NodeStatus::Cancelled);
    assert_eq!(s.status("research"), NodeStatus::Succeeded);
    assert_eq!(
        s.calls,
        [("research.b2".to_string(), 1), ("after".to_string(), 1)]
    );
    let b2 = s.st.runs.iter().find(|r| r.path == "research.b2").unwrap();
    assert_eq!(b2.skip_reason.as_deref(), Some("parallel_join_met"));
    assert_eq!(b2.attempts[0].status, AttemptStatus::Cancelled);
    // Its late answer changes nothing.
    s.answer("research.b2", true);
    assert_eq!(s.status("research.b2"), NodeStatus::Cancelled);
    s.answer("after", true);
    assert_eq!(s.st.status(), RunStatus::Succeeded);
}

#[test]
fn n_of_m_fails_the_fork_when_too_few_branches_succeed() {
    let mut s = Sim::start(plan(json!({"mode": "n_of", "count": 2})));
    s.answer("research.a", false);
    s.answer("research.b", true);
    s.answer("research.b2", true);
    assert_eq!(
        s.status("research"),
        NodeStatus::Running,
        "c may still make two"
    );
    s.answer("research.c", false);
    assert_eq!(s.status("research"), NodeStatus::Failed);
    assert_eq!(s.status("after"), NodeStatus::Skipped);
    assert_eq!(s.st.status(), RunStatus::Failed);
}

#[test]
fn any_succeeds_despite_a_failed_branch_and_all_still_fails() {
    let mut s = Sim::start(plan(json!({"mode": "any"})));
    s.answer("research.a", false);
    assert_eq!(s.status("research"), NodeStatus::Running);
    s.answer("research.c", true);
    assert_eq!(s.status("research.b"), NodeStatus::Cancelled);
    assert_eq!(s.status("research.b2"), NodeStatus::Cancelled);
    assert_eq!(s.status("research"), NodeStatus::Succeeded);
    // `all`: the failure fails the fork, every branch runs.
    let mut s = Sim::start(plan(json!({"mode": "all"})));
    s.answer("research.a", false);
    s.answer("research.c", true);
    s.answer("research.b", true);
    s.answer("research.b2", true);
    assert_eq!(s.status("research"), NodeStatus::Failed);
}
