//! A synchronous driver of the pure core for the ladder and checkpoint tests: plans built
//! from JSON, calls answered by a closure, decisions fed as events. Timers (retry backoff)
//! fire as the fixed-clock driver fires them: once no call is outstanding, the clock jumping
//! to their time.

use super::{Call, Command, State, Timer};
use crate::plan::Plan;
use crate::run::event::{CallResult, Event};
use crate::run::handler::{Completion, FailureClass, GateOutcome, GateResponse, HandlerError};
use crate::run::record::Harness;
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::sync::Arc;

pub(super) fn loc() -> Value {
    json!({"path": "t.yaml", "line": 1, "column": 1})
}

pub(super) fn expr(source: &str, core: Value) -> Value {
    json!({"lang": "agx", "source": source, "core": core, "location": loc()})
}

pub(super) fn template(source: &str, core: Value) -> Value {
    json!({"lang": "agx-template", "source": source, "core": core, "location": loc()})
}

/// `self.outputs.n >= k`.
pub(super) fn n_at_least(k: i64) -> Value {
    expr(
        &format!("self.outputs.n >= {k}"),
        json!([">=", ["$", "self", "outputs", "n"], k]),
    )
}

/// A task node `id` with output `n` (integer) and `extra` attributes / exprs.
pub(super) fn task(id: &str, attributes: Value, exprs: Value, attempts: u32) -> Value {
    json!({
        "id": id, "local_id": id, "kind": "task", "origin_kind": "task",
        "outputs": [{"name": "n", "type": "integer", "required": true},
                    {"name": "note", "type": "string", "required": false}],
        "exprs": exprs, "retry": {"max_attempts": attempts},
        "attributes": attributes, "location": loc()
    })
}

pub(super) fn plan(
    nodes: Vec<Value>,
    entrypoints: &[&str],
    edges: Value,
    max_parallel: u32,
) -> Arc<Plan> {
    Arc::new(
        Plan::from_value(json!({
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
pub(super) fn one(a: Value, others: Vec<Value>) -> Arc<Plan> {
    let mut nodes = vec![a];
    nodes.extend(others);
    plan(nodes, &["a"], json!([]), 1)
}

pub(super) fn done(n: i64) -> CallResult {
    let mut o = Map::new();
    o.insert("n".into(), json!(n));
    CallResult::Completed(Completion {
        outputs: o,
        usage: Default::default(),
    })
}

pub(super) fn fail() -> CallResult {
    CallResult::Failed(HandlerError::new(FailureClass::ToolError, "boom"))
}

pub(super) fn answer(outcome: Option<GateOutcome>, outputs: Value) -> CallResult {
    CallResult::Gate(GateResponse {
        outcome,
        outputs: outputs.as_object().cloned().unwrap_or_default(),
        actor: Some("tester".into()),
        note: None,
    })
}

pub(super) type Answer = Box<dyn FnMut(&Call) -> CallResult>;

/// Drives the core synchronously: calls are answered one per step, oldest first, by
/// `answer`; every call is kept.
pub(super) struct Sim {
    pub(super) st: State,
    pub(super) calls: Vec<Call>,
    events: Vec<Event>,
    inflight: VecDeque<Call>,
    /// Timers armed and not yet fired or cancelled.
    timers: Vec<Timer>,
    answer: Answer,
    tick: u32,
}

impl Sim {
    pub(super) fn run(plan: Arc<Plan>, answer: impl FnMut(&Call) -> CallResult + 'static) -> Sim {
        Sim::run_with(plan, Map::new(), answer)
    }

    /// As [`Sim::run`], with params (an AWP run's initial state).
    pub(super) fn run_with(
        plan: Arc<Plan>,
        params: Map<String, Value>,
        answer: impl FnMut(&Call) -> CallResult + 'static,
    ) -> Sim {
        let mut sim = Sim {
            st: State::new(plan).expect("state"),
            calls: Vec::new(),
            events: Vec::new(),
            inflight: VecDeque::new(),
            timers: Vec::new(),
            answer: Box::new(answer),
            tick: 0,
        };
        let at = sim.at();
        sim.feed(Event::Started {
            run_id: "r".into(),
            graph_id: "t".into(),
            graph_digest: None,
            params,
            context: Map::new(),
            at,
        });
        sim
    }

    pub(super) fn at(&mut self) -> String {
        self.tick += 1;
        format!("2026-01-01T00:{:02}:{:02}Z", self.tick / 60, self.tick % 60)
    }

    pub(super) fn step(&mut self, ev: Event) {
        self.events.push(ev.clone());
        for c in self.st.step(ev) {
            match c {
                Command::Call(call) => {
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
                Command::Timer(t) => {
                    self.timers.retain(|x| x.id != t.id);
                    self.timers.push(t);
                }
                Command::CancelTimer { id } => self.timers.retain(|x| x.id != id),
                Command::Finish { .. } => {}
            }
        }
        assert!(
            self.inflight.len() <= self.st.max_parallel(),
            "more calls in flight than allowed"
        );
    }

    /// Feeds `ev`, then answers calls until none is outstanding.
    pub(super) fn feed(&mut self, ev: Event) {
        self.step(ev);
        self.drain();
    }

    /// Answers calls until none is outstanding, firing timers when only they are left.
    pub(super) fn drain(&mut self) {
        loop {
            if let Some(call) = self.inflight.pop_front() {
                let result = (self.answer)(&call);
                let ev = Event::CallFinished {
                    path: call.path.clone(),
                    attempt: call.attempt,
                    result,
                    at: self.at(),
                };
                self.step(ev);
                assert!(self.calls.len() < 200, "the run does not end");
            } else if !self.timers.is_empty() {
                self.fire();
            } else {
                break;
            }
        }
    }

    /// Fires the earliest timer, the clock jumping to its time (never back).
    fn fire(&mut self) {
        let when = |t: &Timer| t.fire_at.parse::<jiff::Timestamp>().expect("fire_at");
        self.timers.sort_by_key(when);
        let t = self.timers.remove(0);
        let start: jiff::Timestamp = "2026-01-01T00:00:00Z".parse().expect("start");
        let secs = when(&t).duration_since(start).as_secs_f64().ceil() as u32;
        self.tick = self.tick.max(secs.saturating_sub(1));
        let at = self.at();
        self.step(Event::TimerFired {
            id: t.id,
            path: t.path,
            at,
        });
    }

    pub(super) fn decide(&mut self, name: &str, outcome: GateOutcome, outputs: Value) {
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

    pub(super) fn record(&self) -> Value {
        serde_json::to_value(self.st.record(&Harness::default())).unwrap()
    }

    /// The record of node run `path`.
    pub(super) fn node(&self, path: &str) -> Value {
        self.record()["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["scope_path"] == path)
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// Calls that asked a checkpoint, by name.
    pub(super) fn asked(&self) -> Vec<String> {
        self.calls
            .iter()
            .filter_map(|c| c.checkpoint.as_ref().map(|k| k.name.clone()))
            .collect()
    }

    /// The same events through a fresh state give the same record.
    pub(super) fn replays(&self) {
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

pub(super) fn statuses(node: &Value) -> Vec<String> {
    node["attempts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| a["status"].as_str().unwrap().to_string())
        .collect()
}

pub(super) fn events(node: &Value) -> Vec<(String, String, String)> {
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

pub(super) fn failure(block: Value) -> Value {
    json!({"failure": block})
}

/// A node whose criterion `n >= 3` holds only for big enough outputs.
pub(super) fn judged(block: Value) -> Value {
    judged_with(block, 1)
}

pub(super) fn judged_with(block: Value, attempts: u32) -> Value {
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
