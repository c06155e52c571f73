//! The driver loop behind [`super::run`] and [`super::resume`], and its worker pool.

// `HandlerError` carries the failed attempt's usage (144 bytes); it is returned once per
// call, never in a hot loop, so boxing it would only make handlers clumsier to write.
#![allow(clippy::result_large_err)]

use super::core::{Call, Command, State, TimerKind, check};
use super::driver::{Progress, RunError, RunOptions};
use super::event::{CallResult, Event, HumanAnswer};
use super::handler::{CallContext, Handler, HandlerError};
use super::journal::Journal;
use super::record::{NodeStatus, RunRecord, RunStatus};
use super::timer_queue::{TimerQueue, fire, until};
use crate::plan::Plan;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub(super) fn run(
    plan: Arc<Plan>,
    params: Map<String, Value>,
    handler: Arc<dyn Handler>,
    journal: &mut dyn Journal,
    opts: &RunOptions,
) -> Result<RunRecord, RunError> {
    let params = bind_params(&plan, params)?;
    let state = State::new(Arc::clone(&plan))?;
    let run_id = opts.run_id.clone().unwrap_or_else(|| opts.ids.run_id());
    // The graph's own `context` values (kept in the plan's attrs), then the host's.
    let mut context = match plan.attrs.get("context") {
        Some(Value::Object(c)) => c.clone(),
        _ => Map::new(),
    };
    for (k, v) in &opts.context {
        context.insert(k.clone(), v.clone());
    }
    let started = Event::Started {
        run_id,
        graph_id: plan.graph.id.clone(),
        graph_digest: plan.source.graph_digest.clone(),
        params,
        context,
        at: opts.clock.now(),
    };
    drive(state, vec![started], handler, journal, opts)
}

pub(super) fn resume(
    plan: Arc<Plan>,
    handler: Arc<dyn Handler>,
    journal: &mut dyn Journal,
    decisions: &[HumanAnswer],
    opts: &RunOptions,
) -> Result<RunRecord, RunError> {
    let events = journal.load()?;
    let Some(Event::Started { graph_digest, .. }) = events.first() else {
        return Err(RunError::Resume(
            "the journal is empty or does not start with the run's start".into(),
        ));
    };
    if graph_digest.as_deref() != plan.digest() {
        return Err(RunError::DigestMismatch {
            journal: graph_digest.clone(),
            plan: plan.digest().map(str::to_string),
        });
    }
    let mut state = State::new(Arc::clone(&plan))?;
    for ev in events {
        state.step(ev);
    }
    if matches!(
        state.status(),
        RunStatus::Succeeded | RunStatus::Failed | RunStatus::Partial | RunStatus::Cancelled
    ) {
        if !decisions.is_empty() {
            return Err(RunError::Resume(format!(
                "the run already ended ({}); there is nothing to decide",
                state.status().as_str()
            )));
        }
        return Ok(state.record(&opts.harness));
    }
    let awaiting = state.awaiting_gates();
    let resumed_at = opts.clock.now();
    // Human timeouts that fell due while the run was paused apply first: a decision for
    // such a gate or checkpoint (named as decisions name it) came too late.
    let timed_out: Vec<(String, &str, String)> = state
        .pending_timers()
        .into_iter()
        .filter(|t| t.kind == TimerKind::HumanTimeout && until(t, &resumed_at).is_zero())
        .filter_map(|t| {
            let (name, what) = state.awaited_by(t.id)?;
            Some((name, what, t.fire_at))
        })
        .collect();
    let mut next = vec![Event::Resumed { at: resumed_at }];
    for d in decisions {
        let path = awaiting
            .iter()
            .find(|p| {
                **p == d.name || {
                    // A plan id (`review/approve`) or a local id names the gate when only
                    // one instance awaits.
                    let plain = strip_indices(p);
                    plain == d.name.replace('/', ".") || plain.rsplit('.').next() == Some(&d.name)
                }
            })
            .cloned()
            .ok_or_else(|| {
                RunError::Resume(format!(
                    "no gate, checkpoint or signal wait named `{}` is awaiting a decision (awaiting: {})",
                    d.name,
                    if awaiting.is_empty() {
                        "none".to_string()
                    } else {
                        awaiting.join(", ")
                    }
                ))
            })?;
        if let Some((_, what, at)) = timed_out.iter().find(|(p, _, _)| *p == path) {
            return Err(RunError::Resume(format!(
                "{what} `{path}` timed out at {at}, while the run was paused: its `on_timeout` applies; resume without deciding it"
            )));
        }
        // Outputs that would not fit are refused now, while nothing is journaled: the run
        // stays paused and the human can answer again.
        let response = d.response();
        if let Err(why) = state.check_answer(&path, &response) {
            return Err(RunError::Resume(format!(
                "the answer for `{path}` is refused: {why}"
            )));
        }
        next.push(Event::Decided {
            path,
            response,
            at: opts.clock.now(),
        });
    }
    drive(state, next, handler, journal, opts)
}

/// `a[2].b#1` → `a.b`: item or iteration indices and back-edge passes dropped.
pub fn strip_indices(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0;
    let mut pass = false;
    for c in path.chars() {
        if pass && c.is_ascii_digit() {
            continue;
        }
        pass = false;
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            '#' if depth == 0 => pass = true,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Checks params against the plan: unknown names, missing required ones (AG301), values
/// that do not fit the declaration (AG302); fills defaults.
pub fn bind_params(
    plan: &Plan,
    mut given: Map<String, Value>,
) -> Result<Map<String, Value>, RunError> {
    let mut errors = Vec::new();
    let mut out = Map::new();
    for p in &plan.params {
        match given.remove(&p.name) {
            Some(v) => {
                if let Err(m) = check(&v, &p.ty, &p.decl) {
                    errors.push((
                        "AG302".to_string(),
                        if p.decl.redact {
                            format!(
                                "param `{}`: the value does not fit `{}` (redacted)",
                                p.name, p.ty
                            )
                        } else {
                            format!("param `{}`: {}", p.name, m.message)
                        },
                    ));
                }
                out.insert(p.name.clone(), v);
            }
            None => match &p.default {
                // A default is filled, then checked like a given value.
                Some(d) => {
                    if let Err(m) = check(d, &p.ty, &p.decl) {
                        errors.push((
                            "AG302".to_string(),
                            format!(
                                "param `{}`: its default does not fit: {}",
                                p.name, m.message
                            ),
                        ));
                    }
                    out.insert(p.name.clone(), d.clone());
                }
                None if p.required => errors.push((
                    "AG301".to_string(),
                    format!("required param `{}` is missing", p.name),
                )),
                None => {}
            },
        }
    }
    // Agent Graph declares no params; its fact store starts from a `facts` object.
    if plan.semantics.state == crate::plan::StateModel::Facts
        && let Some(f) = given.remove("facts")
    {
        if f.is_object() {
            out.insert("facts".into(), f);
        } else {
            errors.push((
                "AG302".to_string(),
                "`facts` must be an object (the initial fact store)".to_string(),
            ));
        }
    }
    for name in given.keys() {
        errors.push((
            "AG302".to_string(),
            format!("`{name}` is not a param of this graph"),
        ));
    }
    if errors.is_empty()
        && let Some(e) = initial_state_error(plan, &out)
    {
        errors.push(("AG302".to_string(), e));
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(RunError::Params(errors))
    }
}

/// AWP: the params are the initial state, which must fit the state schema as a whole
/// (upstream "Initial state invalid vs state_schema": `required`, `additionalProperties`, ...
/// beyond each param's own declaration). A plan without a state schema, or whose schema does
/// not compile (AGC328 when the run starts), checks nothing here.
fn initial_state_error(plan: &Plan, params: &Map<String, Value>) -> Option<String> {
    let schema = plan.attrs.get("state_schema").filter(|s| s.is_object())?;
    let validator = jsonschema::validator_for(schema).ok()?;
    let state = Value::Object(params.clone());
    let err = validator.iter_errors(&state).next()?;
    let at = err.instance_path().to_string();
    let at = if at.is_empty() { "/".into() } else { at };
    Some(format!(
        "the initial state (the params) does not fit the state schema: at {at}: {err}"
    ))
}

/// Feeds `first` and then call results and timers to the core until the run ends or
/// pauses.
///
/// Timers: the driver waits for calls and timers together (a virtual clock never waits: a
/// timer fires once no call is outstanding, the clock jumping to its time). A run that
/// pauses for a human is left paused even when a human timeout is pending (the local engine
/// does not watch paused runs: `agc run --resume` applies the timeouts that fell due),
/// except that timeouts already due fire at once, and a virtual clock lets time pass to
/// them instead of pausing.
fn drive(
    mut state: State,
    first: Vec<Event>,
    handler: Arc<dyn Handler>,
    journal: &mut dyn Journal,
    opts: &RunOptions,
) -> Result<RunRecord, RunError> {
    let plan = Arc::clone(state.plan());
    let mut pool = Pool::new(opts.threads.max(1), handler, Arc::clone(&plan));
    let mut queue: std::collections::VecDeque<Event> = first.into();
    let mut timers = TimerQueue::new();
    let clock = &*opts.clock;
    // The calls of the batch of events being processed: made once the batch is durable.
    let mut to_send: Vec<Call> = Vec::new();
    // With `max_parallel_nodes: 1` (AGS's default) the core never has two calls out, so a
    // call without a deadline runs on this thread: the same order of events, the same
    // record, no hand-off. A call with a deadline goes to a worker, which can be abandoned.
    let inline = state.max_parallel() == 1;
    let mut inline_rt_slot: Option<tokio::runtime::Runtime> = None;
    loop {
        while let Some(ev) = queue.pop_front() {
            journal.append(&ev)?;
            let finished = match &ev {
                Event::CallFinished { path, .. } | Event::Decided { path, .. } => {
                    Some((path.clone(), false))
                }
                // A timer ends a wait or a human's time; a backoff's end is no news.
                Event::TimerFired { path, .. } => Some((path.clone(), true)),
                _ => None,
            };
            let cmds = state.step(ev);
            if let (Some((path, timer)), Some(obs)) = (finished, &opts.observer)
                && let Some(status) = state.node_status(&path)
                && !(timer && status == NodeStatus::Running)
            {
                let error = (status == NodeStatus::Failed)
                    .then(|| state.node_error(&path).map(str::to_string))
                    .flatten();
                obs.report(&Progress::Finished {
                    path,
                    status,
                    error,
                });
            }
            for cmd in cmds {
                match cmd {
                    Command::Call(call) => {
                        let started = Event::CallStarted {
                            path: call.path.clone(),
                            attempt: call.attempt,
                            at: clock.now(),
                        };
                        journal.append(&started)?;
                        state.step(started);
                        if let Some(obs) = &opts.observer {
                            obs.report(&Progress::Started {
                                // A checkpoint's question shows as its name.
                                path: call
                                    .checkpoint
                                    .as_ref()
                                    .map_or(&call.path, |c| &c.name)
                                    .clone(),
                                attempt: call.attempt,
                                resumed: call.resumed,
                            });
                        }
                        to_send.push(call);
                    }
                    Command::Timer(t) => {
                        if let Some(obs) = &opts.observer {
                            obs.report(&Progress::Waiting {
                                path: t.path.clone(),
                                until: t.fire_at.clone(),
                                kind: t.kind,
                            });
                        }
                        timers.arm(t);
                    }
                    Command::CancelTimer { id } => timers.cancel(id),
                    Command::Finish { status } => {
                        if let Some(obs) = &opts.observer {
                            obs.report(&Progress::Run { status });
                        }
                    }
                }
            }
        }
        // The journal rule: every event of the batch is durable before any command that
        // follows from it is carried out (timers are only armed in memory until they fire).
        journal.flush()?;
        for call in to_send.drain(..) {
            let cx = context(&state, &plan, &call, opts);
            if inline && cx.deadline.is_none() {
                // One call at a time and nothing to abandon: the driver's thread makes it,
                // saving two thread hand-offs per call.
                let result = invoke_blocking(
                    inline_rt(&mut inline_rt_slot),
                    &*pool.handler,
                    &plan,
                    &call,
                    &cx,
                );
                queue.push_back(Event::CallFinished {
                    path: call.path,
                    attempt: call.attempt,
                    result,
                    at: clock.now(),
                });
            } else {
                pool.submit(call, cx);
            }
        }
        if !queue.is_empty() {
            continue;
        }
        match state.status() {
            RunStatus::Running => {}
            RunStatus::AwaitingHuman => {
                let next = if clock.is_virtual() {
                    timers.pop_earliest()
                } else {
                    timers.pop_due(&clock.now())
                };
                match next {
                    Some(t) => {
                        queue.push_back(fire(clock, t));
                        continue;
                    }
                    None => break,
                }
            }
            _ => break,
        }
        if pool.outstanding() == 0 {
            let Some(t) = timers.pop_earliest() else {
                break;
            };
            if !clock.is_virtual() {
                std::thread::sleep(until(&t, &clock.now()));
            }
            queue.push_back(fire(clock, t));
            continue;
        }
        let deadline = match timers.earliest() {
            Some(t) if !clock.is_virtual() => Some(Instant::now() + until(t, &clock.now())),
            _ => None,
        };
        match pool.next(deadline) {
            Some((path, attempt, result)) => {
                queue.push_back(Event::CallFinished {
                    path,
                    attempt,
                    result,
                    at: clock.now(),
                });
                // Answers already in take the same batch: one flush for all of them. Not
                // under a virtual clock, whose records must not depend on how the threads
                // happened to interleave (one answer per batch, each at its own tick).
                while !clock.is_virtual()
                    && let Some((path, attempt, result)) = pool.try_next()
                {
                    queue.push_back(Event::CallFinished {
                        path,
                        attempt,
                        result,
                        at: clock.now(),
                    });
                }
            }
            None => {
                if let Some(t) = timers.pop_earliest() {
                    queue.push_back(fire(clock, t));
                }
            }
        }
    }
    pool.shutdown();
    Ok(state.record(&opts.harness))
}

fn context(state: &State, plan: &Plan, call: &Call, opts: &RunOptions) -> CallContext {
    let node = &plan.nodes[call.node];
    let timeout = call
        .timeout_seconds
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .or(opts.call_timeout);
    CallContext {
        run_id: state.run_id().to_string(),
        node_id: node.id.clone(),
        scope_path: call.path.clone(),
        kind: call.kind,
        attempt: call.attempt,
        idempotency_key: format!("{}:{}", state.run_id(), call.path),
        item: call.item,
        iteration: call.iteration,
        resumed: call.resumed,
        deadline: timeout.map(|t| Instant::now() + t),
    }
}

type Job = (u64, Call, CallContext);
type Done = (u64, CallResult);

/// A bounded pool of worker threads. A call past its deadline is answered `TimedOut` and
/// its worker abandoned (a fresh one replaces it), since a thread cannot be stopped.
struct Pool {
    jobs: Option<Sender<Job>>,
    job_rx: Arc<Mutex<Receiver<Job>>>,
    results: Receiver<Done>,
    result_tx: Sender<Done>,
    handler: Arc<dyn Handler>,
    plan: Arc<Plan>,
    /// Outstanding jobs: id → (path, attempt, deadline, started).
    pending: HashMap<u64, (String, u32, Option<Instant>, Instant)>,
    next_id: u64,
}

impl Pool {
    fn new(threads: usize, handler: Arc<dyn Handler>, plan: Arc<Plan>) -> Pool {
        let (jobs, job_rx) = channel::<Job>();
        let (result_tx, results) = channel::<Done>();
        let mut pool = Pool {
            jobs: Some(jobs),
            job_rx: Arc::new(Mutex::new(job_rx)),
            results,
            result_tx,
            handler,
            plan,
            pending: HashMap::new(),
            next_id: 0,
        };
        for _ in 0..threads {
            pool.spawn_worker();
        }
        pool
    }

    fn spawn_worker(&mut self) {
        let rx = Arc::clone(&self.job_rx);
        let tx = self.result_tx.clone();
        let handler = Arc::clone(&self.handler);
        let plan = Arc::clone(&self.plan);
        std::thread::spawn(move || {
            let Ok(rt) = call_runtime() else { return };
            loop {
                let job = {
                    let guard = rx.lock().unwrap_or_else(|p| p.into_inner());
                    guard.recv()
                };
                let Ok((id, call, cx)) = job else { return };
                let result = invoke_blocking(&rt, &*handler, &plan, &call, &cx);
                if tx.send((id, result)).is_err() {
                    return;
                }
            }
        });
    }

    fn submit(&mut self, call: Call, cx: CallContext) {
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(
            id,
            (call.path.clone(), call.attempt, cx.deadline, Instant::now()),
        );
        if let Some(jobs) = &self.jobs {
            // The workers hold the receiver for as long as the pool lives.
            let _ = jobs.send((id, call, cx));
        }
    }

    fn outstanding(&self) -> usize {
        self.pending.len()
    }

    /// A call that has finished already, without waiting.
    fn try_next(&mut self) -> Option<(String, u32, CallResult)> {
        while let Ok((id, result)) = self.results.try_recv() {
            if let Some((path, attempt, _, _)) = self.pending.remove(&id) {
                return Some((path, attempt, result));
            }
            // An abandoned call answered late: ignore it.
        }
        None
    }

    /// The next finished (or timed-out) call; `None` once `until` has passed first.
    fn next(&mut self, until: Option<Instant>) -> Option<(String, u32, CallResult)> {
        loop {
            let earliest = self
                .pending
                .iter()
                .filter_map(|(&id, (_, _, d, _))| d.map(|d| (d, id)))
                .min();
            let limit = match (earliest.map(|(d, _)| d), until) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            // A short spin first: a quick handler answers within microseconds, and catching
            // its answer awake saves putting this thread to sleep and waking it again (the
            // larger part of a hand-off). Bounded, so a slow handler costs ~20 µs of CPU.
            if let Some((id, result)) = spin_recv(&self.results) {
                if let Some((path, attempt, _, _)) = self.pending.remove(&id) {
                    return Some((path, attempt, result));
                }
                continue;
            }
            let got = match limit {
                Some(limit) => self
                    .results
                    .recv_timeout(limit.saturating_duration_since(Instant::now())),
                None => self
                    .results
                    .recv()
                    .map_err(|_| RecvTimeoutError::Disconnected),
            };
            match got {
                Ok((id, result)) => {
                    if let Some((path, attempt, _, _)) = self.pending.remove(&id) {
                        return Some((path, attempt, result));
                    }
                    // An abandoned call answered late: ignore it.
                }
                Err(RecvTimeoutError::Timeout) => {
                    let now = Instant::now();
                    let Some((deadline, id)) = earliest.filter(|&(d, _)| d <= now) else {
                        if until.is_some_and(|u| u <= now) {
                            return None;
                        }
                        continue;
                    };
                    debug_assert!(deadline <= now);
                    if let Some((path, attempt, _, started)) = self.pending.remove(&id) {
                        self.spawn_worker();
                        let seconds = started.elapsed().as_secs_f64();
                        return Some((
                            path,
                            attempt,
                            CallResult::TimedOut {
                                seconds: (seconds * 1000.0).round() / 1000.0,
                            },
                        ));
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    // Cannot happen while the pool holds a sender; answer every pending call.
                    let (&id, _) = self.pending.iter().next().expect("pending call");
                    let (path, attempt, _, _) = self.pending.remove(&id).expect("pending call");
                    return Some((
                        path,
                        attempt,
                        CallResult::Failed(HandlerError::new(
                            super::handler::FailureClass::Transient,
                            "the worker pool stopped",
                        )),
                    ));
                }
            }
        }
    }

    fn shutdown(&mut self) {
        self.jobs = None;
    }
}

/// Polls `rx` for about 20 µs; `None` if nothing came.
fn spin_recv<T>(rx: &Receiver<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        for _ in 0..64 {
            if let Ok(d) = rx.try_recv() {
                return Some(d);
            }
            std::hint::spin_loop();
        }
        if start.elapsed() > Duration::from_micros(20) {
            return None;
        }
    }
}

/// A current-thread tokio runtime (timers on) that a thread makes calls on, blocking on
/// each: the bridge until the driver is async.
fn call_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
}

fn inline_rt(slot: &mut Option<tokio::runtime::Runtime>) -> &tokio::runtime::Runtime {
    slot.get_or_insert_with(|| call_runtime().expect("a tokio runtime for the driver's calls"))
}

/// One handler call, made on `rt` (blocking this thread until it answers), with panics
/// caught and turned into failures.
fn invoke_blocking(
    rt: &tokio::runtime::Runtime,
    handler: &dyn Handler,
    plan: &Plan,
    call: &Call,
    cx: &CallContext,
) -> CallResult {
    let node = &plan.nodes[call.node];
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(super::handler::dispatch(
            handler,
            cx,
            node,
            call.kind,
            call.checkpoint.as_deref(),
            &call.inputs,
        ))
    }));
    match r {
        Ok(Ok(res)) => res,
        Ok(Err(e)) => CallResult::Failed(e),
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the handler panicked".into());
            CallResult::Failed(HandlerError::new(
                super::handler::FailureClass::ToolError,
                format!("the handler panicked: {msg}"),
            ))
        }
    }
}
