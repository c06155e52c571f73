//! The resolved IR: one flat, typed graph that every dialect lowers into.
//!
//! Shape (after naga): arenas addressed by typed handles, with spans and analysis results in side
//! tables. Invariants every back end may rely on once a front end has produced a `Graph`
//! without errors:
//!
//! - `nodes`, `edges`, `regions` and `links` are arenas; a handle is an index into its arena and
//!   is always in bounds.
//! - Node `scoped_id`s are unique: a body node's id is its region path plus its local id
//!   (`repair_loop/run_tests`); root nodes keep their local id.
//! - Loops, maps and subgraph instances are **regions**, never unrolled: the node that owns a
//!   region (`NodeKind::Loop`, `Map`, `Subgraph`) stays in the graph, and the region lists the
//!   body nodes, which are ordinary nodes with `region = Some(..)`.
//! - Edges connect nodes of the same region (or both in the root). Iteration is never an edge
//!   cycle except `EdgeKind::Back`, which always carries a bound.
//! - Every expression keeps its source text, language and file span next to its core form.
//! - `spans` holds one entry per node, edge and region (same index), for diagnostics and for the
//!   plan's source locations.

pub mod expr;
pub mod intern;

use crate::source::{Span, Str};
pub use expr::{ExprLang, IrExpr};
use serde::Serialize;

macro_rules! handle {
    ($name:ident) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}
handle!(NodeId);
handle!(EdgeId);
handle!(RegionId);

// The kinds and policies the plan spells are the runtime's own types (the plan's contract),
// reused here rather than declared twice.
pub use agc_runtime::plan::{
    Attachment, Backoff, Body, Curve, Decisions, EdgeKind, ExpressionErrors, Gate, Generations,
    HumanMode, HumanTimeouts, Join, JqOutputs, LoopMode, LoopRules, Namespace, NodeKind,
    OnItemFailure, OnNodeFailure, OnReject, Outcome, Produces, Reducer, Retry, Route, RouteAction,
    Routes, Semantics, StateModel, StateUpdates, SubgraphSource, Verdict, Wait,
};

/// A node's failure ladder, the runtime's type over the IR's expressions.
pub type Failure = agc_runtime::plan::Failure<IrExpr>;

/// A node's human checkpoint, the runtime's type over the IR's expressions.
pub type HumanCheckpoint = agc_runtime::plan::HumanCheckpoint<IrExpr>;

/// A node's success criteria, the runtime's type over the IR's expressions.
pub type Success = agc_runtime::plan::Success<IrExpr>;

/// A decision node's branches, the runtime's type over the IR's expressions.
pub type Decision = agc_runtime::plan::Decision<IrExpr>;

/// Dialect attributes of a node or graph: JSON in document order, in the compact form a loaded
/// document uses (16 bytes; a `serde_json::Map` is 72 and an object in it about 170 more), since
/// every node of a graph holds one and most copy parts of the document.
pub type Attrs = crate::source::Map;

/// A JSON value the IR may hold in more than one place.
pub type Shared = std::sync::Arc<serde_json::Value>;

/// A value type, as declared (`value_type` plus optional JSON schema in AGS; JSON Schema
/// elsewhere), already mapped to the expression type system.
pub type ValueType = crate::ir::expr::TypeName;

/// What a declaration says about a value beyond its [`ValueType`], kept in full for the plan,
/// the runtime's value checks and the generated types: the JSON Schema as written (`$defs` and
/// `$ref` kept resolvable), the allowed values, the description.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Declared {
    // Behind pointers: most ports declare no schema, enum or default, and a 100k-node graph
    // holds hundreds of thousands of ports (the struct is 56 bytes, not 200). The schema is
    // shared: a front end may hand the same schema to an output and to the input that passes
    // it on (an agh agent's `output_schema`), which held it twice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<Shared>,
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Box<[serde_json::Value]>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Box<str>>,
    /// AGS `redact: true`: the value never appears in run records or progress output.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub redact: bool,
    /// An input's `default` (used when its value is absent); the plan writes it on inputs
    /// only (params carry their own `default`).
    #[serde(skip)]
    pub default: Option<Box<serde_json::Value>>,
}

impl Declared {
    pub fn is_empty(&self) -> bool {
        self.schema.is_none()
            && self.enum_values.is_none()
            && self.description.is_none()
            && !self.redact
    }
}

/// A value boxed only when it says something, and read as its type's
/// [`Nothing::NOTHING`] otherwise: 8 bytes in the struct that holds it. For parts most
/// ports and nodes leave out ([`Decl`], [`Extra`]), in arenas holding one or more per node.
#[derive(Clone, Debug, PartialEq)]
pub struct Sparse<T>(Option<Box<T>>);

/// A type [`Sparse`] holds: its value that says nothing, and how to tell.
pub trait Nothing: Clone + 'static {
    const NOTHING: &'static Self;
    fn says_nothing(&self) -> bool;
}

impl<T> Default for Sparse<T> {
    fn default() -> Sparse<T> {
        Sparse(None)
    }
}

impl<T: Nothing> Sparse<T> {
    /// The value to change, made (as `NOTHING`) if there was none.
    pub fn make_mut(&mut self) -> &mut T {
        self.0.get_or_insert_with(|| Box::new(T::NOTHING.clone()))
    }
}

impl<T: Nothing> From<T> for Sparse<T> {
    fn from(v: T) -> Sparse<T> {
        Sparse((!v.says_nothing()).then(|| Box::new(v)))
    }
}

impl<T: Nothing> std::ops::Deref for Sparse<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0.as_deref().unwrap_or(T::NOTHING)
    }
}

impl<T: Nothing + Serialize> Serialize for Sparse<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

/// A port's [`Declared`], boxed only when it says something: most ports declare nothing
/// beyond their type, and a graph holds one or more per node (8 bytes, not 56).
pub type Decl = Sparse<Declared>;

impl Nothing for Declared {
    const NOTHING: &'static Declared = &Declared {
        schema: None,
        enum_values: None,
        description: None,
        redact: false,
        default: None,
    };
    fn says_nothing(&self) -> bool {
        self.is_empty() && self.default.is_none()
    }
}

/// A declared node input.
#[derive(Clone, Debug, Serialize)]
pub struct Input {
    pub name: Str,
    pub ty: ValueType,
    pub required: bool,
    pub source: InputSource,
    #[serde(flatten)]
    pub decl: Decl,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InputSource {
    /// An expression (`from:`).
    Expr { expr: IrExpr },
    /// A string template.
    Template { template: IrExpr },
    /// A literal value (shared: see [`Declared::schema`]).
    Value { value: Shared },
    /// Bound implicitly by name (AGS: `params.<name>`, then `context.<name>`).
    Implicit,
}

/// A declared node output.
#[derive(Clone, Debug, Serialize)]
pub struct Output {
    pub name: Str,
    pub ty: ValueType,
    pub required: bool,
    #[serde(flatten)]
    pub decl: Decl,
}

/// Cost and time estimates used by the static bounds.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Estimate {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Node {
    // The ids and names are `Str`s (16 bytes, short ones held inline): a graph holds several
    // per node.
    /// Unique across the graph: region path + local id.
    pub scoped_id: Str,
    /// The id as written in its scope.
    pub local_id: Str,
    pub kind: NodeKind,
    /// The dialect's own name for the kind (`task`, `gate`, `switch`, `class: action`, ...).
    pub origin_kind: Str,
    /// The innermost region holding this node, if any.
    pub region: Option<RegionId>,
    /// The region this node owns (loop, map, subgraph).
    pub owns: Option<RegionId>,
    /// Inline, not in [`NodeExtra`]: many documents title every node.
    pub title: Option<Box<str>>,
    pub inputs: Vec<Input>,
    pub outputs: Vec<Output>,
    /// Evaluated once at readiness; false skips the node.
    pub guard: Option<Box<IrExpr>>,
    pub join: Join,
    /// Dialect attributes not modelled above, kept losslessly.
    pub attrs: Attrs,
    /// The runtime expressions, retry policy and estimates, which few nodes have.
    #[serde(flatten)]
    pub extra: Extra,
}

/// What few nodes carry, held out of line by [`Extra`]: a graph's nodes are its largest
/// arena, and these fields were 80 of a node's 248 bytes.
#[derive(Clone, Debug, Serialize)]
pub struct NodeExtra {
    pub retry: Retry,
    /// The failure ladder, when the document declares one (with defaults merged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Box<Failure>>,
    /// The human checkpoints, when the document declares them (a scope's default list
    /// when the node has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub human: Option<Vec<HumanCheckpoint>>,
    /// The success criteria, when the node declares them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success: Option<Box<Success>>,
    /// A decision's branches, when the node declares them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<Box<Decision>>,
    /// A gate's human interaction, when the node declares one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<Box<Gate>>,
    /// What a wait node waits for, when it waits for a time or a signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait: Option<Wait>,
    /// An AWP interrupt's `resume_schema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume_schema: Option<Box<serde_json::Value>>,
    /// What a state update's `output` is, when it has one of its own (agh).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub produces: Option<Produces>,
    /// A synthetic join's fork (an AWP `parallel`, by its id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork: Option<Box<str>>,
    /// A loop's, map's or subgraph's body options (AGS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<Box<Body>>,
    /// An agh Loop's generations, on its owner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generations: Option<Generations>,
    /// An agh gate's routing table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routes: Option<Box<Routes>>,
    /// Whether the node may have side effects (AGS: decided from its `requirements`).
    pub side_effects: bool,
    pub estimate: Estimate,
}

impl Default for NodeExtra {
    fn default() -> NodeExtra {
        NodeExtra::NONE
    }
}

impl NodeExtra {
    /// No ladder, checkpoints, criteria, decision, gate, wait, resume schema, output of its
    /// own, fork, body options, generations, routes or estimates, one attempt, and maybe
    /// side effects: what a node without [`Extra`] has.
    pub const NONE: NodeExtra = NodeExtra {
        retry: Retry::ONCE,
        failure: None,
        human: None,
        success: None,
        decision: None,
        gate: None,
        wait: None,
        resume_schema: None,
        produces: None,
        fork: None,
        body: None,
        generations: None,
        routes: None,
        side_effects: true,
        estimate: Estimate {
            cost_usd: None,
            seconds: None,
        },
    };
}

/// A node's [`NodeExtra`], boxed only when it says something (see [`Sparse`]).
pub type Extra = Sparse<NodeExtra>;

impl Nothing for NodeExtra {
    const NOTHING: &'static NodeExtra = &NodeExtra::NONE;
    fn says_nothing(&self) -> bool {
        self.retry == Retry::ONCE
            && self.failure.is_none()
            && self.human.is_none()
            && self.success.is_none()
            && self.decision.is_none()
            && self.gate.is_none()
            && self.wait.is_none()
            && self.resume_schema.is_none()
            && self.produces.is_none()
            && self.fork.is_none()
            && self.body.is_none()
            && self.generations.is_none()
            && self.routes.is_none()
            && self.side_effects
            && self.estimate.cost_usd.is_none()
            && self.estimate.seconds.is_none()
    }
}

impl Extra {
    /// Dropped when it says nothing.
    fn shrink(&mut self) {
        if self.0.as_ref().is_some_and(|e| e.says_nothing()) {
            self.0 = None;
        }
    }
}

impl Node {
    /// A node with nothing but its ids and kind: no inputs, outputs, guard or attributes, an
    /// `all` join, one attempt (front ends fill in the rest; tests build graphs from these).
    pub fn bare(
        scoped_id: impl Into<Str>,
        local_id: impl Into<Str>,
        kind: NodeKind,
        origin_kind: &str,
    ) -> Node {
        Node {
            scoped_id: scoped_id.into(),
            local_id: local_id.into(),
            kind,
            origin_kind: origin_kind.into(),
            region: None,
            owns: None,
            title: None,
            inputs: Vec::new(),
            outputs: Vec::new(),
            guard: None,
            join: Join::All,
            attrs: Default::default(),
            extra: Extra::default(),
        }
    }
}

/// The distinct outcomes that activate an edge, in the order given: at most both, held inline
/// (every edge has some, and a `Vec` of them was an allocation per edge).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Outcomes {
    items: [Outcome; 2],
    len: u8,
}

impl Outcomes {
    pub const NONE: Outcomes = Outcomes {
        items: [Outcome::Succeeded; 2],
        len: 0,
    };

    /// Adds `o` unless it is there already.
    pub fn push(&mut self, o: Outcome) {
        if !self.contains(&o) {
            self.items[self.len as usize] = o;
            self.len += 1;
        }
    }
}

impl<const N: usize> From<[Outcome; N]> for Outcomes {
    fn from(list: [Outcome; N]) -> Outcomes {
        let mut out = Outcomes::NONE;
        for o in list {
            out.push(o);
        }
        out
    }
}

impl std::ops::Deref for Outcomes {
    type Target = [Outcome];
    fn deref(&self) -> &[Outcome] {
        &self.items[..self.len as usize]
    }
}

impl std::fmt::Debug for Outcomes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Outcomes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Edge {
    pub from: NodeId,
    pub to: NodeId,
    pub kind: EdgeKind,
    pub outcomes: Outcomes,
    pub guard: Option<Box<IrExpr>>,
    /// For exclusive branching: the first matching edge (lowest order) wins.
    pub order: Option<u32>,
    /// For back edges: the most times the edge may be taken.
    pub bound: Option<u32>,
    /// True when the edge came from a `depends_on`-style declaration.
    pub implicit: bool,
    pub label: Option<String>,
    /// Named outcomes of the source that activate the edge, in the dialect's own words
    /// (Agent Graph outcome lists, agh verdicts); empty when `outcomes` alone decides.
    pub on: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RegionKind {
    Loop {
        mode: LoopMode,
        condition: Option<IrExpr>,
        max_iterations: u32,
        /// body output → body param for the next iteration
        carry: Vec<(String, String)>,
        /// output name → expression over the final iteration
        collect: Vec<(String, IrExpr)>,
    },
    Map {
        over: IrExpr,
        #[serde(rename = "as")]
        item: String,
        index_as: String,
        max_items: u32,
        max_parallel: u32,
        on_item_failure: OnItemFailure,
        /// Under `threshold`: the fewest items that must succeed (every item when `None`).
        min_successes: Option<u32>,
        collect: Vec<(String, IrExpr)>,
    },
    Subgraph {
        /// Where the body came from.
        source: SubgraphSource,
        params: Vec<(String, IrExpr)>,
        outputs: Vec<(String, IrExpr)>,
        inherit_context: bool,
    },
    Parallel,
}

#[derive(Clone, Debug, Serialize)]
pub struct Region {
    pub kind: RegionKind,
    /// The node that owns the region.
    pub owner: NodeId,
    pub parent: Option<RegionId>,
    pub entrypoints: Vec<NodeId>,
    pub nodes: Vec<NodeId>,
}

/// A producer output feeding a consumer.
#[derive(Clone, Debug, Serialize)]
pub struct DataLink {
    pub from: NodeId,
    pub output: String,
    pub to: NodeId,
    /// Where in the consumer it is read (`inputs.audit`, `guard`, `edge`...).
    pub at: String,
    pub ty: ValueType,
}

/// A declared graph parameter.
#[derive(Clone, Debug, Serialize)]
pub struct Param {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ValueType,
    pub required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    #[serde(flatten)]
    pub decl: Declared,
}

/// A declared output of a graph or of a body (AGS `outputs`: name → `from`), bound when the
/// scope instance ends.
#[derive(Clone, Debug, Serialize)]
pub struct GraphOutput {
    /// The body whose outputs these are; `None` for the graph itself.
    pub region: Option<RegionId>,
    pub name: String,
    pub ty: ValueType,
    pub required: bool,
    pub from: Option<IrExpr>,
    pub decl: Declared,
}

/// Side tables of source locations, one per arena entry.
#[derive(Clone, Debug, Default)]
pub struct Spans {
    pub nodes: Vec<Span>,
    pub edges: Vec<Span>,
    pub regions: Vec<Span>,
    /// Where each declared constraint (`Graph::constraints` key) is written, for the bound
    /// warnings.
    pub constraints: std::collections::BTreeMap<String, Span>,
}

/// A whole lowered graph.
#[derive(Clone, Debug)]
pub struct Graph {
    pub dialect: &'static str,
    /// How the graph runs where dialects differ, decided by the front end's lowering (the
    /// plan's `semantics`; the runtime never reads the dialect).
    pub semantics: Semantics,
    /// The graph's defaults for a human's time (AGS `policy`; the plan's `human_timeouts`).
    pub human_timeouts: HumanTimeouts,
    /// What a node's failure that nothing absorbs does to the run (AGS `policy`; the plan's
    /// `on_node_failure`).
    pub on_node_failure: OnNodeFailure,
    /// The declared attachments (AGS `attachments`; the plan's `attachments`).
    pub attachments: Vec<Attachment>,
    /// The JSON Schema the workflow state must fit (AWP `state_schema`; the plan's
    /// `state_schema`).
    pub state_schema: Option<Box<serde_json::Value>>,
    pub id: String,
    pub title: Option<String>,
    pub params: Vec<Param>,
    pub entrypoints: Vec<NodeId>,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub regions: Vec<Region>,
    pub links: Vec<DataLink>,
    /// Graph-level limits as declared (`max_node_executions`, `max_cost_usd`, ...).
    pub constraints: serde_json::Map<String, serde_json::Value>,
    /// Graph-level dialect attributes not modelled above (AWP checkpointing policy, agh
    /// generations, Agent Graph provider data), kept losslessly.
    pub attrs: Attrs,
    /// Declared outputs of the graph and of bodies (see [`GraphOutput::region`]).
    pub outputs: Vec<GraphOutput>,
    pub spans: Spans,
}

impl Graph {
    pub fn new(dialect: &'static str, id: String) -> Graph {
        Graph {
            dialect,
            semantics: Semantics::default(),
            human_timeouts: HumanTimeouts::default(),
            on_node_failure: OnNodeFailure::default(),
            attachments: Vec::new(),
            state_schema: None,
            id,
            title: None,
            params: Vec::new(),
            entrypoints: Vec::new(),
            nodes: Vec::new(),
            edges: Vec::new(),
            regions: Vec::new(),
            links: Vec::new(),
            constraints: serde_json::Map::new(),
            attrs: Attrs::new(),
            outputs: Vec::new(),
            spans: Spans::default(),
        }
    }

    /// Makes room for `nodes` more nodes and `edges` more edges (and their spans).
    pub fn reserve(&mut self, nodes: usize, edges: usize) {
        self.nodes.reserve(nodes);
        self.spans.nodes.reserve(nodes);
        self.edges.reserve(edges);
        self.spans.edges.reserve(edges);
    }

    pub fn add_node(&mut self, mut node: Node, span: Span) -> NodeId {
        // Sized to their entries: an input pushed alone leaves room for four (about 540 bytes
        // unused per node; 7 MB of a 10k-node AWP workflow's 41 MB).
        node.inputs.shrink_to_fit();
        node.outputs.shrink_to_fit();
        node.extra.shrink();
        self.nodes.push(node);
        self.spans.nodes.push(span);
        NodeId(self.nodes.len() as u32 - 1)
    }

    pub fn add_edge(&mut self, edge: Edge, span: Span) -> EdgeId {
        self.edges.push(edge);
        self.spans.edges.push(span);
        EdgeId(self.edges.len() as u32 - 1)
    }

    pub fn add_region(&mut self, region: Region, span: Span) -> RegionId {
        self.regions.push(region);
        self.spans.regions.push(span);
        RegionId(self.regions.len() as u32 - 1)
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    pub fn edge(&self, id: EdgeId) -> &Edge {
        &self.edges[id.index()]
    }

    pub fn region(&self, id: RegionId) -> &Region {
        &self.regions[id.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::{Estimate, Extra, Node, NodeExtra, NodeKind, Outcome, Outcomes, Retry};

    #[test]
    fn a_node_boxes_its_extra_fields_only_when_they_say_something() {
        let mut g = super::Graph::new("ags", "g".into());
        let span = crate::source::Span::point(crate::source::FileId(0), 0);
        let id = g.add_node(Node::bare("a", "a", NodeKind::Task, "task"), span);
        assert!(g.node(id).extra.0.is_none());
        assert_eq!(g.node(id).extra.retry, Retry::ONCE);
        assert!(g.node(id).extra.failure.is_none());
        // Filled in with nothing but the defaults: dropped when the node joins the graph.
        let mut b = Node::bare("b", "b", NodeKind::Task, "task");
        b.extra.make_mut().retry.max_attempts = 1;
        let b = g.add_node(b, span);
        assert!(g.node(b).extra.0.is_none());
        // Anything else is kept.
        for extra in [
            NodeExtra {
                human: Some(Vec::new()),
                ..NodeExtra::NONE
            },
            NodeExtra {
                retry: Retry {
                    max_attempts: 3,
                    ..Retry::ONCE
                },
                ..NodeExtra::NONE
            },
            NodeExtra {
                estimate: Estimate {
                    cost_usd: None,
                    seconds: Some(1.0),
                },
                ..NodeExtra::NONE
            },
        ] {
            assert!(Extra::from(extra).0.is_some());
        }
        assert!(Extra::from(NodeExtra::default()).0.is_none());
        assert_eq!(std::mem::size_of::<Extra>(), 8);
    }

    #[test]
    fn outcomes_keep_their_order_once_each_and_serialize_as_a_list() {
        let both = Outcomes::from([Outcome::Failed, Outcome::Succeeded, Outcome::Failed]);
        assert_eq!(*both, [Outcome::Failed, Outcome::Succeeded]);
        assert_eq!(
            serde_json::to_string(&both).unwrap(),
            r#"["failed","succeeded"]"#
        );
        let mut one = Outcomes::NONE;
        assert!(one.is_empty());
        one.push(Outcome::Succeeded);
        one.push(Outcome::Succeeded);
        assert_eq!(*one, [Outcome::Succeeded]);
        assert_eq!(format!("{one:?}"), "[Succeeded]");
        assert_eq!(std::mem::size_of::<Outcomes>(), 3);
    }
}
