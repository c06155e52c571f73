//! What every generated runner (`agc gen rust`) shares: the typed side of a call.
//!
//! A generated crate holds only what is specific to its graph: its types, its `Handlers`
//! trait (one typed method per node the runtime calls a handler for, see
//! [`Plan::handler_call`](crate::plan::Plan::handler_call)) and a [`Dispatch`] from node ids to
//! those methods. This module holds the rest: the call's [`Context`] (with the usage it
//! records), [`Reply`], a gate's [`Answer`], the [`Hooks`] every runner has besides its
//! graph's methods, and [`Typed`], the adapter from a [`Dispatch`] to the runtime's untyped
//! [`Handler`].

// The error type is the runtime's `HandlerError` (see `run::handler`).
#![allow(clippy::result_large_err)]

use crate::run::{
    CallContext, CallFuture, Checkpoint, Completion, FailureClass, GateOutcome, GateResponse,
    Handler, HandlerError as Failure, Usage,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::future::Future;
use std::sync::{Mutex, PoisonError};

/// What a typed method returns: a future of its outputs or its [`Failure`](crate::run::HandlerError),
/// `Send` so that calls run on a multi-threaded runtime. Any `async fn` (or `async` block) of
/// that output is one, unless it holds something that is not `Send` (an `Rc`, a
/// `std::sync::MutexGuard`) across an `.await`, which the compiler points at.
pub trait Reply<T>: Future<Output = Result<T, Failure>> + Send {}

impl<T, F: Future<Output = Result<T, Failure>> + Send> Reply<T> for F {}

/// What a method learns about its call, and where it records what the call used. It derefs
/// to the runtime's [`CallContext`]: `ctx.run_id`, `ctx.node_id`, `ctx.scope_path`,
/// `ctx.attempt`, `ctx.idempotency_key`, `ctx.item`, `ctx.iteration`, `ctx.deadline`.
#[derive(Debug)]
pub struct Context {
    call: CallContext,
    usage: Mutex<Usage>,
}

impl Context {
    /// The context of a call, with nothing used yet.
    pub fn new(call: CallContext) -> Context {
        Context {
            call,
            usage: Mutex::new(Usage::default()),
        }
    }

    /// Adds `usage` (tokens, cost, tool calls) to this attempt's: the run record keeps it on
    /// the attempt and sums it into the run's (which `max_cost_usd` is checked against),
    /// whether the method then succeeds or fails.
    pub fn add_usage(&self, usage: &Usage) {
        self.usage
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .add(usage);
    }

    /// What this call recorded so far.
    pub fn usage(&self) -> Usage {
        self.usage
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A method's result with the usage this context recorded: beside the value, or added to
    /// the failure's.
    pub fn settle<T>(self, result: Result<T, Failure>) -> Result<(T, Usage), Failure> {
        let usage = self
            .usage
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        match result {
            Ok(value) => Ok((value, usage)),
            Err(failure) => Err(failure.with_usage(&usage)),
        }
    }
}

impl std::ops::Deref for Context {
    type Target = CallContext;

    fn deref(&self) -> &CallContext {
        &self.call
    }
}

/// A gate's decision as a human gave it: the gate's outputs (its `decision` and the values
/// an input gate collects), who decided and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer<T> {
    pub outputs: T,
    pub actor: Option<String>,
    pub note: Option<String>,
}

impl<T> Answer<T> {
    /// The answer `outputs`, with no actor or note.
    pub fn new(outputs: T) -> Answer<T> {
        Answer {
            outputs,
            actor: None,
            note: None,
        }
    }
}

/// What every runner can answer besides its graph's own methods, each with a default: a
/// generated `Handlers` trait has it as a supertrait (`impl Hooks for MyHandlers {}` takes the
/// defaults), so that no node id can clash with a hook.
pub trait Hooks: Send + Sync {
    /// A human checkpoint of a node (`ctx.node_id`), or a failure-ladder hand-off
    /// (`checkpoint.id` is `escalation` or `takeover`): the human's answer now, or `None` to
    /// wait for a decision on resume (a required checkpoint pauses the run; an optional one is
    /// recorded and not waited for). Waits unless overridden.
    fn checkpoint(
        &self,
        ctx: &Context,
        checkpoint: &Checkpoint,
    ) -> impl Reply<Option<GateResponse>> {
        let _ = (ctx, checkpoint);
        async { Ok(None) }
    }

    /// A node the crate has no typed method for (a plan the crate was not generated from).
    /// Fails unless overridden.
    fn unknown_node(
        &self,
        ctx: &Context,
        inputs: &Map<String, Value>,
    ) -> impl Reply<Map<String, Value>> {
        let _ = inputs;
        async move {
            Err(Failure::validation(format!(
                "no handler for node `{}`",
                ctx.node_id
            )))
        }
    }
}

/// A generated crate's dispatch from node ids to its typed methods (each decoding the inputs,
/// calling the method and encoding what it returns: [`decode`], [`encode`], [`gate`]).
pub trait Dispatch: Send + Sync {
    /// Where the hooks are (the handlers themselves).
    type Hooks: Hooks;

    fn hooks(&self) -> &Self::Hooks;

    /// The typed method of task or decision `node`, called; `None` when the crate has none.
    fn call<'a>(
        &'a self,
        ctx: &'a Context,
        node: &str,
        inputs: &'a Map<String, Value>,
    ) -> Option<CallFuture<'a, Map<String, Value>>>;

    /// The typed method of gate `node`, called; `None` when the crate has none (the gate
    /// then waits for a decision).
    fn gate<'a>(
        &'a self,
        ctx: &'a Context,
        node: &str,
        inputs: &'a Map<String, Value>,
    ) -> Option<CallFuture<'a, GateResponse>> {
        let _ = (ctx, node, inputs);
        None
    }
}

/// Adapts a [`Dispatch`] to the runtime's untyped [`Handler`]: each call gets a [`Context`],
/// and the usage it records goes with the result.
pub struct Typed<D>(pub D);

impl<D: Dispatch> Handler for Typed<D> {
    fn task<'a>(
        &'a self,
        cx: &'a CallContext,
        node: &'a crate::plan::Node,
        inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, Completion> {
        Box::pin(async move {
            let ctx = Context::new(cx.clone());
            let outputs = match self.0.call(&ctx, &node.id, inputs) {
                Some(call) => call.await,
                None => self.0.hooks().unknown_node(&ctx, inputs).await,
            };
            let (outputs, usage) = ctx.settle(outputs)?;
            Ok(Completion { outputs, usage })
        })
    }

    fn gate<'a>(
        &'a self,
        cx: &'a CallContext,
        node: &'a crate::plan::Node,
        inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, GateResponse> {
        Box::pin(async move {
            let ctx = Context::new(cx.clone());
            let answer = match self.0.gate(&ctx, &node.id, inputs) {
                Some(call) => call.await,
                None => Ok(GateResponse::pending()),
            };
            // A gate's answer has no usage of its own: what it recorded counts if it fails.
            Ok(ctx.settle(answer)?.0)
        })
    }

    fn checkpoint<'a>(
        &'a self,
        cx: &'a CallContext,
        _node: &'a crate::plan::Node,
        checkpoint: &'a Checkpoint,
        _inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, GateResponse> {
        Box::pin(async move {
            let ctx = Context::new(cx.clone());
            let answer = self.0.hooks().checkpoint(&ctx, checkpoint).await;
            let (answer, _) = ctx.settle(answer)?;
            Ok(answer.unwrap_or_else(GateResponse::pending))
        })
    }
}

/// A node's inputs, decoded into its typed inputs (a mismatch fails with `validation_error`).
pub fn decode<T: DeserializeOwned>(
    ctx: &CallContext,
    inputs: &Map<String, Value>,
) -> Result<T, Failure> {
    serde_json::from_value(Value::Object(inputs.clone()))
        .map_err(|e| Failure::validation(format!("inputs of `{}`: {e}", ctx.node_id)))
}

/// A node's typed outputs, encoded as the object the runtime checks and records.
pub fn encode<T: Serialize>(outputs: T) -> Result<Map<String, Value>, Failure> {
    match serde_json::to_value(outputs) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(Failure::validation(format!(
            "outputs encode as {other}, not an object"
        ))),
        Err(e) => Err(Failure::validation(e)),
    }
}

/// A gate's typed answer: `None` pauses the run until a human decides; otherwise its
/// `decision` output is the outcome and its other outputs (an input gate's collected values)
/// are what the human provided.
pub fn gate<T: Serialize>(answer: Option<Answer<T>>) -> Result<GateResponse, Failure> {
    let Some(answer) = answer else {
        return Ok(GateResponse::pending());
    };
    let mut outputs = encode(answer.outputs)?;
    let decision = outputs.remove("decision");
    let outcome = decision
        .as_ref()
        .and_then(Value::as_str)
        .and_then(GateOutcome::parse);
    match outcome {
        Some(outcome) => Ok(GateResponse {
            outcome: Some(outcome),
            outputs,
            actor: answer.actor,
            note: answer.note,
        }),
        None => Err(Failure::new(
            FailureClass::ValidationError,
            format!("a gate decides `approved` or `rejected`, not {decision:?}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Outer(std::io::Error);

    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("error sending request")
        }
    }

    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    fn send(fail: bool) -> Result<u8, Outer> {
        if fail {
            Err(Outer(std::io::Error::other("connection refused")))
        } else {
            Ok(1)
        }
    }

    /// Issue 49 item 4: `map_err(Failure::transient)?` from any error, the causes in the
    /// message, the class kept; a failure is a `std::error::Error` that boxes with `?`.
    #[test]
    fn failures_are_built_from_any_error_and_are_errors() {
        fn call() -> Result<u8, Failure> {
            let n = send(true).map_err(Failure::transient)?;
            Ok(n + 1)
        }
        let f = call().unwrap_err();
        assert_eq!(f.class, FailureClass::Transient);
        assert_eq!(f.message, "error sending request: connection refused");
        assert_eq!(Failure::model("no answer").class, FailureClass::ModelError);
        assert_eq!(
            Failure::tool(String::from("x")).class,
            FailureClass::ToolError
        );
        assert_eq!(
            Failure::permission_denied("x").class,
            FailureClass::PermissionDenied
        );
        fn boxed() -> Result<u8, Box<dyn std::error::Error + Send + Sync>> {
            let r: Result<u8, Failure> = Err(Failure::timeout("slow"));
            let n = r?;
            Ok(n + 1)
        }
        let e = boxed().unwrap_err();
        assert_eq!(e.to_string(), "timeout: slow");
        let back = e.downcast::<Failure>().expect("a Failure inside");
        assert_eq!(back.class, FailureClass::Timeout);
        assert_eq!(send(false).map_err(Failure::transient).ok(), Some(1));
    }

    /// What a context records goes with the failure too.
    #[test]
    fn a_context_settles_its_usage_on_success_and_on_failure() {
        let cx = CallContext {
            run_id: "r".into(),
            node_id: "n".into(),
            scope_path: "n".into(),
            kind: crate::plan::NodeKind::Task,
            attempt: 1,
            idempotency_key: "r:n".into(),
            item: None,
            iteration: None,
            resumed: false,
            deadline: None,
        };
        let used = Usage {
            total_tokens: Some(7),
            cost_usd: Some(0.5),
            ..Usage::default()
        };
        let ctx = Context::new(cx.clone());
        ctx.add_usage(&used);
        assert_eq!(ctx.settle(Ok(3)).unwrap(), (3, used.clone()));
        let ctx = Context::new(cx);
        ctx.add_usage(&used);
        let err = ctx.settle::<u8>(Err(Failure::model("no"))).unwrap_err();
        assert_eq!(err.usage, used);
    }
}
