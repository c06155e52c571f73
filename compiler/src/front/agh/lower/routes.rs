//! A gate's routing table as the runtime reads it (the plan's `routes`): upstream's
//! defaults filled in, ignored values replaced, and the verdicts that continue to the gate's
//! successors.

use super::super::model::NodeView;
use crate::ir::{Route, RouteAction, Routes, Verdict};
use crate::source::Value as Doc;

/// The in-graph route actions.
const BODY_ROUTES: &[&str] = &["continue", "revise", "branch", "halt", "escalate"];

/// A gate's routing table, upstream's defaults filled in ([`Route::default_for`]) and
/// ignored values replaced (research §3.4).
pub fn routes(v: &NodeView<'_>) -> Routes {
    let given = v.get("on_result").and_then(Doc::as_object);
    Routes::from_fn(|verdict| {
        let written = given.and_then(|g| g.get(verdict.as_str()));
        written
            .and_then(|r| chosen(verdict, r))
            .unwrap_or_else(|| Route::default_for(verdict))
    })
}

/// The route written for `verdict`, unless upstream ignores it: a route it does not allow
/// there, or a `branch` without its branch.
fn chosen(verdict: Verdict, r: &Doc) -> Option<Route> {
    let allowed: &[&str] = if verdict == Verdict::Approval {
        &["escalate", "halt"]
    } else {
        BODY_ROUTES
    };
    let (name, obj) = match r {
        Doc::String(s) => (s.as_str(), None),
        Doc::Object(m) => (m.get("route").and_then(Doc::as_str)?, Some(m)),
        _ => return None,
    };
    if !allowed.contains(&name) {
        return None;
    }
    let text = |k: &str| {
        obj.and_then(|m| m.get(k))
            .and_then(Doc::as_str)
            .map(str::to_string)
    };
    let branch = text("branch");
    let route = match name {
        "continue" => RouteAction::Continue,
        "revise" => RouteAction::Revise,
        "branch" if branch.is_some() => RouteAction::Branch,
        "halt" => RouteAction::Halt,
        "escalate" => RouteAction::Escalate,
        _ => return None,
    };
    let terminal_status = text("terminal_status").or_else(|| match route {
        RouteAction::Halt => Some("failed".into()),
        RouteAction::Escalate => Some("needs-approval".into()),
        _ => None,
    });
    Some(Route {
        route,
        branch,
        terminal_status,
        reason_code: text("reason_code"),
    })
}

/// The verdicts of a gate whose route is `continue` (the edges to its successors).
pub(super) fn continue_verdicts(v: &NodeView<'_>) -> Vec<String> {
    let r = routes(v);
    let mut on: Vec<String> = Verdict::ALL
        .into_iter()
        .filter(|&verdict| r.get(verdict).route == RouteAction::Continue)
        .map(|verdict| verdict.as_str().to_string())
        .collect();
    on.sort();
    on
}
