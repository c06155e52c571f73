//! What each event does to the state, routed to the part that owns what it is about:
//!
//! | event | goes to |
//! |---|---|
//! | `Started` | the runs (the root scope instance) and the dialect state |
//! | `CallStarted` | the run it names (`runs`): when its attempt started |
//! | `CallFinished` | the scheduler (the call's slot) and the run's ladder (`ladder`) |
//! | `Decided` | the checkpoint waiting under that name (`human`), else the gate run |
//! | `Resumed` | every run with a call outstanding, and the timers (`timers`) |
//! | `TimerFired` | the timers, which name the run it was for (`timers`) |
//!
//! A path that names no run, an attempt that is not the outstanding one and a run that is
//! not waiting are ignored: a journal replayed into a state that already moved on changes
//! nothing.

use super::{RunId, State};
use crate::run::event::CallResult;
use crate::run::handler::GateResponse;
use crate::run::record::{NodeStatus, RunStatus};
use serde_json::{Map, Value};
use std::sync::Arc;

impl State {
    /// The run starts: its graph-level roots are set once, and the root scope instance is
    /// made (its entrypoints ready). A second `Started` changes nothing.
    pub(super) fn start(
        &mut self,
        run_id: String,
        params: Map<String, Value>,
        context: Map<String, Value>,
        at: String,
    ) {
        if self.started {
            return;
        }
        self.started = true;
        self.run_id = run_id;
        self.start_ts = at.parse().ok();
        self.started_at = at;
        let mut roots = Map::new();
        if self.plan.semantics.namespace == crate::plan::Namespace::Loop {
            // agh: `.inputs` are the Loop's inputs (the graph params, defaults filled).
            roots.insert("inputs".into(), Value::Object(params.clone()));
        }
        roots.insert("params".into(), Value::Object(params));
        roots.insert("context".into(), Value::Object(context));
        self.graph_roots = Arc::new(roots);
        self.note_unbounded_back_edges();
        self.init_dialect_state();
        self.note_unrun_constructs();
        self.new_scope(0, None, String::new(), Map::new(), None, None);
    }

    /// A call's attempt started at `at` (a worker took it).
    pub(super) fn call_started(&mut self, path: &str, attempt: u32, at: String) {
        let Some(r) = self.runs.find(path) else {
            return;
        };
        if self.runs[r].attempt + 1 == attempt && self.timers.owns_any() {
            self.backoff_journaled_over(r);
        }
        if self.runs[r].attempt == attempt && !self.asking(r) {
            let run = &mut self.runs[r];
            run.attempt_started = Some(at.clone());
            run.started_at.get_or_insert(at);
        }
    }

    /// A call returned: its slot is free and its run goes on up its ladder.
    pub(super) fn call_finished(&mut self, path: &str, attempt: u32, result: CallResult) {
        if let Some(r) = self.runs.find(path)
            && self.runs[r].dispatched
            && self.call_attempt(r) == attempt
        {
            self.runs[r].dispatched = false;
            self.sched.release_slot();
            self.finished_call(r, result);
        }
    }

    /// A human decided `path`: a checkpoint by its name, else a gate by its run's path.
    pub(super) fn decided(&mut self, path: &str, response: GateResponse) {
        // A run cancelled while it waited (a failed map sibling) takes no decision.
        if let Some(r) = self.waiting.remove(path)
            && self.runs[r].status == NodeStatus::AwaitingHuman
        {
            self.wake();
            self.checkpoint_decided(r, response);
        } else if let Some(r) = self.runs.find(path)
            && self.runs[r].status == NodeStatus::AwaitingHuman
            && !self.asking(r)
        {
            self.wake();
            self.gate_answered(r, response);
        }
    }

    /// A decision arrived: a paused run runs again.
    pub(super) fn wake(&mut self) {
        if self.status == RunStatus::AwaitingHuman {
            self.status = RunStatus::Running;
            self.finished_at = None;
        }
    }

    /// After a resume: every call that was dispatched and never answered is issued again.
    pub(super) fn resumed(&mut self) {
        if self.status == RunStatus::AwaitingHuman {
            self.status = RunStatus::Running;
            self.finished_at = None;
        }
        let pending: Vec<RunId> = self
            .runs
            .ids()
            .filter(|&r| self.runs[r].dispatched)
            .collect();
        for r in pending {
            self.issue(r, true);
        }
        self.reissue_timers();
    }
}
