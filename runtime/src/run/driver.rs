//! The async driver: feeds events to the core, runs its calls as futures on the caller's
//! tokio runtime, journals every event before acting on the commands that follow it.
//!
//! Signatures are the stable API (see the module docs of [`crate::run`]).

use super::event::{Decision, HumanAnswer};
use super::handler::Handler;
use super::journal::Journal;
use super::record::RunRecord;
use crate::plan::Plan;
use serde_json::{Map, Value};
use std::sync::Arc;

pub use super::options::{Observer, Progress, RunError, RunOptions};

/// Runs `plan` with `params` to its end or first pause, journaling into `journal` (which
/// should be empty). Returns the run record.
///
/// Await it on a tokio runtime with timers enabled (any flavour; a synchronous host blocks on
/// [`tokio_runtime`]). Its calls are tasks of that runtime, as many at once as the plan's
/// limits allow. Dropping the future stops the run where it is (calls out are cancelled; the
/// journal holds what happened, and [`resume`] continues from it).
pub async fn run(
    plan: Arc<Plan>,
    params: Map<String, Value>,
    handler: Arc<dyn Handler>,
    journal: &mut dyn Journal,
    opts: &RunOptions,
) -> Result<RunRecord, RunError> {
    super::exec::run(plan, params, handler, journal, opts).await
}

/// Continues the run journaled in `journal`: replays it, applies `decisions` to gates that
/// await one, re-issues calls that were in flight, and runs to the end or the next pause.
pub async fn resume(
    plan: Arc<Plan>,
    handler: Arc<dyn Handler>,
    journal: &mut dyn Journal,
    decisions: &[Decision],
    opts: &RunOptions,
) -> Result<RunRecord, RunError> {
    let answers: Vec<HumanAnswer> = decisions.iter().map(HumanAnswer::from).collect();
    super::exec::resume(plan, handler, journal, &answers, opts).await
}

/// [`resume`] with answers that may carry outputs, an actor and a note ([`HumanAnswer`]). An
/// answer whose outputs would not fit (the checks a handler's answer goes through) is refused
/// with [`RunError::Resume`] before anything is journaled: the run stays paused.
pub async fn resume_answering(
    plan: Arc<Plan>,
    handler: Arc<dyn Handler>,
    journal: &mut dyn Journal,
    answers: &[HumanAnswer],
    opts: &RunOptions,
) -> Result<RunRecord, RunError> {
    super::exec::resume(plan, handler, journal, answers, opts).await
}

/// A multi-threaded tokio runtime of `workers` threads (at least 1) with timers, for hosts
/// that are not async: `tokio_runtime(2)?.block_on(run(..))`. The thread count bounds only how
/// many handler futures are polled at the same instant (CPU work); how many calls are in
/// flight is the plan's business (`max_parallel_nodes`, a map's `max_parallel`).
pub fn tokio_runtime(workers: usize) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers.max(1))
        .enable_time()
        .build()
}
