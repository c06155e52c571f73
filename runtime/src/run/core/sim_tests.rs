//! A run of the pure core driven by hand, event by event, for the timer and compensation
//! tests.

use super::{Command, State, Timer};
use crate::plan::Plan;
use crate::run::event::{CallResult, Event};
use crate::run::handler::{Completion, FailureClass, HandlerError};
use crate::run::record::{Harness, NodeStatus};
use serde_json::{Map, Value, json};
use std::sync::Arc;

pub(super) fn loc() -> Value {
    json!({"path": "t.yaml", "line": 1, "column": 1})
}

pub(super) fn node(id: &str, kind: &str, attempts: u32, attributes: Value) -> Value {
    json!({
        "id": id, "local_id": id, "kind": kind, "origin_kind": kind,
        "inputs": [], "outputs": [], "join": {"mode": "all"},
        "retry": {"max_attempts": attempts},
        "estimate": {}, "attributes": attributes, "location": loc()
    })
}

pub(super) fn seq(from: &str, to: &str) -> Value {
    json!({"from": from, "to": to, "kind": "sequence", "outcomes": ["succeeded"],
           "implicit": false, "location": loc()})
}

pub(super) fn plan(
    dialect: &str,
    nodes: Vec<Value>,
    edges: Vec<Value>,
    entry: &[&str],
    extra: Value,
) -> Arc<Plan> {
    let mut p = json!({
        "format": "agc.plan/v1",
        "source": {"dialect": dialect, "path": "t.yaml"},
        "graph": {"id": "t", "title": null},
        "params": [], "entrypoints": entry, "constraints": {"max_parallel_nodes": 1},
        "nodes": nodes, "edges": edges, "regions": [], "links": [],
        "bounds": {"max_node_executions": 0.0, "projected_cost_usd": 0.0,
                   "projected_wall_clock_seconds": 0.0, "unestimated_nodes": 0}
    });
    if let Value::Object(m) = extra {
        for (k, v) in m {
            p[k] = v;
        }
    }
    Arc::new(Plan::from_value(p).expect("plan"))
}

/// A run driven by hand: every event is kept, so a replay can be checked.
pub(super) struct Sim {
    pub(super) st: State,
    pub(super) events: Vec<Event>,
    /// Calls issued and not yet answered, and timers asked for and not cancelled.
    pub(super) calls: Vec<(String, u32)>,
    pub(super) timers: Vec<Timer>,
    /// Milliseconds since the start (event times).
    pub(super) t: i64,
}

pub(super) const START_MS: i64 = 1_767_225_600_000;

/// The time `s` seconds after the start.
pub(super) fn at(s: i64) -> String {
    at_ms(s * 1000)
}

pub(super) fn at_ms(ms: i64) -> String {
    let ts = jiff::Timestamp::from_millisecond(START_MS + ms).expect("time");
    ts.to_string()
}

impl Sim {
    pub(super) fn start(plan: Arc<Plan>, run_id: &str) -> Sim {
        let mut s = Sim {
            st: State::new(plan).expect("state"),
            events: Vec::new(),
            calls: Vec::new(),
            timers: Vec::new(),
            t: 0,
        };
        s.feed(Event::Started {
            run_id: run_id.into(),
            graph_id: "t".into(),
            graph_digest: None,
            params: Map::new(),
            context: Map::new(),
            at: at(0),
        });
        s
    }

    pub(super) fn feed(&mut self, ev: Event) {
        self.events.push(ev.clone());
        for c in self.st.step(ev) {
            match c {
                Command::Call(c) => self.calls.push((c.path, c.attempt)),
                Command::Timer(t) => {
                    self.timers.retain(|x| x.id != t.id);
                    self.timers.push(t);
                }
                Command::CancelTimer { id } => self.timers.retain(|x| x.id != id),
                Command::Finish { .. } => {}
            }
        }
    }

    /// Answers the oldest outstanding call `dt` seconds later.
    pub(super) fn answer(&mut self, dt: i64, result: CallResult) -> (String, u32) {
        assert!(!self.calls.is_empty(), "no call outstanding");
        let (path, attempt) = self.calls.remove(0);
        self.t += dt * 1000;
        self.feed(Event::CallFinished {
            path: path.clone(),
            attempt,
            result,
            at: at_ms(self.t),
        });
        (path, attempt)
    }

    /// Fires the earliest timer at its time.
    pub(super) fn fire(&mut self) -> Timer {
        self.timers
            .sort_by_key(|t| t.fire_at.parse::<jiff::Timestamp>().expect("fire_at"));
        let t = self.timers.remove(0);
        let when: jiff::Timestamp = t.fire_at.parse().expect("fire_at");
        self.t = self.t.max(when.as_millisecond() - START_MS);
        self.feed(Event::TimerFired {
            id: t.id,
            path: t.path.clone(),
            at: t.fire_at.clone(),
        });
        t
    }

    pub(super) fn status(&self, path: &str) -> NodeStatus {
        self.st.node_status(path).expect("node run")
    }

    /// The same events give the same record.
    pub(super) fn check_replay(&self, plan: Arc<Plan>) {
        let mut again = State::new(plan).expect("state");
        for ev in &self.events {
            again.step(ev.clone());
        }
        let h = Harness::default();
        assert_eq!(again.record(&h), self.st.record(&h));
    }
}

pub(super) fn ok() -> CallResult {
    CallResult::Completed(Completion {
        outputs: Map::new(),
        usage: Default::default(),
    })
}

pub(super) fn fail() -> CallResult {
    CallResult::Failed(HandlerError::new(FailureClass::ToolError, "boom"))
}
