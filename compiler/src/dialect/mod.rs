//! Which of the four input formats a document is written in.
//!
//! Detection reads only the document's own markers, never its file name (file names decide
//! only which files a directory walk picks up, see [`is_candidate`]):
//!
//! | dialect | marker |
//! | --- | --- |
//! | AGS 1.0 | `kind: AgenticGraph`, or an `ags_version` key (whatever `kind` says, but `AgenticGraphRun`) |
//! | Agent Graph v1 | `schema: agent-graph.<kind>.v1` (the kind picks the schema) |
//! | agh.loop/v1 | `apiVersion: agh.loop/v1`, or `compozy.loop/v1`, the renamed successor |
//! | AWP | a `document` mapping together with `nodes` or `state_schema` |
//!
//! The markers are checked in that order, and the first that matches wins. A marker that is
//! present but malformed (a wrong `kind` value, a missing `edges`) is left to the schema, which
//! reports it at the exact place; detection only has to pick the schema.
//!
//! A dialect forced with `--dialect` skips detection, except that an Agent Graph document's kind
//! still comes from its `schema:` value (the flag cannot say which of the fifteen schemas
//! applies); without a usable `schema:` the document is treated as a graph
//! (`agent-graph.graph.v1`) and the schema check reports the marker.

mod candidate;

pub use candidate::{is_candidate, is_candidate_outside_agent_graph};

use crate::diag::Diagnostic;
use crate::source::Value;
use crate::source::{Document, Span};

/// The kinds of Agent Graph v1 documents: one per official schema (`agent-graph.<kind>.v1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AgentGraphKind {
    Provider,
    Graph,
    Action,
    Resource,
    CodeCatalog,
    Test,
    ResourceReadReceipts,
    SkillBinding,
    Bundle,
    CodeLocation,
    ResourceLocation,
    Route,
    Evaluation,
    Run,
    Error,
}

impl AgentGraphKind {
    /// Every kind, in declaration order.
    pub const ALL: [AgentGraphKind; 15] = [
        AgentGraphKind::Provider,
        AgentGraphKind::Graph,
        AgentGraphKind::Action,
        AgentGraphKind::Resource,
        AgentGraphKind::CodeCatalog,
        AgentGraphKind::Test,
        AgentGraphKind::ResourceReadReceipts,
        AgentGraphKind::SkillBinding,
        AgentGraphKind::Bundle,
        AgentGraphKind::CodeLocation,
        AgentGraphKind::ResourceLocation,
        AgentGraphKind::Route,
        AgentGraphKind::Evaluation,
        AgentGraphKind::Run,
        AgentGraphKind::Error,
    ];

    /// The `<kind>` part of `agent-graph.<kind>.v1`.
    pub fn name(self) -> &'static str {
        match self {
            AgentGraphKind::Provider => "provider",
            AgentGraphKind::Graph => "graph",
            AgentGraphKind::Action => "action",
            AgentGraphKind::Resource => "resource",
            AgentGraphKind::CodeCatalog => "code-catalog",
            AgentGraphKind::Test => "test",
            AgentGraphKind::ResourceReadReceipts => "resource-read-receipts",
            AgentGraphKind::SkillBinding => "skill-binding",
            AgentGraphKind::Bundle => "bundle",
            AgentGraphKind::CodeLocation => "code-location",
            AgentGraphKind::ResourceLocation => "resource-location",
            AgentGraphKind::Route => "route",
            AgentGraphKind::Evaluation => "evaluation",
            AgentGraphKind::Run => "run",
            AgentGraphKind::Error => "error",
        }
    }

    /// The document marker, `agent-graph.<kind>.v1`.
    pub fn marker(self) -> String {
        format!("agent-graph.{}.v1", self.name())
    }

    /// The kind named by a `schema:` value such as `agent-graph.graph.v1`.
    pub fn from_marker(marker: &str) -> Option<AgentGraphKind> {
        let name = marker.strip_prefix("agent-graph.")?.strip_suffix(".v1")?;
        AgentGraphKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Kinds that people author (the rest are outputs of the Agent Graph tools: routes,
    /// evaluations, run records, errors, bundles, code locations).
    pub fn is_authored(self) -> bool {
        matches!(
            self,
            AgentGraphKind::Provider
                | AgentGraphKind::Graph
                | AgentGraphKind::Action
                | AgentGraphKind::Resource
                | AgentGraphKind::CodeCatalog
                | AgentGraphKind::Test
                | AgentGraphKind::ResourceReadReceipts
                | AgentGraphKind::SkillBinding
        )
    }
}

/// An input format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    /// AGS 1.0, the Agentic Graph Specification.
    Ags,
    /// Agent Graph v1; the kind picks the schema.
    AgentGraph(AgentGraphKind),
    /// The AWP (Agent Workflow Protocol) workflow definition.
    Awp,
    /// agh.loop/v1 (and its renamed successor compozy.loop/v1).
    Agh,
}

impl Dialect {
    /// The flag spelling: `ags`, `agent-graph`, `awp`, `agh`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Ags => "ags",
            Dialect::AgentGraph(_) => "agent-graph",
            Dialect::Awp => "awp",
            Dialect::Agh => "agh",
        }
    }

    /// A name for messages: `AGS 1.0`, `Agent Graph v1 (graph)`, ...
    pub fn title(self) -> String {
        match self {
            Dialect::Ags => "AGS 1.0".to_string(),
            Dialect::AgentGraph(k) => format!("Agent Graph v1 ({})", k.name()),
            Dialect::Awp => "AWP workflow definition".to_string(),
            Dialect::Agh => "agh.loop/v1".to_string(),
        }
    }

    /// Parses a `--dialect` value. `agent-graph` yields `AgentGraph(Graph)`; the kind is taken
    /// from the document's `schema:` when it names one (see [`resolve`]).
    pub fn parse_flag(flag: &str) -> Result<Dialect, String> {
        match flag {
            "ags" => Ok(Dialect::Ags),
            "agent-graph" => Ok(Dialect::AgentGraph(AgentGraphKind::Graph)),
            "awp" => Ok(Dialect::Awp),
            "agh" => Ok(Dialect::Agh),
            other => Err(format!(
                "unknown dialect `{other}`; expected one of: ags, agent-graph, awp, agh"
            )),
        }
    }
}

/// The dialect to check `doc` as: `forced` if given (with the Agent Graph kind read from the
/// document), else [`detect`].
pub fn resolve(doc: &Document, forced: Option<Dialect>) -> Result<Dialect, Diagnostic> {
    match forced {
        None => detect(doc),
        Some(Dialect::AgentGraph(default)) => {
            let kind = doc
                .value
                .get("schema")
                .and_then(Value::as_str)
                .and_then(AgentGraphKind::from_marker)
                .unwrap_or(default);
            Ok(Dialect::AgentGraph(kind))
        }
        Some(d) => Ok(d),
    }
}

/// Detects the dialect from the document's own markers (table in the module docs).
///
/// Errors: AGC020 when the document is not a mapping or carries no marker (the message says
/// what was looked for); AGC024 for an `agent-graph.*` marker naming no known kind.
pub fn detect(doc: &Document) -> Result<Dialect, Diagnostic> {
    let root_span = doc.spans.span;
    let Some(map) = doc.value.as_object() else {
        return Err(Diagnostic::error(
            "AGC020",
            format!(
                "the document is {}, not a mapping, so it is none of the workflow formats",
                describe(&doc.value)
            ),
        )
        .at(root_span)
        .with_pointer("")
        .with_help("a workflow document is a mapping with its format's marker at the top level"));
    };
    // `ags_version` marks AGS whatever `kind` says (the schema then reports the `kind`, AG001,
    // as the reference validators do), but for an AGS run record, a harness's output.
    let kind = map.get("kind").and_then(Value::as_str);
    if kind == Some("AgenticGraph")
        || (map.contains_key("ags_version") && kind != Some("AgenticGraphRun"))
    {
        return Ok(Dialect::Ags);
    }
    if let Some(schema) = map.get("schema").and_then(Value::as_str)
        && schema.starts_with("agent-graph.")
    {
        return match AgentGraphKind::from_marker(schema) {
            Some(kind) => Ok(Dialect::AgentGraph(kind)),
            None => {
                let known: Vec<String> = AgentGraphKind::ALL.iter().map(|k| k.marker()).collect();
                Err(Diagnostic::error(
                    "AGC024",
                    format!("`{schema}` is not an Agent Graph v1 document kind"),
                )
                .at(doc.span("/schema"))
                .with_pointer("/schema")
                .with_help(format!("known kinds: {}", known.join(", "))))
            }
        };
    }
    if let Some(api) = map.get("apiVersion").and_then(Value::as_str)
        && (api.starts_with("agh.loop/") || api.starts_with("compozy.loop/"))
    {
        return Ok(Dialect::Agh);
    }
    if map.get("document").is_some_and(Value::is_object)
        && (map.contains_key("nodes") || map.contains_key("state_schema"))
    {
        return Ok(Dialect::Awp);
    }
    Err(unknown(doc, first_line(doc)))
}

fn unknown(doc: &Document, at: Span) -> Diagnostic {
    let mut d = Diagnostic::error(
        "AGC020",
        "cannot tell which workflow format this document is written in",
    )
    .at(at)
    .with_pointer("")
    .with_label_text("no format marker at the top level")
    .with_help(
        "agc looked for `kind: AgenticGraph` (AGS 1.0), `schema: agent-graph.<kind>.v1` \
(Agent Graph), `apiVersion: agh.loop/v1` (agh) and a `document` mapping with `nodes` (AWP); \
add the marker, or force a format with `--dialect ags|agent-graph|awp|agh`",
    );
    // Point at a near miss when there is one.
    if doc.value.get("kind").and_then(Value::as_str) == Some("AgenticGraphRun") {
        return d.with_label(
            doc.span("/kind"),
            "an AGS run record (a harness's output), not a graph document",
        );
    }
    for (key, hint) in [
        ("kind", "`kind` is not `AgenticGraph`"),
        (
            "schema",
            "`schema` does not name an `agent-graph.<kind>.v1` kind",
        ),
        ("apiVersion", "`apiVersion` is not `agh.loop/v1`"),
    ] {
        if doc.node(&format!("/{key}")).is_some() {
            d = d.with_label(doc.span(&format!("/{key}")), hint);
        }
    }
    d
}

/// The span of the first key of the root mapping (one line), or the root's span.
fn first_line(doc: &Document) -> Span {
    doc.children(&doc.spans)
        .next()
        .and_then(|c| c.key())
        .unwrap_or(doc.spans.span)
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}

#[cfg(test)]
mod tests;
