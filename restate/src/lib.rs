//! Runs agc plans on [Restate](https://restate.dev), a durable-execution engine, with the same
//! pure scheduler core and the same handlers as the local runtime.
//!
//! - [`workflow::AgcRun`]: one workflow per run (key = run id). Its `run` handler drives
//!   `agc_runtime::run::core::State::step` with events built from journaled values; `decide`
//!   resolves a gate's durable promise; `status` reports progress and the record.
//! - [`task::AgcTask`]: `execute` makes one handler call (any `Arc<dyn Handler>`, see
//!   [`handlers`]) on a blocking thread.
//! - `limits`: each step of the core for a plan that evaluates jq is a side effect journaling
//!   the evaluation limits it met, so a replay reads them instead of meeting them again.
//! - [`serve`]: our own HTTP/2 accept loop with a 16 MiB connection window (the h2 replay trap).
//! - [`wire`]: the JSON contract with `agc run --engine restate`.
//!
//! Differences from the local driver, by design: a call interrupted by a worker crash is
//! retried by Restate (`resumed` stays false); subgraph instances run inside the same
//! workflow, as scopes of the core, rather than as child workflows.

pub mod handlers;
mod inflight;
mod limits;
pub mod serve;
pub mod task;
pub mod wire;
pub mod workflow;

use agc_runtime::run::record::Harness;
use handlers::Handlers;
use restate_sdk::endpoint::Endpoint;
use std::sync::Arc;

/// The endpoint serving `AgcRun` and `AgcTask` with `handlers`.
pub fn endpoint(handlers: Arc<dyn Handlers>) -> Endpoint {
    endpoint_with(handlers, Harness::default())
}

/// [`endpoint`] with the harness named in run records.
pub fn endpoint_with(handlers: Arc<dyn Handlers>, harness: Harness) -> Endpoint {
    Endpoint::builder()
        .bind(workflow::AgcRun { harness })
        .bind(task::AgcTask { handlers })
        .build()
}
