//! The `goal` action (later agh): params, judges, session and retry rules (research §3.1).
//!
//! The compiler fills in `session: {mode: continuous}` and `on_exhausted: halt`, so a goal
//! without a session is continuous. A continuous goal may not run under a fan-out with
//! `max_parallel` above 1 unless a collect lies between (upstream walks predecessors).

use super::lint::Linter;
use super::model::NodeView;
use crate::source::Value;

impl Linter<'_> {
    pub(super) fn goal(&mut self, n: &NodeView<'_>) {
        let params = n.params();
        let get = |k: &str| params.and_then(|p| p.get(k));
        let at_params = if params.is_some() {
            n.field("params")
        } else {
            n.field("kind")
        };
        if get("objective")
            .and_then(Value::as_str)
            .is_none_or(|s| s.trim().is_empty())
        {
            self.error(
                "goal_objective_required",
                &at_params,
                "goal `params.objective` is required".into(),
            );
        }
        self.goal_judges(n, get("judge"), &at_params);
        if get("max_turns").and_then(Value::as_i64).unwrap_or(0) < 1 {
            let at = if get("max_turns").is_some() {
                format!("{}/params/max_turns", n.ptr)
            } else {
                at_params.clone()
            };
            self.error(
                "goal_max_turns_required",
                &at,
                "goal `params.max_turns` must be at least 1".into(),
            );
        }
        if !output_allows_blocked(get("output_schema")) {
            let at = if get("output_schema").is_some() {
                format!("{}/params/output_schema", n.ptr)
            } else {
                at_params.clone()
            };
            self.error(
                "goal_output_status_missing_blocked",
                &at,
                "goal `params.output_schema` must declare a `status` enum that includes \
`blocked`"
                    .into(),
            );
        }
        if let Some(v) = get("on_exhausted")
            && !matches!(v.as_str(), Some("" | "halt" | "escalate"))
        {
            self.error(
                "goal_on_exhausted_invalid",
                &format!("{}/params/on_exhausted", n.ptr),
                "goal `params.on_exhausted` must be `halt` or `escalate`".into(),
            );
        }
        let continuous = self.goal_session(n);
        self.goal_retry(n, continuous);
        if continuous && self.under_parallel_fan_out(n) {
            self.error(
                "continuous_forbids_parallel",
                &n.field("id"),
                "a continuous goal cannot run beneath a fan-out with `max_parallel` above 1".into(),
            )
            .help = Some(
                "set the fan-out's `max_parallel: 1`, or use `session: {isolated: true}`".into(),
            );
        }
    }

    fn goal_judges(&mut self, n: &NodeView<'_>, judge: Option<&Value>, at_params: &str) {
        let list = judge.and_then(Value::as_array).filter(|l| !l.is_empty());
        let Some(list) = list else {
            let at = if judge.is_some() {
                format!("{}/params/judge", n.ptr)
            } else {
                at_params.to_string()
            };
            self.error(
                "goal_judge_required",
                &at,
                "goal `params.judge` must declare at least one criterion".into(),
            );
            return;
        };
        let mut ids: Vec<&str> = Vec::new();
        for (i, c) in list.iter().enumerate() {
            let at = format!("{}/params/judge/{i}", n.ptr);
            let s = |k: &str| {
                c.get(k)
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .unwrap_or("")
            };
            let id = s("id");
            if id.is_empty() {
                self.error(
                    "goal_judge_required",
                    &at,
                    format!("goal judge criterion {i} needs an `id`"),
                );
            } else if ids.contains(&id) {
                self.error(
                    "goal_judge_required",
                    &format!("{at}/id"),
                    format!("goal judge criterion id `{id}` must be unique"),
                );
            }
            ids.push(id);
            let missing = match s("type") {
                "command" => s("check").is_empty().then_some("check"),
                "agent-judge" => {
                    (s("rubric").is_empty() && s("prompt").is_empty()).then_some("rubric")
                }
                "extension" => s("tool").is_empty().then_some("tool"),
                "human" => {
                    self.error(
                        "goal_human_judge_unsupported",
                        &format!("{at}/type"),
                        format!("goal judge `{id}` is `human`: a goal is judged without a person"),
                    )
                    .help = Some("use a `human` criterion on a gate after the goal".into());
                    None
                }
                other => {
                    self.error(
                        "goal_judge_required",
                        &format!("{at}/type"),
                        format!("goal judge `{id}` has unsupported type `{other}`"),
                    );
                    None
                }
            };
            if let Some(field) = missing {
                self.error(
                    "goal_judge_required",
                    &at,
                    format!("goal judge `{id}` needs `{field}`"),
                );
            }
        }
    }

    /// `session_spec_ambiguous`; returns whether the goal runs in continuous mode.
    fn goal_session(&mut self, n: &NodeView<'_>) -> bool {
        let Some(s) = n.get("session").and_then(Value::as_object) else {
            return true;
        };
        let mode = s.get("mode").and_then(Value::as_str).unwrap_or("");
        let isolated = s.get("isolated").and_then(Value::as_bool).unwrap_or(false);
        let handle = s.get("handle").and_then(Value::as_str).unwrap_or("").trim();
        let continuous = mode == "continuous" && !isolated;
        let iso = isolated && mode.is_empty() && handle.is_empty();
        if !continuous && !iso {
            self.error(
                "session_spec_ambiguous",
                &n.field("session"),
                "a goal session must be exactly `{isolated: true}` or `{mode: continuous}`".into(),
            );
        }
        continuous
    }

    fn goal_retry(&mut self, n: &NodeView<'_>, continuous: bool) {
        let Some(r) = n.get("retry").and_then(Value::as_object) else {
            return;
        };
        let Some(on) = r.get("on_failure").and_then(Value::as_str) else {
            return;
        };
        let attempts = r.get("max_attempts").and_then(Value::as_i64).unwrap_or(0);
        if on.is_empty() {
            return;
        }
        if on != "fresh_session" || !continuous || attempts < 2 {
            self.error(
                "retry_fresh_session_requires_continuous",
                &format!("{}/retry/on_failure", n.ptr),
                "`retry.on_failure` must be `fresh_session`, with a continuous session and \
`max_attempts` of at least 2"
                    .into(),
            );
        }
    }

    /// Whether a fan-out with `max_parallel` > 1 precedes `n` with no collect between.
    fn under_parallel_fan_out(&self, n: &NodeView<'_>) -> bool {
        let scope = &self.scopes[self.cur];
        let Some(&start) = scope.index.get(n.id) else {
            return false;
        };
        let mut seen = vec![false; scope.nodes.len()];
        let mut stack = vec![start];
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) || scope.nodes[i].is("control", "collect") {
                continue;
            }
            for &p in self.preds.get(i).into_iter().flatten() {
                let pn = &scope.nodes[p];
                if pn.is("control", "fan-out") && pn.int("max_parallel") > 1 {
                    return true;
                }
                stack.push(p);
            }
        }
        false
    }
}

/// Whether a goal's output schema has a `status` enum (directly or under `properties`) that
/// includes `blocked`.
fn output_allows_blocked(schema: Option<&Value>) -> bool {
    let Some(s) = schema.and_then(Value::as_object) else {
        return false;
    };
    let status = s
        .get("status")
        .or_else(|| s.get("properties").and_then(|p| p.get("status")));
    status
        .and_then(|st| st.get("enum"))
        .and_then(Value::as_array)
        .is_some_and(|e| e.iter().any(|v| v.as_str() == Some("blocked")))
}
