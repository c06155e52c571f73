//! Success criteria and expression decisions, driven through the pure core.

use super::super::{Command, RunId, State};
use crate::plan::Plan;
use crate::run::event::{CallResult, Event};
use crate::run::handler::Completion;
use crate::run::record::{AttemptStatus, NodeStatus, RunStatus};
use serde_json::{Map, Value, json};
use std::sync::Arc;

fn loc() -> Value {
    json!({"path": "t.yaml", "line": 1, "column": 1})
}

/// `self.outputs.<field> <op> <int>` in core form.
fn cmp(field: &str, op: &str, n: i64) -> Value {
    json!({"lang": "agx", "source": format!("self.outputs.{field} {op} {n}"), "location": loc(),
        "core": {"id": 0, "kind": "binary", "op": op,
            "left": {"id": 1, "kind": "member", "field": field,
                "target": {"id": 2, "kind": "member", "field": "outputs",
                    "target": {"id": 3, "kind": "ident", "name": "self"}}},
            "right": {"id": 4, "kind": "literal", "value": {"type": "int", "value": n}}}})
}

/// `params.size <op> <int>` in core form.
fn param_cmp(op: &str, n: i64) -> Value {
    json!({"lang": "agx", "source": format!("params.size {op} {n}"), "location": loc(),
        "core": {"id": 0, "kind": "binary", "op": op,
            "left": {"id": 1, "kind": "member", "field": "size",
                "target": {"id": 2, "kind": "ident", "name": "params"}},
            "right": {"id": 3, "kind": "literal", "value": {"type": "int", "value": n}}}})
}

fn plan(node: Value, params: Value) -> Arc<Plan> {
    Arc::new(
        Plan::from_value(json!({
            "format": "agc.plan/v1",
            "source": {"dialect": "ags", "path": "t.yaml"},
            "graph": {"id": "t", "title": null},
            "params": params, "entrypoints": ["n"], "constraints": {},
            "nodes": [node], "edges": [], "regions": [], "links": [],
            "bounds": {"max_node_executions": 0.0, "projected_cost_usd": 0.0, "projected_wall_clock_seconds": 0.0, "unestimated_nodes": 0}
        }))
        .expect("plan"),
    )
}

fn task(success: Value, exprs: Value, attempts: u32) -> Value {
    json!({
        "id": "n", "local_id": "n", "kind": "task", "origin_kind": "task",
        "inputs": [], "outputs": [], "exprs": exprs, "join": {"mode": "all"},
        "retry": {"max_attempts": attempts}, "estimate": {},
        "attributes": {"success": success}, "location": loc()
    })
}

/// Runs `plan`; call number `k` (0-based) returns `outputs(k)`.
fn drive(plan: Arc<Plan>, params: Map<String, Value>, outputs: impl Fn(usize) -> Value) -> State {
    let mut st = State::new(plan).expect("state");
    let mut queue = vec![Event::Started {
        run_id: "r".into(),
        graph_id: "t".into(),
        graph_digest: None,
        params,
        context: Map::new(),
        at: "2026-01-01T00:00:00Z".into(),
    }];
    let mut calls = 0;
    while let Some(ev) = queue.pop() {
        for c in st.step(ev) {
            match c {
                Command::Call(call) => {
                    let Value::Object(o) = outputs(calls) else {
                        panic!("outputs are an object")
                    };
                    calls += 1;
                    queue.push(Event::CallFinished {
                        path: call.path,
                        attempt: call.attempt,
                        result: CallResult::Completed(Completion {
                            outputs: o,
                            usage: Default::default(),
                        }),
                        at: "2026-01-01T00:00:01Z".into(),
                    });
                }
                // A retry's backoff: fired at once (one call at a time, nothing to order).
                Command::Timer(t) => queue.push(Event::TimerFired {
                    id: t.id,
                    path: t.path,
                    at: t.fire_at,
                }),
                _ => {}
            }
        }
        assert!(calls < 100, "the run does not end");
    }
    st
}

fn statuses(st: &State) -> Vec<AttemptStatus> {
    st.runs[RunId::at(0)]
        .attempts
        .iter()
        .map(|a| a.status)
        .collect()
}

#[test]
fn a_failing_expression_criterion_is_criteria_failed_and_retried() {
    let success = json!({"criteria": [{"id": "enough", "kind": "expression", "description": "d"}]});
    let p = plan(
        task(success, json!({"criteria.enough": cmp("n", "ge", 3)}), 3),
        json!([]),
    );
    let st = drive(p, Map::new(), |k| json!({"n": k + 2}));
    // n = 2 fails, n = 3 passes.
    assert_eq!(
        statuses(&st),
        [AttemptStatus::CriteriaFailed, AttemptStatus::Succeeded]
    );
    assert_eq!(st.status(), RunStatus::Succeeded);
    let err = st.runs[RunId::at(0)].attempts[0]
        .error
        .as_deref()
        .unwrap_or_default();
    assert!(err.contains("`enough`"), "{err}");
}

#[test]
fn criteria_that_never_hold_fail_the_node_after_its_attempts() {
    let success = json!({"criteria": [{"id": "enough", "kind": "expression", "description": "d"}]});
    let p = plan(
        task(success, json!({"criteria.enough": cmp("n", "ge", 3)}), 2),
        json!([]),
    );
    let st = drive(p, Map::new(), |_| json!({"n": 0}));
    assert_eq!(statuses(&st).len(), 2);
    assert_eq!(st.node_status("n"), Some(NodeStatus::Failed));
    assert_eq!(st.status(), RunStatus::Failed);
}

#[test]
fn regex_json_schema_advisory_and_handler_kinds() {
    let success = json!({"criteria": [
        {"id": "greets", "kind": "regex", "description": "d", "output": "text", "pattern": "^hello", "flags": "i"},
        {"id": "shape", "kind": "json_schema", "description": "d", "output": "doc",
         "schema": {"type": "object", "required": ["title"]}},
        {"id": "style", "kind": "expression", "description": "d", "severity": "advisory"},
        {"id": "lint", "kind": "command", "description": "d", "run": "false"}
    ]});
    let exprs = json!({"criteria.style": cmp("n", "gt", 100)});
    let p = plan(task(success.clone(), exprs.clone(), 1), json!([]));
    let st = drive(
        p,
        Map::new(),
        |_| json!({"text": "Hello there", "doc": {"title": "x"}, "n": 1}),
    );
    // The advisory criterion fails and does not gate; `command` is the handler's.
    assert_eq!(statuses(&st), [AttemptStatus::Succeeded]);
    let p = plan(task(success, exprs, 1), json!([]));
    let st = drive(
        p,
        Map::new(),
        |_| json!({"text": "goodbye", "doc": {}, "n": 1}),
    );
    assert_eq!(statuses(&st), [AttemptStatus::CriteriaFailed]);
    let err = st.runs[RunId::at(0)].attempts[0]
        .error
        .clone()
        .unwrap_or_default();
    assert!(err.contains("`greets`") && err.contains("`shape`"), "{err}");
}

#[test]
fn mode_any_needs_one_required_criterion() {
    let success = json!({"mode": "any", "criteria": [
        {"id": "a", "kind": "expression", "description": "d"},
        {"id": "b", "kind": "expression", "description": "d"}
    ]});
    let exprs = json!({"criteria.a": cmp("n", "gt", 5), "criteria.b": cmp("n", "lt", 2)});
    let p = plan(task(success.clone(), exprs.clone(), 1), json!([]));
    assert_eq!(
        statuses(&drive(p, Map::new(), |_| json!({"n": 1}))),
        [AttemptStatus::Succeeded]
    );
    let p = plan(task(success, exprs, 1), json!([]));
    assert_eq!(
        statuses(&drive(p, Map::new(), |_| json!({"n": 3}))),
        [AttemptStatus::CriteriaFailed]
    );
}

fn decision(default: Option<&str>) -> Value {
    let mut d = json!({"evaluator": "expression", "branches": [
        {"label": "big", "description": "d", "when": "params.size > 10"},
        {"label": "small", "description": "d", "when": "params.size < 3"}
    ]});
    if let Some(l) = default {
        d["default_branch"] = json!(l);
    }
    json!({
        "id": "n", "local_id": "n", "kind": "decision", "origin_kind": "decision",
        "inputs": [], "outputs": [{"name": "decision", "type": "string", "required": true}],
        "exprs": {"branches.big": param_cmp("gt", 10), "branches.small": param_cmp("lt", 3)},
        "join": {"mode": "all"}, "retry": {"max_attempts": 1}, "estimate": {},
        "attributes": {"decision": d}, "location": loc()
    })
}

#[test]
fn expression_decisions_take_the_first_true_branch_without_a_call() {
    let params = json!([{"name": "size", "type": "integer", "required": true}]);
    for (size, default, want) in [
        (20, None, Some("big")),
        (1, None, Some("small")),
        (5, Some("medium"), Some("medium")),
        (5, None, None),
    ] {
        let mut m = Map::new();
        m.insert("size".into(), json!(size));
        let st = drive(plan(decision(default), params.clone()), m, |_| {
            panic!("an expression decision makes no call")
        });
        assert_eq!(
            st.runs[RunId::at(0)].decision.as_deref(),
            want,
            "size {size}"
        );
        let status = if want.is_some() {
            NodeStatus::Succeeded
        } else {
            NodeStatus::Failed
        };
        assert_eq!(st.node_status("n"), Some(status));
        assert!(st.runs[RunId::at(0)].attempts.is_empty());
    }
}
