//! Lowering a checked AGS document into the IR.
//!
//! Scopes are instantiated with a work list, never by recursion: the root graph first, then
//! every loop/map/subgraph body as a region owned by its node. A body node's scoped id is its
//! owner's scoped id, `/`, and its local id (`repair_loop/run_tests`). A fragment (`use:`) is
//! instantiated once per use site, so the same fragment under two owners yields two regions.
//! Fragments no node uses are checked but not lowered. The expansion is bounded (AGC080): a
//! fragment used twice per level, nested deeply, would otherwise multiply.

use super::defaults::merged;
use super::edges::{EffEdge, effective};
use super::node_type;
use super::scope::{Scope, ScopeKind};
use crate::diag::Diagnostic;
use crate::ir::{
    Edge, EdgeKind, Estimate, ExprLang, Graph, Input, InputSource, IrExpr, Join, LoopMode, Node,
    NodeId, NodeKind, Outcome, Output, Param, Region, RegionId, RegionKind, Retry,
};
use crate::source::Document;
use crate::source::tree::escape_token;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Most nodes one document may expand into (fragment instantiation included).
pub const MAX_EXPANDED_NODES: usize = 2_000_000;

/// One scope waiting to be instantiated.
#[derive(Clone)]
struct Pending<'a> {
    scope: Scope<'a>,
    /// Scoped id prefix of the scope's nodes (`""` or `owner/`).
    prefix: String,
    region: Option<RegionId>,
}

pub(crate) struct Lowerer<'d> {
    doc: &'d Document,
    pub graph: Graph,
    pub diags: Vec<Diagnostic>,
}

/// Lowers a document that passed every check.
pub fn lower(doc: &Document) -> (Graph, Vec<Diagnostic>) {
    let root = doc.value.as_object().cloned().unwrap_or_default();
    let id = root
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let mut l = Lowerer {
        doc,
        graph: Graph::new("ags", id),
        diags: Vec::new(),
    };
    l.graph.title = root
        .get("title")
        .and_then(Value::as_str)
        .map(str::to_string);
    l.params(&root);
    if let Some(c) = root.get("constraints").and_then(Value::as_object) {
        l.graph.constraints = c.clone();
    }
    let root_obj = doc
        .value
        .as_object()
        .expect("checked: the document is a mapping");
    let fragments: HashMap<&str, (&Map<String, Value>, String)> = root_obj
        .get("subgraphs")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(n, f)| {
            Some((
                n.as_str(),
                (f.as_object()?, format!("/subgraphs/{}", escape_token(n))),
            ))
        })
        .collect();
    let mut work = vec![Pending {
        scope: Scope {
            kind: ScopeKind::Root,
            ptr: String::new(),
            obj: root_obj,
        },
        prefix: String::new(),
        region: None,
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
        let children = l.scope(&p, &fragments);
        work.extend(children);
    }
    (l.graph, l.diags)
}

impl<'d> Lowerer<'d> {
    fn params(&mut self, root: &Map<String, Value>) {
        for (name, spec) in root
            .get("params")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            self.graph.params.push(Param {
                name: name.clone(),
                ty: str_of(spec, "type").unwrap_or("any").to_string(),
                required: spec
                    .get("required")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                default: spec.get("default").cloned(),
            });
        }
    }

    /// An expression field at `ptr`.
    fn expr(&self, lang: ExprLang, ptr: &str) -> Option<IrExpr> {
        let node = self.doc.node(ptr)?;
        let source = pointer_str(&self.doc.value, ptr)?;
        Some(IrExpr {
            lang,
            source: source.to_string(),
            core: None,
            span: node.span,
        })
    }

    /// Instantiates one scope; returns the body scopes to instantiate next.
    fn scope<'a>(
        &mut self,
        p: &Pending<'a>,
        fragments: &HashMap<&str, (&'a Map<String, Value>, String)>,
    ) -> Vec<Pending<'a>> {
        let s = &p.scope;
        let mut ids: HashMap<&str, NodeId> = HashMap::new();
        let mut bodies = Vec::new();
        for (local, node) in s.nodes() {
            let ptr = s.node_ptr(local);
            let scoped = format!("{}{}", p.prefix, local);
            let id = self.node(s, local, node, &ptr, scoped.clone(), p.region);
            ids.insert(local.as_str(), id);
            for block in ["loop", "map", "subgraph"] {
                let Some(b) = node.get(block).and_then(Value::as_object) else {
                    continue;
                };
                let bptr = format!("{ptr}/{block}");
                let (body, body_ptr, source) =
                    if let Some(name) = b.get("use").and_then(Value::as_str) {
                        match fragments.get(name) {
                            Some((f, fptr)) => (Some(*f), fptr.clone(), format!("use:{name}")),
                            None => (None, String::new(), format!("use:{name}")),
                        }
                    } else if let Some(body) = b
                        .get(if block == "subgraph" {
                            "inline"
                        } else {
                            "body"
                        })
                        .and_then(Value::as_object)
                    {
                        let field = if block == "subgraph" {
                            "inline"
                        } else {
                            "body"
                        };
                        (Some(body), format!("{bptr}/{field}"), "inline".to_string())
                    } else if let Some(uri) = b
                        .get("ref")
                        .and_then(|r| r.get("uri"))
                        .and_then(Value::as_str)
                    {
                        (None, String::new(), format!("ref:{uri}"))
                    } else {
                        (None, String::new(), String::new())
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
                    self.doc.span(&bptr),
                );
                self.graph.nodes[id.index()].owns = Some(region);
                if let Some(body) = body {
                    bodies.push(Pending {
                        scope: Scope {
                            kind: ScopeKind::Body {
                                parent: 0,
                                owner: local.clone(),
                            },
                            ptr: body_ptr,
                            obj: body,
                        },
                        prefix: format!("{scoped}/"),
                        region: Some(region),
                    });
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
        for e in effective(s) {
            self.edge(&e, &ids);
        }
        bodies
    }

    fn node(
        &mut self,
        s: &Scope<'_>,
        local: &str,
        node: &Map<String, Value>,
        ptr: &str,
        scoped: String,
        region: Option<RegionId>,
    ) -> NodeId {
        let ty = node_type(node);
        let kind = match ty {
            "decision" => NodeKind::Decision,
            "gate" => NodeKind::Gate,
            "loop" => NodeKind::Loop,
            "map" => NodeKind::Map,
            "subgraph" => NodeKind::Subgraph,
            _ => NodeKind::Task,
        };
        let mut inputs = Vec::new();
        for (name, spec) in node
            .get("inputs")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let iptr = format!("{ptr}/inputs/{}", escape_token(name));
            let source = if spec.get("from").is_some() {
                match self.expr(ExprLang::Agx, &format!("{iptr}/from")) {
                    Some(expr) => InputSource::Expr { expr },
                    None => InputSource::Implicit,
                }
            } else if spec.get("template").is_some() {
                match self.expr(ExprLang::AgxTemplate, &format!("{iptr}/template")) {
                    Some(template) => InputSource::Template { template },
                    None => InputSource::Implicit,
                }
            } else if let Some(v) = spec.get("value") {
                InputSource::Value { value: v.clone() }
            } else {
                InputSource::Implicit
            };
            inputs.push(Input {
                name: name.clone(),
                ty: str_of(spec, "type").unwrap_or("any").to_string(),
                required: spec
                    .get("required")
                    .and_then(Value::as_bool)
                    .unwrap_or(true),
                source,
            });
        }
        let mut outputs: Vec<Output> = node
            .get("outputs")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(name, spec)| Output {
                name: name.clone(),
                ty: str_of(spec, "type").unwrap_or("any").to_string(),
                required: spec
                    .get("required")
                    .and_then(Value::as_bool)
                    .unwrap_or(true),
            })
            .collect();
        if matches!(kind, NodeKind::Decision | NodeKind::Gate) {
            outputs.push(Output {
                name: "decision".into(),
                ty: "string".into(),
                required: true,
            });
        }
        let join = match merged(s, node, "join").as_ref().and_then(Value::as_str) {
            Some("any") => Join::Any,
            Some("n_of") => Join::NOf {
                count: node.get("join_count").and_then(Value::as_u64).unwrap_or(1) as u32,
            },
            _ => Join::All,
        };
        let failure = merged(s, node, "failure");
        let constraints = merged(s, node, "constraints");
        let retry = Retry {
            max_attempts: failure
                .as_ref()
                .and_then(|f| f.get("retry"))
                .and_then(|r| r.get("max_attempts"))
                .and_then(Value::as_u64)
                .unwrap_or(1) as u32,
            timeout_seconds: constraints
                .as_ref()
                .and_then(|c| c.get("max_wall_clock_seconds"))
                .and_then(Value::as_f64),
        };
        let est = node.get("estimate");
        let estimate = Estimate {
            cost_usd: est.and_then(|e| e.get("cost_usd")).and_then(Value::as_f64),
            seconds: est
                .and_then(|e| e.get("wall_clock_seconds"))
                .and_then(Value::as_f64),
        };
        // Everything not modelled above, with defaults merged, kept losslessly.
        let mut attrs = Map::new();
        for (k, v) in node {
            if !matches!(
                k.as_str(),
                "type"
                    | "title"
                    | "inputs"
                    | "outputs"
                    | "when"
                    | "join"
                    | "join_count"
                    | "depends_on"
                    | "estimate"
                    | "loop"
                    | "map"
                    | "subgraph"
            ) {
                attrs.insert(k.clone(), v.clone());
            }
        }
        for block in [
            "intelligence",
            "requirements",
            "constraints",
            "failure",
            "human",
        ] {
            if let Some(v) = merged(s, node, block) {
                attrs.insert(block.to_string(), v);
            }
        }
        let guard = node
            .get("when")
            .and_then(|_| self.expr(ExprLang::Agx, &format!("{ptr}/when")));
        let span = self.doc.key_span(ptr);
        self.graph.add_node(
            Node {
                scoped_id: scoped,
                local_id: local.to_string(),
                kind,
                origin_kind: ty.to_string(),
                region,
                owns: None,
                title: node
                    .get("title")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                inputs,
                outputs,
                guard,
                join,
                retry,
                estimate,
                attrs,
            },
            span,
        )
    }

    fn region_kind(
        &self,
        block: &str,
        b: &Map<String, Value>,
        bptr: &str,
        source: String,
    ) -> RegionKind {
        let collect = |this: &Self, field: &str| -> Vec<(String, IrExpr)> {
            b.get(field)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(k, _)| {
                    let e = this.expr(
                        ExprLang::Agx,
                        &format!("{bptr}/{field}/{}", escape_token(k)),
                    )?;
                    Some((k.clone(), e))
                })
                .collect()
        };
        let uint = |f: &str, d: u64| b.get(f).and_then(Value::as_u64).unwrap_or(d) as u32;
        match block {
            "loop" => RegionKind::Loop {
                mode: match str_of(&Value::Object(b.clone()), "mode") {
                    Some("while") => LoopMode::While,
                    Some("until") => LoopMode::Until,
                    _ => LoopMode::Repeat,
                },
                condition: b
                    .get("condition")
                    .and_then(|_| self.expr(ExprLang::Agx, &format!("{bptr}/condition"))),
                max_iterations: uint("max_iterations", 1),
                carry: b
                    .get("carry")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect(),
                collect: collect(self, "collect"),
            },
            "map" => RegionKind::Map {
                over: self
                    .expr(ExprLang::Agx, &format!("{bptr}/over"))
                    .unwrap_or(IrExpr {
                        lang: ExprLang::Agx,
                        source: String::new(),
                        core: None,
                        span: self.doc.span(bptr),
                    }),
                item: b
                    .get("as")
                    .and_then(Value::as_str)
                    .unwrap_or("item")
                    .to_string(),
                index_as: b
                    .get("index_as")
                    .and_then(Value::as_str)
                    .unwrap_or("index")
                    .to_string(),
                max_items: uint("max_items", 1),
                max_parallel: uint("max_parallel", 1),
                on_item_failure: b
                    .get("on_item_failure")
                    .and_then(Value::as_str)
                    .unwrap_or("fail_fast")
                    .to_string(),
                collect: collect(self, "collect"),
            },
            _ => RegionKind::Subgraph {
                source,
                params: collect(self, "params"),
                outputs: collect(self, "outputs_from"),
                inherit_context: b
                    .get("inherit_context")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            },
        }
    }

    fn edge(&mut self, e: &EffEdge<'_>, ids: &HashMap<&str, NodeId>) {
        let (Some(&from), Some(&to)) = (ids.get(e.from), ids.get(e.to)) else {
            return;
        };
        let (kind, outcomes) = match e.kind {
            "conditional" => (EdgeKind::Conditional, vec![Outcome::Succeeded]),
            "on_failure" => (EdgeKind::Failure, vec![Outcome::Failed]),
            _ => (EdgeKind::Sequence, vec![Outcome::Succeeded]),
        };
        let guard = e
            .when
            .and_then(|_| self.expr(ExprLang::Agx, &format!("{}/when", e.ptr)));
        self.graph.add_edge(
            Edge {
                from,
                to,
                kind,
                outcomes,
                guard,
                order: None,
                bound: None,
                implicit: e.implicit,
                label: e.label.map(str::to_string),
            },
            self.doc.span(&e.ptr),
        );
    }
}

fn str_of<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

fn pointer_str<'v>(v: &'v Value, ptr: &str) -> Option<&'v str> {
    v.pointer(ptr).and_then(Value::as_str)
}
