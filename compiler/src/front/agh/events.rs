//! The `watch-events` source: the hook catalog, the closed watch-events registry, the batch
//! envelope it produces, and the `event.session_id` constraint rule (research §3.3).
//!
//! Two rejections for `events[].kind`: a name outside the daemon's hook catalog is
//! `watch_events_kind_unknown`; a catalog kind outside the registry is
//! `watch_events_kind_unsupported`. The tables are the names of compozy/compozy at 8eeb8a38
//! (`internal/hooks`, `internal/loop/watch_events_registry_phase_*.go`), the last agh state.

use crate::source::Value;
use agc_runtime::expr::{BinaryOp, Expr, ExprKind, Literal};
use serde_json::json;

/// The daemon's hook catalog (90 kinds).
pub const HOOK_CATALOG: &[&str] = &[
    "agent.crashed",
    "agent.heartbeat.policy.resolved",
    "agent.heartbeat.wake.after",
    "agent.heartbeat.wake.before",
    "agent.pre_start",
    "agent.soul.mutation.after",
    "agent.soul.snapshot.resolved",
    "agent.spawned",
    "agent.stopped",
    "automation.job.post_fire",
    "automation.job.pre_fire",
    "automation.run.completed",
    "automation.run.failed",
    "automation.trigger.post_fire",
    "automation.trigger.pre_fire",
    "context.post_compact",
    "context.pre_compact",
    "coordinator.decision",
    "coordinator.failed",
    "coordinator.pre_spawn",
    "coordinator.spawned",
    "coordinator.stopped",
    "event.post_record",
    "event.pre_record",
    "input.pre_submit",
    "loop.gate.post",
    "loop.gate.pre",
    "loop.generation.post",
    "loop.generation.pre",
    "loop.node.terminal",
    "loop.started",
    "loop.terminal",
    "message.delta",
    "message.end",
    "message.start",
    "network.direct_room.opened",
    "network.message.persisted",
    "network.participation.pre_resolve",
    "network.participation.resolved",
    "network.peer.joined",
    "network.peer.left",
    "network.thread.opened",
    "network.work.closed",
    "network.work.opened",
    "network.work.transitioned",
    "permission.denied",
    "permission.request",
    "permission.resolved",
    "prompt.post_assemble",
    "sandbox.prepare",
    "sandbox.ready",
    "sandbox.stop",
    "sandbox.sync.after",
    "sandbox.sync.before",
    "session.health.update.after",
    "session.message_persisted",
    "session.post_create",
    "session.post_resume",
    "session.post_stop",
    "session.pre_create",
    "session.pre_resume",
    "session.pre_stop",
    "spawn.created",
    "spawn.parent_stopped",
    "spawn.pre_create",
    "spawn.reaped",
    "spawn.ttl_expired",
    "task.blocked",
    "task.needs_attention",
    "task.recovered",
    "task.run.completed",
    "task.run.enqueued",
    "task.run.failed",
    "task.run.lease_expired",
    "task.run.lease_extended",
    "task.run.lease_recovered",
    "task.run.post_claim",
    "task.run.pre_claim",
    "task.run.released",
    "task.status_changed",
    "task.unblocked",
    "tool.post_call",
    "tool.post_error",
    "tool.pre_call",
    "turn.end",
    "turn.start",
    "window_manager.desktop.created",
    "window_manager.desktop.deleted",
    "window_manager.layout.applied",
    "window_manager.window.moved",
];

/// The watch-events registry: kind → ledger stream (22 kinds).
pub const REGISTRY: &[(&str, &str)] = &[
    ("automation.run.completed", "automation_runs"),
    ("automation.run.failed", "automation_runs"),
    ("coordinator.decision", "event_summaries"),
    ("coordinator.failed", "event_summaries"),
    ("coordinator.spawned", "event_summaries"),
    ("coordinator.stopped", "event_summaries"),
    ("event.post_record", "session_events"),
    ("loop.node.terminal", "loop_run_events"),
    ("loop.terminal", "loop_run_events"),
    ("network.direct_room.opened", "network_timeline_log"),
    ("network.message.persisted", "network_timeline_log"),
    ("network.thread.opened", "network_timeline_log"),
    ("network.work.closed", "network_timeline_log"),
    ("network.work.opened", "network_timeline_log"),
    ("network.work.transitioned", "network_timeline_log"),
    ("task.blocked", "task_events"),
    ("task.needs_attention", "task_events"),
    ("task.recovered", "task_events"),
    ("task.run.completed", "task_events"),
    ("task.run.failed", "task_events"),
    ("task.status_changed", "task_events"),
    ("task.unblocked", "task_events"),
];

/// Kinds whose subscriptions must pin `event.session_id` with an equality.
pub const NEEDS_SESSION: &[&str] = &["event.post_record"];

pub fn in_catalog(kind: &str) -> bool {
    HOOK_CATALOG.binary_search(&kind).is_ok()
}

pub fn stream(kind: &str) -> Option<&'static str> {
    REGISTRY.iter().find(|(k, _)| *k == kind).map(|(_, s)| *s)
}

pub fn supported_list() -> String {
    REGISTRY
        .iter()
        .map(|(k, _)| *k)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The batch a watch-events node produces at `nodes.<id>.output`, in upstream's schema form.
pub fn output_schema() -> Value {
    let s = "string";
    Value::from(json!({
        "events": [{
            "kind": s, "seq": "integer", "stream": s, "at": s, "workspace_id": s,
            "task_id": s, "run_id": s, "loop_run_id": s, "loop_name": s, "session_id": s,
            "channel": s, "work_id": s, "payload": {}
        }],
        "cursors": {}
    }))
}

/// Whether a `produces.events` value describes an array.
pub fn declares_array(v: &Value) -> bool {
    match v {
        Value::Array(_) => true,
        Value::String(s) => s == "array",
        Value::Object(m) => type_is(m.get("type"), "array"),
        _ => false,
    }
}

/// Whether a `produces.cursors` value describes an object.
pub fn declares_object(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.is_empty() || type_is(m.get("type"), "object"),
        Value::String(s) => s == "object" || s == "map",
        _ => false,
    }
}

fn type_is(t: Option<&Value>, want: &str) -> bool {
    match t {
        Some(Value::String(s)) => s == want,
        Some(Value::Array(a)) => a.iter().any(|x| x.as_str() == Some(want)),
        _ => false,
    }
}

/// Upstream's session constraint: an `==` between `event.session_id` and a string literal or
/// an `inputs.*` path, at the top level or under `&&` (any depth of `&&`).
pub fn has_session_constraint(e: &Expr) -> bool {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        if let ExprKind::Binary { op, left, right } = &e.kind {
            match op {
                BinaryOp::And => {
                    stack.push(left);
                    stack.push(right);
                }
                BinaryOp::Eq
                    if (is_session_id(left) && is_value(right))
                        || (is_session_id(right) && is_value(left)) =>
                {
                    return true;
                }
                _ => {}
            }
        }
    }
    false
}

fn is_session_id(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Member { target, field } => {
            field == "session_id"
                && matches!(&target.kind, ExprKind::Ident { name } if name == "event")
        }
        ExprKind::Index { target, index } => {
            matches!(&index.kind, ExprKind::Literal { value: Literal::String(s) } if s == "session_id")
                && matches!(&target.kind, ExprKind::Ident { name } if name == "event")
        }
        _ => false,
    }
}

fn is_value(e: &Expr) -> bool {
    if matches!(
        &e.kind,
        ExprKind::Literal {
            value: Literal::String(_)
        }
    ) {
        return true;
    }
    // An `inputs.<name>[...]` path.
    let mut cur = e;
    let mut depth = 0;
    loop {
        match &cur.kind {
            ExprKind::Member { target, .. } | ExprKind::Index { target, .. } => {
                cur = target;
                depth += 1;
            }
            ExprKind::Ident { name } => return name == "inputs" && depth >= 1,
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_and_the_registry_is_in_the_catalog() {
        assert!(HOOK_CATALOG.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(HOOK_CATALOG.len(), 90);
        assert_eq!(REGISTRY.len(), 22);
        assert!(REGISTRY.iter().all(|(k, _)| in_catalog(k)));
        assert!(!in_catalog("task.done"));
        assert!(in_catalog("loop.started") && stream("loop.started").is_none());
    }
}
