//! Lowering a checked Loop into the IR.
//!
//! - **Generations.** agh runs the whole DAG once per generation until `stop_when` holds, a
//!   definition-of-done gate passes, or `iteration_cap` generations ran. That is the graph's
//!   outer loop: a synthetic owner node `generations` (kind `loop`; `generations_` if a node
//!   already has that id) owns a `Loop` region (`until stop_when`, `max_iterations` =
//!   `iteration_cap`; an absent cap is upstream's default, 50, or 0 for a watch Loop (one with a
//!   `watch-source` or `watch-events` node); 0 means
//!   unbounded and is lowered as `u32::MAX` with the owner's `generations.unbounded`).
//! - **Fan-out / collect.** A fan-out owns a `Map` region over its `collection` (item `item`,
//!   index `index`, `max_items` = `max_fan_out`: a number of branches, which the runtime
//!   makes of `batch_size` chunks (the owner's `body.batch_size`), `max_parallel` = its own
//!   or upstream's default width 4, 2 in a watch Loop). The body is every node reachable from
//!   the fan-out without entering a collect (upstream's fan-out scope); the collect is the
//!   join after the region.
//! - **Sub-loops.** A `sub-loop` owns a `Subgraph` region (`source: inline`) holding its body,
//!   whose nodes have upstream's qualified ids `<parent>__<child>`. (`run-loop` calls another
//!   Loop by name, which is not in the document: it lowers to an `external` node.)
//! - **Edges.** agh edges are plain dependencies. An edge into or out of a region is lifted to
//!   the region's owner (an edge from a fan-out to its body is the region's entry, dropped).
//!   Edges leaving a `branch` are conditional on its condition; edges leaving a `gate` carry
//!   `on:` the verdicts whose route is `continue` (`pass` by default); the gate's full routing
//!   table (defaults filled, ignored values replaced) and its revision limit (`max_revisions`,
//!   upstream's default filled in) are its `routes`.
//! - **Budgets** are constraints: `budget.wall_clock_sec` → `max_wall_clock_seconds`,
//!   `budget.tokens` → `max_tokens` (0 is off upstream, so not a constraint); a node's
//!   `timeout` is its time estimate, so the static time bound applies.
//! - Node ids, kinds and fields the IR does not model are kept in `attrs`. `params` are
//!   modelled: an action's are its inputs, a transform's `params.map` its inputs, so `attrs`
//!   keeps only a transform's other `params` keys.

mod node;
mod routes;

use super::model::{NodeView, Scope, Version, scopes};
use super::unit::Unit;
use crate::diag::Diagnostic;
use crate::ir::{
    Decisions, Declared, Edge, EdgeKind, ExprLang, ExpressionErrors, Generations, Graph, IrExpr,
    LoopMode, LoopRules, Namespace, Node, NodeId, NodeKind, OnItemFailure, Outcome, Outcomes,
    Param, Region, RegionId, RegionKind, Routes, Semantics, SubgraphSource,
};
use crate::source::{Map as DocMap, Value as Doc};
use routes::continue_verdicts;
pub use routes::routes;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};

/// Upstream's defaults (research §6).
const DEFAULT_CAP_DELIVERY: u32 = 50;
const DEFAULT_WIDTH_DELIVERY: u32 = 4;
const DEFAULT_WIDTH_WATCH: u32 = 2;

struct Lowerer<'u> {
    unit: &'u Unit,
    g: Graph,
    /// IR node of (scope, node index).
    ids: HashMap<(usize, usize), NodeId>,
    /// Region of each IR node (`None`: the root).
    region_of: Vec<Option<RegionId>>,
    used: BTreeSet<String>,
    /// Edges already added, to drop duplicates made by lifting.
    seen: std::collections::HashSet<(NodeId, NodeId)>,
    /// What answers a node's output schema, made once: it holds every Loop input's schema,
    /// so one per node cost inputs x nodes (`None` when the root is no mapping).
    schemas: Option<super::lint::Linter<'u>>,
    /// The literals and schemas copied into the IR, each distinct one held once.
    values: crate::ir::intern::Interner,
}

pub fn lower(unit: &Unit) -> (Graph, Vec<Diagnostic>) {
    let empty = DocMap::default();
    let root = unit.doc.value.as_object().unwrap_or(&empty);
    let name = root
        .get("meta")
        .and_then(|m| m.get("name"))
        .and_then(Doc::as_str)
        .unwrap_or("loop");
    let mut l = Lowerer {
        unit,
        g: Graph {
            // agh's namespace (`.inputs`, `generation`, `nodes.<id>.output`) and loop rules;
            // branches decide by their edges; no expression error policy.
            semantics: Semantics {
                expression_errors: ExpressionErrors::Reading,
                decisions: Decisions::Edges,
                namespace: Namespace::Loop,
                loop_rules: LoopRules::Generations,
                ..Semantics::default()
            },
            ..Graph::new("agh", name.to_string())
        },
        ids: HashMap::new(),
        region_of: Vec::new(),
        used: BTreeSet::new(),
        seen: std::collections::HashSet::new(),
        schemas: unit
            .doc
            .value
            .as_object()
            .map(|root| super::lint::Linter::new(&unit.doc, "", root, &unit.tools, &[])),
        values: Default::default(),
    };
    l.g.title = root
        .get("meta")
        .and_then(|m| m.get("description"))
        .and_then(Doc::as_str)
        .map(str::to_string);
    l.header(root);
    let scopes = scopes(root);
    let watch = scopes
        .iter()
        .flat_map(|s| &s.nodes)
        .any(|n| n.is("source", "watch-source") || n.is("source", "watch-events"));
    // Sized once: an IR node is several hundred bytes, and doubling left up to half of the
    // arena unused at the peak.
    let (n, e) = scopes
        .iter()
        .fold((1, 0), |(n, e), s| (n + s.nodes.len(), e + s.edges.len()));
    l.g.reserve(n, e);
    let outer = l.generations(root, &scopes, watch);
    let mut base: Vec<Option<RegionId>> = vec![None; scopes.len()];
    base[0] = Some(outer);
    for si in 0..scopes.len() {
        if si > 0 {
            // The owning sub-loop was lowered with its parent scope.
            let Some(&(ps, pn)) = scopes[si].owner.as_ref() else {
                continue;
            };
            let Some(&owner) = l.ids.get(&(ps, pn)) else {
                continue;
            };
            let r = l.region(
                RegionKind::Subgraph {
                    source: SubgraphSource::Inline,
                    params: Vec::new(),
                    outputs: Vec::new(),
                    inherit_context: true,
                },
                owner,
                &format!("{}/body", scopes[ps].nodes[pn].ptr),
            );
            base[si] = Some(r);
        }
        l.scope(si, &scopes[si], base[si], watch);
    }
    l.links(&scopes);
    l.finish();
    (l.g, Vec::new())
}

impl<'u> Lowerer<'u> {
    fn span(&self, ptr: &str) -> crate::source::Span {
        self.unit.doc.span(ptr)
    }

    fn expr(&self, lang: ExprLang, ptr: &str) -> Option<IrExpr> {
        let source = self.unit.doc.value.pointer(ptr)?.as_str()?.to_string();
        Some(IrExpr {
            lang,
            source: source.into(),
            core: self.unit.exprs.get(ptr).cloned(),
            span: self.span(ptr),
        })
    }

    fn fresh(&mut self, want: &str) -> String {
        let mut id = want.to_string();
        while self.used.contains(&id) {
            id.push('_');
        }
        self.used.insert(id.clone());
        id
    }

    fn add(&mut self, node: Node, ptr: &str, region: Option<RegionId>) -> NodeId {
        let mut node = node;
        node.region = region;
        let span = self.span(ptr);
        let id = self.g.add_node(node, span);
        self.region_of.push(region);
        if let Some(r) = region {
            self.g.regions[r.index()].nodes.push(id);
        }
        id
    }

    fn region(&mut self, kind: RegionKind, owner: NodeId, ptr: &str) -> RegionId {
        let parent = self.region_of[owner.index()];
        let span = self.span(ptr);
        let r = self.g.add_region(
            Region {
                kind,
                owner,
                parent,
                entrypoints: Vec::new(),
                nodes: Vec::new(),
            },
            span,
        );
        self.g.nodes[owner.index()].owns = Some(r);
        r
    }

    /// Params, constraints and graph attributes.
    fn header(&mut self, root: &DocMap) {
        let inputs = root.get("inputs").and_then(Doc::as_object);
        for (name, decl) in inputs.into_iter().flatten() {
            let ty = decl.get("type").and_then(Doc::as_str).unwrap_or("string");
            self.g.params.push(Param {
                name: name.to_string(),
                ty: match ty {
                    "number" | "boolean" | "string" => ty.into(),
                    _ => "string".into(),
                },
                required: decl.get("required").and_then(Doc::as_bool).unwrap_or(false),
                default: decl.get("default").map(Doc::to_json),
                decl: Declared {
                    schema: None,
                    enum_values: None,
                    description: decl.get("description").and_then(Doc::as_str).map(Box::from),
                    ..Declared::default()
                },
            });
        }
        let contract = root.get("contract").and_then(Doc::as_object);
        let budget = contract.and_then(|c| c.get("budget"));
        for (field, key) in [
            ("wall_clock_sec", "max_wall_clock_seconds"),
            ("tokens", "max_tokens"),
        ] {
            if let Some(v) = budget
                .and_then(|b| b.get(field))
                .and_then(Doc::as_u64)
                .filter(|&v| v > 0)
            {
                self.g.constraints.insert(key.into(), json!(v));
                let span = self.span(&format!("/contract/budget/{field}"));
                self.g.spans.constraints.insert(key.into(), span);
            }
        }
        let a = &mut self.g.attrs;
        let version = Version::of(root);
        a.insert("api_version", version.name().into());
        a.insert(
            "concurrency",
            root.get("concurrency")
                .map_or_else(|| "forbid".into(), Doc::clone),
        );
        if let Some(c) = contract {
            let mut c = c.to_json_map();
            if let Some(Value::Array(states)) = c.get_mut("terminal_states") {
                for s in states.iter_mut() {
                    if s.as_str() == Some("no_op") {
                        *s = json!("no-op");
                    }
                }
            }
            a.insert("contract", Value::Object(c).into());
        }
        for key in ["start", "network_participation", "meta"] {
            if let Some(v) = root.get(key) {
                a.insert(key, v.clone());
            }
        }
    }

    /// The outer loop of generations.
    fn generations(&mut self, root: &DocMap, scopes: &[Scope<'_>], watch: bool) -> RegionId {
        for s in scopes {
            for n in &s.nodes {
                self.used.insert(format!("{}{}", s.prefix, n.id));
            }
        }
        let id = self.fresh("generations");
        let contract = root.get("contract");
        let cap = contract
            .and_then(|c| c.get("iteration_cap"))
            .and_then(Doc::as_u64);
        let cap = cap.unwrap_or(if watch {
            0
        } else {
            DEFAULT_CAP_DELIVERY as u64
        });
        let unbounded = cap == 0;
        let max = if unbounded {
            u32::MAX
        } else {
            cap.min(u32::MAX as u64) as u32
        };
        let stop = self.expr(ExprLang::Cel, "/contract/stop_when");
        let mut node = Node::bare(id.clone(), id, NodeKind::Loop, "generations");
        node.extra.make_mut().generations = Some(Generations {
            iteration_cap: cap,
            unbounded,
            watch,
        });
        let owner = self.add(node, "/contract", None);
        self.g.entrypoints.push(owner);
        self.g.attrs.insert(
            "generations",
            json!({"iteration_cap": cap, "unbounded": unbounded,
                   "stop_when": stop.as_ref().map(|e| e.source.clone())})
            .into(),
        );
        self.region(
            RegionKind::Loop {
                mode: if stop.is_some() {
                    LoopMode::Until
                } else {
                    LoopMode::Repeat
                },
                condition: stop,
                max_iterations: max,
                carry: Vec::new(),
                collect: Vec::new(),
            },
            owner,
            "/contract",
        )
    }

    /// One graph: its nodes (fan-out bodies in their map regions), then its edges.
    fn scope(&mut self, si: usize, s: &Scope<'_>, base: Option<RegionId>, watch: bool) {
        let (out, inc) = s.adjacency();
        let n = s.nodes.len();
        // Topological order, document order among ready nodes (Kahn with a min-heap); the
        // graph was checked acyclic, and any leftover node (none in a checked graph) follows.
        let mut indeg: Vec<usize> = inc.iter().map(Vec::len).collect();
        let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<usize>> = (0..n)
            .filter(|&v| indeg[v] == 0)
            .map(std::cmp::Reverse)
            .collect();
        let mut order = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        while let Some(std::cmp::Reverse(v)) = heap.pop() {
            order.push(v);
            placed[v] = true;
            for &w in &out[v] {
                indeg[w] -= 1;
                if indeg[w] == 0 {
                    heap.push(std::cmp::Reverse(w));
                }
            }
        }
        order.extend((0..n).filter(|&v| !placed[v]));
        // The innermost fan-out whose body holds each node (upstream's fan-out scope: reached
        // from the fan-out without entering a collect), and each fan-out's nesting depth. One
        // pass in topological order: a node inherits the deepest scope among its predecessors.
        let is_fan = |v: usize| s.nodes[v].is("control", "fan-out");
        let is_collect = |v: usize| s.nodes[v].is("control", "collect");
        let mut encl: Vec<Option<usize>> = vec![None; n];
        let mut depth: Vec<usize> = vec![0; n];
        for &v in &order {
            if !is_collect(v) {
                for &p in &inc[v] {
                    let cand = if is_fan(p) {
                        Some(p)
                    } else if is_collect(p) {
                        None
                    } else {
                        encl[p]
                    };
                    if let Some(c) = cand
                        && encl[v].is_none_or(|e| depth[c] > depth[e])
                    {
                        encl[v] = Some(c);
                    }
                }
            }
            if is_fan(v) {
                depth[v] = encl[v].map_or(1, |e| depth[e] + 1);
            }
        }
        let mut map_region: Vec<Option<RegionId>> = vec![None; n];
        for v in order {
            let region = match encl[v] {
                Some(f) => map_region[f],
                None => base,
            };
            let id = self.node(si, s, &s.nodes[v], region);
            self.ids.insert((si, v), id);
            // A gate's revision limit: its own, else upstream's default (none when the Loop
            // watches).
            let node = &mut self.g.nodes[id.index()];
            if node.extra.routes.is_some()
                && let Some(routes) = node.extra.make_mut().routes.as_mut()
            {
                let own = s.nodes[v].get("max_revisions").and_then(Doc::as_u64);
                routes.max_revisions = Routes::revision_limit(own.unwrap_or(0), watch);
            }
            if is_fan(v) {
                map_region[v] = Some(self.map(&s.nodes[v], id, watch));
            }
        }
        for e in &s.edges {
            let (Some(&a), Some(&b)) = (s.index.get(e.from), s.index.get(e.to)) else {
                continue;
            };
            let (Some(&from), Some(&to)) = (self.ids.get(&(si, a)), self.ids.get(&(si, b))) else {
                continue;
            };
            self.edge(&s.nodes[a], from, to, &e.ptr);
        }
    }

    fn map(&mut self, f: &NodeView<'_>, owner: NodeId, watch: bool) -> RegionId {
        let over = self
            .expr(ExprLang::GoTemplate, &f.field("collection"))
            .unwrap_or(IrExpr {
                lang: ExprLang::GoTemplate,
                source: Default::default(),
                core: None,
                span: self.span(&f.ptr),
            });
        let width = if watch {
            DEFAULT_WIDTH_WATCH
        } else {
            DEFAULT_WIDTH_DELIVERY
        };
        let parallel = match f.int("max_parallel") {
            p if p > 0 => p as u32,
            _ => width,
        };
        // How many items each branch takes (1, each branch its item, when not above 1).
        if let Some(size) = f.get("batch_size").and_then(Doc::as_u64).filter(|&n| n > 1) {
            let owner = self.g.nodes[owner.index()].extra.make_mut();
            owner.body.get_or_insert_default().batch_size = Some(size);
        }
        self.region(
            RegionKind::Map {
                over,
                item: "item".into(),
                index_as: "index".into(),
                max_items: f.int("max_fan_out").clamp(0, super::FAN_OUT_CEILING) as u32,
                max_parallel: parallel,
                on_item_failure: OnItemFailure::Fail,
                min_successes: None,
                collect: Vec::new(),
            },
            owner,
            &f.ptr,
        )
    }

    fn edge(&mut self, src: &NodeView<'_>, written: NodeId, to: NodeId, ptr: &str) {
        let (Some(from), Some(to)) = self.lift(written, to) else {
            return;
        };
        if from == to || !self.seen.insert((from, to)) {
            return;
        }
        let lifted = from != written;
        let (kind, guard, on) = if lifted {
            (EdgeKind::Sequence, None, Vec::new())
        } else if src.is("control", "branch") {
            let guard = self.expr(ExprLang::Cel, &src.field("condition"));
            (EdgeKind::Conditional, guard, Vec::new())
        } else if src.is("control", "gate") {
            (EdgeKind::Sequence, None, continue_verdicts(src))
        } else {
            (EdgeKind::Sequence, None, Vec::new())
        };
        let span = self.span(ptr);
        self.g.add_edge(
            Edge {
                from,
                to,
                kind,
                outcomes: Outcomes::from([Outcome::Succeeded]),
                guard: guard.map(Box::new),
                order: None,
                bound: None,
                implicit: false,
                label: None,
                on,
            },
            span,
        );
    }

    /// Lifts both ends of an edge to the innermost region holding both.
    fn lift(&self, a: NodeId, b: NodeId) -> (Option<NodeId>, Option<NodeId>) {
        let chain = |mut n: NodeId| {
            let mut c = vec![(self.region_of[n.index()], n)];
            while let Some(r) = self.region_of[n.index()] {
                n = self.g.regions[r.index()].owner;
                c.push((self.region_of[n.index()], n));
            }
            c
        };
        let ca = chain(a);
        let cb = chain(b);
        for &(ra, na) in &ca {
            if let Some(&(_, nb)) = cb.iter().find(|(rb, _)| *rb == ra) {
                return (Some(na), Some(nb));
            }
        }
        (None, None)
    }

    /// Data links from the recorded reads.
    fn links(&mut self, scopes: &[Scope<'_>]) {
        let mut seen = BTreeSet::new();
        for (si, ni, ptr, target) in &self.unit.reads {
            let Some(&ti) = scopes.get(*si).and_then(|s| s.index.get(target.as_str())) else {
                continue;
            };
            let (Some(&to), Some(&from)) = (self.ids.get(&(*si, *ni)), self.ids.get(&(*si, ti)))
            else {
                continue;
            };
            let node_ptr = &scopes[*si].nodes[*ni].ptr;
            let at = ptr
                .strip_prefix(node_ptr.as_str())
                .unwrap_or(ptr)
                .trim_start_matches('/')
                .replace('/', ".");
            if from == to || !seen.insert((from, to, at.clone())) {
                continue;
            }
            let ty = self.g.nodes[from.index()]
                .outputs
                .first()
                .map_or_else(|| "any".into(), |o| o.ty.clone());
            self.g.links.push(crate::ir::DataLink {
                from,
                output: "output".into(),
                to,
                at,
                ty,
            });
        }
    }

    /// Region entry points: members with no incoming edge from a member of the same region.
    fn finish(&mut self) {
        let mut has_pred = vec![false; self.g.nodes.len()];
        for e in &self.g.edges {
            if self.region_of[e.from.index()] == self.region_of[e.to.index()] {
                has_pred[e.to.index()] = true;
            }
        }
        for r in &mut self.g.regions {
            r.entrypoints = r
                .nodes
                .iter()
                .copied()
                .filter(|n| !has_pred[n.index()])
                .collect();
        }
    }
}
