//! The [`Handler`] trait: what the driver calls for the work a plan describes (async: each
//! call is a future).

// `HandlerError` carries the failed attempt's usage (144 bytes); it is returned once per
// call, never in a hot loop, so boxing it would only make handlers clumsier to write.
#![allow(clippy::result_large_err)]

use crate::plan::{Node, NodeKind};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

/// Everything a handler learns about one call besides the node and its inputs.
#[derive(Clone, Debug)]
pub struct CallContext {
    /// The run's id.
    pub run_id: String,
    /// The node's scoped id in the plan (`repair_loop/run_tests`).
    pub node_id: String,
    /// The AGS scope path of this node run (`repair_loop[2].run_tests`; indices 0-based).
    pub scope_path: String,
    pub kind: NodeKind,
    /// 1-based attempt number. A call re-issued after a crash keeps its attempt number (the
    /// journal never saw its result) and has `resumed` set.
    pub attempt: u32,
    /// `run_id + ":" + scope_path`: the same for every attempt of this node run and across a
    /// resume, so handlers can make side effects idempotent.
    pub idempotency_key: String,
    /// The innermost enclosing map item index, if any (0-based).
    pub item: Option<u64>,
    /// The innermost enclosing loop iteration index, if any (0-based, like `loop.index`).
    pub iteration: Option<u64>,
    /// True when this call was in flight when the run was interrupted and is issued again.
    pub resumed: bool,
    /// When the call must have returned (node `timeout_seconds` or the run's call timeout).
    /// The driver cancels the call at this instant (drops its future) and fails the attempt
    /// with `timeout`.
    pub deadline: Option<Instant>,
}

impl CallContext {
    /// True once the deadline has passed.
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Tokens, cost and tool calls one attempt used (all optional; summed into the run's usage).
///
/// This type and the other results a handler returns ([`Completion`], [`GateResponse`],
/// [`HandlerError`]) refuse fields they do not have when read: they are journaled, and a
/// damaged field name must not be read as that field absent (issue 47).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_clock_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_executions: Option<u64>,
}

impl Usage {
    /// Adds `other` into `self` (absent fields stay absent unless the other has them).
    pub fn add(&mut self, other: &Usage) {
        fn sum<T: Copy + std::ops::Add<Output = T>>(a: &mut Option<T>, b: Option<T>) {
            if let Some(b) = b {
                *a = Some(match *a {
                    Some(x) => x + b,
                    None => b,
                });
            }
        }
        sum(&mut self.input_tokens, other.input_tokens);
        sum(&mut self.output_tokens, other.output_tokens);
        sum(&mut self.total_tokens, other.total_tokens);
        sum(&mut self.cost_usd, other.cost_usd);
        sum(&mut self.tool_calls, other.tool_calls);
        sum(&mut self.wall_clock_seconds, other.wall_clock_seconds);
        sum(&mut self.node_executions, other.node_executions);
    }

    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }
}

/// A successful task or decision call: the node's outputs (checked against the declared
/// outputs by the driver) and what it used. A decision puts its label in `outputs.decision`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Completion {
    pub outputs: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
}

/// A human's answer at a gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateOutcome {
    Approved,
    Rejected,
}

impl GateOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            GateOutcome::Approved => "approved",
            GateOutcome::Rejected => "rejected",
        }
    }

    /// `approved` / `rejected`.
    pub fn parse(s: &str) -> Option<GateOutcome> {
        match s {
            "approved" => Some(GateOutcome::Approved),
            "rejected" => Some(GateOutcome::Rejected),
            _ => None,
        }
    }
}

/// What a gate call returns: a decision now, or `None` to pause the run as
/// `awaiting_human` until a decision is supplied on resume.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<GateOutcome>,
    /// Values the human provided (`gate.collect`), merged into the gate's outputs.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub outputs: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl GateResponse {
    /// No decision yet: the run pauses.
    pub fn pending() -> GateResponse {
        GateResponse::default()
    }

    pub fn decided(outcome: GateOutcome) -> GateResponse {
        GateResponse {
            outcome: Some(outcome),
            ..GateResponse::default()
        }
    }
}

/// A human checkpoint a node run reached, or a hand-off of its failure ladder (an escalation,
/// a `human_takeover`): what [`Handler::checkpoint`] is asked. The answer is a
/// [`GateResponse`]: approved or rejected now (with edited or supplied `outputs`), or pending,
/// which pauses the run until a decision arrives for [`Checkpoint::name`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The checkpoint's `id` (its stage when it has none); `escalation` and `takeover` for
    /// the ladder's hand-offs.
    pub id: String,
    /// The name a decision names it by: the node run's scope path and the id
    /// (`publish.pre_upload`), with `#n` from the second time the same run asks it.
    pub name: String,
    /// `before_start`, `before_side_effects`, `after_outputs`, `on_criteria_failure`,
    /// `on_failure`, `on_escalation` or `human_takeover`.
    pub stage: String,
    /// `approve`, `review`, `input` or `notify` (notify never blocks).
    pub mode: String,
    /// False: an answer is welcome but the run does not wait for one.
    pub required: bool,
    /// The rendered `prompt` (an escalation's rendered `message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// The outputs under review (`after_outputs`, `on_criteria_failure`), else the last
    /// attempt's outputs, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Map<String, Value>>,
    /// Escalations: `human`, `supervisor` or `external`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalate_to: Option<String>,
    /// What failed (failure stages and hand-offs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// An escalation's `include` material by name (`inputs`, `outputs`, `failed_criteria`,
    /// `diagnostics`; the runtime keeps no transcript).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub include: Map<String, Value>,
}

pub use crate::plan::FailureClass;

/// A failed call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandlerError {
    pub class: FailureClass,
    pub message: String,
    #[serde(default, skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
}

impl HandlerError {
    pub fn new(class: FailureClass, message: impl Into<String>) -> HandlerError {
        HandlerError {
            class,
            message: message.into(),
            usage: Usage::default(),
        }
    }
}

/// Constructors from any error, one per class, for `?` in handlers:
/// `client.send().await.map_err(Failure::transient)?`. The message is the error's and its
/// causes', `: `-separated (an HTTP client's own message often names only the outermost).
impl HandlerError {
    /// A failure of `class` from `error` (an error of any type, a `String` or a `&str`).
    pub fn of(
        class: FailureClass,
        error: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> HandlerError {
        let error = error.into();
        let mut message = error.to_string();
        let mut cause = error.source();
        while let Some(c) = cause {
            message.push_str(": ");
            message.push_str(&c.to_string());
            cause = c.source();
        }
        HandlerError::new(class, message)
    }

    /// `transient`: worth retrying (a busy service, a network failure).
    pub fn transient(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> HandlerError {
        HandlerError::of(FailureClass::Transient, error)
    }

    /// `model_error`: the model refused or answered nonsense.
    pub fn model(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> HandlerError {
        HandlerError::of(FailureClass::ModelError, error)
    }

    /// `tool_error`: a tool the call used failed.
    pub fn tool(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> HandlerError {
        HandlerError::of(FailureClass::ToolError, error)
    }

    /// `timeout`: the call gave up waiting.
    pub fn timeout(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> HandlerError {
        HandlerError::of(FailureClass::Timeout, error)
    }

    /// `budget_exceeded`: the call would spend more than it may.
    pub fn budget_exceeded(
        error: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> HandlerError {
        HandlerError::of(FailureClass::BudgetExceeded, error)
    }

    /// `criteria_failed`: the result does not meet the node's criteria.
    pub fn criteria_failed(
        error: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> HandlerError {
        HandlerError::of(FailureClass::CriteriaFailed, error)
    }

    /// `output_missing`: an output the node declares could not be produced.
    pub fn output_missing(
        error: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> HandlerError {
        HandlerError::of(FailureClass::OutputMissing, error)
    }

    /// `validation_error`: a value has the wrong shape.
    pub fn validation(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> HandlerError {
        HandlerError::of(FailureClass::ValidationError, error)
    }

    /// `permission_denied`: the call may not do what it was asked.
    pub fn permission_denied(
        error: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> HandlerError {
        HandlerError::of(FailureClass::PermissionDenied, error)
    }

    /// This failure with `usage` added to what the attempt used.
    pub fn with_usage(mut self, usage: &Usage) -> HandlerError {
        self.usage.add(usage);
        self
    }
}

impl std::fmt::Display for HandlerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.class.as_str(), self.message)
    }
}

/// A failure is an error like any other: boxed, `?`-converted into `anyhow::Error` or
/// `Box<dyn Error>`, its class kept in [`HandlerError::class`].
impl std::error::Error for HandlerError {}

/// What a [`Handler`] method returns: a boxed future of the call's result that borrows the
/// handler, the context, the node and the inputs for `'a`.
///
/// Boxed (rather than `async fn` in the trait) so that the trait stays object-safe: drivers
/// hold `Arc<dyn Handler>`, whatever the handler's concrete type (a generated runner's typed
/// adapter, the scripted handler, a Restate worker's). One allocation per call is nothing
/// beside a model or tool call. `Send`, so a call can run on any worker of a multi-threaded
/// tokio runtime.
pub type CallFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, HandlerError>> + Send + 'a>>;

/// The work behind a plan: one method per kind of call, each returning a future
/// ([`CallFuture`]). The driver runs many calls at once as futures on a tokio runtime (how
/// many: the graph's own limits, never a thread count), so a call that waits (a model call, an
/// HTTP request, a timer) should `.await`, not block; blocking code goes through [`blocking`].
/// A call past its deadline is cancelled: its future is dropped at its next `.await`.
///
/// A call gets the node's resolved, type-checked inputs and returns its outputs, which the
/// driver checks against the node's declared outputs (a wrong shape fails the attempt with
/// `validation_error`). Write a method as `Box::pin(async move { ... })`.
///
/// Contract:
/// - `task` runs task-like nodes (`task`, `external`, and nodes of kinds the scheduler
///   does not execute itself).
/// - `decision` defaults to `task`; its label goes in `outputs.decision`.
/// - `gate` defaults to pausing (no decision): the run ends `awaiting_human` and a later
///   `resume` supplies the decision. `signal` (AWP signal waits) likewise.
/// - A call may be made again for the same `idempotency_key` (retries, and a call that was in
///   flight when the process died or that was cancelled at its deadline); handlers that have
///   side effects dedupe on it.
pub trait Handler: Send + Sync {
    fn task<'a>(
        &'a self,
        cx: &'a CallContext,
        node: &'a Node,
        inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, Completion>;

    fn decision<'a>(
        &'a self,
        cx: &'a CallContext,
        node: &'a Node,
        inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, Completion> {
        self.task(cx, node, inputs)
    }

    fn gate<'a>(
        &'a self,
        _cx: &'a CallContext,
        _node: &'a Node,
        _inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, GateResponse> {
        Box::pin(std::future::ready(Ok(GateResponse::pending())))
    }

    /// An AWP signal wait on `node` asks for the signal `signal` (`config.signal`). Answer
    /// approved with the signal's payload in `outputs` (merged into the workflow state through
    /// its reducers), rejected (the wait fails), or pending (the default): the run pauses
    /// `awaiting_human` until a decision names the wait by its scope path.
    fn signal<'a>(
        &'a self,
        _cx: &'a CallContext,
        _node: &'a Node,
        _signal: &'a str,
        _inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, GateResponse> {
        Box::pin(std::future::ready(Ok(GateResponse::pending())))
    }

    /// A human checkpoint or a ladder hand-off of `node` (see [`Checkpoint`]). Defaults to
    /// pending: a required checkpoint pauses the run until a decision is supplied on resume;
    /// an optional one is recorded and not waited for. `cx.attempt` is the attempt the
    /// checkpoint belongs to (the one about to start for `before_*`).
    fn checkpoint<'a>(
        &'a self,
        _cx: &'a CallContext,
        _node: &'a Node,
        _checkpoint: &'a Checkpoint,
        _inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, GateResponse> {
        Box::pin(std::future::ready(Ok(GateResponse::pending())))
    }
}

/// Runs blocking handler code (a synchronous client, heavy computation) on tokio's blocking
/// thread pool, so it does not stall the runtime's workers that poll the other calls. A panic
/// in `f` resumes as a panic of the awaiting future (the driver fails the attempt with it).
///
/// Cancellation cannot reach into `f`: a call cancelled at its deadline stops waiting, and `f`
/// runs to its end on its thread, its answer dropped. Call it from within a tokio runtime.
///
/// ```no_run
/// # use agc_runtime::run::{blocking, CallContext, CallFuture, Completion, Handler};
/// # use agc_runtime::plan::Node;
/// # use serde_json::{Map, Value};
/// struct Legacy;
/// impl Handler for Legacy {
///     fn task<'a>(
///         &'a self,
///         cx: &'a CallContext,
///         _node: &'a Node,
///         inputs: &'a Map<String, Value>,
///     ) -> CallFuture<'a, Completion> {
///         let inputs = inputs.clone();
///         Box::pin(blocking(move || Ok(Completion { outputs: inputs, ..Completion::default() })))
///     }
/// }
/// ```
pub async fn blocking<T, F>(f: F) -> Result<T, HandlerError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, HandlerError> + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) => match e.try_into_panic() {
            Ok(p) => std::panic::resume_unwind(p),
            Err(_) => Err(HandlerError::new(
                FailureClass::Transient,
                "the blocking call was cancelled (the runtime is shutting down)",
            )),
        },
    }
}
