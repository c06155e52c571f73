//! The schemas, embedded in the binary, and their validators, compiled once on first use.
//!
//! No schema is ever fetched: the validators are built offline, and the one cross-file `$ref`
//! (Agent Graph `code-location` → `resource-location`) resolves through a registry holding all
//! fifteen Agent Graph schemas under their `$id`s.

use super::doc_json::DocJson;
use crate::dialect::{AgentGraphKind, Dialect};
use jsonschema::{Draft, Validator};
use serde_json::Value;
use std::sync::OnceLock;

/// One embedded schema: where it lives in the repository, and its text.
pub struct Embedded {
    pub path: &'static str,
    pub text: &'static str,
}

macro_rules! embed {
    ($path:literal) => {
        Embedded {
            path: $path,
            text: include_str!(concat!("../../../", $path)),
        }
    };
}

pub static AGS: Embedded = embed!("schemas/ags/agentic-graph-1.0.schema.json");
pub static AWP: Embedded = embed!("schemas/awp/workflow-definition.json");
pub static AGH: Embedded = embed!("schemas/agh-loop-v1.schema.json");

/// The Agent Graph schemas, in [`AgentGraphKind::ALL`] order.
pub static AGENT_GRAPH: [Embedded; 15] = [
    embed!("schemas/agent-graph/provider.schema.json"),
    embed!("schemas/agent-graph/graph.schema.json"),
    embed!("schemas/agent-graph/action.schema.json"),
    embed!("schemas/agent-graph/resource.schema.json"),
    embed!("schemas/agent-graph/code-catalog.schema.json"),
    embed!("schemas/agent-graph/test-case.schema.json"),
    embed!("schemas/agent-graph/resource-read-receipts.schema.json"),
    embed!("schemas/agent-graph/skill-binding.schema.json"),
    embed!("schemas/agent-graph/bundle.schema.json"),
    embed!("schemas/agent-graph/code-location.schema.json"),
    embed!("schemas/agent-graph/resource-location.schema.json"),
    embed!("schemas/agent-graph/route.schema.json"),
    embed!("schemas/agent-graph/evaluation.schema.json"),
    embed!("schemas/agent-graph/run.schema.json"),
    embed!("schemas/agent-graph/error.schema.json"),
];

/// A compiled schema: the parsed JSON (for reading rules back by schema path) and its validator.
pub struct Compiled {
    pub schema: Value,
    /// Validates documents as loaded (see [`super::doc_json`]).
    pub validator: Validator<DocJson>,
}

type Slot = OnceLock<Result<Compiled, String>>;

static AGS_SLOT: Slot = OnceLock::new();
static AWP_SLOT: Slot = OnceLock::new();
static AGH_SLOT: Slot = OnceLock::new();
static AGENT_GRAPH_SLOTS: [Slot; 15] = [const { OnceLock::new() }; 15];

/// The embedded schema for a dialect.
pub fn source(dialect: Dialect) -> &'static Embedded {
    match dialect {
        Dialect::Ags => &AGS,
        Dialect::Awp => &AWP,
        Dialect::Agh => &AGH,
        Dialect::AgentGraph(kind) => &AGENT_GRAPH[index(kind)],
    }
}

fn index(kind: AgentGraphKind) -> usize {
    AgentGraphKind::ALL
        .iter()
        .position(|k| *k == kind)
        .unwrap_or_default()
}

/// The compiled schema for a dialect; `Err` (a message) only if an embedded schema is broken,
/// which the tests rule out.
pub fn compiled(dialect: Dialect) -> Result<&'static Compiled, &'static str> {
    let slot = match dialect {
        Dialect::Ags => &AGS_SLOT,
        Dialect::Awp => &AWP_SLOT,
        Dialect::Agh => &AGH_SLOT,
        Dialect::AgentGraph(kind) => &AGENT_GRAPH_SLOTS[index(kind)],
    };
    slot.get_or_init(|| compile(dialect))
        .as_ref()
        .map_err(String::as_str)
}

fn compile(dialect: Dialect) -> Result<Compiled, String> {
    let src = source(dialect);
    let schema: Value = serde_json::from_str(src.text).map_err(|e| format!("{}: {e}", src.path))?;
    let built = match dialect {
        Dialect::AgentGraph(_) => {
            let registry = agent_graph_registry().map_err(|e| format!("{}: {e}", src.path))?;
            jsonschema::options_for::<DocJson>()
                .with_draft(Draft::Draft202012)
                .offline()
                .should_validate_formats(true)
                .with_registry(&registry)
                .build(&schema)
        }
        _ => jsonschema::options_for::<DocJson>()
            .with_draft(Draft::Draft202012)
            .offline()
            .build(&schema),
    };
    let validator = built.map_err(|e| format!("{}: {e}", src.path))?;
    Ok(Compiled { schema, validator })
}

fn agent_graph_registry() -> Result<jsonschema::Registry<'static>, String> {
    let mut builder = jsonschema::Registry::new();
    for src in &AGENT_GRAPH {
        let value: Value = serde_json::from_str(src.text).map_err(|e| e.to_string())?;
        let id = value
            .get("$id")
            .and_then(Value::as_str)
            .ok_or("schema without $id")?
            .to_string();
        builder = builder.add(id, value).map_err(|e| e.to_string())?;
    }
    builder.prepare().map_err(|e| e.to_string())
}

/// Test support: every error of `dialect`'s schema for a document ([`show`]), from the validator agc uses (reading the document in
/// place) and from one built the same way over `serde_json` (reading a JSON copy), so that a
/// test can compare the two representations.
#[cfg(test)]
pub(crate) fn errors_both_ways(
    dialect: Dialect,
    doc: &crate::source::Value,
) -> (Vec<String>, Vec<String>) {
    let src = source(dialect);
    let schema: Value = serde_json::from_str(src.text).expect("schema parses");
    let registry = agent_graph_registry().expect("registry");
    let options = jsonschema::draft202012::options().offline();
    let reference = match dialect {
        Dialect::AgentGraph(_) => options
            .should_validate_formats(true)
            .with_registry(&registry)
            .build(&schema),
        _ => options.build(&schema),
    }
    .expect("schema compiles");
    let ours = compiled(dialect)
        .expect("schema compiles")
        .validator
        .iter_errors(doc)
        .map(|e| show(&e))
        .collect();
    let json = doc.to_json();
    let theirs = reference.iter_errors(&json).map(|e| show(&e)).collect();
    (ours, theirs)
}

/// One error as `instance path | schema path | instance | kind`, a `oneOf`/`anyOf`'s branches
/// in full. A collection instance is shown by its type only: agc's errors carry an empty one
/// (`DocJson`'s `lazy_value`), read from nowhere.
#[cfg(test)]
fn show(e: &jsonschema::ValidationError<'_>) -> String {
    use jsonschema::error::ValidationErrorKind as K;
    let instance = match e.instance().as_ref() {
        Value::Array(_) => "array".to_string(),
        Value::Object(_) => "object".to_string(),
        scalar => scalar.to_string(),
    };
    let kind = match e.kind() {
        K::AnyOf { context } | K::OneOfNotValid { context } => {
            let branches: Vec<String> = context
                .iter()
                .map(|b| b.iter().map(show).collect::<Vec<_>>().join(", "))
                .collect();
            format!("{} [{}]", e.kind().keyword(), branches.join("; "))
        }
        other => format!("{other:?}"),
    };
    format!(
        "{} | {} | {instance} | {kind}",
        e.instance_path().as_str(),
        e.schema_path().as_str(),
    )
}
