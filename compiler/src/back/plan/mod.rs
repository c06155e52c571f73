//! The resolved JSON plan, format `agc.plan/v5` (schema: `schemas/agc-plan-v1.schema.json`,
//! which covers every format; the encodings are described in `agc_runtime::plan`).
//!
//! Nodes are listed in execution order (topological, then declaration order) and referred to by
//! their scoped ids everywhere, so a plan reads on its own. Locations are 1-based
//! `"line:column"` in the source document, `"path:line:column"` (the relative path the user
//! gave) in any other file; no absolute paths, no timestamps: the same input gives the same
//! bytes. Core expressions use the compact encoding of `agc_runtime::expr::wire`; fields at
//! their default are left out (`local_id` equal to the id, `origin_kind` equal to the kind,
//! `required: true`, `join` all, one attempt, empty estimate, attributes, inputs and outputs,
//! edge `outcomes` `["succeeded"]`, `implicit: false`), as the runtime's types read them.
//!
//! The plan is never built as a whole: [`Plan`] implements [`Serialize`] and writes itself
//! straight from the IR, element by element. [`write`](fn@write) lays the same entries out
//! through the runtime's top-level writer, the nodes of a large graph formatted on two threads
//! a chunk at a time (`nodes`), so a 100k-node plan streams with a few hundred nodes' worth of
//! text in flight. [`to_string`] and [`build`] are for callers that want the text or the value.

use crate::analysis::bounds::Bounds;
use crate::ir::{Graph, InputSource, IrExpr, NodeId, RegionKind};
use crate::source::{SourceMap, Span};
use agc_runtime::plan::layout::TopLevel;
use indexmap::IndexMap;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use std::io::{self, Write};

mod array;

pub use agc_runtime::plan::FORMAT;

/// Everything the plan needs besides the IR.
pub struct PlanInput<'a> {
    pub graph: &'a Graph,
    pub order: &'a [NodeId],
    pub bounds: &'a Bounds,
    pub sources: &'a SourceMap,
    /// The source document's path as the user gave it.
    pub path: &'a str,
    /// `sha256-…` of the source document's canonical form, when the dialect defines one.
    pub digest: Option<&'a str>,
    /// The bounds of one jq evaluation the plan asks for (`agc build --eval-…`).
    pub eval_limits: agc_runtime::plan::EvalLimits,
}

/// A plan, lazily: serializing it walks the IR and emits the `agc.plan/v5` document.
pub struct Plan<'a> {
    input: &'a PlanInput<'a>,
}

impl<'a> Plan<'a> {
    /// The plan of `input`; nothing is computed until it is serialized.
    pub fn new(input: &'a PlanInput<'a>) -> Plan<'a> {
        Plan { input }
    }
}

/// Writes the plan to `out` in the plan layout (`agc_runtime::plan::layout`: one node field,
/// input, edge or link a line) with a trailing newline, the same bytes for the same input.
/// `out` is written in many small pieces; give it a buffer.
pub fn write<W: Write>(input: &PlanInput<'_>, out: &mut W) -> io::Result<()> {
    let mut entries = LayoutEntries(TopLevel::start(out)?);
    Plan::new(input).entries(&mut entries)?;
    entries.0.finish()
}

/// Writes the plan without line breaks or spaces (`agc build --compact`), with a trailing
/// newline.
pub fn write_compact<W: Write>(input: &PlanInput<'_>, out: &mut W) -> io::Result<()> {
    serde_json::to_writer(&mut *out, &Plan::new(input))?;
    out.write_all(b"\n")
}

/// The plan as text (what [`write`](fn@write) writes).
pub fn to_string(input: &PlanInput<'_>) -> String {
    let mut buf = Vec::new();
    // Writing to a Vec cannot fail, and serde_json writes UTF-8 only.
    write(input, &mut buf).expect("writing a plan to memory");
    String::from_utf8(buf).expect("serde_json writes UTF-8")
}

/// The plan as a JSON value (materialises the whole plan; prefer [`write`](fn@write) for output).
pub fn build(input: &PlanInput<'_>) -> Value {
    serde_json::to_value(Plan::new(input)).unwrap_or(Value::Null)
}

/// What every piece of the plan needs to render ids and locations.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    g: &'a Graph,
    sources: &'a SourceMap,
    /// The source document's path: locations in it leave the path out.
    path: &'a str,
    /// `g.outputs` by owner, each in declaration order: `[0]` the graph's, `[i + 1]` those of
    /// region `i`'s body (grouped once, so that the regions stay linear in their number).
    outputs: &'a [Vec<u32>],
}

impl<'a> Ctx<'a> {
    fn id(self, n: NodeId) -> &'a str {
        &self.g.node(n).scoped_id
    }

    fn ids(self, ns: &'a [NodeId]) -> Seq<impl Iterator<Item = &'a str> + Clone> {
        Seq(ns.iter().map(move |&n| self.id(n)))
    }

    fn expr(self, e: &'a IrExpr) -> Expr<'a> {
        Expr { c: self, e }
    }

    fn location(self, span: Span) -> Location<'a> {
        Location { c: self, span }
    }

    /// The indices in `g.outputs` of the graph's outputs (`None`) or of one body's.
    fn outputs_of(self, region: Option<crate::ir::RegionId>) -> &'a [u32] {
        &self.outputs[region.map_or(0, |r| r.index() + 1)]
    }
}

/// A JSON array whose elements are produced one at a time from a cloneable iterator.
struct Seq<I>(I);

impl<I> Serialize for Seq<I>
where
    I: Iterator + Clone,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.clone())
    }
}

/// A JSON object from `(key, value)` pairs. A repeated key keeps its first position and takes
/// its last value, as inserting into a `serde_json::Map` does.
struct Pairs<I>(I);

impl<'k, I, V> Serialize for Pairs<I>
where
    I: Iterator<Item = (&'k str, V)> + Clone,
    V: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let items = self.0.clone();
        let (low, _) = items.size_hint();
        let mut map: IndexMap<&str, V> = IndexMap::with_capacity(low);
        for (k, v) in items {
            map.insert(k, v);
        }
        s.collect_map(map)
    }
}

/// `"line:column"` of a span's start, `"path:line:column"` outside the source document.
struct Location<'a> {
    c: Ctx<'a>,
    span: Span,
}

impl Serialize for Location<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = self.c.sources.get(self.span.file);
        let lc = f.line_col(self.span.start);
        if f.name == self.c.path {
            s.collect_str(&format_args!("{}:{}", lc.line, lc.column))
        } else {
            s.collect_str(&format_args!("{}:{}:{}", f.name, lc.line, lc.column))
        }
    }
}

/// An expression: language, source text, core form (when any, in the compact encoding of
/// `agc_runtime::expr::wire`) and location.
struct Expr<'a> {
    c: Ctx<'a>,
    e: &'a IrExpr,
}

impl Serialize for Expr<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.e;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("lang", &e.lang)?;
        m.serialize_entry("source", &e.source)?;
        if let Some(core) = &e.core {
            // The compact encoding leaves ids out: readers number nodes in pre-order.
            debug_assert!(
                agc_runtime::expr::wire::is_preorder(core),
                "core ids of `{}` are not pre-order",
                e.source
            );
            m.serialize_entry("core", core)?;
        }
        m.serialize_entry("location", &self.c.location(e.span))?;
        m.end()
    }
}

/// Named expressions (`collect`, `params`, `outputs` of a region) as an object.
fn expr_pairs<'a>(
    c: Ctx<'a>,
    items: &'a [(String, IrExpr)],
) -> Pairs<impl Iterator<Item = (&'a str, Expr<'a>)> + Clone> {
    Pairs(items.iter().map(move |(k, e)| (k.as_str(), c.expr(e))))
}

/// Where the plan's top-level entries go: a serde map ([`Plan`]'s `Serialize`, for the compact
/// form and values) or the line layout's writer ([`write`](fn@write), which formats the large
/// arrays on two threads).
trait Entries {
    type Error;
    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Self::Error>;
    /// The array `key` of `len` elements, element `i` being `element(i)`.
    fn array<T, F>(&mut self, key: &str, len: usize, element: F) -> Result<(), Self::Error>
    where
        T: Serialize,
        F: Fn(usize) -> T + Sync;
}

impl Plan<'_> {
    /// The plan's top-level entries, in order, into `e`.
    fn entries<E: Entries>(&self, e: &mut E) -> Result<(), E::Error> {
        let input = self.input;
        let g = input.graph;
        let mut outputs = vec![Vec::new(); g.regions.len() + 1];
        for (i, o) in g.outputs.iter().enumerate() {
            outputs[o.region.map_or(0, |r| r.index() + 1)].push(i as u32);
        }
        let c = Ctx {
            g,
            sources: input.sources,
            path: input.path,
            outputs: &outputs,
        };
        e.entry("format", FORMAT)?;
        e.entry("source", &SourceInfo(input))?;
        e.entry("graph", &GraphInfo(g))?;
        e.entry("params", &Seq(g.params.iter().map(ParamOut)))?;
        e.entry("entrypoints", &c.ids(&g.entrypoints))?;
        e.entry("constraints", &g.constraints)?;
        if !g.attrs.is_empty() {
            e.entry("attrs", &g.attrs)?;
        }
        e.entry("semantics", &g.semantics)?;
        if !g.human_timeouts.is_empty() {
            e.entry("human_timeouts", &g.human_timeouts)?;
        }
        if !g.on_node_failure.is_default() {
            e.entry("on_node_failure", &g.on_node_failure)?;
        }
        if !g.attachments.is_empty() {
            e.entry("attachments", &g.attachments)?;
        }
        if let Some(schema) = &g.state_schema {
            e.entry("state_schema", schema)?;
        }
        let order = input.order;
        e.array("nodes", order.len(), |i| NodeOut { c, id: order[i] })?;
        e.array("edges", g.edges.len(), |i| EdgeOut {
            c,
            e: &g.edges[i],
            span: g.spans.edges[i],
        })?;
        let regions = g.regions.iter().zip(&g.spans.regions);
        e.entry(
            "regions",
            &Seq(regions.map(|(r, &span)| RegionOut { c, r, span })),
        )?;
        e.array("links", g.links.len(), |i| LinkOut { c, l: &g.links[i] })?;
        e.entry("bounds", input.bounds)?;
        if !outputs[0].is_empty() {
            e.entry("outputs", &outputs_of(c, None))?;
        }
        if !input.eval_limits.is_empty() {
            e.entry("eval_limits", &input.eval_limits)?;
        }
        Ok(())
    }
}

impl Serialize for Plan<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = MapEntries(s.serialize_map(None)?);
        self.entries(&mut map)?;
        map.0.end()
    }
}

struct MapEntries<M>(M);

impl<M: SerializeMap> Entries for MapEntries<M> {
    type Error = M::Error;

    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), M::Error> {
        self.0.serialize_entry(key, value)
    }

    fn array<T, F>(&mut self, key: &str, len: usize, element: F) -> Result<(), M::Error>
    where
        T: Serialize,
        F: Fn(usize) -> T + Sync,
    {
        self.0.serialize_entry(key, &Seq((0..len).map(&element)))
    }
}

struct LayoutEntries<'w, W: Write>(TopLevel<'w, W>);

impl<W: Write> Entries for LayoutEntries<'_, W> {
    type Error = io::Error;

    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> io::Result<()> {
        self.0.entry(key, value)
    }

    fn array<T, F>(&mut self, key: &str, len: usize, element: F) -> io::Result<()>
    where
        T: Serialize,
        F: Fn(usize) -> T + Sync,
    {
        self.0
            .array_entry(key, len, |out| array::write(key, len, element, out))
    }
}

/// `source`: dialect, path and (when known) the graph digest.
struct SourceInfo<'a>(&'a PlanInput<'a>);

impl Serialize for SourceInfo<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("dialect", self.0.graph.dialect)?;
        m.serialize_entry("path", self.0.path)?;
        if let Some(d) = self.0.digest {
            m.serialize_entry("graph_digest", d)?;
        }
        m.end()
    }
}

/// `graph`: id and title.
struct GraphInfo<'a>(&'a Graph);

impl Serialize for GraphInfo<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("id", &self.0.id)?;
        m.serialize_entry("title", &self.0.title)?;
        m.end()
    }
}

/// One entry of `nodes`.
struct NodeOut<'a> {
    c: Ctx<'a>,
    id: NodeId,
}

impl Serialize for NodeOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = self.c;
        let n = c.g.node(self.id);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &n.scoped_id)?;
        if n.local_id != n.scoped_id {
            m.serialize_entry("local_id", &n.local_id)?;
        }
        m.serialize_entry("kind", &n.kind)?;
        if n.origin_kind != n.kind.as_str() {
            m.serialize_entry("origin_kind", &n.origin_kind)?;
        }
        if let Some(r) = n.region {
            m.serialize_entry("region", c.id(c.g.region(r).owner))?;
        }
        if let Some(t) = &n.title {
            m.serialize_entry("title", t)?;
        }
        if !n.inputs.is_empty() {
            let inputs = n.inputs.iter().map(|i| InputOut { c, i });
            m.serialize_entry("inputs", &Seq(inputs))?;
        }
        if !n.outputs.is_empty() {
            let outputs = n.outputs.iter().map(|o| Port {
                name: &o.name,
                ty: &o.ty,
                required: o.required,
                decl: &o.decl,
            });
            m.serialize_entry("outputs", &Seq(outputs))?;
        }
        if let Some(gd) = &n.guard {
            m.serialize_entry("guard", &c.expr(gd))?;
        }
        if n.join != crate::ir::Join::All {
            m.serialize_entry("join", &n.join)?;
        }
        if !n.extra.retry.is_default() {
            m.serialize_entry("retry", &n.extra.retry)?;
        }
        if let Some(f) = &n.extra.failure {
            m.serialize_entry("failure", &f.map_exprs(|e| c.expr(e)))?;
        }
        if let Some(list) = &n.extra.human {
            let list = list.iter().map(|h| h.map_exprs(|e| c.expr(e)));
            m.serialize_entry("human", &Seq(list))?;
        }
        if let Some(success) = &n.extra.success {
            m.serialize_entry("success", &success.map_exprs(|e| c.expr(e)))?;
        }
        if let Some(decision) = &n.extra.decision {
            m.serialize_entry("decision", &decision.map_exprs(|e| c.expr(e)))?;
        }
        if let Some(gate) = &n.extra.gate {
            m.serialize_entry("gate", gate)?;
        }
        if let Some(wait) = &n.extra.wait {
            m.serialize_entry("wait", wait)?;
        }
        if let Some(schema) = &n.extra.resume_schema {
            m.serialize_entry("resume_schema", schema)?;
        }
        if let Some(produces) = &n.extra.produces {
            m.serialize_entry("produces", produces)?;
        }
        if let Some(fork) = &n.extra.fork {
            m.serialize_entry("fork", fork)?;
        }
        if let Some(body) = &n.extra.body {
            m.serialize_entry("body", body)?;
        }
        if let Some(generations) = &n.extra.generations {
            m.serialize_entry("generations", generations)?;
        }
        if let Some(routes) = &n.extra.routes {
            m.serialize_entry("routes", routes)?;
        }
        if !n.extra.side_effects {
            m.serialize_entry("side_effects", &false)?;
        }
        if n.extra.estimate.cost_usd.is_some() || n.extra.estimate.seconds.is_some() {
            m.serialize_entry("estimate", &n.extra.estimate)?;
        }
        if !n.attrs.is_empty() {
            m.serialize_entry("attributes", &n.attrs)?;
        }
        m.serialize_entry("location", &c.location(c.g.spans.nodes[self.id.index()]))?;
        m.end()
    }
}

/// One declared input of a node, with where its value comes from.
struct InputOut<'a> {
    c: Ctx<'a>,
    i: &'a crate::ir::Input,
}

impl Serialize for InputOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let i = self.i;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &i.name)?;
        m.serialize_entry("type", &i.ty)?;
        serialize_required(&mut m, i.required)?;
        match &i.source {
            InputSource::Expr { expr } => m.serialize_entry("from", &self.c.expr(expr))?,
            InputSource::Template { template } => {
                m.serialize_entry("template", &self.c.expr(template))?;
            }
            InputSource::Value { value } => m.serialize_entry("value", value)?,
            InputSource::Implicit => m.serialize_entry("implicit", &true)?,
        }
        serialize_decl(&mut m, &i.decl)?;
        if let Some(d) = &i.decl.default {
            m.serialize_entry("default", d)?;
        }
        m.end()
    }
}

/// A declared output: `{"name", "type", "required"}` plus its declaration
/// (`schema`, `enum`, `description`) when it has one.
struct Port<'a> {
    name: &'a str,
    ty: &'a str,
    required: bool,
    decl: &'a crate::ir::Declared,
}

impl Serialize for Port<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", self.name)?;
        m.serialize_entry("type", self.ty)?;
        serialize_required(&mut m, self.required)?;
        serialize_decl(&mut m, self.decl)?;
        m.end()
    }
}

/// `"required": false`; `true` is the default and left out.
fn serialize_required<M: SerializeMap>(m: &mut M, required: bool) -> Result<(), M::Error> {
    if required {
        Ok(())
    } else {
        m.serialize_entry("required", &false)
    }
}

/// A graph parameter: name, type, `required` when false, default, declaration.
struct ParamOut<'a>(&'a crate::ir::Param);

impl Serialize for ParamOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &p.name)?;
        m.serialize_entry("type", &p.ty)?;
        serialize_required(&mut m, p.required)?;
        if let Some(d) = &p.default {
            m.serialize_entry("default", d)?;
        }
        serialize_decl(&mut m, &p.decl)?;
        m.end()
    }
}

/// The non-empty fields of a declaration, in the order `agc_runtime::plan::Declared` reads
/// and writes them.
fn serialize_decl<M: SerializeMap>(m: &mut M, d: &crate::ir::Declared) -> Result<(), M::Error> {
    if let Some(schema) = &d.schema {
        m.serialize_entry("schema", schema)?;
    }
    if let Some(e) = &d.enum_values {
        m.serialize_entry("enum", e)?;
    }
    if let Some(desc) = &d.description {
        m.serialize_entry("description", desc)?;
    }
    if d.redact {
        m.serialize_entry("redact", &true)?;
    }
    Ok(())
}

/// One entry of `edges`.
struct EdgeOut<'a> {
    c: Ctx<'a>,
    e: &'a crate::ir::Edge,
    span: Span,
}

impl Serialize for EdgeOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (c, e) = (self.c, self.e);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("from", c.id(e.from))?;
        m.serialize_entry("to", c.id(e.to))?;
        m.serialize_entry("kind", &e.kind)?;
        if *e.outcomes != [crate::ir::Outcome::Succeeded] {
            m.serialize_entry("outcomes", &e.outcomes)?;
        }
        if let Some(gd) = &e.guard {
            m.serialize_entry("guard", &c.expr(gd))?;
        }
        if let Some(o) = e.order {
            m.serialize_entry("order", &o)?;
        }
        if let Some(b) = e.bound {
            m.serialize_entry("bound", &b)?;
        }
        if let Some(l) = &e.label {
            m.serialize_entry("label", l)?;
        }
        if !e.on.is_empty() {
            m.serialize_entry("on", &e.on)?;
        }
        if e.implicit {
            m.serialize_entry("implicit", &true)?;
        }
        m.serialize_entry("location", &c.location(self.span))?;
        m.end()
    }
}

/// One entry of `regions`.
struct RegionOut<'a> {
    c: Ctx<'a>,
    r: &'a crate::ir::Region,
    span: Span,
}

impl Serialize for RegionOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (c, r) = (self.c, self.r);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("owner", c.id(r.owner))?;
        if let Some(p) = r.parent {
            m.serialize_entry("parent", c.id(c.g.region(p).owner))?;
        }
        match &r.kind {
            RegionKind::Loop {
                mode,
                condition,
                max_iterations,
                carry,
                collect,
            } => {
                m.serialize_entry("kind", "loop")?;
                m.serialize_entry("mode", mode)?;
                if let Some(cond) = condition {
                    m.serialize_entry("condition", &c.expr(cond))?;
                }
                m.serialize_entry("max_iterations", max_iterations)?;
                let carry = carry.iter().map(|(k, v)| (k.as_str(), v));
                m.serialize_entry("carry", &Pairs(carry))?;
                m.serialize_entry("collect", &expr_pairs(c, collect))?;
            }
            RegionKind::Map {
                over,
                item,
                index_as,
                max_items,
                max_parallel,
                on_item_failure,
                min_successes,
                collect,
            } => {
                m.serialize_entry("kind", "map")?;
                m.serialize_entry("over", &c.expr(over))?;
                m.serialize_entry("as", item)?;
                m.serialize_entry("index_as", index_as)?;
                m.serialize_entry("max_items", max_items)?;
                m.serialize_entry("max_parallel", max_parallel)?;
                m.serialize_entry("on_item_failure", on_item_failure)?;
                if let Some(min) = min_successes {
                    m.serialize_entry("min_successes", min)?;
                }
                m.serialize_entry("collect", &expr_pairs(c, collect))?;
            }
            RegionKind::Subgraph {
                source,
                params,
                outputs,
                inherit_context,
            } => {
                m.serialize_entry("kind", "subgraph")?;
                m.serialize_entry("source", source)?;
                m.serialize_entry("params", &expr_pairs(c, params))?;
                m.serialize_entry("outputs", &expr_pairs(c, outputs))?;
                m.serialize_entry("inherit_context", inherit_context)?;
            }
            RegionKind::Parallel => m.serialize_entry("kind", "parallel")?,
        }
        m.serialize_entry("entrypoints", &c.ids(&r.entrypoints))?;
        m.serialize_entry("nodes", &c.ids(&r.nodes))?;
        let region = c.g.node(r.owner).owns;
        if region.is_some() && !c.outputs_of(region).is_empty() {
            m.serialize_entry("body_outputs", &outputs_of(c, region))?;
        }
        m.serialize_entry("location", &c.location(self.span))?;
        m.end()
    }
}

/// The declared outputs of the graph (`region` `None`) or of one body.
fn outputs_of<'a>(
    c: Ctx<'a>,
    region: Option<crate::ir::RegionId>,
) -> Seq<impl Iterator<Item = OutputDecl<'a>> + Clone> {
    Seq(c.outputs_of(region).iter().map(move |&i| OutputDecl {
        c,
        o: &c.g.outputs[i as usize],
    }))
}

/// One declared graph or body output: name, type, required, `from`, declaration.
#[derive(Clone)]
struct OutputDecl<'a> {
    c: Ctx<'a>,
    o: &'a crate::ir::GraphOutput,
}

impl Serialize for OutputDecl<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = self.o;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &o.name)?;
        m.serialize_entry("type", &o.ty)?;
        serialize_required(&mut m, o.required)?;
        if let Some(f) = &o.from {
            m.serialize_entry("from", &self.c.expr(f))?;
        }
        serialize_decl(&mut m, &o.decl)?;
        m.end()
    }
}

/// One entry of `links`.
struct LinkOut<'a> {
    c: Ctx<'a>,
    l: &'a crate::ir::DataLink,
}

impl Serialize for LinkOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (c, l) = (self.c, self.l);
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("from", c.id(l.from))?;
        m.serialize_entry("output", &l.output)?;
        m.serialize_entry("to", c.id(l.to))?;
        m.serialize_entry("at", &l.at)?;
        m.serialize_entry("type", &l.ty)?;
        m.end()
    }
}

#[cfg(test)]
mod tests;
