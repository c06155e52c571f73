//! The resolved JSON plan, format `agc.plan/v1` (schema: `schemas/agc-plan-v1.schema.json`).
//!
//! Nodes are listed in execution order (topological, then declaration order) and referred to by
//! their scoped ids everywhere, so a plan reads on its own. Locations are the relative path the
//! user gave plus 1-based line and column; no absolute paths, no timestamps: the same input
//! gives the same bytes.

use crate::analysis::bounds::Bounds;
use crate::ir::{Graph, InputSource, IrExpr, NodeId, RegionKind};
use crate::source::{SourceMap, Span};
use serde_json::{Map, Value, json};

pub const FORMAT: &str = "agc.plan/v1";

/// Everything the plan needs besides the IR.
pub struct PlanInput<'a> {
    pub graph: &'a Graph,
    pub order: &'a [NodeId],
    pub bounds: &'a Bounds,
    pub sources: &'a SourceMap,
    /// The source document's path as the user gave it.
    pub path: &'a str,
    /// `sha256-…` of the source document's canonical form, when the dialect defines one.
    pub digest: Option<String>,
}

struct Ctx<'a> {
    g: &'a Graph,
    sources: &'a SourceMap,
}

impl Ctx<'_> {
    fn location(&self, span: Span) -> Value {
        let f = self.sources.get(span.file);
        let lc = f.line_col(span.start);
        json!({"path": f.name, "line": lc.line, "column": lc.column})
    }

    fn expr(&self, e: &IrExpr) -> Value {
        let mut m = Map::new();
        m.insert(
            "lang".into(),
            serde_json::to_value(e.lang).unwrap_or(Value::Null),
        );
        m.insert("source".into(), Value::String(e.source.clone()));
        if let Some(core) = &e.core {
            m.insert(
                "core".into(),
                serde_json::to_value(core).unwrap_or(Value::Null),
            );
        }
        m.insert("location".into(), self.location(e.span));
        Value::Object(m)
    }

    fn id(&self, n: NodeId) -> Value {
        Value::String(self.g.node(n).scoped_id.clone())
    }

    fn pairs(&self, items: &[(String, IrExpr)]) -> Value {
        Value::Object(
            items
                .iter()
                .map(|(k, e)| (k.clone(), self.expr(e)))
                .collect(),
        )
    }
}

/// Builds the plan as a JSON value.
pub fn build(input: &PlanInput<'_>) -> Value {
    let g = input.graph;
    let c = Ctx {
        g,
        sources: input.sources,
    };
    let mut source = Map::new();
    source.insert("dialect".into(), json!(g.dialect));
    source.insert("path".into(), json!(input.path));
    if let Some(d) = &input.digest {
        source.insert("graph_digest".into(), json!(d));
    }
    let nodes: Vec<Value> = input.order.iter().map(|&id| node(&c, id)).collect();
    let edges: Vec<Value> = g
        .edges
        .iter()
        .zip(&g.spans.edges)
        .map(|(e, span)| {
            let mut m = Map::new();
            m.insert("from".into(), c.id(e.from));
            m.insert("to".into(), c.id(e.to));
            m.insert(
                "kind".into(),
                serde_json::to_value(e.kind).unwrap_or(Value::Null),
            );
            m.insert(
                "outcomes".into(),
                serde_json::to_value(&e.outcomes).unwrap_or(Value::Null),
            );
            if let Some(gd) = &e.guard {
                m.insert("guard".into(), c.expr(gd));
            }
            if let Some(o) = e.order {
                m.insert("order".into(), json!(o));
            }
            if let Some(b) = e.bound {
                m.insert("bound".into(), json!(b));
            }
            if let Some(l) = &e.label {
                m.insert("label".into(), json!(l));
            }
            m.insert("implicit".into(), json!(e.implicit));
            m.insert("location".into(), c.location(*span));
            Value::Object(m)
        })
        .collect();
    let regions: Vec<Value> = g
        .regions
        .iter()
        .zip(&g.spans.regions)
        .map(|(r, span)| {
            let mut m = Map::new();
            m.insert("owner".into(), c.id(r.owner));
            if let Some(p) = r.parent {
                m.insert("parent".into(), c.id(g.region(p).owner));
            }
            match &r.kind {
                RegionKind::Loop {
                    mode,
                    condition,
                    max_iterations,
                    carry,
                    collect,
                } => {
                    m.insert("kind".into(), json!("loop"));
                    m.insert(
                        "mode".into(),
                        serde_json::to_value(mode).unwrap_or(Value::Null),
                    );
                    if let Some(cond) = condition {
                        m.insert("condition".into(), c.expr(cond));
                    }
                    m.insert("max_iterations".into(), json!(max_iterations));
                    m.insert(
                        "carry".into(),
                        Value::Object(carry.iter().map(|(k, v)| (k.clone(), json!(v))).collect()),
                    );
                    m.insert("collect".into(), c.pairs(collect));
                }
                RegionKind::Map {
                    over,
                    item,
                    index_as,
                    max_items,
                    max_parallel,
                    on_item_failure,
                    collect,
                } => {
                    m.insert("kind".into(), json!("map"));
                    m.insert("over".into(), c.expr(over));
                    m.insert("as".into(), json!(item));
                    m.insert("index_as".into(), json!(index_as));
                    m.insert("max_items".into(), json!(max_items));
                    m.insert("max_parallel".into(), json!(max_parallel));
                    m.insert("on_item_failure".into(), json!(on_item_failure));
                    m.insert("collect".into(), c.pairs(collect));
                }
                RegionKind::Subgraph {
                    source,
                    params,
                    outputs,
                    inherit_context,
                } => {
                    m.insert("kind".into(), json!("subgraph"));
                    m.insert("source".into(), json!(source));
                    m.insert("params".into(), c.pairs(params));
                    m.insert("outputs".into(), c.pairs(outputs));
                    m.insert("inherit_context".into(), json!(inherit_context));
                }
                RegionKind::Parallel => {
                    m.insert("kind".into(), json!("parallel"));
                }
            }
            m.insert(
                "entrypoints".into(),
                Value::Array(r.entrypoints.iter().map(|&n| c.id(n)).collect()),
            );
            m.insert(
                "nodes".into(),
                Value::Array(r.nodes.iter().map(|&n| c.id(n)).collect()),
            );
            m.insert("location".into(), c.location(*span));
            Value::Object(m)
        })
        .collect();
    let links: Vec<Value> = g
        .links
        .iter()
        .map(|l| json!({"from": c.id(l.from), "output": l.output, "to": c.id(l.to), "at": l.at, "type": l.ty}))
        .collect();
    let mut plan = Map::new();
    plan.insert("format".into(), json!(FORMAT));
    plan.insert("source".into(), Value::Object(source));
    plan.insert("graph".into(), json!({"id": g.id, "title": g.title}));
    plan.insert(
        "params".into(),
        serde_json::to_value(&g.params).unwrap_or(Value::Null),
    );
    plan.insert(
        "entrypoints".into(),
        Value::Array(g.entrypoints.iter().map(|&n| c.id(n)).collect()),
    );
    plan.insert("constraints".into(), Value::Object(g.constraints.clone()));
    plan.insert("nodes".into(), Value::Array(nodes));
    plan.insert("edges".into(), Value::Array(edges));
    plan.insert("regions".into(), Value::Array(regions));
    plan.insert("links".into(), Value::Array(links));
    plan.insert(
        "bounds".into(),
        serde_json::to_value(input.bounds).unwrap_or(Value::Null),
    );
    Value::Object(plan)
}

fn node(c: &Ctx<'_>, id: NodeId) -> Value {
    let n = c.g.node(id);
    let mut m = Map::new();
    m.insert("id".into(), json!(n.scoped_id));
    m.insert("local_id".into(), json!(n.local_id));
    m.insert(
        "kind".into(),
        serde_json::to_value(n.kind).unwrap_or(Value::Null),
    );
    m.insert("origin_kind".into(), json!(n.origin_kind));
    if let Some(r) = n.region {
        m.insert("region".into(), c.id(c.g.region(r).owner));
    }
    if let Some(t) = &n.title {
        m.insert("title".into(), json!(t));
    }
    let inputs: Vec<Value> = n
        .inputs
        .iter()
        .map(|i| {
            let mut im = Map::new();
            im.insert("name".into(), json!(i.name));
            im.insert("type".into(), json!(i.ty));
            im.insert("required".into(), json!(i.required));
            match &i.source {
                InputSource::Expr { expr } => {
                    im.insert("from".into(), c.expr(expr));
                }
                InputSource::Template { template } => {
                    im.insert("template".into(), c.expr(template));
                }
                InputSource::Value { value } => {
                    im.insert("value".into(), value.clone());
                }
                InputSource::Implicit => {
                    im.insert("implicit".into(), json!(true));
                }
            }
            Value::Object(im)
        })
        .collect();
    m.insert("inputs".into(), Value::Array(inputs));
    m.insert(
        "outputs".into(),
        Value::Array(
            n.outputs
                .iter()
                .map(|o| json!({"name": o.name, "type": o.ty, "required": o.required}))
                .collect(),
        ),
    );
    if let Some(gd) = &n.guard {
        m.insert("guard".into(), c.expr(gd));
    }
    m.insert(
        "join".into(),
        serde_json::to_value(n.join).unwrap_or(Value::Null),
    );
    m.insert(
        "retry".into(),
        serde_json::to_value(&n.retry).unwrap_or(Value::Null),
    );
    m.insert(
        "estimate".into(),
        serde_json::to_value(&n.estimate).unwrap_or(Value::Null),
    );
    m.insert("attributes".into(), Value::Object(n.attrs.clone()));
    m.insert("location".into(), c.location(c.g.spans.nodes[id.index()]));
    Value::Object(m)
}

/// Serializes a plan: pretty JSON with a trailing newline (stable bytes).
pub fn to_string(plan: &Value) -> String {
    let mut s = serde_json::to_string_pretty(plan).unwrap_or_default();
    s.push('\n');
    s
}
