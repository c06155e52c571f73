//! Lowering a checked AGS document into the IR.
//!
//! Scopes are instantiated with a work list, never by recursion: the root graph first, then
//! every loop/map/subgraph body as a region owned by its node. A body node's scoped id is its
//! owner's scoped id, `/`, and its local id (`repair_loop/run_tests`). A fragment (`use:`) is
//! instantiated once per use site, so the same fragment under two owners yields two regions.
//! Fragments no node uses are checked but not lowered. The expansion is bounded (AGC080): a
//! fragment used twice per level, nested deeply, would otherwise multiply.

use crate::source::Field;

#[path = "lower_decl.rs"]
mod decl;
#[path = "lower_exprs.rs"]
mod exprs;
#[path = "lower_links.rs"]
mod links;
#[path = "lower_node.rs"]
mod node;
use super::refs::Workspace;
use super::scope::EffEdge;
use super::scope::{Scope, ScopeKind};
use crate::diag::Diagnostic;
use crate::hash::HashMap;
use crate::ir::{
    Attachment, Body, Decisions, Edge, EdgeKind, ExprLang, ExpressionErrors, Graph, GraphOutput,
    HumanTimeouts, IrExpr, LoopMode, NodeId, OnItemFailure, OnNodeFailure, Outcome, Outcomes,
    Param, Region, RegionId, RegionKind, Semantics, SubgraphSource,
};
use crate::source::tree::escape_token;
use crate::source::{Document, SourceMap};
use crate::source::{Map, Str, Value};
use decl::{declared, port_type, required};
use node::{NodeLowerer, lower_nodes};
use std::sync::Mutex;

/// Most nodes one document may expand into (fragment instantiation included).
pub const MAX_EXPANDED_NODES: usize = 2_000_000;

/// `constraints.max_subgraph_depth` when the graph does not set it (the schema's default).
pub const DEFAULT_SUBGRAPH_DEPTH: u64 = 5;

/// The deepest nesting agc expands whatever `max_subgraph_depth` says: a body's scoped ids
/// repeat every owner's, so a chain of thousands of `use`s would cost the square of its length.
pub const MAX_NESTING: u64 = 64;

/// One scope waiting to be instantiated.
#[derive(Clone)]
struct Pending<'a> {
    /// The document (of the workspace) the scope is in.
    doc: usize,
    scope: Scope<'a>,
    /// Scoped id prefix of the scope's nodes (`""` or `owner/`).
    prefix: String,
    region: Option<RegionId>,
    /// Loop, map and subgraph bodies around this scope (0 for the root graph).
    depth: u64,
}

pub(crate) struct Lowerer<'d> {
    ws: &'d Workspace,
    /// The document being lowered right now.
    cur: usize,
    /// The deepest body allowed: `max_subgraph_depth`, at most [`MAX_NESTING`].
    max_depth: u64,
    /// Body sites already reported too deep (document, pointer): a fragment reached along
    /// several paths is reported once.
    too_deep: crate::hash::HashSet<(usize, String)>,
    /// Threads a large scope's nodes are lowered on.
    threads: usize,
    /// Field lookups and expressions in the current document (see [`NodeLowerer`]).
    fields: NodeLowerer<'d>,
    pub graph: Graph,
    pub diags: Vec<Diagnostic>,
}

/// Lowers a workspace (a document and the files it references) that passed every check.
pub fn lower(ws: &Workspace, sources: &SourceMap) -> (Graph, Vec<Diagnostic>) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    lower_with(ws, sources, threads)
}

/// [`lower`], with the threads a large scope's nodes are lowered on (the tests choose).
pub(crate) fn lower_with(
    ws: &Workspace,
    sources: &SourceMap,
    threads: usize,
) -> (Graph, Vec<Diagnostic>) {
    // The checks' parsed expressions, shared by the threads that lower nodes.
    let cache = Mutex::new(std::mem::take(&mut *ws.exprs.borrow_mut()));
    let doc = &ws.docs[0];
    let empty = Map::default();
    // Checked documents are mappings; an empty one lowers to an empty graph.
    let root = doc.value.as_object().unwrap_or(&empty);
    let id = root
        .field("id")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let max_depth = root
        .field("constraints")
        .and_then(|c| c.field("max_subgraph_depth"))
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_SUBGRAPH_DEPTH)
        .min(MAX_NESTING);
    let mut l = Lowerer {
        ws,
        cur: 0,
        max_depth,
        too_deep: Default::default(),
        fields: NodeLowerer::new(doc, &sources.get(doc.file).text, &cache),
        threads,
        graph: Graph::new("ags", id),
        diags: Vec::new(),
    };
    l.graph.title = root
        .field("title")
        .and_then(Value::as_str)
        .map(str::to_string);
    l.params(root);
    // What the runtime needs from the root besides the modelled parts: the policy switches,
    // the frozen `context` values and the attachment declarations. The policy's human-timeout
    // defaults and `on_node_failure` are typed (`HumanTimeouts`, `OnNodeFailure`) and leave
    // it; the attachments are typed (`Attachment`).
    for key in ["policy", "context", "attachments"] {
        let Some(v) = root.field(key) else { continue };
        match (key, v) {
            ("policy", Value::Object(p)) => {
                let policy = v.to_json();
                l.graph.human_timeouts = HumanTimeouts::from_policy(&policy);
                l.graph.on_node_failure = OnNodeFailure::from_policy(&policy);
                let rest: Map = p
                    .iter()
                    .filter(|(k, _)| {
                        !HumanTimeouts::HELD.contains(&k.as_str())
                            && k.as_str() != "on_node_failure"
                    })
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                if !rest.is_empty() {
                    l.graph.attrs.insert(key, Value::Object(rest));
                }
            }
            ("attachments", _) => {
                l.graph.attachments = Attachment::list_from(&v.to_json());
            }
            _ => {
                l.graph.attrs.insert(key, v.clone());
            }
        }
    }
    // AGS decisions call their handler; `policy.on_expression_error` (default `fail`) says
    // whether an expression error stops the run.
    let on_error = root
        .field("policy")
        .and_then(|p| p.field("on_expression_error"))
        .and_then(Value::as_str);
    l.graph.semantics = Semantics {
        expression_errors: match on_error {
            Some("false") => ExpressionErrors::Reading,
            _ => ExpressionErrors::Stop,
        },
        decisions: Decisions::Handler,
        ..Semantics::default()
    };
    if let Some(c) = root.field("constraints").and_then(Value::as_object) {
        l.graph.constraints = json_map(c.iter());
        for key in c.keys() {
            let ptr = format!("/constraints/{key}");
            let span = l.doc().span(&ptr);
            l.graph.spans.constraints.insert(key.to_string(), span);
        }
    }
    let mut work = vec![Pending {
        doc: 0,
        scope: Scope::new(ScopeKind::Root, String::new(), root),
        prefix: String::new(),
        region: None,
        depth: 0,
    }];
    let mut next = 0;
    while next < work.len() {
        if l.graph.nodes.len() > MAX_EXPANDED_NODES {
            l.diags.push(
                Diagnostic::error(
                    "AGC080",
                    format!("the graph expands to more than {MAX_EXPANDED_NODES} nodes"),
                )
                .at(doc.span("/subgraphs")),
            );
            break;
        }
        let p = work[next].clone();
        next += 1;
        if l.cur != p.doc {
            l.cur = p.doc;
            let doc = l.doc();
            l.fields = NodeLowerer::new(doc, &sources.get(doc.file).text, &cache);
        }
        let children = l.scope(&p);
        work.extend(children);
    }
    (l.graph, l.diags)
}

impl<'d> Lowerer<'d> {
    fn doc(&self) -> &'d Document {
        &self.ws.docs[self.cur]
    }

    fn params(&mut self, root: &Map) {
        for (name, spec) in root
            .field("params")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            self.graph.params.push(Param {
                name: name.as_str().into(),
                ty: port_type(spec),
                // AGS param_spec: `required` defaults to true.
                required: required(spec),
                default: spec.field("default").map(Value::to_json),
                decl: declared(spec),
            });
        }
    }

    /// The value's span at a pointer of the current document ([`Document::span`]).
    fn span(&self, ptr: &str) -> crate::source::Span {
        self.fields.span(ptr)
    }

    /// The key's span at a pointer, else the value's ([`Document::key_span`]).
    fn key_span(&self, ptr: &str) -> crate::source::Span {
        self.fields.key_span(ptr)
    }

    /// An expression field at `ptr` ([`NodeLowerer::expr`]).
    fn expr(&self, lang: ExprLang, ptr: &str) -> Option<IrExpr> {
        self.fields.expr(lang, ptr)
    }

    /// Instantiates one scope; returns the body scopes to instantiate next.
    fn scope<'a>(&mut self, p: &Pending<'a>) -> Vec<Pending<'a>>
    where
        'd: 'a,
    {
        let s = &p.scope;
        self.graph_outputs(s, p.region);
        let mut ids: HashMap<&str, NodeId> = HashMap::default();
        ids.reserve(s.node_count());
        // Grown once per scope, not by doubling: the node table of a 100k-node graph is 44 MB.
        self.graph.reserve(s.node_count(), s.graph().edges.len());
        let mut bodies = Vec::new();
        let entries: Vec<_> = s.nodes().collect();
        // Lowered a block at a time (see `node::BLOCK`), then added in order.
        for block in entries.chunks(node::BLOCK) {
            let lowered = lower_nodes(&self.fields, s, block, &p.prefix, p.region, self.threads);
            for ((local, node), (lowered, span)) in block.iter().copied().zip(lowered) {
                let ptr = s.node_ptr(local);
                let scoped = lowered.scoped_id.clone();
                let id = self.graph.add_node(lowered, span);
                ids.insert(local.as_str(), id);
                for block in ["loop", "map", "subgraph"] {
                    let Some(b) = node.field(block).and_then(Value::as_object) else {
                        continue;
                    };
                    let bptr = format!("{ptr}/{block}");
                    let ws: &'a Workspace = self.ws;
                    let mut target_doc = p.doc;
                    let field = if block == "subgraph" {
                        "inline"
                    } else {
                        "body"
                    };
                    let (body, body_ptr, source): (Option<&'a Map>, String, SubgraphSource) =
                        if let Some(name) = b.field("use").and_then(Value::as_str) {
                            let frag = ws.docs[p.doc]
                                .value
                                .field("subgraphs")
                                .and_then(|f| f.field(name))
                                .and_then(Value::as_object);
                            let fptr = format!("/subgraphs/{}", escape_token(name));
                            (frag, fptr, SubgraphSource::Use(name.to_string()))
                        } else if let Some(body) = b.field(field).and_then(Value::as_object) {
                            (
                                Some(body),
                                format!("{bptr}/{field}"),
                                SubgraphSource::Inline,
                            )
                        } else if let Some(uri) = b
                            .field("ref")
                            .and_then(|r| r.field("uri"))
                            .and_then(Value::as_str)
                        {
                            match ws.refs.get(&(p.doc, bptr.clone())) {
                                Some(&t) => {
                                    target_doc = t;
                                    (
                                        ws.docs[t].value.as_object(),
                                        String::new(),
                                        SubgraphSource::Ref(uri.to_string()),
                                    )
                                }
                                None => (None, String::new(), SubgraphSource::Ref(uri.to_string())),
                            }
                        } else {
                            (None, String::new(), SubgraphSource::Unknown)
                        };
                    let kind = self.region_kind(block, b, &bptr, source);
                    let region = self.graph.add_region(
                        Region {
                            kind,
                            owner: id,
                            parent: p.region,
                            entrypoints: Vec::new(),
                            nodes: Vec::new(),
                        },
                        self.span(&bptr),
                    );
                    self.graph.nodes[id.index()].owns = Some(region);
                    if let Some(extra) = region_extras(block, b, body) {
                        // What the runtime runs of them is typed (`Body`); the rest stays
                        // in `attributes.<block>`.
                        let owner = &mut self.graph.nodes[id.index()];
                        if let Some(rest) = Body::residue(&extra) {
                            owner
                                .attrs
                                .insert(block, serde_json::Value::Object(rest).into());
                        }
                        if let Some(opts) = Body::from_block(&serde_json::Value::Object(extra)) {
                            owner.extra.make_mut().body = Some(Box::new(opts));
                        }
                    }
                    if body.is_some() && p.depth >= self.max_depth {
                        self.nested_too_deep(&scoped, block, &bptr, p.depth + 1);
                    } else if let Some(body) = body {
                        bodies.push(Pending {
                            doc: target_doc,
                            scope: Scope::new(
                                ScopeKind::Body {
                                    parent: 0,
                                    owner: local.as_str().to_owned(),
                                },
                                body_ptr,
                                body,
                            ),
                            prefix: format!("{scoped}/"),
                            region: Some(region),
                            depth: p.depth + 1,
                        });
                    }
                }
            }
        }
        if let Some(r) = p.region {
            let mut members: Vec<NodeId> = ids.values().copied().collect();
            members.sort();
            let entry: Vec<NodeId> = s
                .entrypoints()
                .filter_map(|(_, e)| ids.get(e).copied())
                .collect();
            let region = &mut self.graph.regions[r.index()];
            region.nodes = members;
            region.entrypoints = entry;
        } else {
            self.graph.entrypoints = s
                .entrypoints()
                .filter_map(|(_, e)| ids.get(e).copied())
                .collect();
        }
        let first_edge = self.graph.edges.len();
        for block in s.graph().edges.chunks(node::BLOCK) {
            let lowered = node::in_parts(&self.fields, block, self.threads, |nl, e| {
                edge(nl, s, e, &ids)
            });
            for (edge, span) in lowered.into_iter().flatten() {
                self.graph.add_edge(edge, span);
            }
        }
        self.links(&ids, first_edge);
        bodies
    }

    /// AGC082: the body of `block` at `ptr` (of the current document) would nest `depth`
    /// levels deep, more than `max_subgraph_depth` (or agc's own [`MAX_NESTING`]) allows. The
    /// body is not expanded.
    fn nested_too_deep(&mut self, scoped: &str, block: &str, ptr: &str, depth: u64) {
        if !self.too_deep.insert((self.cur, ptr.to_string())) {
            return;
        }
        let limit = self.max_depth;
        let why = if limit == MAX_NESTING {
            format!("agc expands at most {MAX_NESTING} levels")
        } else {
            format!("`constraints.max_subgraph_depth` allows {limit}")
        };
        let d = Diagnostic::error(
            "AGC082",
            format!("the {block} body of `{scoped}` would be nested {depth} levels deep; {why}"),
        )
        .at(self.key_span(ptr))
        .with_pointer(ptr)
        .with_help(
            "every loop, map and subgraph body counts one level, fragments and referenced \
             graphs included; flatten the nesting or raise `constraints.max_subgraph_depth`",
        );
        self.diags.push(d);
    }

    /// The scope's declared `outputs` (the graph's, or a body's).
    fn graph_outputs(&mut self, s: &Scope<'_>, region: Option<RegionId>) {
        for (name, spec) in s
            .obj
            .field("outputs")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let ptr = format!("{}/outputs/{}", s.ptr, escape_token(name));
            let from = spec
                .field("from")
                .and_then(|_| self.expr(ExprLang::Agx, &format!("{ptr}/from")));
            self.graph.outputs.push(GraphOutput {
                region,
                name: name.as_str().into(),
                ty: port_type(spec),
                required: required(spec),
                from,
                decl: declared(spec),
            });
        }
    }

    fn region_kind(&self, block: &str, b: &Map, bptr: &str, source: SubgraphSource) -> RegionKind {
        let collect = |this: &Self, field: &str| -> Vec<(String, IrExpr)> {
            b.field(field)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(k, _)| {
                    let e = this.expr(
                        ExprLang::Agx,
                        &format!("{bptr}/{field}/{}", escape_token(k)),
                    )?;
                    Some((k.to_string(), e))
                })
                .collect()
        };
        let uint = |f: &str, d: u64| b.field(f).and_then(Value::as_u64).unwrap_or(d) as u32;
        match block {
            "loop" => RegionKind::Loop {
                mode: match b.field("mode").and_then(Value::as_str) {
                    Some("while") => LoopMode::While,
                    Some("until") => LoopMode::Until,
                    _ => LoopMode::Repeat,
                },
                condition: b
                    .field("condition")
                    .and_then(|_| self.expr(ExprLang::Agx, &format!("{bptr}/condition"))),
                max_iterations: uint("max_iterations", 1),
                carry: b
                    .field("carry")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .filter_map(|(k, v)| Some((k.to_string(), v.as_str()?.to_string())))
                    .collect(),
                collect: collect(self, "collect"),
            },
            "map" => RegionKind::Map {
                over: self
                    .expr(ExprLang::Agx, &format!("{bptr}/over"))
                    .unwrap_or(IrExpr {
                        lang: ExprLang::Agx,
                        source: Default::default(),
                        core: None,
                        span: self.span(bptr),
                    }),
                item: b
                    .field("as")
                    .and_then(Value::as_str)
                    .unwrap_or("item")
                    .to_string(),
                index_as: b
                    .field("index_as")
                    .and_then(Value::as_str)
                    .unwrap_or("index")
                    .to_string(),
                max_items: uint("max_items", 1),
                max_parallel: uint("max_parallel", 1),
                on_item_failure: match b.field("on_item_failure").and_then(Value::as_str) {
                    Some("continue") => OnItemFailure::Continue,
                    Some("threshold") => OnItemFailure::Threshold,
                    _ => OnItemFailure::FailFast,
                },
                min_successes: b
                    .field("min_successes")
                    .and_then(Value::as_u64)
                    .map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
                collect: collect(self, "collect"),
            },
            _ => RegionKind::Subgraph {
                source,
                params: collect(self, "params"),
                outputs: collect(self, "outputs_from"),
                inherit_context: b
                    .field("inherit_context")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            },
        }
    }
}

/// An effective edge of scope `s` as an IR edge, with its span; `None` where an end is not a
/// node of the scope.
fn edge(
    nl: &NodeLowerer<'_>,
    s: &Scope<'_>,
    e: &EffEdge<'_>,
    ids: &HashMap<&str, NodeId>,
) -> Option<(Edge, crate::source::Span)> {
    let (Some(&from), Some(&to)) = (ids.get(e.from), ids.get(e.to)) else {
        return None;
    };
    let (kind, outcomes) = match e.kind {
        "conditional" => (EdgeKind::Conditional, Outcomes::from([Outcome::Succeeded])),
        "on_failure" => (EdgeKind::Failure, Outcomes::from([Outcome::Failed])),
        _ => (EdgeKind::Sequence, Outcomes::from([Outcome::Succeeded])),
    };
    let ptr = e.ptr(s);
    let guard = e
        .when
        .and_then(|_| nl.expr(ExprLang::Agx, &format!("{ptr}/when")));
    let edge = Edge {
        from,
        to,
        kind,
        outcomes,
        guard: guard.map(Box::new),
        order: None,
        bound: None,
        implicit: e.implicit,
        label: e.label.map(str::to_string),
        on: Vec::new(),
    };
    Some((edge, nl.span(&ptr)))
}

/// A region block's options the IR region does not model (`on_max_iterations`,
/// `on_over_limit`, `min_successes`, a subgraph's `context`, ...) plus the body's declared
/// params as `body_params`, kept on the owner node for the runtime.
fn region_extras(
    block: &str,
    b: &Map,
    body: Option<&Map>,
) -> Option<serde_json::Map<String, serde_json::Value>> {
    let modelled: &[&str] = match block {
        "loop" => &[
            "mode",
            "condition",
            "max_iterations",
            "carry",
            "collect",
            "body",
        ],
        "map" => &[
            "over",
            "as",
            "index_as",
            "max_items",
            "max_parallel",
            "on_item_failure",
            "min_successes",
            "collect",
            "body",
        ],
        _ => &[
            "use",
            "inline",
            "ref",
            "params",
            "outputs_from",
            "inherit_context",
        ],
    };
    let mut extra = json_map(b.iter().filter(|(k, _)| !modelled.contains(&k.as_str())));
    if let Some(ps) = body.and_then(|b| b.field("params")) {
        extra.insert("body_params".into(), ps.to_json());
    }
    (!extra.is_empty()).then_some(extra)
}

/// Document entries as a JSON mapping for the IR, in their order.
fn json_map<'v>(
    entries: impl Iterator<Item = (&'v Str, &'v Value)>,
) -> serde_json::Map<String, serde_json::Value> {
    entries.map(|(k, v)| (k.to_string(), v.to_json())).collect()
}
