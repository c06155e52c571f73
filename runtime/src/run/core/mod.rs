//! The pure scheduler core: `State::step(event) -> commands`.
//!
//! No I/O, no clock, no threads: every input is an [`Event`] (carrying its time), every
//! output a [`Command`]. Replaying the same events gives the same state, which is what makes
//! the journal a complete checkpoint.
//!
//! Semantics (AGS 1.0 §17, the execution model):
//! - Each scope instance (the root graph, one loop iteration, one map item, one subgraph
//!   instance) holds one run per node of its region. A node runs at most once per instance.
//! - When a run reaches a terminal status, its outgoing edges resolve by the activation table
//!   (`outcomes` of the edge against the run's status, then the guard; edges with an `order`
//!   are first-match); readiness follows the join (`all`, `any`, `n_of`) and an unsatisfiable
//!   join skips the node. A node's `when` guard is evaluated once at readiness (again only
//!   when it met an evaluation limit and the attempt that failed so is retried: `launch`);
//!   false skips.
//! - Nodes without incoming edges that are not entrypoints are unreachable and skipped.
//! - Ready calls launch in plan order (topological, then declaration) while the global
//!   `constraints.max_parallel_nodes` (default 1) allows; loops, maps and subgraphs never
//!   occupy a slot themselves, only their body's calls do. Map items start in input order,
//!   at most `max_parallel` at a time.
//! - Retries: a failed attempt whose class is in `failure.retry.retry_on` (default
//!   `transient`, `tool_error`, `criteria_failed`) runs again until `retry.max_attempts`;
//!   then `failure.on_exhausted` (`fail`, `skip`, `succeed_degraded`, `escalate`).
//! - Constraints: `max_node_executions` (calls issued), `max_cost_usd` (usage reported) and
//!   `max_wall_clock_seconds` (event times) stop the run as `failed` with `RT061`; nothing
//!   still pending runs (it is recorded `cancelled`) (see `stop`).
//! - Back edges (other dialects' bounded cycles) are followed up to their bound, re-arming
//!   the cycle as a new pass (see `back`).
//! - Time: retry backoff, timed waits and human timeouts are timers the core asks its
//!   driver for and learns about by events (see `timers`).
//! - A run that ends `failed` first compensates what succeeded (see `compensate`).
//! - AWP signal waits and interrupts take their input from outside (see `signals`); an AWP
//!   switch routes when it runs and fails when it cannot (see `switch`).
//!
//! The state is made of parts that own their data, each in a file of its own that implements
//! nothing on [`State`], so the state's definition points only down (the `impl State` files
//! point up at it):
//! - the node runs, by a typed id (`runs`, `run_id`; a run and a scope instance in `types`);
//! - the scheduler: ready runs, ended runs to propagate, call slots (`scheduler`);
//! - the timers (`timer_set`), compensation (`compensation`), back-edge passes (`passes`);
//! - per run, its human questions (`asks`) and its failure ladder (`ladder_state`).
//!
//! The timers, the scheduler, compensation and the runs keep their fields private: the
//! `impl State` files ask them (arm a timer, take a slot, find a run by path) and never reach
//! in. `step` hands each event to the part that owns what it is about (`events`).

mod agh;
mod answer;
mod asks;
mod back;
mod check;
mod compensate;
mod compensation;
mod criteria;
mod dialects;
mod edges;
mod env;
mod escalation;
mod events;
mod expr_policy;
mod finish;
mod human;
mod human_timeout;
mod ladder;
mod ladder_state;
mod launch;
mod limits;
mod parallel;
mod passes;
mod record;
mod regions;
mod run_id;
mod runs;
mod scheduler;
mod signals;
#[cfg(test)]
mod sim;
mod stop;
mod switch;
mod timer_set;
mod timers;
mod types;

pub use asks::checkpoint_ids;
pub use check::{Mismatch, check};
pub use passes::DEFAULT_BOUND as DEFAULT_BACK_EDGE_BOUND;
pub(crate) use run_id::RunId;
pub(crate) use runs::Runs;
pub use timer_set::{OnTimeout, Timer, TimerKind};
pub use types::{Call, Command};
pub(crate) use types::{Container, Run, Scope};

use super::event::Event;
use super::handler::Usage;
use super::record::{EdgeTaken, NodeStatus, RunDiagnostic, RunStatus};
use crate::plan::{Join, NodeKind, Plan, PlanIndex};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The whole state of a run.
#[derive(Clone, Debug)]
pub struct State {
    pub(crate) plan: Arc<Plan>,
    pub(crate) idx: Arc<PlanIndex>,
    /// Each node's position in its scope's node list.
    pub(crate) pos: Arc<Vec<usize>>,
    pub(crate) run_id: String,
    pub(crate) started_at: String,
    pub(crate) finished_at: Option<String>,
    /// The run's graph-level roots as expressions read them, set once at the start and
    /// shared (never copied per scope, item or evaluation: issue 48): `params` and `context`
    /// (objects), and for agh `inputs` (the params). See [`State::params`].
    pub(crate) graph_roots: Arc<Map<String, Value>>,
    /// The graph's bound outputs (at the end).
    pub(crate) outputs: Map<String, Value>,
    pub(crate) status: RunStatus,
    pub(crate) scopes: Vec<Scope>,
    /// Every node run, by typed id and by scope path (see `runs`).
    pub(crate) runs: Runs,
    /// Ready runs, ended runs, empty scopes and call slots (see `scheduler`).
    sched: scheduler::Scheduler,
    pub(crate) executions: u64,
    pub(crate) usage: Usage,
    pub(crate) edges_taken: Vec<EdgeTaken>,
    pub(crate) diagnostics: Vec<RunDiagnostic>,
    /// Calls to issue at the end of this step.
    out: Vec<Command>,
    /// The time of the event being processed.
    now: String,
    start_ts: Option<jiff::Timestamp>,
    started: bool,
    /// The plan has back edges (their bookkeeping is kept only then).
    has_back: bool,
    /// An expression failed under `on_expression_error: fail`: the run stops (see
    /// `expr_policy`).
    expression_error_stops: bool,
    /// The plan has AWP parallels joined by `any` / `n_of_m` (see `parallel`).
    counting_forks: bool,
    /// AWP: the workflow state; Agent Graph: the fact store (see `dialects`).
    pub(crate) dialect_state: Option<Map<String, Value>>,
    /// AWP: the state schema, compiled, that the state must fit after every node (see
    /// `dialects`).
    state_validator: Option<Arc<jsonschema::Validator>>,
    /// Checkpoints awaiting a decision, by name (`publish.pre_upload`).
    pub(crate) waiting: HashMap<String, RunId>,
    /// Backoff, wait and human-timeout timers (see `timers`).
    pub(crate) timers: timer_set::Timers,
    /// What to undo when the run fails (see `compensate`).
    pub(crate) compensation: compensation::Compensation,
    /// How an agh Loop ended (see `agh`).
    pub(crate) terminal: Option<crate::run::record::LoopTerminal>,
    /// The run's evaluation limits: the plan's `eval_limits`, and a driver's options over
    /// them ([`State::with_eval_limits`]); jq reads them (`dialects`).
    pub(crate) eval_limits: crate::plan::EvalLimits,
    /// jq evaluations made so far, counted in the order the core makes them (`limits`).
    jq_seq: std::cell::Cell<u64>,
    /// Limits met since the driver last took them: (evaluation, message, the time limit).
    limits_met: std::cell::RefCell<Vec<(u64, String, bool)>>,
    /// While a journal is replayed: the limits its evaluations met, by evaluation.
    replay: Option<Arc<HashMap<u64, String>>>,
}

impl State {
    /// A fresh state for `plan` (nothing happens until the `Started` event).
    pub fn new(plan: Arc<Plan>) -> Result<State, crate::plan::PlanError> {
        let idx = plan.index()?;
        let plan_has_back = plan
            .edges
            .iter()
            .any(|e| e.kind == crate::plan::EdgeKind::Back);
        let counting_forks = has_counting_forks(&plan);
        let mut pos = vec![0; plan.nodes.len()];
        for nodes in &idx.scope_nodes {
            for (i, &n) in nodes.iter().enumerate() {
                pos[n] = i;
            }
        }
        let max_parallel = plan
            .constraints
            .get("max_parallel_nodes")
            .and_then(Value::as_u64)
            .unwrap_or(1) as usize;
        let plan_limits = plan.eval_limits;
        Ok(State {
            compensation: compensation::Compensation::for_plan(&plan),
            timers: timer_set::Timers::default(),
            plan,
            idx: Arc::new(idx),
            pos: Arc::new(pos),
            run_id: String::new(),
            started_at: String::new(),
            finished_at: None,
            graph_roots: Arc::default(),
            outputs: Map::new(),
            status: RunStatus::Running,
            scopes: Vec::new(),
            runs: Runs::default(),
            sched: scheduler::Scheduler::new(max_parallel),
            executions: 0,
            usage: Usage::default(),
            edges_taken: Vec::new(),
            diagnostics: Vec::new(),
            out: Vec::new(),
            now: String::new(),
            start_ts: None,
            started: false,
            has_back: plan_has_back,
            expression_error_stops: false,
            counting_forks,
            dialect_state: None,
            state_validator: None,
            waiting: HashMap::new(),
            terminal: None,
            eval_limits: plan_limits,
            jq_seq: Default::default(),
            limits_met: Default::default(),
            replay: None,
        })
    }

    /// The run's evaluation limits (see [`State::with_eval_limits`]).
    pub fn eval_limits(&self) -> &crate::plan::EvalLimits {
        &self.eval_limits
    }

    /// This state with evaluation limits `over` the plan's (each one given replaces the
    /// plan's): a driver's own setting (`RunOptions::eval_limits`, `agc run --eval-…`).
    pub fn with_eval_limits(mut self, over: &crate::plan::EvalLimits) -> State {
        self.eval_limits = over.over(&self.plan.eval_limits);
        self
    }

    /// The run's status now.
    pub fn status(&self) -> RunStatus {
        self.status
    }

    /// The run id (empty before `Started`).
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The plan this state runs.
    pub fn plan(&self) -> &Arc<Plan> {
        &self.plan
    }

    /// Global concurrency (`constraints.max_parallel_nodes`, default 1).
    pub fn max_parallel(&self) -> usize {
        self.sched.max_parallel()
    }

    /// The status of the node run at `path`, if it exists.
    pub fn node_status(&self, path: &str) -> Option<NodeStatus> {
        self.runs.find(path).map(|r| self.runs[r].status)
    }

    /// Why node run `path` failed, as its last attempt's error says (`tool_error: rate
    /// limited`), if it has one (progress lines).
    pub fn node_error(&self, path: &str) -> Option<&str> {
        let r = self.runs.find(path)?;
        self.runs[r].attempts.last()?.error.as_deref()
    }

    /// What waits for a human, in run order: gates by scope path, checkpoints by name
    /// (`publish.pre_upload`). A decision names one of these.
    pub fn awaiting_gates(&self) -> Vec<String> {
        self.runs
            .iter()
            .filter(|r| r.status == NodeStatus::AwaitingHuman)
            .map(|r| match r.human.as_ref().and_then(|h| h.ask.as_ref()) {
                Some(a) => a.cp.name.clone(),
                None => r.path.clone(),
            })
            .collect()
    }

    /// Every node run's (path, status), in creation order (tests, progress).
    pub fn node_statuses(&self) -> Vec<(String, NodeStatus)> {
        self.runs
            .iter()
            .map(|r| (r.path.clone(), r.status))
            .collect()
    }

    /// Applies one event; returns what to do next. Each event goes to the part of the state
    /// that owns what it is about (see `events`); then ended runs propagate and ready work
    /// starts (`pump`).
    pub fn step(&mut self, event: Event) -> Vec<Command> {
        // A limit met is read before the replay (`limits`); stepping its line changes nothing.
        if matches!(event, Event::LimitMet { .. }) {
            return Vec::new();
        }
        // The time's text is copied into the buffer it had (no allocation an event).
        self.now.clear();
        self.now.push_str(event.at());
        // A paused run still takes decisions, resumes and (human) timeouts.
        if self.is_over()
            && !matches!(event, Event::Resumed { .. } | Event::Decided { .. })
            && !(self.status == RunStatus::AwaitingHuman
                && matches!(event, Event::TimerFired { .. }))
        {
            return Vec::new();
        }
        match event {
            Event::Started {
                run_id,
                params,
                context,
                at,
                ..
            } => self.start(run_id, params, context, at),
            Event::CallStarted { path, attempt, at } => self.call_started(&path, attempt, at),
            Event::CallFinished {
                path,
                attempt,
                result,
                ..
            } => self.call_finished(&path, attempt, result),
            Event::Decided { path, response, .. } => self.decided(&path, response),
            Event::Resumed { .. } => self.resumed(),
            Event::TimerFired { id, path, .. } => self.timer_fired(id, &path),
            Event::LimitMet { .. } => {}
        }
        self.check_wall_clock();
        self.pump();
        std::mem::take(&mut self.out)
    }

    /// Ended or paused.
    fn is_over(&self) -> bool {
        !matches!(self.status, RunStatus::Running)
    }

    /// Emits the call run `r` has outstanding: a checkpoint's question, the current
    /// attempt of another node's call (a fallback or escalation node), or its own attempt.
    fn issue(&mut self, r: RunId, resumed: bool) {
        let run = &self.runs[r];
        let scope = &self.scopes[run.scope];
        let ask = run.human.as_ref().and_then(|h| h.ask.as_ref());
        let other = run.ladder.as_ref().and_then(|l| l.call.as_ref());
        let (node, inputs, attempt, checkpoint) = match (ask, other) {
            (Some(a), _) => (
                run.node,
                run.inputs.clone(),
                a.attempt,
                Some(Box::new(a.cp.clone())),
            ),
            (None, Some((n, inputs))) => (*n, Some(inputs.clone()), run.attempt, None),
            (None, None) => (run.node, run.inputs.clone(), run.attempt, None),
        };
        let timeout_seconds = match checkpoint {
            Some(_) => None,
            None => self.plan.nodes[node].retry.timeout_seconds,
        };
        self.out.push(Command::Call(Call {
            path: run.path.clone(),
            node,
            kind: self.plan.nodes[node].kind,
            attempt,
            inputs: inputs.unwrap_or_default(),
            item: scope.item,
            iteration: scope.iteration,
            resumed,
            timeout_seconds,
            checkpoint,
        }));
    }

    /// A checkpoint question is outstanding or awaited for run `r`.
    pub(crate) fn asking(&self, r: RunId) -> bool {
        self.runs[r].human.as_ref().is_some_and(|h| h.ask.is_some())
    }

    /// The attempt number run `r`'s outstanding call carries.
    fn call_attempt(&self, r: RunId) -> u32 {
        match self.runs[r].human.as_ref().and_then(|h| h.ask.as_ref()) {
            Some(a) => a.attempt,
            None => self.runs[r].attempt,
        }
    }

    fn diag(&mut self, code: &str, severity: &str, message: String, node: Option<RunId>) {
        let node_id = node.map(|r| self.runs[r].path.clone());
        self.diagnostics.push(RunDiagnostic {
            code: code.into(),
            severity: severity.into(),
            message,
            node_id,
            at: Some(self.now.clone()),
        });
    }

    /// Propagates terminal runs, launches ready work, and detects the end or a pause.
    fn pump(&mut self) {
        loop {
            if self.is_over() {
                return;
            }
            if std::mem::take(&mut self.expression_error_stops) {
                self.stop();
                return;
            }
            if let Some(r) = self.sched.pop_done() {
                self.propagate(r);
                continue;
            }
            if let Some(s) = self.sched.pop_empty() {
                self.scope_done(s);
                continue;
            }
            if self.timers.has_due_retries()
                && let Some(r) = self.next_due_retry()
            {
                self.new_attempt(r);
                continue;
            }
            if let Some(r) = self.sched.next_ready() {
                self.launch(r);
                continue;
            }
            break;
        }
        if self.sched.idle() && !self.timers.hold_run() {
            let root_open = self.scopes.first().map_or(0, |s| s.open);
            if self.compensation.active() {
                // The compensation in progress drives the end; it may await a human.
                if self.compensation_paused() {
                    self.pause();
                }
            } else if root_open == 0 {
                self.finish_run();
            } else if self
                .runs
                .iter()
                .any(|r| r.status == NodeStatus::AwaitingHuman)
            {
                self.pause();
            }
        }
    }

    /// Nothing can go on without a human: the run pauses (`awaiting_human`).
    fn pause(&mut self) {
        self.status = RunStatus::AwaitingHuman;
        self.finished_at = Some(self.now.clone());
        self.out.push(Command::Finish {
            status: RunStatus::AwaitingHuman,
        });
    }

    /// Records run `r` as terminal and queues its propagation.
    pub(crate) fn terminate(&mut self, r: RunId, status: NodeStatus) {
        let now = self.now.clone();
        let run = &mut self.runs[r];
        if run.status.is_terminal() {
            return;
        }
        let was_ready = run.status == NodeStatus::Ready;
        let node = run.node;
        run.status = status;
        run.finished_at = Some(now);
        run.parked = false;
        if was_ready {
            self.sched.unready(node, r);
        }
        if self.timers.owns_any() {
            self.disarm(r);
        }
        if status == NodeStatus::Succeeded && self.compensation.tracks() {
            self.note_success(r);
        }
        self.sched.push_done(r);
    }

    /// Marks `r` ready (or skipped when its guard is false).
    pub(crate) fn make_ready(&mut self, r: RunId) {
        let run = &mut self.runs[r];
        if run.status != NodeStatus::Pending || run.triggered {
            return;
        }
        run.triggered = true;
        let node = run.node;
        if !self.guard_allows(r) {
            return;
        }
        self.runs[r].status = NodeStatus::Ready;
        let slot = needs_slot(self.plan.nodes[node].kind);
        self.sched.push_ready(node, r, slot);
    }

    /// A new scope instance of scope kind `kind`: one pending run per node; entrypoints
    /// become ready; nodes nothing can reach are skipped.
    pub(crate) fn new_scope(
        &mut self,
        kind: usize,
        owner: Option<RunId>,
        prefix: String,
        vars: Map<String, Value>,
        item: Option<u64>,
        iteration: Option<u64>,
    ) -> usize {
        let idx = Arc::clone(&self.idx);
        let s = self.scopes.len();
        let nodes = &idx.scope_nodes[kind];
        let (item, iteration) = match owner {
            Some(o) => {
                let parent = &self.scopes[self.runs[o].scope];
                (item.or(parent.item), iteration.or(parent.iteration))
            }
            None => (item, iteration),
        };
        self.scopes.push(Scope {
            kind,
            owner,
            prefix: prefix.clone(),
            first_run: self.runs.next_id(),
            open: nodes.len(),
            vars,
            item,
            iteration,
            failed: false,
            degraded: false,
            passes: None,
        });
        // A scope's runs are made at once: grown once, not doubled (and copied) run by run.
        self.runs.reserve(nodes.len());
        for &n in nodes {
            let path = format!("{prefix}{}", self.plan.nodes[n].local_id);
            self.runs.add(Run::pending(n, s, path));
        }
        if nodes.is_empty() {
            // Finished in `pump`, never from here: no recursion through nested starts.
            self.sched.push_empty(s);
            return s;
        }
        let first = self.scopes[s].first_run;
        for &n in &idx.scope_entrypoints[kind] {
            self.make_ready(first.plus(self.pos[n]));
        }
        for (i, &n) in nodes.iter().enumerate() {
            let no_edges = idx.incoming[n]
                .iter()
                .all(|&e| self.plan.edges[e].kind == crate::plan::EdgeKind::Back);
            let r = first.plus(i);
            if no_edges && !self.runs[r].triggered {
                self.runs[r].triggered = true;
                self.runs[r].skip_reason = Some(self.unreachable_reason(n).into());
                self.terminate(r, NodeStatus::Skipped);
            }
        }
        s
    }
}

/// Node kinds that call the handler (and so take a slot).
fn needs_slot(kind: NodeKind) -> bool {
    matches!(
        kind,
        NodeKind::Task | NodeKind::Decision | NodeKind::Gate | NodeKind::External
    )
}

#[cfg(test)]
mod sim_tests;
/// Whether `plan` has a parallel joined by `any` or `n_of_m` (a synthetic join naming its
/// fork, with another mode than `all`).
fn has_counting_forks(plan: &Plan) -> bool {
    plan.nodes
        .iter()
        .any(|n| n.kind == NodeKind::Join && n.fork.is_some() && n.join != Join::All)
}

#[cfg(test)]
mod tests;
