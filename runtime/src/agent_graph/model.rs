//! A loaded Agent Graph Provider, as evaluation and routing need it.
//!
//! The compiler's front end (`front::agent_graph`) checks the Provider's files and fills this
//! model in; everything here is already validated (ids resolve, references point at loaded
//! files). File contents are not kept: only what routes print (absolute paths, digests,
//! frontmatter names) and the per-graph closure digests that revisions are built from.

use crate::facts::FactTest;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A Provider: its identity, graphs (manifest order), actions, resources and catalog.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Provider {
    pub id: String,
    pub version: String,
    /// The provider root as an absolute path (the folder of `provider.yaml`), used in routes.
    pub root: String,
    pub graphs: IndexMap<String, Graph>,
    /// Actions by their normalised provider-relative path (`actions/build.yaml`).
    pub actions: IndexMap<String, Action>,
    /// Resources in load order.
    pub resources: Vec<Resource>,
    /// The code catalog's entries by code, when the Provider declares one.
    pub catalog: Option<IndexMap<String, CatalogEntry>>,
    /// `graphDigest[g]`: the digest of each graph's file closure (see `canon`).
    pub graph_digests: IndexMap<String, String>,
}

/// One graph.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Graph {
    pub id: String,
    /// The graph file's absolute path (diagnostics carry it as `path`).
    pub path: String,
    pub entrypoints: IndexMap<String, String>,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

/// The four node kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Action,
    Gate,
    Subgraph,
    Terminal,
}

/// A fact check: `{ path, exists }` or `{ path, equals }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FactCheck {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equals: Option<Value>,
}

impl FactCheck {
    /// Whether the check passes on `facts` (upstream `factCheckMatches`).
    pub fn matches(&self, facts: &Value) -> bool {
        use crate::facts::{check_fact, eval_fact};
        match (self.exists, &self.equals) {
            (Some(e), _) => check_fact(&self.path, &FactTest::Exists(e), facts),
            (None, Some(v)) => check_fact(&self.path, &FactTest::Equals(v.clone()), facts),
            // `Object.is(value, undefined)`: only a missing fact (the schema forbids this).
            (None, None) => eval_fact(&self.path, facts).is_none(),
        }
    }
}

/// `resources: { required, recommended }` (provider-relative paths or resource ids).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeResources {
    pub required: Vec<String>,
    pub recommended: Vec<String>,
}

/// A gate block: the typed fields, plus the block as written (routes print it in its order).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Gate {
    pub id: String,
    pub authority: Option<String>,
    pub delegatable: Option<bool>,
    pub raw: serde_json::Map<String, Value>,
}

/// A gate's `delegated` policy.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Delegated {
    /// `inspection: skip`
    pub skip_inspection: bool,
    pub resolution_action: Option<String>,
    pub resources: Option<NodeResources>,
}

/// One node. Fields that a kind does not carry are `None`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Node {
    pub id: String,
    pub kind: NodeKind,
    pub description: Option<String>,
    pub priority: i64,
    /// `join: any` (the default is `all`).
    pub join_any: bool,
    /// `None` when absent (passes); an empty list also passes.
    pub requires_facts: Option<Vec<FactCheck>>,
    pub satisfied_by: Option<Vec<FactCheck>>,
    pub reason_code: Option<String>,
    /// Action nodes: the action's normalised provider-relative path.
    pub action: Option<String>,
    pub gate: Option<Gate>,
    pub inspection_action: Option<String>,
    pub resolution_action: Option<String>,
    pub delegated: Option<Delegated>,
    pub resources: Option<NodeResources>,
    /// Subgraph nodes: the child graph id and entry.
    pub graph: Option<String>,
    pub entry: Option<String>,
    pub terminal_outcome: Option<String>,
}

impl Node {
    /// A node of `kind` with nothing else set.
    pub fn bare(id: &str, kind: NodeKind) -> Node {
        Node {
            id: id.to_string(),
            kind,
            description: None,
            priority: 0,
            join_any: false,
            requires_facts: None,
            satisfied_by: None,
            reason_code: None,
            action: None,
            gate: None,
            inspection_action: None,
            resolution_action: None,
            delegated: None,
            resources: None,
            graph: None,
            entry: None,
            terminal_outcome: None,
        }
    }
}

/// One edge.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Edge {
    pub from: String,
    pub to: String,
    /// Defaults to `[completed]`.
    pub outcomes: Vec<String>,
    /// `flow`, `consumes`, `requires`, `gatedBy` or `repeat`.
    pub kind: String,
}

impl Edge {
    pub fn is_repeat(&self) -> bool {
        self.kind == "repeat"
    }
}

/// A file a route points at: absolute path and digest.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FileRef {
    pub path: String,
    pub digest: String,
}

/// An Agent Skill an `agent` action names.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SkillRef {
    pub file: FileRef,
    /// The frontmatter `name`, when it is a string (the location id is `skill.<name>`).
    pub name: Option<String>,
}

/// One action.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Action {
    pub id: String,
    pub runner: String,
    pub effect: String,
    pub command: Option<String>,
    /// `script` runner: the entry's absolute path and runtime.
    pub entry: Option<String>,
    pub runtime: Option<String>,
    pub handler: Option<String>,
    pub args: Vec<String>,
    /// `cwd: provider` (the default is the workspace).
    pub cwd_provider: bool,
    pub skill: Option<SkillRef>,
    pub input_schema: Option<FileRef>,
    pub output_schema: Option<FileRef>,
}

/// One resource (a Markdown file with frontmatter, or an `agent-graph.resource.v1` descriptor).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Resource {
    /// Normalised provider-relative path of the resource file (descriptor or Markdown).
    pub path: String,
    pub id: String,
    pub kind: String,
    pub media_type: String,
    /// Static resources: the content file (absolute) and its digest. `None` for a dynamic
    /// (`context-view`) resource.
    pub content: Option<FileRef>,
}

/// One code catalog entry (only what routes use).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CatalogEntry {
    pub kind: String,
    pub summary: String,
}

/// What `evaluate` and `route` take besides the Provider.
#[derive(Clone, Debug, Default)]
pub struct Input {
    /// The facts object (`{}` when none).
    pub facts: Value,
    /// Recorded outcomes by state key, reduced to the outcome string, in input order.
    pub outcomes: IndexMap<String, String>,
    pub authorities: Vec<String>,
    /// Absolute workspace path (routes' default working directory).
    pub workspace: String,
    /// Read receipts (`agent-graph.resource-read-receipts.v1`), already validated.
    pub receipts: Option<Receipts>,
}

/// Resource read receipts.
#[derive(Clone, Debug, Default)]
pub struct Receipts {
    pub provider: String,
    pub receipts: Vec<Receipt>,
}

/// One read receipt.
#[derive(Clone, Debug, Default)]
pub struct Receipt {
    pub id: String,
    pub digest: Option<String>,
    pub revision: Option<String>,
}
