//! A scripted [`Handler`]: how users dry-run and test a workflow before wiring real agents
//! (`agc run --script S.yaml`). The format's JSON Schema is
//! `schemas/agc-run-script-v1.schema.json`; the CLI reads YAML or JSON into [`Script`].
//!
//! Matching: a call matches the entry whose key equals its scope path written with `/`
//! (`render_pages[2]/render`, one item or iteration), else the entry for its plan id
//! (`render_pages/render`, every instance), else its local id (`render`).
//!
//! Results: an entry's `results` list is consumed one per call of that entry, the last
//! repeating; without `results` the entry itself is the result. The call's ordinal is
//! recorded in the invocation log by idempotency key and attempt, so a call re-issued after a
//! crash gets the same result as the first time, which keeps resumed runs identical.
//!
//! Unscripted nodes: tasks return a placeholder for each required output (by type); gates
//! pause for a human; decisions fail (a decision needs a scripted label).
//!
//! AWP signal waits: the wait's entry delivers the signal, its `outputs` being the payload
//! (`decision: pending` holds it back, `rejected` refuses it); no entry: the run pauses.
//!
//! Checkpoints: an entry's `checkpoints.<id>` answers the node's human checkpoint `<id>` (and
//! `escalation` / `takeover`, the failure ladder's hand-offs) like a gate entry: `decision`,
//! `outputs`, `results` (counted per `<entry>.<id>`, logged under
//! `<run id>:<checkpoint name>`). An unanswered checkpoint is pending. A call another node
//! makes for this run (a fallback `alternate_node`) uses that node's entry, looked up by the
//! path it has in the same scope instance.
//!
//! Strings in `outputs` may hold `${{ path }}` placeholders, a dotted path (with `[n]`
//! indices) over `inputs`, `item`, `iteration` and `attempt`: `${{ inputs.page.path }}`.
//! A string that is exactly one placeholder takes the value's JSON type.

// `HandlerError` carries the failed attempt's usage (144 bytes); it is returned once per
// call, never in a hot loop, so boxing it would only make handlers clumsier to write.
#![allow(clippy::result_large_err)]

use super::handler::{
    CallContext, CallFuture, Checkpoint, Completion, FailureClass, GateOutcome, GateResponse,
    Handler, HandlerError, Usage,
};
use crate::hash::HashMap;
use crate::plan::{Node, NodeKind};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::hash_map::Entry as Slot;
use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

/// A whole script.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Optional format tag, `agc.script/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Per node key (scope path, plan id or local id), what calls return.
    #[serde(default)]
    pub nodes: indexmap::IndexMap<String, Entry>,
}

/// What one node returns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Outputs to return.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Map<String, Value>>,
    /// A decision node's label, or a gate's `approved` / `rejected` (`pending` pauses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// Fail the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail: Option<Failure>,
    /// Wait this long before answering (a timer: the call holds no thread while it waits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Usage to report (cost drives `max_cost_usd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Per-call results, in order; the last repeats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Vec<Entry>>,
    /// Answers to the node's human checkpoints by checkpoint id (`pre_upload`; `escalation`
    /// and `takeover` for the failure ladder's hand-offs): `decision` (`approved`,
    /// `rejected`, `pending`), `outputs` (a review's edits, an input's values, a hand-off's
    /// outputs), `results` per time asked. An unanswered checkpoint is pending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoints: Option<indexmap::IndexMap<String, Entry>>,
}

/// An injected failure: a message, or a class and a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Failure {
    Message(String),
    Full {
        #[serde(default = "default_class")]
        class: FailureClass,
        message: String,
    },
}

fn default_class() -> FailureClass {
    FailureClass::ToolError
}

/// One line of the invocation log, as read back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Invocation {
    pub key: String,
    pub attempt: u32,
    pub path: String,
    /// The script entry matched (or `null`).
    pub entry: Option<String>,
    /// The call's ordinal among the entry's calls.
    pub ordinal: usize,
    pub resumed: bool,
}

/// The scripted handler.
pub struct ScriptHandler {
    script: Script,
    state: Mutex<LogState>,
}

/// What the handler keeps of the calls it answered: the counts and ordinals that make a
/// re-issued call get the same result. The calls themselves are only in the log file (a run
/// of 10k calls kept 10k of them in memory, which nothing read).
#[derive(Default)]
struct LogState {
    /// Calls per entry so far.
    counts: HashMap<String, usize>,
    /// (idempotency key, attempt) → ordinal, from this process or the log.
    seen: HashMap<(String, u32), usize>,
    file: Option<std::fs::File>,
    /// The line being written (one buffer for every line).
    line: String,
}

impl ScriptHandler {
    pub fn new(script: Script) -> ScriptHandler {
        ScriptHandler {
            script,
            state: Mutex::new(LogState::default()),
        }
    }

    /// Appends every invocation to `path` (JSONL), after reading the invocations already
    /// there, so a resumed run continues the same counts.
    pub fn with_log(self, path: &std::path::Path) -> std::io::Result<ScriptHandler> {
        let mut st = LogState::default();
        if let Ok(text) = std::fs::read_to_string(path) {
            for line in text.lines() {
                if let Ok(inv) = serde_json::from_str::<Invocation>(line) {
                    st.note(inv);
                }
            }
        }
        st.file = Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?,
        );
        Ok(ScriptHandler {
            script: self.script,
            state: Mutex::new(st),
        })
    }

    /// The entry for a call: scope path with `/`, then plan id, then local id. A call of
    /// another node made for this run (a fallback `alternate_node`) is looked up by the path
    /// that node has in the same scope instance.
    fn entry(&self, cx: &CallContext, node: &Node) -> Option<(&str, &Entry)> {
        let path = cx.scope_path.as_str();
        let (prefix, last) = match path.rsplit_once('.') {
            Some((p, l)) => (Some(p), l),
            None => (None, path),
        };
        // The path itself when it has no `.` to replace (a node of the root scope).
        let slashed: Cow<str> = match prefix {
            None if last.split('#').next() == Some(node.local_id.as_str()) => Cow::Borrowed(path),
            None => Cow::Borrowed(node.local_id.as_str()),
            Some(_) if last.split('#').next() == Some(node.local_id.as_str()) => {
                Cow::Owned(path.replace('.', "/"))
            }
            Some(p) => Cow::Owned(format!("{}/{}", p.replace('.', "/"), node.local_id)),
        };
        [&*slashed, node.id.as_str(), node.local_id.as_str()]
            .into_iter()
            .find_map(|k| self.script.nodes.get_key_value(k))
            .map(|(k, e)| (k.as_str(), e))
    }

    /// The result for this call (an entry of the script), and logs it.
    fn pick(&self, cx: &CallContext, node: &Node) -> Option<&Entry> {
        let found = self.entry(cx, node);
        self.pick_from(cx, found, &cx.idempotency_key)
    }

    /// The result from `found` (entry name and entry) for the call logged under `key`.
    fn pick_from<'e>(
        &self,
        cx: &CallContext,
        found: Option<(&str, &'e Entry)>,
        key: &str,
    ) -> Option<&'e Entry> {
        let name = found.map(|(k, _)| k);
        let mut guard = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let st = &mut *guard;
        let ordinal = match st.seen.entry((key.to_string(), cx.attempt)) {
            Slot::Occupied(o) => *o.get(),
            Slot::Vacant(v) => {
                let counter = name.unwrap_or_default();
                let o = match st.counts.get_mut(counter) {
                    Some(c) => c,
                    None => st.counts.entry(counter.to_string()).or_insert(0),
                };
                let ordinal = *o;
                *o += 1;
                *v.insert(ordinal)
            }
        };
        if let Some(f) = st.file.as_mut() {
            let line = super::lines::Invocation {
                key,
                attempt: cx.attempt,
                path: &cx.scope_path,
                entry: name,
                ordinal,
                resumed: cx.resumed,
            };
            st.line.clear();
            if super::lines::invocation(&mut st.line, &line).is_ok() {
                // One write per line: a crash leaves whole lines and at most one cut short.
                st.line.push('\n');
                let _ = f.write_all(st.line.as_bytes()).and_then(|()| f.flush());
            }
        }
        drop(guard);
        let (_, e) = found?;
        Some(match &e.results {
            Some(list) if !list.is_empty() => &list[ordinal.min(list.len() - 1)],
            _ => e,
        })
    }

    /// An entry's `delay_ms` (a timer: the call waits without holding a thread) and `fail`.
    async fn common(&self, e: &Entry) -> Result<(), HandlerError> {
        if let Some(ms) = e.delay_ms {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        if let Some(f) = &e.fail {
            let (class, message) = match f {
                Failure::Message(m) => (FailureClass::ToolError, m.clone()),
                Failure::Full { class, message } => (*class, message.clone()),
            };
            let mut err = HandlerError::new(class, message);
            err.usage = e.usage.clone().unwrap_or_default();
            return Err(err);
        }
        Ok(())
    }
}

impl LogState {
    fn note(&mut self, inv: Invocation) {
        if let Slot::Vacant(v) = self.seen.entry((inv.key, inv.attempt)) {
            v.insert(inv.ordinal);
            let c = self
                .counts
                .entry(inv.entry.unwrap_or_default())
                .or_insert(0);
            *c = (*c).max(inv.ordinal + 1);
        }
    }
}

impl Handler for ScriptHandler {
    fn task<'a>(
        &'a self,
        cx: &'a CallContext,
        node: &'a Node,
        inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, Completion> {
        Box::pin(async move {
            let none = Entry::default();
            let entry = self.pick(cx, node).unwrap_or(&none);
            self.common(entry).await?;
            let mut outputs = match &entry.outputs {
                // The scope is built only for outputs that hold a `${{ }}` placeholder.
                Some(o) if o.values().any(has_placeholder) => {
                    let scope = template_scope(cx, inputs);
                    o.iter()
                        .map(|(k, v)| (k.clone(), render(v, &scope)))
                        .collect()
                }
                Some(o) => o.clone(),
                None => placeholders(node),
            };
            if let Some(d) = &entry.decision {
                outputs.insert("decision".into(), Value::from(d.clone()));
            }
            if node.kind == NodeKind::Decision && !outputs.contains_key("decision") {
                return Err(HandlerError::new(
                    FailureClass::ValidationError,
                    format!("the script gives decision node `{}` no `decision`", node.id),
                ));
            }
            Ok(Completion {
                outputs,
                usage: entry.usage.clone().unwrap_or_default(),
            })
        })
    }

    fn gate<'a>(
        &'a self,
        cx: &'a CallContext,
        node: &'a Node,
        inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, GateResponse> {
        Box::pin(async move {
            let Some(entry) = self.pick(cx, node) else {
                return Ok(GateResponse::pending());
            };
            answer(self.common(entry).await.map(|()| entry), cx, inputs)
        })
    }

    /// An AWP signal wait: the entry's `outputs` are the signal's payload (delivered, unless
    /// `decision` says `pending` or `rejected`); `decision: approved` alone delivers an empty
    /// payload. No entry: pending.
    fn signal<'a>(
        &'a self,
        cx: &'a CallContext,
        node: &'a Node,
        _signal: &'a str,
        inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, GateResponse> {
        Box::pin(async move {
            let Some(mut entry) = self.pick(cx, node).cloned() else {
                return Ok(GateResponse::pending());
            };
            if entry.decision.is_none() && entry.outputs.is_some() {
                entry.decision = Some("approved".into());
            }
            answer(self.common(&entry).await.map(|()| &entry), cx, inputs)
        })
    }

    /// The node entry's `checkpoints.<id>` answer; none: pending. Each time a checkpoint is
    /// asked counts as one call of `<entry>.<id>` (its `results` advance).
    fn checkpoint<'a>(
        &'a self,
        cx: &'a CallContext,
        node: &'a Node,
        checkpoint: &'a Checkpoint,
        inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, GateResponse> {
        Box::pin(async move {
            let found = self.entry(cx, node).and_then(|(k, e)| {
                let a = e.checkpoints.as_ref()?.get(&checkpoint.id)?;
                Some((format!("{k}.{}", checkpoint.id), a))
            });
            let Some((name, asked)) = found else {
                return Ok(GateResponse::pending());
            };
            let key = format!("{}:{}", cx.run_id, checkpoint.name);
            let Some(entry) = self.pick_from(cx, Some((&name, asked)), &key) else {
                return Ok(GateResponse::pending());
            };
            answer(self.common(entry).await.map(|()| entry), cx, inputs)
        })
    }
}

/// A gate's or checkpoint's answer from its script entry.
fn answer(
    entry: Result<&Entry, HandlerError>,
    cx: &CallContext,
    inputs: &Map<String, Value>,
) -> Result<GateResponse, HandlerError> {
    let entry = entry?;
    let scope = template_scope(cx, inputs);
    let outputs = entry
        .outputs
        .iter()
        .flatten()
        .map(|(k, v)| (k.clone(), render(v, &scope)))
        .collect();
    let outcome = match entry.decision.as_deref() {
        None | Some("pending") => None,
        Some(d) => Some(GateOutcome::parse(d).ok_or_else(|| {
            HandlerError::new(
                FailureClass::ValidationError,
                format!("decision `{d}` is not approved, rejected or pending"),
            )
        })?),
    };
    Ok(GateResponse {
        outcome,
        outputs,
        actor: outcome.map(|_| "script".to_string()),
        note: None,
    })
}

/// Placeholder outputs for an unscripted task: one per required output, by type.
fn placeholders(node: &Node) -> Map<String, Value> {
    node.outputs
        .iter()
        .filter(|o| o.required && o.name != "decision")
        .map(|o| {
            let v = match o.ty.as_str() {
                "number" | "integer" => Value::from(0),
                "boolean" => Value::Bool(false),
                "array" | "file_set" => Value::Array(Vec::new()),
                "object" | "json" => Value::Object(Map::new()),
                "artifact" => serde_json::json!({ "id": format!("{}.{}", node.local_id, o.name) }),
                _ => Value::from(format!("{} {}", node.local_id, o.name)),
            };
            (o.name.clone(), v)
        })
        .collect()
}

fn template_scope(cx: &CallContext, inputs: &Map<String, Value>) -> Value {
    let mut m = Map::new();
    m.insert("inputs".into(), Value::Object(inputs.clone()));
    m.insert("attempt".into(), Value::from(cx.attempt));
    if let Some(i) = cx.item {
        m.insert("item".into(), Value::from(i));
    }
    if let Some(i) = cx.iteration {
        m.insert("iteration".into(), Value::from(i));
    }
    Value::Object(m)
}

/// Whether a string of `v` holds a `${{` placeholder (else [`render`] gives `v` back).
fn has_placeholder(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains("${{"),
        Value::Array(a) => a.iter().any(has_placeholder),
        Value::Object(o) => o.values().any(has_placeholder),
        _ => false,
    }
}

/// Renders `${{ path }}` placeholders in every string of `v`.
pub fn render(v: &Value, scope: &Value) -> Value {
    match v {
        Value::String(s) => render_str(s, scope),
        Value::Array(a) => Value::Array(a.iter().map(|x| render(x, scope)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), render(x, scope)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn render_str(s: &str, scope: &Value) -> Value {
    if !s.contains("${{") {
        return Value::from(s);
    }
    let t = s.trim();
    if let Some(inner) = t.strip_prefix("${{").and_then(|r| r.strip_suffix("}}"))
        && !inner.contains("${{")
    {
        return lookup(inner.trim(), scope).cloned().unwrap_or(Value::Null);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 3..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return Value::from(out);
        };
        match lookup(after[..end].trim(), scope) {
            Some(Value::String(x)) => out.push_str(x),
            Some(Value::Null) | None => {}
            Some(other) => out.push_str(&other.to_string()),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Value::from(out)
}

/// A dotted path with `[n]` indices: `inputs.pages[0].path`.
fn lookup<'v>(path: &str, scope: &'v Value) -> Option<&'v Value> {
    let mut cur = scope;
    for seg in path.split('.') {
        let (name, mut idx) = match seg.find('[') {
            Some(i) => (&seg[..i], &seg[i..]),
            None => (seg, ""),
        };
        if !name.is_empty() {
            cur = cur.get(name)?;
        }
        while let Some(rest) = idx.strip_prefix('[') {
            let close = rest.find(']')?;
            let n: usize = rest[..close].trim().parse().ok()?;
            cur = cur.get(n)?;
            idx = &rest[close + 1..];
        }
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The log's line as written (`lines`) reads back as the [`Invocation`] it was.
    #[test]
    fn a_log_line_reads_back_as_its_invocation() {
        for (entry, resumed) in [(None, false), (Some("pages/render.pre"), true)] {
            let line = super::super::lines::Invocation {
                key: "run-1:pages[2].render",
                attempt: 3,
                path: "pages[2].render",
                entry,
                ordinal: 12,
                resumed,
            };
            let mut text = String::new();
            super::super::lines::invocation(&mut text, &line).unwrap();
            let back: Invocation = serde_json::from_str(&text).unwrap();
            assert_eq!(
                back,
                Invocation {
                    key: line.key.into(),
                    attempt: 3,
                    path: line.path.into(),
                    entry: entry.map(str::to_string),
                    ordinal: 12,
                    resumed,
                }
            );
        }
    }

    #[test]
    fn templates_render_paths_and_keep_types() {
        let scope =
            json!({"inputs": {"page": {"path": "a.md", "n": 3}, "list": [1, 2]}, "item": 2});
        assert_eq!(render(&json!("${{ inputs.page.n }}"), &scope), json!(3));
        assert_eq!(
            render(&json!("page ${{ inputs.page.path }} #${{ item }}"), &scope),
            json!("page a.md #2")
        );
        assert_eq!(render(&json!("${{inputs.list[1]}}"), &scope), json!(2));
        assert_eq!(render(&json!("${{ inputs.nope }}"), &scope), Value::Null);
        assert_eq!(render(&json!("no ${{ open"), &scope), json!("no ${{ open"));
    }
}
