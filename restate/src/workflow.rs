//! The `AgcRun` workflow: one per run, keyed by the run id. `run` is a driver of the
//! runtime's pure scheduler core (`State::step`), like the local driver: every event it
//! feeds the core is built from journaled values (the start time through `ctx.run`, call
//! results from durable calls to `AgcTask`, decisions from durable promises), so a replay
//! after a crash rebuilds the same state and issues no completed call again.
//!
//! Timers (retry backoff, timed waits, human timeouts): with live times each is a durable
//! sleep (`ctx.sleep`) raced with the calls and gate promises in flight, so a gate's promise
//! and its timeout race and a timer survives a worker crash. With `fixed_clock` (virtual
//! time, as the local driver's fixed clock) no sleep is taken: a timer fires once no call is
//! outstanding, its event stamped at its `fire_at`, a pure function of the journaled state,
//! so both engines give the same records.
//!
//! Evaluation limits: the plan's `eval_limits`, with the run input's over them, are the
//! run's own. A limit met fails the node as locally; each step of a plan that evaluates jq is
//! a side effect journaling the limits it met, so a replay cannot decide them otherwise
//! (`crate::limits`).
//!
//! Shared handlers: `decide` resolves a gate's promise (a second decision is refused with
//! 409), `status` reports progress, awaiting gates and, once the run pauses or ends, its
//! record.

use crate::inflight::{InFlight, Outcome};
use crate::limits;
use crate::wire::{GateDecision, RunInput, StatusView, TASK_SERVICE, TaskAnswer, TaskSpec};
use agc_runtime::plan::Plan;
use agc_runtime::run::core::{Command, State};
use agc_runtime::run::record::Harness;
use agc_runtime::run::timer_queue::{later, until};
use agc_runtime::run::{
    Clock, Event, FixedClock, GateResponse, RunStatus, SystemClock, TimerQueue, bind_params,
};
use restate_sdk::context::{DurableFuture, RequestTarget};
use restate_sdk::prelude::*;
use serde_json::{Map, Value};
use std::collections::VecDeque;
use std::sync::Arc;

/// The run workflow; bind it with [`crate::endpoint`].
pub struct AgcRun {
    pub(crate) harness: Harness,
}

const STATUS: &str = "status";

/// The promise a gate (or a checkpoint, by its name) waits on.
pub(crate) fn gate_key(path: &str) -> String {
    format!("gate:{path}")
}

fn terminal(code: u16, message: impl Into<String>) -> HandlerError {
    TerminalError::new_with_code(code, message.into()).into()
}

#[restate_sdk::workflow]
impl AgcRun {
    /// Runs the plan to its end, waiting on durable promises at gates.
    #[handler]
    async fn run(
        &self,
        ctx: WorkflowContext<'_>,
        input: Json<RunInput>,
    ) -> Result<Json<Value>, HandlerError> {
        drive(&ctx, input.into_inner(), &self.harness).await
    }

    /// Decides a gate or a human checkpoint that awaits a human (by the name `status`
    /// lists). 404 when nothing of that name awaits, 409 when it was already decided.
    #[handler]
    async fn decide(
        &self,
        ctx: SharedWorkflowContext<'_>,
        decision: Json<GateDecision>,
    ) -> Result<(), HandlerError> {
        let mut d = decision.into_inner();
        let key = gate_key(&d.gate);
        if ctx
            .peek_promise::<Json<GateDecision>>(&key)
            .await?
            .is_some()
        {
            return Err(terminal(409, format!("`{}` was already decided", d.gate)));
        }
        let view = ctx
            .get::<Json<StatusView>>(STATUS)
            .await?
            .map(Json::into_inner)
            .unwrap_or_default();
        if !view.awaiting.contains(&d.gate) {
            return Err(terminal(
                404,
                format!(
                    "no gate, checkpoint or signal wait `{}` is awaiting a decision (awaiting: {})",
                    d.gate,
                    if view.awaiting.is_empty() {
                        "none".to_string()
                    } else {
                        view.awaiting.join(", ")
                    }
                ),
            ));
        }
        if d.at.is_none() {
            let now: String = ctx
                .run(|| async { Ok(SystemClock.now()) })
                .name("clock")
                .await?;
            d.at = Some(now);
        }
        ctx.resolve_promise(&key, Json(d));
        Ok(())
    }

    /// Progress, awaiting gates, and the record once the run pauses or ends.
    #[handler]
    async fn status(
        &self,
        ctx: SharedWorkflowContext<'_>,
    ) -> Result<Json<StatusView>, HandlerError> {
        let view = ctx.get::<Json<StatusView>>(STATUS).await?;
        Ok(Json(view.map(Json::into_inner).unwrap_or_else(|| {
            StatusView {
                status: "unknown".into(),
                ..StatusView::default()
            }
        })))
    }
}

/// Event times: a fixed clock (ticks in the same order as the local driver's), or live
/// times taken from journaled values and never going backwards.
enum Times {
    Fixed(FixedClock),
    Live(String),
}

impl Times {
    fn now(&mut self, observed: Option<&str>) -> String {
        match self {
            Times::Fixed(c) => c.now(),
            Times::Live(last) => {
                if let Some(o) = observed
                    && later(o, last)
                {
                    *last = o.to_string();
                }
                last.clone()
            }
        }
    }

    /// The time a timer fires: virtual time jumps to `fire_at`; live time is at least it.
    fn fire(&mut self, fire_at: &str) -> String {
        match self {
            Times::Fixed(c) => {
                c.advance_to(fire_at);
                c.now()
            }
            Times::Live(_) => self.now(Some(fire_at)),
        }
    }

    /// The latest live time (what a sleep's length is measured from).
    fn current(&self) -> &str {
        match self {
            Times::Fixed(_) => "",
            Times::Live(last) => last,
        }
    }
}

async fn drive(
    ctx: &WorkflowContext<'_>,
    input: RunInput,
    harness: &Harness,
) -> Result<Json<Value>, HandlerError> {
    if ctx.key() != input.run_id {
        return Err(terminal(
            400,
            format!(
                "the workflow key `{}` is not the run id `{}`",
                ctx.key(),
                input.run_id
            ),
        ));
    }
    // `from_value` reads every format in `FORMATS_READ` and upgrades it to the current one,
    // refusing any other with the formats it knows.
    let plan = Plan::from_value(input.plan)
        .map_err(|e| terminal(400, format!("not a usable agc plan: {e}")))?;
    let params = bind_params(&plan, input.params).map_err(|e| terminal(400, e.to_string()))?;
    let plan = Arc::new(plan);
    // The plan's evaluation limits, and the run's own over them: this run's alone.
    let mut state = State::new(Arc::clone(&plan))
        .map_err(|e| terminal(400, format!("invalid plan: {e}")))?
        .with_eval_limits(&input.eval_limits);
    let journal_limits = limits::journaled(&state);
    let mut context = match plan.attrs.get("context") {
        Some(Value::Object(c)) => c.clone(),
        _ => Map::new(),
    };
    for (k, v) in input.context {
        context.insert(k, v);
    }
    let mut times = if input.fixed_clock {
        Times::Fixed(FixedClock::new())
    } else {
        let start: String = ctx
            .run(|| async { Ok(SystemClock.now()) })
            .name("clock")
            .await?;
        Times::Live(start)
    };
    let started = Event::Started {
        run_id: input.run_id.clone(),
        graph_id: plan.graph.id.clone(),
        graph_digest: plan.source.graph_digest.clone(),
        params,
        context,
        at: times.now(None),
    };
    let mut queue: VecDeque<Event> = VecDeque::from([started]);
    let mut inflight = InFlight::new();
    let mut timers = TimerQueue::new();
    let fixed = input.fixed_clock;
    let mut view = StatusView {
        status: RunStatus::Running.as_str().into(),
        ..StatusView::default()
    };
    let mut published = String::new();
    loop {
        while let Some(ev) = queue.pop_front() {
            let finished = match &ev {
                Event::CallFinished { path, .. } | Event::Decided { path, .. } => {
                    Some(path.clone())
                }
                _ => None,
            };
            // A step that evaluates jq is a side effect journaling the limits it met, which
            // a replay reads instead of meeting them again (`crate::limits`).
            let cmds = if journal_limits {
                let (stepped, cmds) = limits::step(ctx, state, ev).await?;
                state = stepped;
                cmds
            } else {
                state.step(ev)
            };
            if let Some(path) = finished
                && state.node_status(&path).is_some_and(|s| s.is_terminal())
            {
                view.finished += 1;
                view.last = Some(path);
            }
            for cmd in cmds {
                let call = match cmd {
                    Command::Call(call) => call,
                    Command::Timer(t) => {
                        if !fixed {
                            let id = t.id;
                            let fut = ctx
                                .sleep(until(&t, times.current()))
                                .map_ok(move |()| Outcome::Timer { id });
                            inflight.push_timer(id, Box::pin(fut));
                        }
                        timers.arm(t);
                        continue;
                    }
                    Command::CancelTimer { id } => {
                        // A live sleep cannot be withdrawn: its firing is dropped below.
                        timers.cancel(id);
                        continue;
                    }
                    Command::Finish { .. } => continue,
                };
                let at = times.now(None);
                // Outside `limits::step`: a call's start evaluates nothing here (the core
                // evaluates at a call's start only for an attempt it has not yet issued).
                state.step(Event::CallStarted {
                    path: call.path.clone(),
                    attempt: call.attempt,
                    at,
                });
                let spec = TaskSpec {
                    run_id: input.run_id.clone(),
                    path: call.path.clone(),
                    node: plan.nodes[call.node].clone(),
                    kind: call.kind,
                    attempt: call.attempt,
                    inputs: call.inputs,
                    item: call.item,
                    iteration: call.iteration,
                    resumed: call.resumed,
                    timeout_seconds: call.timeout_seconds.or(input.call_timeout_seconds),
                    script: input.script.clone(),
                    checkpoint: call.checkpoint.map(|c| *c),
                };
                let (path, attempt) = (call.path, call.attempt);
                let p = path.clone();
                let fut = ctx
                    .request::<Json<TaskSpec>, Json<TaskAnswer>>(
                        RequestTarget::service(TASK_SERVICE, "execute"),
                        Json(spec),
                    )
                    .call()
                    .map_ok(move |a| Outcome::Answer {
                        path: p,
                        attempt,
                        answer: a.into_inner(),
                    });
                inflight.push_call(&path, attempt, Box::pin(fut));
            }
        }
        // Virtual time: a timer fires once no call is outstanding (as the local driver).
        if fixed
            && matches!(
                state.status(),
                RunStatus::Running | RunStatus::AwaitingHuman
            )
            && inflight.calls() == 0
            && let Some(t) = timers.pop_earliest()
        {
            queue.push_back(Event::TimerFired {
                at: times.fire(&t.fire_at),
                id: t.id,
                path: t.path,
            });
            continue;
        }
        // Every gate awaiting a human waits on its durable promise.
        view.awaiting = state.awaiting_gates();
        for path in &view.awaiting {
            if inflight.has_gate(path) {
                continue;
            }
            // Promise names borrow for the context's lifetime; a run has few gates.
            let key: &'static str = Box::leak(gate_key(path).into_boxed_str());
            let p = path.clone();
            let fut = ctx
                .promise::<Json<GateDecision>>(key)
                .map_ok(move |d| Outcome::Decision {
                    path: p,
                    decision: d.into_inner(),
                });
            inflight.push_gate(path, Box::pin(fut));
        }
        let status = state.status();
        view.status = status.as_str().into();
        let over = status != RunStatus::Running && status != RunStatus::AwaitingHuman;
        let paused = status == RunStatus::AwaitingHuman;
        view.record = (over || paused)
            .then(|| serde_json::to_value(state.record(harness)).unwrap_or(Value::Null));
        let text = serde_json::to_string(&view).unwrap_or_default();
        if text != published {
            ctx.set(STATUS, Json(view.clone()));
            published = text;
        }
        if over {
            break;
        }
        if inflight.is_empty() {
            return Err(terminal(
                500,
                "the scheduler has nothing in flight but the run is not over",
            ));
        }
        match inflight.next(ctx).await? {
            Ok(Outcome::Answer {
                path,
                attempt,
                answer,
            }) => queue.push_back(Event::CallFinished {
                path,
                attempt,
                result: answer.result,
                at: times.now(Some(&answer.at)),
            }),
            Ok(Outcome::Decision { path, decision }) => {
                if state.status() == RunStatus::AwaitingHuman {
                    // As a local `agc run --resume`: the paused run resumes, then the decision.
                    queue.push_back(Event::Resumed {
                        at: times.now(decision.at.as_deref()),
                    });
                }
                queue.push_back(Event::Decided {
                    path,
                    response: GateResponse {
                        outcome: Some(decision.outcome),
                        outputs: decision.outputs,
                        actor: decision.actor,
                        note: decision.note,
                    },
                    at: times.now(decision.at.as_deref()),
                });
            }
            Ok(Outcome::Timer { id }) => {
                // A cancelled timer's sleep still ends: nothing to tell the core then.
                if let Some(t) = timers.take(id) {
                    queue.push_back(Event::TimerFired {
                        at: times.fire(&t.fire_at),
                        id,
                        path: t.path,
                    });
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    let record = view.record.unwrap_or(Value::Null);
    Ok(Json(record))
}

#[cfg(test)]
mod tests {
    use super::Times;

    #[test]
    fn live_times_never_go_backwards_and_fixed_times_tick_like_the_local_driver() {
        let mut t = Times::Live("2026-01-01T00:00:01.000000Z".into());
        assert_eq!(t.now(None), "2026-01-01T00:00:01.000000Z");
        // A worker whose clock is behind cannot move the run's time back.
        assert_eq!(
            t.now(Some("2026-01-01T00:00:00.500000Z")),
            "2026-01-01T00:00:01.000000Z"
        );
        assert_eq!(
            t.now(Some("2026-01-01T00:00:02.000000Z")),
            "2026-01-01T00:00:02.000000Z"
        );
        let mut f = Times::Fixed(agc_runtime::run::FixedClock::new());
        let local = agc_runtime::run::FixedClock::new();
        use agc_runtime::run::Clock;
        for _ in 0..3 {
            assert_eq!(f.now(Some("1999-01-01T00:00:00Z")), local.now());
        }
    }
}
