//! agh's own resolved form (research §6): what upstream's `Compiler.Compile` produces and
//! `BuildExecutedDefinitionSnapshot` persists, as canonical JSON.
//!
//! ```text
//! {format_version: 1, definition_version, definition, resolved_defaults, tool_schemas,
//!  watch_events_contracts, template_sources: {key: raw}, condition_sources: {key: raw}}
//! ```
//!
//! - `definition`: the Loop with upstream's defaults filled in (`apiVersion`, `kind`,
//!   `concurrency: forbid`; fan-out `batch_size` 0 → 1; run-loop `params.mode` → `await`; goal
//!   `session` → `{mode: continuous}` and `params.on_exhausted` → `halt`; recursively into
//!   sub-loop bodies) and the early spelling `no_op` normalised to `no-op`.
//! - Source keys follow upstream's scheme: `contract.stop_when`,
//!   `contract.verification[i].<field>`, `start[i].input_mapping.<input>`,
//!   `nodes.<id>.<field>` with `params.<dotted path>` (`[i]` for list items),
//!   `criteria[i].<field>`, `events.<i>.filter`; body nodes use their qualified id
//!   `<parent>__<child>`.
//! - `tool_schemas`: the tools the Loop calls that a manifest declares, with the `sha256-`
//!   digest of each schema's RFC 8785 form. `watch_events_contracts`: the watch-events kinds
//!   the Loop subscribes to.
//!
//! `effective_config` (the per-run merge with the daemon's configuration) is not part of it:
//! it needs the daemon's configuration, which a document does not carry.

use super::Unit;
use super::model::{RESERVED_ACTIONS, Version, scopes};
use super::tools::Resolved;
use serde_json::{Map, Value, json};

/// The resolved form of a checked Loop, as pretty JSON text (keys sorted, so the bytes are
/// stable).
pub fn render(unit: &Unit) -> String {
    let v = resolve(unit);
    let mut s = serde_json::to_string_pretty(&sorted(v)).unwrap_or_default();
    s.push('\n');
    s
}

/// The resolved form as a value.
pub fn resolve(unit: &Unit) -> Value {
    let empty = crate::source::Map::default();
    let root = unit.doc.value.as_object().unwrap_or(&empty);
    let version = Version::of(root);
    // The resolved form is edited from a copy of the document, as JSON.
    let mut def = match unit.doc.value.to_json() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    def.entry("apiVersion").or_insert(json!(version.name()));
    def.entry("kind").or_insert(json!("Loop"));
    def.entry("concurrency").or_insert(json!("forbid"));
    if let Some(Value::Array(states)) = def
        .get_mut("contract")
        .and_then(|c| c.get_mut("terminal_states"))
    {
        for s in states.iter_mut() {
            if s.as_str() == Some("no_op") {
                *s = json!("no-op");
            }
        }
    }
    if let Some(g) = def.get_mut("graph") {
        fill_graph(g);
    }
    let concurrency = def.get("concurrency").cloned().unwrap_or(json!("forbid"));

    let scopes = scopes(root);
    let mut tools = Map::new();
    let mut contracts = Map::new();
    for n in scopes.iter().flat_map(|s| &s.nodes) {
        if n.class == "action"
            && !RESERVED_ACTIONS.contains(&n.kind)
            && let Resolved::Declared(t) = unit.tools.resolve(n.kind, version.native_prefix())
        {
            let digest = |s: &Option<crate::source::Value>| {
                s.as_ref()
                    .and_then(|v| crate::canon::graph_digest(v).ok())
                    .map_or(Value::Null, Value::String)
            };
            tools.insert(
                n.kind.to_string(),
                json!({
                    "tool_id": n.kind,
                    "input_schema": t.input,
                    "output_schema": t.output,
                    "input_schema_digest": digest(&t.input),
                    "output_schema_digest": digest(&t.output),
                }),
            );
        }
        if n.is("source", "watch-events") {
            let events = n.get("events").and_then(crate::source::Value::as_array);
            for ev in events.into_iter().flatten() {
                let kind = ev
                    .get("kind")
                    .and_then(crate::source::Value::as_str)
                    .unwrap_or("");
                if let Some(stream) = super::events::stream(kind) {
                    let required: Vec<&str> = if super::events::NEEDS_SESSION.contains(&kind) {
                        vec!["session_id"]
                    } else {
                        Vec::new()
                    };
                    contracts.insert(
                        kind.to_string(),
                        json!({"kind": kind, "stream": stream, "required_vars": required}),
                    );
                }
            }
        }
    }

    let mut templates = Map::new();
    let mut conditions = Map::new();
    let by_ptr: std::collections::HashMap<&str, (&str, &super::model::NodeView<'_>)> = scopes
        .iter()
        .flat_map(|s| {
            s.nodes
                .iter()
                .map(move |n| (n.ptr.as_str(), (s.prefix.as_str(), n)))
        })
        .collect();
    for (ptr, &is_condition) in &unit.sources {
        let Some(raw) = unit
            .doc
            .value
            .pointer(ptr)
            .and_then(crate::source::Value::as_str)
        else {
            continue;
        };
        let Some(key) = key_of(&by_ptr, ptr) else {
            continue;
        };
        let raw = json!(if is_condition { raw.trim() } else { raw });
        if is_condition {
            conditions.insert(key, raw);
        } else {
            templates.insert(key, raw);
        }
    }
    json!({
        "format_version": 1,
        "definition_version": root.get("meta").and_then(|m| m.get("version")).map(crate::source::Value::to_json)
            .unwrap_or(json!(0)),
        "definition": def,
        "resolved_defaults": {
            "fan_out_batch_size": 1,
            "run_loop_mode": "await",
            "concurrency": concurrency,
        },
        "tool_schemas": tools,
        "watch_events_contracts": contracts,
        "template_sources": templates,
        "condition_sources": conditions,
    })
}

/// Fills the node defaults of a graph and of every nested body (explicit stack).
fn fill_graph(g: &mut Value) {
    let mut stack = vec![g];
    while let Some(g) = stack.pop() {
        let Some(nodes) = g.get_mut("nodes").and_then(Value::as_array_mut) else {
            continue;
        };
        for n in nodes.iter_mut() {
            let Some(m) = n.as_object_mut() else { continue };
            let class = m
                .get("class")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let kind = m
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            match (class.as_str(), kind.as_str()) {
                ("control", "fan-out")
                    if m.get("batch_size").and_then(Value::as_i64).unwrap_or(0) <= 0 =>
                {
                    m.insert("batch_size".into(), json!(1));
                }
                ("action", "run-loop") => {
                    if let Some(p) = m.get_mut("params").and_then(Value::as_object_mut)
                        && p.get("mode")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .is_empty()
                    {
                        p.insert("mode".into(), json!("await"));
                    }
                }
                ("action", "goal") => {
                    m.entry("session").or_insert(json!({"mode": "continuous"}));
                    if let Some(p) = m.get_mut("params").and_then(Value::as_object_mut)
                        && p.get("on_exhausted")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .is_empty()
                    {
                        p.insert("on_exhausted".into(), json!("halt"));
                    }
                }
                _ => {}
            }
            if let Some(body) = m.get_mut("body") {
                stack.push(body);
            }
        }
    }
}

/// Upstream's key of the template or condition at `ptr`; `nodes` maps a node's pointer to
/// its id prefix and view.
fn key_of(
    nodes: &std::collections::HashMap<&str, (&str, &super::model::NodeView<'_>)>,
    ptr: &str,
) -> Option<String> {
    if let Some(rest) = ptr.strip_prefix("/contract/") {
        return Some(format!("contract.{}", dotted(rest)));
    }
    if let Some(rest) = ptr.strip_prefix("/start/") {
        return Some(format!("start{}", dotted_from(rest, true)));
    }
    // The deepest `.../nodes/<i>` prefix of the pointer that is a node (a param may be
    // called `nodes` too).
    let cuts: Vec<usize> = ptr
        .match_indices("/nodes/")
        .filter_map(|(i, m)| {
            let after = &ptr[i + m.len()..];
            let digits = after.find('/').unwrap_or(after.len());
            after[..digits]
                .parse::<usize>()
                .ok()
                .map(|_| i + m.len() + digits)
        })
        .collect();
    let (cut, (prefix, node)) = cuts
        .iter()
        .rev()
        .find_map(|&c| nodes.get(&ptr[..c]).map(|n| (c, *n)))?;
    let rest = ptr[cut..].strip_prefix('/')?;
    let rest = if node.is("source", "watch-events") && rest.starts_with("events/") {
        // `events.<i>.filter`, upstream's spelling.
        rest.replace('/', ".")
    } else {
        dotted(rest)
    };
    Some(format!("nodes.{prefix}{}.{rest}", node.id))
}

/// `params/a/0/b` → `params.a[0].b`.
fn dotted(p: &str) -> String {
    dotted_from(p, false)
}

fn dotted_from(p: &str, leading_index: bool) -> String {
    let mut out = String::new();
    for (i, tok) in p.split('/').enumerate() {
        let tok = crate::source::tree::unescape_token(tok);
        if tok.parse::<usize>().is_ok() {
            out.push_str(&format!("[{tok}]"));
        } else {
            if i > 0 || leading_index {
                out.push('.');
            }
            out.push_str(&tok);
        }
    }
    out
}

/// A copy with every object's keys sorted.
fn sorted(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> = m.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(sorted).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_upstreams_scheme() {
        assert_eq!(dotted("params/a/0/b"), "params.a[0].b");
        assert_eq!(dotted("criteria/1/check"), "criteria[1].check");
        assert_eq!(
            dotted("verification/0/inputs/x"),
            "verification[0].inputs.x"
        );
        assert_eq!(
            dotted_from("0/input_mapping/pr", true),
            "[0].input_mapping.pr"
        );
    }
}
