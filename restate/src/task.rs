//! The `AgcTask` service: runs one handler call (a future, cancelled at its deadline) and
//! answers its [`CallResult`] (a failure is data for the scheduler core, never a Restate error, so
//! Restate retries only calls that never answered: a worker killed mid-call).

use crate::handlers::Handlers;
use crate::wire::{TaskAnswer, TaskSpec};
use agc_runtime::run::{CallContext, CallResult, Clock, FailureClass, SystemClock, dispatch};
use restate_sdk::prelude::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The task service; bind it with [`crate::endpoint`].
pub struct AgcTask {
    pub(crate) handlers: Arc<dyn Handlers>,
}

#[restate_sdk::service]
impl AgcTask {
    /// One call of the plan's handler.
    #[handler]
    async fn execute(
        &self,
        _ctx: Context<'_>,
        spec: Json<TaskSpec>,
    ) -> Result<Json<TaskAnswer>, HandlerError> {
        let spec = spec.into_inner();
        let result = match self.handlers.handler(&spec) {
            Ok(h) => call(h, spec).await,
            Err(m) => failed(FailureClass::ToolError, m),
        };
        Ok(Json(TaskAnswer {
            result,
            at: SystemClock.now(),
        }))
    }
}

fn failed(class: FailureClass, message: String) -> CallResult {
    CallResult::Failed(agc_runtime::run::HandlerError::new(class, message))
}

/// Calls the handler, with the node's deadline: the call is a future on this worker's tokio
/// runtime (its own task, so a panic fails the call instead of the worker), dropped at its
/// deadline: a call past its deadline is cancelled, not left running.
async fn call(handler: Arc<dyn agc_runtime::run::Handler>, spec: TaskSpec) -> CallResult {
    let timeout = spec
        .timeout_seconds
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64);
    let started = Instant::now();
    let cx = CallContext {
        run_id: spec.run_id.clone(),
        node_id: spec.node.id.clone(),
        scope_path: spec.path.clone(),
        kind: spec.kind,
        attempt: spec.attempt,
        idempotency_key: format!("{}:{}", spec.run_id, spec.path),
        item: spec.item,
        iteration: spec.iteration,
        resumed: spec.resumed,
        deadline: timeout.map(|t| started + t),
    };
    let job = tokio::spawn(async move {
        let call = dispatch(
            &*handler,
            &cx,
            &spec.node,
            spec.kind,
            spec.checkpoint.as_ref(),
            &spec.inputs,
        );
        let result = match timeout {
            Some(t) => match tokio::time::timeout(t, call).await {
                Ok(r) => r,
                Err(_) => {
                    let seconds = started.elapsed().as_secs_f64();
                    return CallResult::TimedOut {
                        seconds: (seconds * 1000.0).round() / 1000.0,
                    };
                }
            },
            None => call.await,
        };
        result.unwrap_or_else(CallResult::Failed)
    });
    // Restate dropping this invocation (the worker shutting down) aborts the call too.
    let mut job = AbortOnDrop(job);
    match (&mut job.0).await {
        Ok(r) => r,
        Err(e) => {
            let msg = match e.try_into_panic() {
                Ok(p) => p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "the handler panicked".into()),
                Err(_) => "the handler was cancelled".into(),
            };
            failed(
                FailureClass::ToolError,
                format!("the handler panicked: {msg}"),
            )
        }
    }
}

/// Aborts its task when dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
