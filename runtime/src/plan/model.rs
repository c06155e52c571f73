//! The plan's types (see the module docs of [`crate::plan`]): [`Plan`] and what it holds.

use crate::expr::Expr as CoreExpr;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::body::Body;
use super::criteria::{Decision, Success};
pub use super::decl::{Declared, Param};
use super::failure::Failure;
use super::generations::{Generations, Routes};
use super::human::{HumanCheckpoint, HumanTimeouts};
use super::layout;
use super::policy::{Attachment, OnNodeFailure};
use super::semantics::{Backoff, EvalLimits, OnItemFailure, Produces, Semantics, SubgraphSource};
use super::waiting::{Gate, Wait};

/// The format tag of the plans the compiler writes.
pub const FORMAT: &str = "agc.plan/v5";

/// Every format tag this runtime reads.
pub const FORMATS_READ: [&str; 5] = [
    "agc.plan/v1",
    "agc.plan/v2",
    "agc.plan/v3",
    "agc.plan/v4",
    FORMAT,
];

/// A whole plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub format: String,
    pub source: Source,
    pub graph: GraphInfo,
    pub params: Vec<Param>,
    pub entrypoints: Vec<String>,
    /// Graph-level limits as declared (`max_node_executions`, `max_cost_usd`,
    /// `max_wall_clock_seconds`, `max_parallel_nodes`, ...).
    pub constraints: Map<String, Value>,
    /// Graph-level dialect attributes agc does not model, kept as written.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub attrs: Map<String, Value>,
    /// How the plan runs where dialects differ, decided by the compiler (`agc.plan/v3`;
    /// derived from the dialect when an older plan is read).
    #[serde(default)]
    pub semantics: Semantics,
    /// The graph's defaults for a human's time (`agc.plan/v5`; v4 and older kept them in
    /// `attrs.policy`).
    #[serde(default, skip_serializing_if = "HumanTimeouts::is_empty")]
    pub human_timeouts: HumanTimeouts,
    /// What a node's failure that nothing absorbs does to the run (`agc.plan/v5`; `isolate`
    /// when left out; earlier plans kept it in `attrs.policy`).
    #[serde(default, skip_serializing_if = "OnNodeFailure::is_default")]
    pub on_node_failure: OnNodeFailure,
    /// The declared attachments (`agc.plan/v5`; earlier plans kept them in
    /// `attrs.attachments`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
    /// The JSON Schema a workflow state must fit (an AWP `state_schema`, its `reducer` keys
    /// stripped; `agc.plan/v5`; earlier plans kept it in `attrs.state_schema`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_schema: Option<Value>,
    /// In execution order: topological, then declaration order.
    #[serde(deserialize_with = "read_nodes", serialize_with = "write_nodes")]
    pub nodes: Vec<Node>,
    #[serde(deserialize_with = "super::lists::long_list")]
    pub edges: Vec<Edge>,
    pub regions: Vec<Region>,
    #[serde(deserialize_with = "super::lists::long_list")]
    pub links: Vec<Link>,
    pub bounds: Bounds,
    /// The graph's declared outputs, bound when the run ends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<GraphOutput>,
    /// The bounds of one jq evaluation the plan asks for (left out when none is given).
    #[serde(default, skip_serializing_if = "EvalLimits::is_empty")]
    pub eval_limits: EvalLimits,
}

impl Plan {
    /// The plan as the compiler writes it: the line layout of [`layout`] with a trailing
    /// newline.
    pub fn to_pretty_string(&self) -> String {
        let mut buf = Vec::new();
        // Serializing these types to memory cannot fail: every map key is a string.
        layout::write_plan_layout(&mut buf, self).expect("plan serializes");
        String::from_utf8(buf).expect("serde_json writes UTF-8")
    }

    /// The path of a location: its own, or the plan's source document when it has none.
    pub fn location_path<'a>(&'a self, loc: &'a Location) -> &'a str {
        if loc.path.is_empty() {
            &self.source.path
        } else {
            &loc.path
        }
    }

    /// The graph digest (`sha256-…`), when the dialect defines one.
    pub fn digest(&self) -> Option<&str> {
        self.source.graph_digest.as_deref()
    }
}

/// Reads `nodes`, filling in the `local_id` and `origin_kind` a plan leaves out when they equal
/// the id and the kind.
fn read_nodes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Node>, D::Error> {
    let mut nodes: Vec<Node> = super::lists::long_list(d)?;
    for n in &mut nodes {
        if n.local_id.is_empty() {
            n.local_id = n.id.clone();
        }
        if n.origin_kind.is_empty() {
            n.origin_kind = n.kind.as_str().to_string();
        }
    }
    Ok(nodes)
}

/// Writes `nodes` as the compiler does: `local_id` and `origin_kind` left out when they equal
/// the id and the kind.
fn write_nodes<S: serde::Serializer>(nodes: &[Node], s: S) -> Result<S::Ok, S::Error> {
    struct Lean<'a>(&'a Node);
    impl Serialize for Lean<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let n = self.0;
            let mut v = serde_json::to_value(n).map_err(serde::ser::Error::custom)?;
            if let Value::Object(m) = &mut v {
                if n.local_id == n.id {
                    m.shift_remove("local_id");
                }
                if n.origin_kind == n.kind.as_str() {
                    m.shift_remove("origin_kind");
                }
            }
            v.serialize(s)
        }
    }
    s.collect_seq(nodes.iter().map(Lean))
}

/// A plan that cannot be read or is inconsistent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError(pub String);

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PlanError {}

/// `source`: where the plan came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// `ags`, `agent-graph`, `awp` or `agh`.
    pub dialect: String,
    /// The document's path as given to agc.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_digest: Option<String>,
}

/// `graph`: id and title.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphInfo {
    pub id: String,
    pub title: Option<String>,
}

/// An expression as the plan carries it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expr {
    pub lang: ExprLang,
    /// The expression as written.
    pub source: String,
    /// The portable core form (AGX, CEL and templates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core: Option<CoreExpr>,
    pub location: Location,
}

/// The language of an [`Expr`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExprLang {
    Agx,
    AgxTemplate,
    Cel,
    GoTemplate,
    Jq,
    Fact,
}

/// A source location: the path as given, 1-based line and column. An empty `path` is the
/// plan's source document ([`Plan::location_path`]). Written `"line:column"`, or
/// `"path:line:column"` when the path is not empty; `agc.plan/v1`'s object form
/// `{"path", "line", "column"}` is read too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub path: String,
    pub line: u32,
    pub column: u32,
}

impl Serialize for Location {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.path.is_empty() {
            s.collect_str(&format_args!("{}:{}", self.line, self.column))
        } else {
            s.collect_str(&format_args!("{}:{}:{}", self.path, self.line, self.column))
        }
    }
}

/// `line:column` or `path:line:column` (the path may itself hold `:`).
pub(super) fn parse_location(t: &str) -> Option<Location> {
    // `line:column`, as almost every location of a plan is, read without splitting from the
    // end (a fifth of reading a location was that).
    if let Some((line, column)) = t.split_once(':')
        && let (Some(line), Some(column)) = (digits(line), digits(column))
    {
        return Some(Location {
            path: String::new(),
            line,
            column,
        });
    }
    let mut it = t.rsplitn(3, ':');
    let column = it.next()?.parse().ok()?;
    let line = it.next()?.parse().ok()?;
    let path = it.next().unwrap_or("").to_string();
    Some(Location { path, line, column })
}

/// One to nine ASCII digits as a number (read as `u32::from_str` reads them; it reads more
/// forms, which the general case of [`parse_location`] leaves to it).
fn digits(t: &str) -> Option<u32> {
    if t.is_empty() || t.len() > 9 {
        return None;
    }
    t.bytes().try_fold(0, |n: u32, b| {
        b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0'))
    })
}

/// What a node does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// Agent or tool work.
    Task,
    /// Picks one of several labelled branches.
    Decision,
    /// Human approval, review or input.
    Gate,
    /// Owns a loop region.
    Loop,
    /// Owns a map (fan-out) region.
    Map,
    /// Owns a subgraph instance region.
    Subgraph,
    /// Waits (time or signal).
    Wait,
    /// Writes workflow state without doing work.
    StateUpdate,
    /// Calls something outside (an action, a resource read).
    External,
    /// Splits into parallel branches.
    Fork,
    /// Joins parallel branches.
    Join,
    /// Ends the graph (or a branch).
    Terminal,
}

impl NodeKind {
    /// The name as the plan and AGS run records spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Task => "task",
            NodeKind::Decision => "decision",
            NodeKind::Gate => "gate",
            NodeKind::Loop => "loop",
            NodeKind::Map => "map",
            NodeKind::Subgraph => "subgraph",
            NodeKind::Wait => "wait",
            NodeKind::StateUpdate => "state_update",
            NodeKind::External => "external",
            NodeKind::Fork => "fork",
            NodeKind::Join => "join",
            NodeKind::Terminal => "terminal",
        }
    }
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn succeeded() -> Vec<Outcome> {
    vec![Outcome::Succeeded]
}

fn is_succeeded(o: &[Outcome]) -> bool {
    o == [Outcome::Succeeded]
}

/// When a node with several incoming edges becomes ready.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum Join {
    #[default]
    All,
    Any,
    NOf {
        count: u32,
    },
}

/// Where an input's value comes from (exactly one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputSource {
    /// An expression (`from:`).
    From(Expr),
    /// A string template.
    Template(Expr),
    /// A literal value.
    Value(Value),
    /// Bound implicitly by name (AGS: `params.<name>`, then `context.<name>`); always `true`.
    Implicit(bool),
}

/// A declared node input (read by `plan/de.rs`: one pass over its fields, no flattening).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Input {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub required: bool,
    #[serde(flatten)]
    pub source: InputSource,
    #[serde(flatten)]
    pub decl: Declared,
    /// Used when the input's value is absent (filled before the value is checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
}

/// A declared node output (read by `plan/de.rs`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Output {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub required: bool,
    #[serde(flatten)]
    pub decl: Declared,
}

/// Attempts, the per-attempt timeout and the delay between attempts (one attempt, no
/// timeout, no delay when left out).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Retry {
    pub max_attempts: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<f64>,
    /// The delay before each retry (`agc.plan/v3`; none: retry at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff: Option<Backoff>,
}

impl Retry {
    /// One attempt, no timeout: what a node does unless its document says otherwise, and
    /// what a plan leaves out.
    pub const ONCE: Retry = Retry {
        max_attempts: 1,
        timeout_seconds: None,
        backoff: None,
    };

    /// Whether this is [`Retry::ONCE`] (a plan leaves it out).
    pub fn is_default(&self) -> bool {
        *self == Retry::ONCE
    }
}

impl Default for Retry {
    fn default() -> Retry {
        Retry::ONCE
    }
}

impl Join {
    fn is_all(&self) -> bool {
        *self == Join::All
    }
}

impl Estimate {
    fn is_empty(&self) -> bool {
        self.cost_usd.is_none() && self.seconds.is_none()
    }
}

/// Cost and time estimates.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
}

/// One node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Scoped id, unique in the plan (`repair_loop/run_tests`).
    pub id: String,
    /// The id as written in its scope (what `nodes.<id>` reads); the `id` when left out of
    /// a plan (filled in when a [`Plan`] is read).
    #[serde(default)]
    pub local_id: String,
    pub kind: NodeKind,
    /// The dialect's own kind; the `kind` when left out of a plan (filled in when a [`Plan`]
    /// is read).
    #[serde(default)]
    pub origin_kind: String,
    /// Owner of the innermost region holding the node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "super::lists::short_list"
    )]
    pub inputs: Vec<Input>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "super::lists::short_list"
    )]
    pub outputs: Vec<Output>,
    /// Evaluated once at readiness; false skips the node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<Box<Expr>>,
    /// Named expressions of a plan written before `agc.plan/v4`, read into the typed fields
    /// (the criteria's, the branches', the checkpoints', the failure ladder's); a v4 plan
    /// has none.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub exprs: Exprs,
    #[serde(default, skip_serializing_if = "Join::is_all")]
    pub join: Join,
    #[serde(default, skip_serializing_if = "Retry::is_default")]
    pub retry: Retry,
    /// The failure ladder (`agc.plan/v4`; left out when the document says nothing of one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Box<Failure<Expr>>>,
    /// The human checkpoints (`agc.plan/v4`; left out when the document declares none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human: Option<Vec<HumanCheckpoint<Expr>>>,
    /// The success criteria (`agc.plan/v4`; left out when the document declares none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success: Option<Box<Success<Expr>>>,
    /// A decision node's branches (`agc.plan/v4`; left out when it declares none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Box<Decision<Expr>>>,
    /// A gate's human interaction (`agc.plan/v5`; left out when it declares none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<Box<Gate>>,
    /// What a wait node waits for (`agc.plan/v5`; left out for a wait that ends at once or
    /// waits on something else).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<Box<Wait>>,
    /// An AWP interrupt's `resume_schema`, which its resume payload must fit
    /// (`agc.plan/v5`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_schema: Option<Box<Value>>,
    /// What a `state_update` node's `output` is, when it has one of its own
    /// (`agc.plan/v5`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub produces: Option<Produces>,
    /// A synthetic join's fork (an AWP `parallel`, by its id): its join mode counts the
    /// fork's branches, not its one edge (`agc.plan/v5`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork: Option<String>,
    /// A loop's, map's or subgraph's body options (`agc.plan/v5`; left out at their
    /// defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Box<Body>>,
    /// An agh Loop's generations, on its owner (`agc.plan/v5`; left out elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generations: Option<Generations>,
    /// An agh gate's routing table, a route for every verdict (`agc.plan/v5`; left out
    /// elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routes: Option<Box<Routes>>,
    /// Whether the node may have side effects (`agc.plan/v5`; `true` when left out): a
    /// `before_side_effects` checkpoint is asked only of such a node.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub side_effects: bool,
    #[serde(default, skip_serializing_if = "Estimate::is_empty")]
    pub estimate: Estimate,
    /// Dialect attributes not modelled above, with defaults merged.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub attributes: Map<String, Value>,
    pub location: Location,
}

/// Which kind of edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// Taken when the source succeeds.
    Sequence,
    /// Taken when the source succeeds and the guard holds.
    Conditional,
    /// Taken when the source fails (guard optional).
    Failure,
    /// Goes back to an earlier node; always bounded.
    Back,
}

impl EdgeKind {
    /// The AGS name of the kind (`on_failure` for failure edges).
    pub fn ags_name(self) -> &'static str {
        match self {
            EdgeKind::Sequence => "sequence",
            EdgeKind::Conditional => "conditional",
            EdgeKind::Failure => "on_failure",
            EdgeKind::Back => "back",
        }
    }
}

/// Terminal outcomes of a source node that activate an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Succeeded,
    Failed,
}

/// One edge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub kind: EdgeKind,
    /// `["succeeded"]` when left out.
    #[serde(default = "succeeded", skip_serializing_if = "is_succeeded")]
    pub outcomes: Vec<Outcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<Box<Expr>>,
    /// First-match order for exclusive branching.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<u32>,
    /// Most traversals of a back edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Named outcomes of the source that activate the edge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on: Vec<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub implicit: bool,
    pub location: Location,
}

/// Named expressions (`collect`, subgraph `params` and `outputs`), in written order.
pub type Exprs = IndexMap<String, Expr>;

/// Loop modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopMode {
    While,
    Until,
    Repeat,
}

/// What a region is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RegionKind {
    Loop {
        mode: LoopMode,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        condition: Option<Expr>,
        max_iterations: u32,
        /// body output → body param for the next iteration
        carry: IndexMap<String, String>,
        /// output name → expression over the final iteration
        collect: Exprs,
    },
    Map {
        over: Expr,
        #[serde(rename = "as")]
        item: String,
        index_as: String,
        max_items: u32,
        max_parallel: u32,
        on_item_failure: OnItemFailure,
        /// Under `threshold`: the fewest items that must succeed (every item when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_successes: Option<u32>,
        collect: Exprs,
    },
    Subgraph {
        source: SubgraphSource,
        params: Exprs,
        outputs: Exprs,
        inherit_context: bool,
    },
    Parallel,
}

/// A region: the body of a loop, map or subgraph instance, owned by a node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Region {
    pub owner: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    #[serde(flatten)]
    pub kind: RegionKind,
    pub entrypoints: Vec<String>,
    pub nodes: Vec<String>,
    /// The body's declared outputs (a subgraph's `outputs.<name>`), bound when an instance
    /// ends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub body_outputs: Vec<GraphOutput>,
    pub location: Location,
}

/// A declared output of the graph or of a body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphOutput {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Expr>,
    #[serde(flatten)]
    pub decl: Declared,
}

/// A producer output feeding a consumer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    pub from: String,
    pub output: String,
    pub to: String,
    pub at: String,
    #[serde(rename = "type")]
    pub ty: String,
}

/// Static bounds computed by the compiler.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    pub max_node_executions: f64,
    pub projected_cost_usd: f64,
    pub projected_wall_clock_seconds: f64,
    pub unestimated_nodes: usize,
}
