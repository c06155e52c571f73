//! The linter's structural passes, in upstream's order (research §5): index the graph
//! (`duplicate_node_id`, edge endpoints), network participation, kinds and their fields per
//! class, then the graph shape ([`super::shape`]); the references pass is in
//! [`super::check_refs`]. Upstream stops some passes early (a failed params decode skips the
//! rest of that node); agc reports every finding of every pass.
//!
//! The rules the schema already enforces (node id grammar, the closed control and source
//! kinds, terminal states, `file-import` parse values, `watch.kind`) carry the linter's codes
//! from the schema phase and are not repeated here.
//!
//! Findings point at the field that is wrong (`max_fan_out: 65`, `parse: md_tasks`), or at the
//! node's `id` when the node as a whole is.

use super::model::{NodeView, Scope, Version};
use super::tools::Tools;
use crate::diag::Diagnostic;
use crate::source::Document;
use crate::source::{Map, Value};
use std::collections::{BTreeMap, HashMap};

/// Ceilings shared by the linter and the resolved form.
pub const FAN_OUT_CEILING: i64 = 64;
pub const GATE_REVISIONS_CEILING: i64 = 64;

/// Shared state of the passes.
pub struct Linter<'d> {
    pub doc: &'d Document,
    pub text: &'d str,
    pub root: &'d Map,
    pub version: Version,
    pub tools: &'d Tools,
    pub scopes: &'d [Scope<'d>],
    pub diags: Vec<Diagnostic>,
    /// Input name → `{type: <input type>}`.
    pub inputs: HashMap<String, Value>,
    /// Every template and condition that compiled, by the pointer of its scalar (lowering
    /// reuses them).
    pub exprs: BTreeMap<String, std::sync::Arc<agc_runtime::expr::Expr>>,
    /// Data reads: (scope, node index, field pointer, node id read).
    pub reads: Vec<(usize, usize, String, String)>,
    /// Every `nodes.<id>` a template or condition reads: (scope, id, the path's span), for
    /// the reference index.
    pub node_reads: Vec<(u32, Box<str>, crate::source::Span)>,
    /// Every non-empty template (`false`) and condition (`true`) that compiled, by pointer:
    /// the resolved form's sources.
    pub sources: BTreeMap<String, bool>,
    /// The graph the structural passes are in, and its predecessor lists.
    pub(super) cur: usize,
    pub(super) preds: Vec<Vec<usize>>,
    /// The CEL roots typed from the declarations of the graph being checked (AGC224).
    pub(super) typed_env: crate::expr::check::TypeEnv,
    /// The comparisons left for "did you mean", shared with the reference
    /// namespaces (see [`crate::diag::suggest::Budget`]).
    pub(super) suggestions: std::rc::Rc<crate::diag::suggest::Budget>,
}

impl<'d> Linter<'d> {
    pub fn new(
        doc: &'d Document,
        text: &'d str,
        root: &'d Map,
        tools: &'d Tools,
        scopes: &'d [Scope<'d>],
    ) -> Self {
        let inputs = root
            .get("inputs")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| {
                let ty = v.get("type").and_then(Value::as_str).unwrap_or("string");
                (k.to_string(), super::namespace::input_schema(ty))
            })
            .collect();
        Linter {
            doc,
            text,
            root,
            version: Version::of(root),
            tools,
            scopes,
            diags: Vec::new(),
            inputs,
            exprs: BTreeMap::new(),
            reads: Vec::new(),
            node_reads: Vec::new(),
            sources: BTreeMap::new(),
            suggestions: Default::default(),
            cur: 0,
            preds: Vec::new(),
            typed_env: crate::expr::check::TypeEnv::new(),
        }
    }

    /// An error at the value at `ptr`.
    pub fn error(&mut self, code: &'static str, ptr: &str, msg: String) -> &mut Diagnostic {
        self.diags.push(
            Diagnostic::error(code, msg)
                .at(self.doc.span(ptr))
                .with_pointer(ptr),
        );
        self.diags.last_mut().expect("just pushed")
    }

    /// An error at the key of the entry at `ptr`.
    pub fn error_key(&mut self, code: &'static str, ptr: &str, msg: String) -> &mut Diagnostic {
        self.diags.push(
            Diagnostic::error(code, msg)
                .at(self.doc.key_span(ptr))
                .with_pointer(ptr),
        );
        self.diags.last_mut().expect("just pushed")
    }

    /// A warning at the value at `ptr`.
    pub fn warn(&mut self, code: &'static str, ptr: &str, msg: String) -> &mut Diagnostic {
        self.diags.push(
            Diagnostic::warning(code, msg)
                .at(self.doc.span(ptr))
                .with_pointer(ptr),
        );
        self.diags.last_mut().expect("just pushed")
    }

    /// Every structural pass over every scope.
    pub fn structure(&mut self) {
        self.network_participation();
        for si in 0..self.scopes.len() {
            self.index(si);
            let scope = &self.scopes[si];
            self.cur = si;
            self.preds = scope.adjacency().1;
            for n in &scope.nodes {
                self.kinds(scope, n);
            }
            self.continuous_handles(scope);
            self.shape(si);
        }
    }

    /// `duplicate_node_id` and edges naming no node (`unknown_reference`).
    fn index(&mut self, si: usize) {
        let scope = &self.scopes[si];
        let mut seen: HashMap<&str, ()> = HashMap::new();
        for n in &scope.nodes {
            if seen.insert(n.id, ()).is_some() {
                self.error(
                    "duplicate_node_id",
                    &n.field("id"),
                    format!("node id `{}` is duplicated", n.id),
                );
            }
        }
        for e in &scope.edges {
            for (end, name) in [("from", e.from), ("to", e.to)] {
                if !scope.index.contains_key(name) {
                    let right = self.suggestions.closest(name, scope.index.keys().copied());
                    let d = self.error(
                        "unknown_reference",
                        &format!("{}/{end}", e.ptr),
                        format!("the edge's `{end}` names no node of this graph: `{name}`"),
                    );
                    if let Some(s) = right {
                        d.help = Some(format!("did you mean `{s}`?"));
                        d.fix = Some(Box::new(crate::diag::Fix::Replace {
                            wrong: name.to_string(),
                            right: s.to_string(),
                        }));
                    }
                }
            }
        }
    }

    fn network_participation(&mut self) {
        let np = self
            .root
            .get("network_participation")
            .and_then(Value::as_object);
        let mode = np.and_then(|m| m.get("mode")).and_then(Value::as_str);
        if let Some(np) = np
            && let Some(msg) = participation_problem(np)
        {
            self.error(
                "network_participation_invalid",
                "/network_participation",
                format!("network_participation is invalid: {msg}"),
            );
            return;
        }
        if mode == Some("live") {
            return;
        }
        let native = format!("{}network_", self.version.native_prefix());
        let found = self.scopes.iter().flat_map(|s| &s.nodes).find(|n| {
            n.kind.starts_with(&native)
                || n.get("harvest")
                    .and_then(|h| h.get("kind"))
                    .and_then(Value::as_str)
                    == Some("channel_result")
        });
        if let Some(n) = found {
            let what = if n.kind.starts_with(&native) {
                n.kind.to_string()
            } else {
                "channel_result".to_string()
            };
            self.error(
                "loop_requires_live",
                &n.field("id"),
                format!(
                    "node `{}` uses `{what}` and requires live network participation",
                    n.id
                ),
            )
            .help = Some("set `network_participation: {mode: live, channel_strategy: run}`".into());
        }
    }

    /// Per-node checks by class and kind.
    fn kinds(&mut self, scope: &Scope<'_>, n: &NodeView<'_>) {
        self.events_envelope(n);
        self.retry_max(n);
        match n.class {
            "action" => self.action(n),
            "control" => self.control(scope, n),
            "source" => self.source(n),
            _ => {}
        }
    }

    fn retry_max(&mut self, n: &NodeView<'_>) {
        if n.get("retry").and_then(|r| r.get("max")).is_some() {
            self.error_key(
                "retry_max_unsupported",
                &format!("{}/retry/max", n.ptr),
                "`retry.max` is unsupported; use `retry.max_attempts`".into(),
            );
        }
    }

    fn control(&mut self, scope: &Scope<'_>, n: &NodeView<'_>) {
        match n.kind {
            "fan-out" => {
                let collection = n.str("collection").unwrap_or("");
                if collection.trim().is_empty() || n.int("max_fan_out") <= 0 {
                    let at = if n.get("max_fan_out").is_some() && !collection.trim().is_empty() {
                        n.field("max_fan_out")
                    } else {
                        n.field("id")
                    };
                    self.error(
                        "fan_out_unbounded",
                        &at,
                        "a fan-out must declare a `collection` and a positive `max_fan_out`".into(),
                    );
                }
                for key in ["max_fan_out", "max_parallel"] {
                    let v = n.int(key);
                    if v > FAN_OUT_CEILING {
                        self.error(
                            "fan_out_ceiling_exceeded",
                            &n.field(key),
                            format!("fan-out {key} {v} exceeds the ceiling {FAN_OUT_CEILING}"),
                        );
                    }
                }
                if n.get("filter").is_some() {
                    self.warn(
                        "AGC221",
                        &n.field("filter"),
                        "agh compiles a fan-out `filter` but never applies it: every item runs"
                            .into(),
                    );
                }
            }
            "branch" if n.str("condition").unwrap_or("").trim().is_empty() => {
                let at = if n.get("condition").is_some() {
                    n.field("condition")
                } else {
                    n.field("id")
                };
                self.error(
                    "condition_not_bool",
                    &at,
                    "a branch needs a `condition` (a CEL expression returning bool)".into(),
                );
            }
            "gate" => self.gate(scope, n),
            "sub-loop" => {
                let empty = n
                    .get("body")
                    .and_then(|b| b.get("nodes"))
                    .and_then(Value::as_array)
                    .is_none_or(<[_]>::is_empty);
                if empty {
                    self.error(
                        "non_terminating_structure",
                        &n.field("id"),
                        "a sub-loop must declare a nested body with at least one node".into(),
                    );
                }
            }
            _ => {}
        }
    }

    fn gate(&mut self, scope: &Scope<'_>, n: &NodeView<'_>) {
        let revisions = n.int("max_revisions");
        if revisions > GATE_REVISIONS_CEILING {
            self.error(
                "gate_max_revisions_ceiling_exceeded",
                &n.field("max_revisions"),
                format!(
                    "gate max_revisions {revisions} exceeds the ceiling {GATE_REVISIONS_CEILING}"
                ),
            );
        }
        let criteria = n.get("criteria").and_then(Value::as_array);
        let judged = criteria.into_iter().flatten().any(|c| {
            matches!(
                c.get("type").and_then(Value::as_str),
                Some("agent-judge" | "human")
            )
        });
        if n.str("verdict_policy") == Some("revise_until_clean") && !judged {
            self.error(
                "verdict_policy_requires_judge",
                &n.field("verdict_policy"),
                "verdict_policy `revise_until_clean` requires an `agent-judge` or `human` \
criterion"
                    .into(),
            );
        }
        let Some(routes) = n.get("on_result").and_then(Value::as_object) else {
            return;
        };
        for (key, route) in routes {
            let (action, branch) = match route {
                Value::String(s) => (s.as_str(), None),
                Value::Object(m) => (
                    m.get("route").and_then(Value::as_str).unwrap_or(""),
                    m.get("branch").and_then(Value::as_str),
                ),
                _ => continue,
            };
            let ptr = format!("{}/on_result/{key}", n.ptr);
            let allowed: &[&str] = if key == "approval" {
                &["escalate", "halt"]
            } else {
                &["continue", "revise", "branch", "halt", "escalate"]
            };
            if !allowed.contains(&action) {
                let what = if scope.index.contains_key(action) {
                    format!("`{action}` is a node id, not a route action")
                } else {
                    format!("`{action}` is not a route action of an in-graph gate")
                };
                self.warn(
                    "AGC220",
                    &ptr,
                    format!("{what}; agh ignores it and applies the default route for `{key}`"),
                )
                .help = Some(format!("allowed here: {}", allowed.join(", ")));
            } else if action == "branch" && !branch.is_some_and(|b| scope.index.contains_key(b)) {
                self.warn(
                    "AGC220",
                    &ptr,
                    "a `branch` route needs `branch: <node id>` naming a node of this graph; \
agh ignores it otherwise"
                        .into(),
                );
            }
        }
    }

    fn source(&mut self, n: &NodeView<'_>) {
        match n.kind {
            "input" => {
                let r = n.str("input_ref").unwrap_or("").trim();
                if r.is_empty() {
                    self.error(
                        "unknown_reference",
                        &n.field("id"),
                        "an input source must declare `input_ref`".into(),
                    );
                } else if !self.inputs.contains_key(r) {
                    let help = self
                        .suggestions
                        .closest(r, self.inputs.keys().map(String::as_str))
                        .map(|s| format!("did you mean `{s}`?"));
                    self.error(
                        "unknown_reference",
                        &n.field("input_ref"),
                        format!("input_ref `{r}` does not name a declared input"),
                    )
                    .help = help;
                }
            }
            "file-import" => {
                if n.str("pattern").unwrap_or("").trim().is_empty() {
                    let at = if n.get("pattern").is_some() {
                        n.field("pattern")
                    } else {
                        n.field("id")
                    };
                    self.error(
                        "unresolvable_path",
                        &at,
                        "file-import `pattern` is required".into(),
                    );
                }
                if n.str("parse") == Some("md_tasks") && self.version == Version::Compozy {
                    self.error(
                        "file_import_parse_required",
                        &n.field("parse"),
                        "file-import parse is required (json|text); `md_tasks` was removed in \
compozy.loop/v1"
                            .into(),
                    )
                    .help = Some(
                        "use the tool `ext__dev_cycle__import_tasks` (an action) instead".into(),
                    );
                }
            }
            "watch-events" => self.watch_events(n),
            _ => {}
        }
    }

    fn events_envelope(&mut self, n: &NodeView<'_>) {
        let is_we = n.is("source", "watch-events");
        let events = n.get("events").and_then(Value::as_array);
        if !is_we && events.is_some_and(|e| !e.is_empty()) {
            self.error(
                "watch_events_shape_invalid",
                &n.field("events"),
                "an `events` block is only valid on a `watch-events` source".into(),
            );
        }
        let watch = n.get("watch").and_then(Value::as_object);
        if is_we && watch.is_some_and(|w| !w.is_empty()) {
            self.error(
                "watch_events_shape_invalid",
                &n.field("watch"),
                "watch-events nodes use `events`, not `watch`".into(),
            );
        }
    }

    fn watch_events(&mut self, n: &NodeView<'_>) {
        let events = n.get("events").and_then(Value::as_array);
        if events.is_none_or(<[_]>::is_empty) {
            let at = if events.is_some() {
                n.field("events")
            } else {
                n.field("id")
            };
            self.error(
                "watch_events_subscription_required",
                &at,
                "a watch-events source must declare at least one `events` subscription".into(),
            );
        }
        if let Some(p) = n.get("produces").and_then(Value::as_object) {
            for (k, v) in p {
                let at = format!(
                    "{}/produces/{}",
                    n.ptr,
                    crate::source::tree::escape_token(k)
                );
                let problem = match k.as_str() {
                    "events" if !super::events::declares_array(v) => {
                        Some("`produces.events` must describe an array of matched events")
                    }
                    "cursors" if !super::events::declares_object(v) => {
                        Some("`produces.cursors` must describe an object of stream cursors")
                    }
                    "events" | "cursors" => None,
                    _ => Some("watch-events `produces` may only declare `events` and `cursors`"),
                };
                if let Some(msg) = problem {
                    self.error_key("watch_events_shape_invalid", &at, msg.into());
                }
            }
        }
        for (i, ev) in events.into_iter().flatten().enumerate() {
            let kind = ev.get("kind").and_then(Value::as_str).unwrap_or("").trim();
            let at = format!("{}/events/{i}/kind", n.ptr);
            if !super::events::in_catalog(kind) {
                self.error(
                    "watch_events_kind_unknown",
                    &at,
                    format!("watch-events kind `{kind}` is not in the hook catalog"),
                );
            } else if super::events::stream(kind).is_none() {
                self.error(
                    "watch_events_kind_unsupported",
                    &at,
                    format!("watch-events kind `{kind}` is a hook but cannot be watched"),
                )
                .help = Some(format!(
                    "supported kinds: {}",
                    super::events::supported_list()
                ));
            }
        }
    }

    /// `continuous_handle_reused`: two continuous goals of one graph share a handle label.
    fn continuous_handles(&mut self, scope: &Scope<'_>) {
        let mut labels: HashMap<String, &str> = HashMap::new();
        for n in &scope.nodes {
            if !n.is("action", "goal") {
                continue;
            }
            let session = n.get("session").and_then(Value::as_object);
            let continuous =
                session.is_none_or(|s| s.get("mode").and_then(Value::as_str) == Some("continuous"));
            if !continuous {
                continue;
            }
            let handle = session
                .and_then(|s| s.get("handle"))
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|h| !h.is_empty());
            let label = handle.unwrap_or(n.id).to_string();
            if let Some(prev) = labels.get(&label) {
                let at = if handle.is_some() {
                    format!("{}/session/handle", n.ptr)
                } else {
                    n.field("id")
                };
                self.error(
                    "continuous_handle_reused",
                    &at,
                    format!(
                        "continuous goal handle label `{label}` is reused by nodes `{prev}` and \
`{}`",
                        n.id
                    ),
                );
            } else {
                labels.insert(label, n.id);
            }
        }
    }
}

/// Upstream's `NormalizeIntent`, as far as a document can break it.
fn participation_problem(np: &Map) -> Option<String> {
    let s = |k: &str| np.get(k).and_then(Value::as_str);
    let mode = s("mode").unwrap_or("local");
    let strategy = s("channel_strategy");
    let channel = s("channel_id");
    let bounds = np.get("bounds").is_some();
    if mode == "local" {
        return (strategy.is_some() || channel.is_some() || bounds).then(|| {
            "local mode cannot carry a channel strategy, a channel id or bounds".to_string()
        });
    }
    match strategy {
        None => Some("live mode requires a `channel_strategy`".into()),
        Some("named") => match channel {
            None | Some("") => Some("the `named` strategy requires a `channel_id`".into()),
            Some(c) if !channel_id_ok(c) => Some(format!(
                "channel_id `{c}` must match ^[a-z0-9][a-z0-9_-]{{0,63}}$"
            )),
            _ => None,
        },
        Some(other) if channel.is_some() => Some(format!(
            "strategy `{other}` derives its channel and cannot carry `channel_id`"
        )),
        _ => None,
    }
}

fn channel_id_ok(c: &str) -> bool {
    let b = c.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b[1..]
            .iter()
            .all(|&x| x.is_ascii_lowercase() || x.is_ascii_digit() || x == b'_' || x == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn participation_rules() {
        let m = |v: serde_json::Value| Value::from(v).as_object().unwrap().clone();
        assert!(participation_problem(&m(serde_json::json!({"mode": "local"}))).is_none());
        assert!(participation_problem(&m(serde_json::json!({"mode": "live"}))).is_some());
        assert!(participation_problem(&m(
            serde_json::json!({"mode": "live", "channel_strategy": "named", "channel_id": "ops"})
        ))
        .is_none());
        assert!(
            participation_problem(&m(
                serde_json::json!({"mode": "live", "channel_strategy": "run", "channel_id": "ops"})
            ))
            .is_some()
        );
    }
}
