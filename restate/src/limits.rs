//! Evaluation limits met on Restate (issue 47): a step of the scheduler core that evaluates
//! jq is a Restate side effect, so a replay reads the limits it met instead of meeting them
//! again.
//!
//! Whether a jq evaluation meets its time limit depends on the worker's speed and load (and
//! its stack and memory limits on the worker's build), yet a limit met decides the run's path:
//! the node's attempt fails with `budget_exceeded` (AGC043), its retries and failure edges
//! follow. Restate replays a workflow by running it again from its start, so every step of the
//! core is made again, and a filter that met its time limit live could finish in a replay (or
//! the other way round), leading the replay off the journal's path.
//!
//! The local driver journals each limit met (`Event::LimitMet`) and reads the journal before a
//! replay (`agc_runtime::run::core` `limits`). Here each step of a plan that evaluates jq runs
//! inside `ctx.run` (named `evaluate`), whose journaled result is the limits the step met:
//!
//! - Live, the closure steps the core and returns the limits met (often none); the node fails
//!   from them exactly as in a local run.
//! - In a replay the closure does not run: the core steps with the journaled limits as its
//!   replay (an evaluation they name fails again with their message, unevaluated; any other
//!   runs with the replay's extra time, as a local resume), so the replay takes the live path.
//!   A never-ending filter is therefore evaluated once, live, whatever Restate replays.
//! - An evaluation that meets a limit in a replay that the live step did not (a worker ten
//!   times slower than the live one) would lead off the journal's path: the invocation fails
//!   with a retryable error instead.
//!
//! Plans without jq (AGS, agh, Agent Graph) step the core directly: their expressions (CEL,
//! AGX, templates, fact checks) are bounded by counts (steps, nesting, bytes built), which
//! decide the same on every replay, and read no clock; they journal nothing extra.

use agc_runtime::run::Event;
use agc_runtime::run::core::{Command, State};
use restate_sdk::prelude::*;
use std::sync::{Arc, Mutex, MutexGuard};

/// Whether the core's steps for `state`'s plan go through [`step`] (the plan evaluates jq).
pub(crate) fn journaled(state: &State) -> bool {
    state.plan().evaluates_jq()
}

/// A state handed to the side effect with its event, or handed back stepped with its commands.
type Slot<T> = Arc<Mutex<Option<(State, T)>>>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Steps `event` as a Restate side effect whose journaled result is the limits met (see the
/// module docs); `state` back with the step's commands.
pub(crate) async fn step(
    ctx: &WorkflowContext<'_>,
    state: State,
    event: Event,
) -> Result<(State, Vec<Command>), HandlerError> {
    // The closure must outlive this call's borrows (`'ctx`), so it owns the state: it goes in,
    // and comes back stepped when the closure runs (live).
    let before: Slot<Event> = Arc::new(Mutex::new(Some((state, event))));
    let after: Slot<Vec<Command>> = Arc::default();
    let (b, a) = (Arc::clone(&before), Arc::clone(&after));
    let met: Json<Vec<Event>> = ctx
        .run(move || async move {
            let Some((mut state, event)) = lock(&b).take() else {
                return Err(TerminalError::new("a step of the core was made twice").into());
            };
            let cmds = state.step(event);
            let met = state.take_limits_met();
            *lock(&a) = Some((state, cmds));
            Ok(Json(met))
        })
        .name("evaluate")
        .await?;
    if let Some(live) = lock(&after).take() {
        return Ok(live);
    }
    let Some((mut state, event)) = lock(&before).take() else {
        return Err(TerminalError::new("a step of the core was lost").into());
    };
    state.replay_limits(&met.into_inner());
    let cmds = state.step(event);
    state.replay_done();
    if let Some(Event::LimitMet { message, .. }) = state.take_limits_met().into_iter().next() {
        return Err(HandlerError::from(format!(
            "a replay met an evaluation limit its live run did not meet, which would lead it \
             off its journal: {message}; retried by Restate"
        )));
    }
    Ok((state, cmds))
}
