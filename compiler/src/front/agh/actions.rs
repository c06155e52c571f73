//! Action nodes: the reserved kinds' params, tool ids, and `harvest` (research §3.1).
//!
//! The reserved kinds' params are decoded as upstream decodes them into Go structs: a field of
//! the wrong type fails the decode (`unresolvable_path`, "params are invalid"), and then, as
//! upstream, that node's other params rules are not applied (they would only repeat it).

use super::lint::Linter;
use super::model::{NodeView, RESERVED_ACTIONS, Version};
use super::tools::Resolved;
use crate::source::{Map, Value};

/// The type a reserved kind's param decodes into.
#[derive(Clone, Copy)]
enum Want {
    Str,
    Int,
    Obj,
    List,
    StrList,
}

/// Upstream's param structs (`RunAgentParams`, `RunLoopParams`, `TransformParams`,
/// `GoalParams`), as far as types go.
fn param_types(kind: &str) -> &'static [(&'static str, Want)] {
    use Want::*;
    match kind {
        "run-agent" => &[
            ("agent", Str),
            ("prompt", Str),
            ("cwd", Str),
            ("model", Str),
            ("allowed_tools", StrList),
            ("max_turns", Int),
            ("output_schema", Obj),
            ("runtime", Obj),
        ],
        "run-loop" => &[("loop", Str), ("inputs", Obj), ("mode", Str)],
        "transform" => &[("map", Obj)],
        "goal" => &[
            ("agent", Str),
            ("objective", Str),
            ("max_turns", Int),
            ("judge", List),
            ("on_exhausted", Str),
            ("output_schema", Obj),
            ("runtime", Obj),
        ],
        _ => &[],
    }
}

/// The first param that does not decode: (pointer, message).
fn decode_problem(n: &NodeView<'_>) -> Option<(String, String)> {
    let params = match n.get("params") {
        None | Some(Value::Null) => return None,
        Some(Value::Object(p)) => p,
        Some(_) => return Some((n.field("params"), "`params` must be a mapping".into())),
    };
    for &(key, want) in param_types(n.kind) {
        let Some(v) = params.get(key).filter(|v| !v.is_null()) else {
            continue;
        };
        let ok = match want {
            Want::Str => v.is_string(),
            Want::Int => v.is_i64() || v.is_u64(),
            Want::Obj => v.is_object(),
            Want::List => v.is_array(),
            Want::StrList => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
        };
        if !ok {
            let what = match want {
                Want::Str => "a string",
                Want::Int => "an integer",
                Want::Obj => "a mapping",
                Want::List => "a list",
                Want::StrList => "a list of strings",
            };
            let ptr = format!("{}/params/{key}", n.ptr);
            return Some((ptr, format!("`params.{key}` must be {what}")));
        }
    }
    if n.kind == "transform" {
        let map = params.get("map").and_then(Value::as_object);
        for (k, m) in map.into_iter().flatten() {
            let ptr = format!(
                "{}/params/map/{}",
                n.ptr,
                crate::source::tree::escape_token(k)
            );
            let Some(m) = m.as_object() else {
                return Some((ptr, format!("`params.map.{k}` must be a mapping")));
            };
            for f in ["from", "template"] {
                if m.get(f).is_some_and(|v| !v.is_string() && !v.is_null()) {
                    return Some((
                        format!("{ptr}/{f}"),
                        format!("`params.map.{k}.{f}` must be a string"),
                    ));
                }
            }
        }
    }
    None
}

impl Linter<'_> {
    pub(super) fn action(&mut self, n: &NodeView<'_>) {
        self.harvest(n);
        if RESERVED_ACTIONS.contains(&n.kind) {
            if let Some((ptr, msg)) = decode_problem(n) {
                self.error(
                    "unresolvable_path",
                    &ptr,
                    format!("{} params are invalid: {msg}", n.kind),
                );
                return;
            }
            let params = n.params();
            let has = |k: &str| {
                params
                    .and_then(|p| p.get(k))
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.trim().is_empty())
            };
            let at = if params.is_some() {
                n.field("params")
            } else {
                n.field("kind")
            };
            match n.kind {
                "run-agent" => {
                    for k in ["agent", "prompt"] {
                        if !has(k) {
                            self.error(
                                "unresolvable_path",
                                &at,
                                format!("run-agent `params.{k}` is required"),
                            );
                        }
                    }
                }
                "run-loop" => {
                    if !has("loop") {
                        self.error(
                            "unresolvable_path",
                            &at,
                            "run-loop `params.loop` is required".into(),
                        );
                    }
                    let mode = params.and_then(|p| p.get("mode"));
                    if let Some(m) = mode
                        && !matches!(m.as_str(), Some("" | "await" | "detach"))
                    {
                        self.error(
                            "unresolvable_path",
                            &format!("{}/params/mode", n.ptr),
                            "run-loop `params.mode` must be `await` or `detach`".into(),
                        );
                    }
                }
                "transform" => {
                    let empty = params
                        .and_then(|p| p.get("map"))
                        .and_then(Value::as_object)
                        .is_none_or(Map::is_empty);
                    if empty {
                        self.error(
                            "unresolvable_path",
                            &at,
                            "transform `params.map` is required".into(),
                        );
                    }
                }
                _ => self.goal(n),
            }
            return;
        }
        match self.tools.resolve(n.kind, self.version.native_prefix()) {
            Resolved::Declared(_) | Resolved::Native => {}
            Resolved::Unknown => {
                let msg = if n.kind.starts_with("ext__") {
                    format!(
                        "action tool id `{}` is not declared by any loaded extension manifest",
                        n.kind
                    )
                } else {
                    format!(
                        "action kind `{}` is neither a reserved kind ({}) nor a tool id \
(`ext__<extension>__<tool>`, `{}…`, `mcp__…`)",
                        n.kind,
                        RESERVED_ACTIONS.join(", "),
                        self.version.native_prefix()
                    )
                };
                let other = match self.version {
                    Version::Agh => "compozy__",
                    Version::Compozy => "agh__",
                };
                let help = if n.kind.starts_with(other) {
                    format!(
                        "`{other}` tools belong to the other version of the dialect; {} names \
its native tools `{}…`",
                        self.version.name(),
                        self.version.native_prefix()
                    )
                } else if self.tools.extensions.is_empty() {
                    "no extension manifest was found beside the Loop; name one with \
`--extension path/to/extension.json`"
                        .to_string()
                } else {
                    format!("loaded extensions: {}", self.tools.extensions.join(", "))
                };
                self.error("unknown_action_kind", &n.field("kind"), msg)
                    .help = Some(help);
            }
        }
    }

    fn harvest(&mut self, n: &NodeView<'_>) {
        let Some(h) = n.get("harvest").and_then(Value::as_object) else {
            return;
        };
        let kind = h.get("kind").and_then(Value::as_str).unwrap_or("").trim();
        if kind.is_empty() || kind == "sync" {
            return;
        }
        let at = format!("{}/harvest/kind", n.ptr);
        if RESERVED_ACTIONS.contains(&n.kind) {
            self.error(
                "invalid_harvest",
                &at,
                format!(
                    "reserved action kind `{}` does not support harvest kind `{kind}`",
                    n.kind
                ),
            );
            return;
        }
        match kind {
            "event_range" | "async" => return,
            "channel_result" => {}
            _ => {
                self.error(
                    "invalid_harvest",
                    &at,
                    format!("harvest kind `{kind}` is not supported"),
                );
                return;
            }
        }
        let send = format!("{}network_send", self.version.native_prefix());
        if n.kind != send {
            self.error(
                "invalid_harvest",
                &at,
                format!(
                    "`channel_result` harvest requires action kind `{send}`, not `{}`",
                    n.kind
                ),
            );
        }
        let window = h.get("window").and_then(Value::as_str).unwrap_or("").trim();
        if window.is_empty() {
            self.error(
                "invalid_harvest",
                &format!("{}/harvest", n.ptr),
                "`channel_result` harvest requires a `window`".into(),
            );
        } else if !go_duration_positive(window) {
            self.error(
                "invalid_harvest",
                &format!("{}/harvest/window", n.ptr),
                format!("`channel_result` harvest window `{window}` is not a positive duration"),
            );
        }
        let rule = h.get("content_rule").and_then(Value::as_str).unwrap_or("");
        if let Some(problem) = content_rule_problem(rule) {
            self.error(
                "invalid_harvest",
                &format!("{}/harvest/content_rule", n.ptr),
                format!("`channel_result` harvest content_rule is invalid: {problem}"),
            );
        }
    }
}

/// Whether a Go duration (`1h30m`, `45s`, `1.5h`, `300ms`) parses and is positive.
pub fn go_duration_positive(s: &str) -> bool {
    go_duration_seconds(s).is_some_and(|d| d > 0.0)
}

/// A Go duration in seconds, if it parses.
pub fn go_duration_seconds(s: &str) -> Option<f64> {
    let (neg, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Some(0.0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let num: f64 = rest[..num_end].parse().ok()?;
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        rest = &rest[unit_end..];
        total += num * scale;
    }
    Some(if neg { -total } else { total })
}

/// Upstream's `content_rule` grammar for `channel_result` harvests.
fn content_rule_problem(rule: &str) -> Option<String> {
    let rule = rule.trim();
    if matches!(rule, "" | "any" | "json" | "non_empty") {
        return None;
    }
    if let Some(needle) = rule.strip_prefix("contains:") {
        return needle
            .is_empty()
            .then(|| "`contains:` needs a needle".to_string());
    }
    if let Some(path) = rule.strip_prefix("json_path:") {
        let ok = !path.is_empty()
            && path
                .split('.')
                .all(|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_'));
        return (!ok).then(|| format!("`json_path:{path}` is not a dotted path"));
    }
    Some(format!(
        "`{rule}` is not one of any, json, non_empty, contains:<needle>, json_path:<a.b.c>"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_content_rules() {
        assert_eq!(go_duration_seconds("1h30m"), Some(5400.0));
        assert_eq!(go_duration_seconds("45m"), Some(2700.0));
        assert_eq!(go_duration_seconds("300ms"), Some(0.3));
        assert!(!go_duration_positive("0s"));
        assert!(!go_duration_positive("-1s"));
        assert!(go_duration_seconds("5 minutes").is_none());
        assert!(content_rule_problem("contains:ok").is_none());
        assert!(content_rule_problem("json_path:a.b_c").is_none());
        assert!(content_rule_problem("json_path:a..b").is_some());
        assert!(content_rule_problem("regex:.*").is_some());
    }
}
