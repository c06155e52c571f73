//! The async driver behind [`super::run`] and [`super::resume`]: the core's calls are
//! futures (tokio tasks) bounded only by the plan's own limits, its timers tokio timers.

// `HandlerError` carries the failed attempt's usage (144 bytes); it is returned once per
// call, never in a hot loop, so boxing it would only make handlers clumsier to write.
#![allow(clippy::result_large_err)]

use super::core::{Call, Command, State, TimerKind, check};
use super::dispatch::dispatch;
use super::event::{CallResult, Event, HumanAnswer};
use super::handler::{CallContext, FailureClass, Handler, HandlerError};
use super::journal::Journal;
use super::options::{Progress, RunError, RunOptions};
use super::record::{NodeStatus, RunRecord, RunStatus};
use super::timer_queue::{TimerQueue, fire, until};
use crate::plan::Plan;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};
use tokio::task::JoinSet;

pub(super) async fn run(
    plan: Arc<Plan>,
    params: Map<String, Value>,
    handler: Arc<dyn Handler>,
    journal: &mut dyn Journal,
    opts: &RunOptions,
) -> Result<RunRecord, RunError> {
    let params = bind_params(&plan, params)?;
    let state = State::new(Arc::clone(&plan))?.with_eval_limits(&opts.eval_limits);
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
    drive(state, vec![started], handler, journal, opts).await
}

pub(super) async fn resume(
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
    let mut state = State::new(Arc::clone(&plan))?.with_eval_limits(&opts.eval_limits);
    // Limits met are read from the journal, not met again (`core::limits`).
    state.replay_limits(&events);
    for ev in events {
        state.step(ev);
    }
    state.replay_done();
    // Limits the replay met that the journal did not say (see `core::limits`): journaled
    // first thing when the run goes on.
    let met_in_replay = state.take_limits_met();
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
        return Ok(state.into_record(&opts.harness));
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
    let mut next = met_in_replay;
    next.push(Event::Resumed { at: resumed_at });
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
    drive(state, next, handler, journal, opts).await
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
    let schema = plan.state_schema.as_ref()?;
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
/// Calls: each is a tokio task of the caller's runtime (a [`JoinSet`]), as many at once as
/// the core issues (the plan's `max_parallel_nodes`, a map's `max_parallel`, its
/// constraints), whatever the runtime's thread count. A call with a deadline is cancelled
/// there (its future dropped); leaving the driver (the run ends, or its future is dropped)
/// cancels the calls still out.
///
/// Timers: the driver waits for calls and timers together (a virtual clock never waits: a
/// timer fires once no call is outstanding, the clock jumping to its time). A run that
/// pauses for a human is left paused even when a human timeout is pending (the local engine
/// does not watch paused runs: `agc run --resume` applies the timeouts that fell due),
/// except that timeouts already due fire at once, and a virtual clock lets time pass to
/// them instead of pausing.
async fn drive(
    mut state: State,
    first: Vec<Event>,
    handler: Arc<dyn Handler>,
    journal: &mut dyn Journal,
    opts: &RunOptions,
) -> Result<RunRecord, RunError> {
    let plan = Arc::clone(state.plan());
    let mut calls = Calls::new(opts.clock.is_virtual());
    let mut queue: std::collections::VecDeque<Event> = first.into();
    let mut timers = TimerQueue::new();
    let clock = &*opts.clock;
    // The calls of the batch of events being processed: made once the batch is durable.
    let mut to_send: Vec<Call> = Vec::new();
    // With `max_parallel_nodes: 1` (AGS's default) the core never has two calls out, so a
    // call without a deadline is awaited right here: the same order of events, the same
    // record, no task. A call with a deadline is a task the driver can stop waiting for even
    // when the handler blocks its thread.
    let inline = state.max_parallel() == 1;
    loop {
        while let Some(ev) = queue.pop_front() {
            journal.append(&ev)?;
            // What to report once the event is stepped (only to an observer).
            let finished = match &ev {
                _ if opts.observer.is_none() => None,
                Event::CallFinished { path, .. } | Event::Decided { path, .. } => {
                    Some((path.clone(), false))
                }
                // A timer ends a wait or a human's time; a backoff's end is no news.
                Event::TimerFired { path, .. } => Some((path.clone(), true)),
                _ => None,
            };
            let cmds = state.step(ev);
            // A limit met is journaled before anything that follows from it (`core::limits`).
            for met in state.take_limits_met() {
                journal.append(&met)?;
            }
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
        for mut call in to_send.drain(..) {
            let cx = context(&state, &plan, &mut call, opts);
            if inline && cx.deadline.is_none() {
                let (path, attempt, result) = invoke(&*handler, &plan, call, cx).await;
                queue.push_back(Event::CallFinished {
                    path,
                    attempt,
                    result,
                    at: clock.now(),
                });
            } else {
                calls.spawn(&handler, &plan, call, cx);
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
        if calls.is_empty() {
            let Some(t) = timers.pop_earliest() else {
                break;
            };
            if !clock.is_virtual() {
                tokio::time::sleep(until(&t, &clock.now())).await;
            }
            queue.push_back(fire(clock, t));
            continue;
        }
        let deadline = match timers.earliest() {
            Some(t) if !clock.is_virtual() => Some(Instant::now() + until(t, &clock.now())),
            _ => None,
        };
        let answer = if clock.is_virtual() {
            calls.next_in_order().await
        } else {
            calls.next(deadline).await
        };
        match answer {
            Some((path, attempt, result)) => {
                queue.push_back(Event::CallFinished {
                    path,
                    attempt,
                    result,
                    at: clock.now(),
                });
                // Answers already in take the same batch: one flush for all of them. Not
                // under a virtual clock, whose records must not depend on how the tasks
                // happened to interleave: one answer per batch, each at its own tick, in
                // the order the calls were made.
                while !clock.is_virtual()
                    && let Some((path, attempt, result)) = calls.try_next()
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
    // Calls still out (a run that ended without them) are cancelled as `calls` drops.
    Ok(state.into_record(&opts.harness))
}

/// The call's context; the call's path moves into it (`scope_path`, which [`invoke`] answers
/// with).
fn context(state: &State, plan: &Plan, call: &mut Call, opts: &RunOptions) -> CallContext {
    let node = &plan.nodes[call.node];
    let timeout = call
        .timeout_seconds
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .or(opts.call_timeout);
    let run_id = state.run_id();
    // `run id:path`, without `format!`'s machinery (once a call).
    let mut idempotency_key = String::with_capacity(run_id.len() + 1 + call.path.len());
    idempotency_key.push_str(run_id);
    idempotency_key.push(':');
    idempotency_key.push_str(&call.path);
    CallContext {
        run_id: run_id.to_string(),
        node_id: node.id.clone(),
        scope_path: std::mem::take(&mut call.path),
        kind: call.kind,
        attempt: call.attempt,
        idempotency_key,
        item: call.item,
        iteration: call.iteration,
        resumed: call.resumed,
        deadline: timeout.map(|t| Instant::now() + t),
    }
}

/// What a call task answers: the call's path, its attempt and its result.
type Answer = (String, u32, CallResult);

/// The calls in flight: tokio tasks, and who they are (a task that panics past the
/// driver's own catching, or is cancelled, still answers for its call).
#[derive(Default)]
struct Calls {
    set: JoinSet<Answer>,
    who: HashMap<tokio::task::Id, (String, u32)>,
    /// Whether answers are taken in the order the calls were made (a virtual clock); then the
    /// tasks in that order, and the answers that came in before an earlier call's
    /// ([`Calls::next_in_order`]).
    ordered: bool,
    order: std::collections::VecDeque<tokio::task::Id>,
    early: HashMap<tokio::task::Id, Answer>,
}

impl Calls {
    fn spawn(&mut self, handler: &Arc<dyn Handler>, plan: &Arc<Plan>, call: Call, cx: CallContext) {
        let who = (cx.scope_path.clone(), call.attempt);
        let handler = Arc::clone(handler);
        let plan = Arc::clone(plan);
        let id = self
            .set
            .spawn(async move { invoke(&*handler, &plan, call, cx).await })
            .id();
        self.who.insert(id, who);
        if self.ordered {
            self.order.push_back(id);
        }
    }

    fn new(ordered: bool) -> Calls {
        Calls {
            ordered,
            ..Calls::default()
        }
    }

    fn is_empty(&self) -> bool {
        self.set.is_empty() && self.early.is_empty()
    }

    /// The answer of the earliest call still out, however the tasks were scheduled: what a
    /// virtual clock takes, so that its records depend on the calls made, not on which
    /// finished first.
    async fn next_in_order(&mut self) -> Option<Answer> {
        let first = *self.order.front()?;
        loop {
            if let Some(answer) = self.early.remove(&first) {
                self.order.pop_front();
                return Some(answer);
            }
            let joined = self.set.join_next_with_id().await?;
            let id = match &joined {
                Ok((id, _)) => *id,
                Err(e) => e.id(),
            };
            let answer = self.answer(joined);
            self.early.insert(id, answer);
        }
    }

    /// The next call to answer; `None` once `until` has passed first.
    async fn next(&mut self, until: Option<Instant>) -> Option<Answer> {
        let joined = match until {
            Some(u) => tokio::time::timeout_at(u.into(), self.set.join_next_with_id())
                .await
                .ok()?,
            None => self.set.join_next_with_id().await,
        };
        joined.map(|j| self.answer(j))
    }

    /// A call that has answered already, without waiting.
    fn try_next(&mut self) -> Option<Answer> {
        let joined = self.set.try_join_next_with_id()?;
        Some(self.answer(joined))
    }

    fn answer(
        &mut self,
        joined: Result<(tokio::task::Id, Answer), tokio::task::JoinError>,
    ) -> Answer {
        match joined {
            Ok((id, answer)) => {
                self.who.remove(&id);
                answer
            }
            Err(e) => {
                let (path, attempt) = self.who.remove(&e.id()).unwrap_or_default();
                let why = if e.is_panic() {
                    "the handler panicked".to_string()
                } else {
                    "the call's task was cancelled (the runtime is shutting down)".to_string()
                };
                (
                    path,
                    attempt,
                    CallResult::Failed(HandlerError::new(FailureClass::Transient, why)),
                )
            }
        }
    }
}

/// One handler call: its deadline applied (the future dropped when it passes: the attempt
/// fails with `timeout`), panics caught and turned into failures. The call's path is the
/// context's (`scope_path`: [`context`] moved it there).
async fn invoke(handler: &dyn Handler, plan: &Plan, call: Call, cx: CallContext) -> Answer {
    let started = Instant::now();
    let result = {
        let node = &plan.nodes[call.node];
        let made = catch_unwind(Box::pin(dispatch(
            handler,
            &cx,
            node,
            call.kind,
            call.checkpoint.as_deref(),
            &call.inputs,
        )));
        let answered = match cx.deadline {
            Some(d) => tokio::time::timeout_at(d.into(), made).await.ok(),
            None => Some(made.await),
        };
        match answered {
            Some(Ok(Ok(res))) => res,
            Some(Ok(Err(e))) => CallResult::Failed(e),
            Some(Err(msg)) => CallResult::Failed(HandlerError::new(
                FailureClass::ToolError,
                format!("the handler panicked: {msg}"),
            )),
            None => {
                let seconds = started.elapsed().as_secs_f64();
                CallResult::TimedOut {
                    seconds: (seconds * 1000.0).round() / 1000.0,
                }
            }
        }
    };
    (cx.scope_path, call.attempt, result)
}

/// Polls `fut`, turning a panic into `Err` with the panic's message.
fn catch_unwind<'a, T: 'a>(
    mut fut: Pin<Box<dyn Future<Output = T> + Send + 'a>>,
) -> impl Future<Output = Result<T, String>> + Send + 'a {
    std::future::poll_fn(move |cx| {
        match std::panic::catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(cx))) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(p) => Poll::Ready(Err(p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the handler panicked".into()))),
        }
    })
}
