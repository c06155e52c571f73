//! The one dispatch every driver uses to make a call on a [`Handler`], so that a call means
//! the same everywhere (the local driver, the Restate worker).

// `HandlerError` carries the failed attempt's usage; see `handler.rs`.
#![allow(clippy::result_large_err)]

use super::event::CallResult;
use super::handler::{CallContext, Checkpoint, Handler, HandlerError};
use crate::plan::{Node, NodeKind};
use serde_json::{Map, Value};

/// Makes one call on `handler`: the one dispatch every driver uses, so a call means the same
/// everywhere. `checkpoint` set: [`Handler::checkpoint`]; else by `kind` (an AWP signal
/// wait: [`Handler::signal`]).
pub async fn dispatch(
    handler: &dyn Handler,
    cx: &CallContext,
    node: &Node,
    kind: NodeKind,
    checkpoint: Option<&Checkpoint>,
    inputs: &Map<String, Value>,
) -> Result<CallResult, HandlerError> {
    match (checkpoint, kind) {
        (Some(c), _) => handler
            .checkpoint(cx, node, c, inputs)
            .await
            .map(CallResult::Gate),
        (None, NodeKind::Gate) => handler.gate(cx, node, inputs).await.map(CallResult::Gate),
        (None, NodeKind::Wait) => match node.signal() {
            Some(signal) => handler
                .signal(cx, node, signal, inputs)
                .await
                .map(CallResult::Gate),
            // The core calls no other wait (a timed wait is a timer).
            None => handler
                .task(cx, node, inputs)
                .await
                .map(CallResult::Completed),
        },
        (None, NodeKind::Decision) => handler
            .decision(cx, node, inputs)
            .await
            .map(CallResult::Completed),
        (None, _) => handler
            .task(cx, node, inputs)
            .await
            .map(CallResult::Completed),
    }
}
