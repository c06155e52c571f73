//! A gate's routing table as the runtime reads it (`routes`): upstream's defaults filled in,
//! ignored values replaced, and the verdicts that continue to the gate's successors.

use super::super::model::NodeView;
use crate::source::{Map as DocMap, Value as Doc};
use serde_json::{Map, Value, json};

/// The in-graph route actions.
const BODY_ROUTES: &[&str] = &["continue", "revise", "branch", "halt", "escalate"];

/// A gate's routing table, upstream's defaults filled in and ignored values replaced
/// (research §3.4).
pub fn routes(v: &NodeView<'_>) -> Value {
    let given = v.get("on_result").and_then(Doc::as_object);
    let default = |key: &str| -> Value {
        match key {
            "pass" => json!({"route": "continue"}),
            "fail" => json!({"route": "revise"}),
            "approval" => json!({"route": "escalate", "terminal_status": "needs-approval"}),
            "blocked" => json!({"route": "halt", "terminal_status": "blocked"}),
            _ => json!({"route": "halt", "terminal_status": "failed"}),
        }
    };
    let mut out = Map::new();
    for key in [
        "pass",
        "fail",
        "approval",
        "blocked",
        "error",
        "timeout",
        "invalid_output",
    ] {
        let allowed: &[&str] = if key == "approval" {
            &["escalate", "halt"]
        } else {
            BODY_ROUTES
        };
        let chosen = given.and_then(|g| g.get(key)).and_then(|r| {
            let (route, obj) = match r {
                Doc::String(s) => (s.as_str(), None),
                Doc::Object(m) => (m.get("route").and_then(Doc::as_str)?, Some(m)),
                _ => return None,
            };
            if !allowed.contains(&route) {
                return None;
            }
            if route == "branch" && obj.and_then(|m| m.get("branch")).is_none() {
                return None;
            }
            let mut m: Map<String, serde_json::Value> =
                obj.map(DocMap::to_json_map).unwrap_or_default();
            m.insert("route".into(), json!(route));
            match route {
                "halt" => {
                    m.entry("terminal_status").or_insert(json!("failed"));
                }
                "escalate" => {
                    m.entry("terminal_status")
                        .or_insert(json!("needs-approval"));
                }
                _ => {}
            }
            Some(Value::Object(m))
        });
        out.insert(key.into(), chosen.unwrap_or_else(|| default(key)));
    }
    Value::Object(out)
}

/// The verdicts of a gate whose route is `continue` (the edges to its successors).
pub(super) fn continue_verdicts(v: &NodeView<'_>) -> Vec<String> {
    let r = routes(v);
    let mut on: Vec<String> = r
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, v)| v.get("route").and_then(Value::as_str) == Some("continue"))
        .map(|(k, _)| k.clone())
        .collect();
    on.sort();
    on
}
