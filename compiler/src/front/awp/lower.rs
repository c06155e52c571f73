//! Lowering a checked AWP document into the IR.
//!
//! | AWP | IR |
//! | --- | --- |
//! | `start`, `step`, `llm_call`, `tool_call`, `agent_delegate` | `Task` (`origin_kind` says which) |
//! | `switch` | `Decision`: one `Conditional` edge per case, guard = its jq `when`, `order` = case index; the `default` last, unguarded, labelled `default` (static edges of a switch are ignored, as the engine ignores them) |
//! | `parallel` | `Fork` owning a `Parallel` region (entrypoints = branch entries; nodes = the branches' nodes, ids `fork/node`), an edge to a synthetic `Join` node `fork/join` (`all`, `any`, `n_of_m` → `NOf`), and from it to the join target; the branch tails' edges to the join target are the region's end, not edges |
//! | `wait` | `Wait` (its typed `wait`: kind, `ms` for durations, `until`, `signal`) |
//! | `interrupt` | `Gate`: its `resume_schema`, one output per resume property |
//! | `set_state` | `StateUpdate`: one input per assignment (`jq` → expression, `literal` → value) |
//! | `subworkflow` | `Subgraph` owning a `Subgraph` region, `source` = `ref:<workflow_ref>`, params = the jq input mappings (the child is not loaded: AWP resolves it at run time) |
//! | `end` | `Terminal`, its `output_mapping` as input `output` (default `.`) |
//!
//! Retries: `retry.max_attempts`, `timeout` in seconds; the whole policy is kept in
//! `attrs.retry`. Every node keeps its `metadata` in `attrs`, and its `config` less what became
//! its inputs or other attributes (`assignments`, `output_mapping`, `input_mapping`,
//! `resume_schema`). Graph: id =
//! `document.name`; params = the top-level state properties and the `start` node's input
//! properties (type, `required`, self-contained schema: [`super::ports`]);
//! `attrs.checkpointing` (strategy and `n`, normalised from the aliases), `attrs.document`;
//! the state schema, its `reducer` keys stripped (the plan's `state_schema`). Semantics (the
//! plan's `semantics`): a workflow state whose reducers are every property's (`overwrite` by
//! default), collected jq outputs, `null` a value, `switch` decisions, assignment state
//! updates; a retrying node's backoff is its `retry`'s (`Backoff::awp`).
//!
//! Cycles (AWP allows loops through a switch, with no bound) become `Back` edges without a
//! bound: the edge that closes a cycle in a depth-first walk from the entry, in document
//! order. The walk is iterative.

use super::jq::{Site, node_sites, program_map};
use super::model::{Model, NodeRef};
use super::ports::outputs;
use super::regions::Regions;
use super::values::duration_ms;
use crate::analysis::grouped::Grouped;
use crate::diag::Diagnostic;
use crate::ir::{
    Backoff, Decisions, Edge, EdgeKind, ExprLang, ExpressionErrors, Graph, Input, InputSource,
    IrExpr, Join, JqOutputs, Node, NodeExtra, NodeId, NodeKind, Outcome, Outcomes, Reducer, Region,
    RegionKind, Retry, Semantics, StateModel, StateUpdates, SubgraphSource, Wait,
};
use crate::source::value::map::key_hash;
use crate::source::{Document, Span};
use crate::source::{Map, Value};
use hashbrown::HashTable;
use serde_json::json;
use std::collections::{HashMap, HashSet};

/// Lowers a checked document; `text` is its file's text.
pub fn lower(doc: &Document, text: &str) -> (Graph, Vec<Diagnostic>) {
    let empty = Map::default();
    let root = doc.value.as_object().unwrap_or(&empty);
    let m = Model::new(root);
    let name = doc
        .value
        .pointer("/document/name")
        .and_then(Value::as_str)
        .unwrap_or("workflow");
    let mut g = Graph::new("awp", name.to_string());
    g.title = doc
        .value
        .pointer("/document/description")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut l = Lowerer {
        doc,
        text,
        m: &m,
        g,
    };
    l.graph_attrs();
    let regions = Regions::new(&m);
    let too_deep = regions.nesting_diags(&m, doc);
    if !too_deep.is_empty() {
        return (l.g, too_deep);
    }
    // Sized once (a node and its join per parallel; edges about as written): an IR node is
    // several hundred bytes, and doubling left up to half of the arena unused at the peak.
    l.g.reserve(m.nodes.len() + regions.order.len(), m.edges.len());
    let join_ids = l.nodes(&regions);
    l.region_arenas(&regions);
    l.edges(&regions, &join_ids);
    mark_back_edges(&mut l.g);
    any_joins(&mut l.g);
    (l.g, Vec::new())
}

/// AWP is a state machine: a node runs when any transition reaches it. A node (other than a
/// parallel join) with several incoming transitions joins `any`, so the branch not taken
/// does not skip it.
fn any_joins(g: &mut Graph) {
    let mut incoming = vec![0usize; g.nodes.len()];
    for e in g.edges.iter().filter(|e| e.kind != EdgeKind::Back) {
        incoming[e.to.index()] += 1;
    }
    for (i, n) in g.nodes.iter_mut().enumerate() {
        if incoming[i] > 1 && n.kind != NodeKind::Join && n.join == Join::All {
            n.join = Join::Any;
        }
    }
}
/// One node's jq programs as IR expressions, by the pointer of their strings; each is taken
/// once, by the node or edge that holds it.
///
/// Made for one node when it is lowered, not for the whole document at once: a wide workflow
/// has a program per node, and a table of them all (pointers and expressions) was about a
/// megabyte of a 10k-node check's peak.
struct Programs(Vec<(String, Option<IrExpr>)>);

impl Programs {
    fn of(doc: &Document, text: &str, n: &NodeRef<'_>) -> Programs {
        let mut sites = Vec::new();
        node_sites(n, &mut sites);
        Programs(
            sites
                .into_iter()
                .map(|s: Site| {
                    let span = program_map(doc, text, &s)
                        .map(|map| map.span(0, s.text.len()))
                        .unwrap_or_else(|| doc.span(&s.ptr));
                    let e = IrExpr {
                        lang: ExprLang::Jq,
                        source: s.text.into(),
                        core: None,
                        span,
                    };
                    (s.ptr, Some(e))
                })
                .collect(),
        )
    }

    /// The program at `ptr`, if there is one not taken yet (a node has a few: a scan).
    fn take(&mut self, ptr: &str) -> Option<IrExpr> {
        self.0.iter_mut().find(|e| e.0 == ptr)?.1.take()
    }
}

struct Lowerer<'a, 'd> {
    doc: &'a Document,
    text: &'a str,
    m: &'a Model<'d>,
    g: Graph,
}

impl Lowerer<'_, '_> {
    fn span(&self, ptr: &str) -> Span {
        self.doc.span(ptr)
    }

    fn graph_attrs(&mut self) {
        let v = &self.doc.value;
        if let Some(d) = v.get("document") {
            self.g.attrs.insert("document", d.clone());
        }
        let schema = v.get("state_schema").unwrap_or(&Value::Null);
        let mut reducers = Vec::new();
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (k, p) in props {
                let reducer = p
                    .get("reducer")
                    .and_then(Value::as_str)
                    .unwrap_or("overwrite");
                reducers.push((k.to_string(), Reducer::named(reducer)));
            }
        }
        self.g.params = super::ports::params(v);
        // The workflow state, read by jq (collected outputs, `null` a value), updated by
        // `set_state` assignments and routed by `switch`es; no expression error policy.
        self.g.semantics = Semantics {
            state: StateModel::Workflow {
                reducers: reducers.into_iter().collect(),
            },
            jq_outputs: JqOutputs::Collected,
            null_is_value: true,
            expression_errors: ExpressionErrors::Reading,
            decisions: Decisions::Switch,
            state_updates: StateUpdates::Assignments,
            ..Semantics::default()
        };
        // The state schema as upstream validates the state with it: top-level `reducer`
        // keys stripped (from the IR's copy).
        let mut state_schema = schema.to_json();
        if let Some(props) = state_schema
            .get_mut("properties")
            .and_then(serde_json::Value::as_object_mut)
        {
            for p in props.values_mut() {
                if let Some(o) = p.as_object_mut() {
                    o.remove("reducer");
                }
            }
        }
        if state_schema.is_object() {
            self.g.state_schema = Some(Box::new(state_schema));
        }
        self.g.attrs.insert(
            "checkpointing",
            checkpointing(v.get("checkpointing")).into(),
        );
    }

    /// Adds every node (model order: `NodeId(i)` is model node `i`), then the synthetic join
    /// nodes; returns the join node of each parallel.
    fn nodes(&mut self, regions: &Regions) -> HashMap<usize, NodeId> {
        let mut taken = Taken::with_capacity(self.m.nodes.len() + regions.order.len());
        for i in 0..self.m.nodes.len() {
            let scoped = taken.unique(&self.g, regions.scoped(self.m, i));
            let mut node = self.node(i, scoped);
            node.region = regions.of(i);
            node.owns = regions.rid.get(&i).copied();
            let span = self.span(&self.m.nodes[i].ptr());
            let id = self.g.add_node(node, span);
            taken.add(&self.g, id);
        }
        let mut join_ids = HashMap::new();
        for &p in &regions.order {
            let n = &self.m.nodes[p];
            let cfg = n.config();
            let join = match cfg.and_then(|c| c.get("join")).and_then(Value::as_str) {
                Some("any") => Join::Any,
                Some("n_of_m") => Join::NOf {
                    count: cfg
                        .and_then(|c| c.get("n"))
                        .and_then(Value::as_u64)
                        .map_or(1, |n| n.min(u64::from(u32::MAX)) as u32),
                },
                _ => Join::All,
            };
            let fork_scoped = self.g.node(NodeId(p as u32)).scoped_id.clone();
            let scoped = taken.unique(&self.g, format!("{fork_scoped}/join"));
            let mut node = Node::bare(scoped, format!("{}/join", n.id), NodeKind::Join, "join");
            node.join = join;
            node.region = regions.of(p);
            node.extra.make_mut().fork = Some(n.id.into());
            let span = self.span(&format!("{}/config/join", n.ptr()));
            let id = self.g.add_node(node, span);
            taken.add(&self.g, id);
            join_ids.insert(p, id);
        }
        join_ids
    }

    /// One node, from `/nodes/<i>`.
    fn node(&mut self, i: usize, scoped: String) -> Node {
        let m = self.m;
        let n = &m.nodes[i];
        let kind = match n.ty {
            "switch" => NodeKind::Decision,
            "parallel" => NodeKind::Fork,
            "wait" => NodeKind::Wait,
            "interrupt" => NodeKind::Gate,
            "set_state" => NodeKind::StateUpdate,
            "subworkflow" => NodeKind::Subgraph,
            "end" => NodeKind::Terminal,
            _ => NodeKind::Task,
        };
        let mut node = Node::bare(scoped, n.id, kind, n.ty);
        if let Some(cfg) = n.value.get("config").map(|c| kept_config(n.ty, c))
            && cfg.as_object().is_none_or(|m| !m.is_empty())
        {
            node.attrs.insert("config", cfg);
        }
        for k in ["metadata", "retry", "timeout"] {
            if let Some(v) = n.value.get(k) {
                node.attrs.insert(k, v.clone());
            }
        }
        node.title = n
            .value
            .get("metadata")
            .and_then(|md| md.get("title").or_else(|| md.get("name")))
            .and_then(Value::as_str)
            .map(Box::from);
        let max_attempts = n.value.get("retry").map_or(1, |r| {
            r.get("max_attempts")
                .and_then(Value::as_u64)
                .map_or(1, |a| a.min(u64::from(u32::MAX)) as u32)
        });
        node.extra = NodeExtra {
            retry: Retry {
                max_attempts,
                timeout_seconds: n
                    .value
                    .get("timeout")
                    .and_then(Value::as_str)
                    .and_then(duration_ms)
                    .map(|ms| ms as f64 / 1000.0),
                // AWP's backoff (`Backoff::awp`), for a node that may retry.
                backoff: (max_attempts > 1)
                    .then(|| Backoff::awp(n.value.get("retry").map(Value::to_json).as_ref())),
            },
            ..NodeExtra::NONE
        }
        .into();
        let ptr = n.ptr();
        let cfg = n.config();
        let mut exprs = Programs::of(self.doc, self.text, n);
        match n.ty {
            "set_state" => {
                for (k, v) in cfg
                    .and_then(|c| c.get("assignments"))
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    let at = Document::child_pointer(&format!("{ptr}/config/assignments"), k);
                    let source = match (exprs.take(&format!("{at}/jq")), v.get("literal")) {
                        (Some(expr), _) => InputSource::Expr { expr },
                        (None, Some(lit)) => InputSource::Value {
                            value: lit.to_json().into(),
                        },
                        (None, None) => continue,
                    };
                    node.inputs.push(input(k, source));
                }
            }
            "subworkflow" | "agent_delegate" => {
                for (k, v) in cfg
                    .and_then(|c| c.get("input_mapping"))
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    let at = Document::child_pointer(&format!("{ptr}/config/input_mapping"), k);
                    let expr = exprs.take(&format!("{at}/jq")).or_else(|| exprs.take(&at));
                    let source = match (expr, v) {
                        (Some(expr), _) => InputSource::Expr { expr },
                        (None, Value::Object(o)) if o.contains_key("literal") => {
                            InputSource::Value {
                                value: v["literal"].to_json().into(),
                            }
                        }
                        (None, other) => InputSource::Value {
                            value: other.to_json().into(),
                        },
                    };
                    node.inputs.push(input(k, source));
                }
            }
            "end" => {
                let source = match exprs.take(&format!("{ptr}/config/output_mapping")) {
                    Some(expr) => InputSource::Expr { expr },
                    None => InputSource::Expr {
                        expr: IrExpr {
                            lang: ExprLang::Jq,
                            source: ".".into(),
                            core: None,
                            span: self.span(&ptr),
                        },
                    },
                };
                node.inputs.push(input("output", source));
            }
            "interrupt" => {
                if let Some(rs) = cfg.and_then(|c| c.get("resume_schema")) {
                    node.extra.make_mut().resume_schema = Some(Box::new(rs.to_json()));
                    node.outputs = outputs(rs);
                }
            }
            "llm_call" => {
                if let Some(os) = cfg.and_then(|c| c.get("output_schema")) {
                    node.outputs = outputs(os);
                }
            }
            "wait" => {
                let mut w = serde_json::Map::new();
                if let Some(c) = cfg {
                    let kind = c.get("kind").and_then(Value::as_str).unwrap_or("duration");
                    w.insert("kind".into(), json!(kind));
                    let ms = c.get("duration_ms").and_then(Value::as_u64).or_else(|| {
                        c.get("duration")
                            .and_then(Value::as_str)
                            .and_then(duration_ms)
                    });
                    if kind == "duration"
                        && let Some(ms) = ms
                    {
                        w.insert("ms".into(), json!(ms));
                    }
                    for k in ["until", "signal"] {
                        if let Some(v) = c.get(k) {
                            w.insert(k.into(), v.to_json());
                        }
                    }
                }
                if let Some(wait) = Wait::from_block(&serde_json::Value::Object(w)) {
                    node.extra.make_mut().wait = Some(wait);
                }
            }
            _ => {}
        }
        node
    }

    fn region_arenas(&mut self, regions: &Regions) {
        for &p in &regions.order {
            let n = &self.m.nodes[p];
            let join = regions.join[&p];
            // Each branch entry once, in branch order (a set, not a scan of the list: a
            // parallel may have tens of thousands of branches).
            let mut entrypoints = Vec::new();
            let mut seen = HashSet::new();
            for b in self.m.branches(p) {
                if let Some(e) = self.m.node(b.entry)
                    && e != join
                    && seen.insert(e)
                {
                    entrypoints.push(NodeId(e as u32));
                }
            }
            let nodes = regions.members[&p]
                .iter()
                .map(|&i| NodeId(i as u32))
                .collect();
            let region = Region {
                kind: RegionKind::Parallel,
                owner: NodeId(p as u32),
                parent: regions.of(p),
                entrypoints,
                nodes,
            };
            let span = self.span(&format!("{}/config/branches", n.ptr()));
            self.g.add_region(region, span);
        }
        for &s in &regions.subs {
            let n = &self.m.nodes[s];
            let ptr = n.ptr();
            let params = self.g.nodes[s]
                .inputs
                .iter()
                .filter_map(|i| match &i.source {
                    InputSource::Expr { expr } => Some((i.name.to_string(), expr.clone())),
                    _ => None,
                })
                .collect();
            let region = Region {
                kind: RegionKind::Subgraph {
                    source: SubgraphSource::Ref(
                        n.config_str("workflow_ref").unwrap_or_default().to_string(),
                    ),
                    params,
                    outputs: Vec::new(),
                    inherit_context: false,
                },
                owner: NodeId(s as u32),
                parent: regions.of(s),
                entrypoints: Vec::new(),
                nodes: Vec::new(),
            };
            let span = self.span(&format!("{ptr}/config/workflow_ref"));
            self.g.add_region(region, span);
        }
    }

    fn edges(&mut self, regions: &Regions, join_ids: &HashMap<usize, NodeId>) {
        let m = self.m;
        if let Some(&e) = m.start_edges.first()
            && let Some(t) = m.node(m.edges[e].target)
        {
            self.g.entrypoints.push(NodeId(t as u32));
        }
        for (i, n) in m.nodes.iter().enumerate() {
            let from = NodeId(i as u32);
            match n.ty {
                "switch" => {
                    let cases = m.switch_targets(i);
                    let mut exprs = Programs::of(self.doc, self.text, n);
                    for (order, (at, target)) in cases.iter().enumerate() {
                        let Some(t) = m.node(target) else {
                            continue;
                        };
                        let is_default = at.ends_with("/default");
                        let guard = if is_default {
                            None
                        } else {
                            at.strip_suffix("/target")
                                .and_then(|c| exprs.take(&format!("{c}/when")))
                        };
                        let mut edge = edge(from, NodeId(t as u32), EdgeKind::Conditional);
                        edge.guard = guard.map(Box::new);
                        edge.order = Some(order as u32);
                        if is_default {
                            edge.label = Some("default".into());
                        }
                        let span = self.span(at.strip_suffix("/target").unwrap_or(at));
                        self.g.add_edge(edge, span);
                    }
                }
                "parallel" if join_ids.contains_key(&i) => {
                    let join = join_ids[&i];
                    let span = self.span(&format!("{}/config/join", n.ptr()));
                    self.g.add_edge(edge(from, join, EdgeKind::Sequence), span);
                    let target = NodeId(regions.join[&i] as u32);
                    let span = self.span(&format!("/edges/{}", m.edges[m.out(i)[0]].index));
                    self.g
                        .add_edge(edge(join, target, EdgeKind::Sequence), span);
                }
                _ => {
                    for &e in m.out(i) {
                        let Some(t) = m.node(m.edges[e].target) else {
                            continue;
                        };
                        // A branch tail's edge to the join target ends its region.
                        if regions.of(i) != regions.of(t) {
                            continue;
                        }
                        let span = self.span(&format!("/edges/{}", m.edges[e].index));
                        self.g
                            .add_edge(edge(from, NodeId(t as u32), EdgeKind::Sequence), span);
                    }
                }
            }
        }
    }
}

fn edge(from: NodeId, to: NodeId, kind: EdgeKind) -> Edge {
    Edge {
        from,
        to,
        kind,
        outcomes: Outcomes::from([Outcome::Succeeded]),
        guard: None,
        order: None,
        bound: None,
        implicit: false,
        label: None,
        on: Vec::new(),
    }
}

fn input(name: &str, source: InputSource) -> Input {
    Input {
        name: name.into(),
        ty: "any".into(),
        required: true,
        source,
        decl: Default::default(),
    }
}

/// A node's `config` as `attrs.config` keeps it: without what the lowering made into the
/// node's inputs or other attributes (a `set_state`'s `assignments`, an `end`'s
/// `output_mapping`, a subworkflow's or delegate's `input_mapping`, an interrupt's
/// `resume_schema`), so the IR and the plan hold each once. A config left empty is left out.
fn kept_config(ty: &str, cfg: &Value) -> Value {
    let moved = match ty {
        "set_state" => "assignments",
        "end" => "output_mapping",
        "subworkflow" | "agent_delegate" => "input_mapping",
        "interrupt" => "resume_schema",
        _ => return cfg.clone(),
    };
    match cfg {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != moved)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The checkpointing policy with the aliases resolved: `{strategy, n?}` (and the block as
/// written under `declared`, when there is one).
fn checkpointing(cp: Option<&Value>) -> serde_json::Value {
    let strategy = cp
        .and_then(|c| c.get("strategy").or_else(|| c.get("policy")))
        .and_then(Value::as_str)
        .unwrap_or("after_each_node");
    let strategy = match strategy {
        "interval" => "every_n_nodes",
        "off" | "none" => "disabled",
        s => s,
    };
    let mut out = serde_json::Map::new();
    out.insert("strategy".into(), json!(strategy));
    if strategy == "every_n_nodes"
        && let Some(n) = cp
            .and_then(|c| c.get("n").or_else(|| c.get("interval")))
            .and_then(Value::as_u64)
    {
        out.insert("n".into(), json!(n));
    }
    if let Some(c) = cp {
        out.insert("declared".into(), c.to_json());
    }
    serde_json::Value::Object(out)
}

/// The scoped ids the graph's nodes have so far, as indices into its arena hashed by the id
/// there: 4 bytes a node, where a set of copies of the ids was half a megabyte at the peak of
/// a 10k-node workflow's check.
struct Taken(HashTable<u32>);

impl Taken {
    fn with_capacity(n: usize) -> Taken {
        Taken(HashTable::with_capacity(n))
    }

    /// `id`, or `id~2`, `id~3`… when a node of `g` has it.
    fn unique(&self, g: &Graph, id: String) -> String {
        if !self.has(g, &id) {
            return id;
        }
        let mut k = 2;
        loop {
            let c = format!("{id}~{k}");
            if !self.has(g, &c) {
                return c;
            }
            k += 1;
        }
    }

    fn has(&self, g: &Graph, id: &str) -> bool {
        self.0
            .find(key_hash(id), |&j| {
                g.nodes[j as usize].scoped_id.as_str() == id
            })
            .is_some()
    }

    /// Records node `n` of `g`, once it is in the graph.
    fn add(&mut self, g: &Graph, n: NodeId) {
        let hash = |j: &u32| key_hash(&g.nodes[*j as usize].scoped_id);
        self.0.insert_unique(hash(&n.0), n.0, hash);
    }
}

/// Marks as `Back` (unbounded) every edge that closes a cycle in an iterative depth-first
/// walk over the nodes in arena order: AWP loops through switches have no bound.
fn mark_back_edges(g: &mut Graph) {
    let n = g.nodes.len();
    // Each node's out-edges in one array: a vector per node was 24 bytes and an allocation
    // each, at the peak of a wide workflow's check.
    let from: Vec<(usize, u32)> = g
        .edges
        .iter()
        .enumerate()
        .map(|(i, e)| (e.from.index(), i as u32))
        .collect();
    let out = Grouped::new(n, &from);
    drop(from);
    let mut back = Vec::new();
    let roots = g.entrypoints.iter().map(|e| e.index()).chain(0..n);
    let edges = &g.edges;
    let succ = |u: usize| {
        out.of(u)
            .iter()
            .map(|&e| (edges[e as usize].to.index(), e as usize))
    };
    crate::analysis::cycles::back_edges(n, roots, succ, |_, e| back.push(e));
    for e in back {
        g.edges[e].kind = EdgeKind::Back;
    }
}
