//! Lowering one agh node: its kind, attributes, inputs (an action's params, a transform's
//! `params.map`), output and its schema, retry and timeout; and a gate's routing table.

use super::super::model::{NodeView, Scope};
use super::Lowerer;
use super::routes::routes;
use crate::ir::{
    Declared, ExprLang, Input, InputSource, IrExpr, Join, Node, NodeId, NodeKind, Output, Produces,
    RegionId, Shared,
};
use crate::source::{Map as DocMap, Value as Doc};
use serde_json::{Value, json};
use std::borrow::Cow;

impl<'u> Lowerer<'u> {
    pub(super) fn node(
        &mut self,
        si: usize,
        s: &Scope<'_>,
        v: &NodeView<'_>,
        region: Option<RegionId>,
    ) -> NodeId {
        let _ = si;
        let kind = match (v.class, v.kind) {
            ("action", "run-agent" | "goal") => NodeKind::Task,
            ("action", "transform") => NodeKind::StateUpdate,
            ("action", _) => NodeKind::External,
            ("control", "fan-out") => NodeKind::Map,
            ("control", "collect") => NodeKind::Join,
            ("control", "branch") => NodeKind::Decision,
            ("control", "gate") => NodeKind::Gate,
            ("control", "sub-loop") => NodeKind::Subgraph,
            ("source", "watch-source" | "watch-events") => NodeKind::Wait,
            ("source", "input") => NodeKind::StateUpdate,
            _ => NodeKind::External,
        };
        let scoped = format!("{}{}", s.prefix, v.id);
        let mut node = Node::bare(scoped, v.id.to_string(), kind, v.kind);
        let transform = v.is("action", "transform");
        for (k, val) in v.v {
            match (k.as_str(), val) {
                ("id" | "kind" | "body", _) => {}
                // `params` become the node's inputs (a transform's `params.map` only), so the
                // attributes keep just what no input holds: nothing for an action, a
                // transform's other keys. A copy of every prompt and output schema here made
                // the plan and the IR of a Loop a third larger.
                ("params", Doc::Object(p)) => {
                    let rest: DocMap = p
                        .iter()
                        .filter(|(pk, _)| transform && pk.as_str() != "map")
                        .map(|(pk, pv)| (pk.clone(), pv.clone()))
                        .collect();
                    if !rest.is_empty() {
                        node.attrs.insert(k.clone(), Doc::Object(rest));
                    }
                }
                // An `input` source's output is the Loop input it names.
                ("input_ref", Doc::String(name)) if v.is("source", "input") => {
                    node.extra.make_mut().produces = Some(Produces::Param(name.to_string()));
                }
                _ => {
                    node.attrs.insert(k.clone(), val.clone());
                }
            }
        }
        if v.is("control", "gate") {
            node.extra.make_mut().routes = Some(Box::new(routes(v)));
        }
        // The output's schema, shared with the param it is written in (a run-agent's or a
        // goal's `output_schema`, which the agent call reads) and with every identical schema
        // and literal of the Loop (`ir::intern`): one copy in the IR, not one per node.
        let shared: Option<Shared> = self.output_schema(v).map(|s| self.values.intern(&*s));
        if transform {
            self.transform_inputs(v, &mut node);
        } else if let Some(params) = v.params() {
            node.inputs.reserve_exact(params.len());
            for (k, val) in params {
                let ptr = format!("{}/params/{}", v.ptr, crate::source::tree::escape_token(k));
                let source = match (val, self.unit.exprs.contains_key(&ptr)) {
                    (Doc::String(_), true) => InputSource::Template {
                        template: self.expr(ExprLang::GoTemplate, &ptr).expect("a string"),
                    },
                    _ => InputSource::Value {
                        value: self.values.intern(val),
                    },
                };
                node.inputs.push(Input {
                    name: k.clone(),
                    ty: json_type(val).into(),
                    required: true,
                    source,
                    decl: Default::default(),
                });
            }
        }
        if let Some(schema) = shared {
            let ty = schema
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("object")
                .into();
            node.outputs.reserve_exact(1);
            node.outputs.push(Output {
                name: "output".into(),
                ty,
                required: true,
                decl: Declared {
                    schema: Some(schema),
                    ..Declared::default()
                }
                .into(),
            });
        }
        let max_attempts = v.get("retry").map_or(1, |r| {
            r.get("max_attempts")
                .and_then(Doc::as_u64)
                .filter(|&a| a > 0)
                .unwrap_or(1)
                .min(u32::MAX as u64) as u32
        });
        if max_attempts != 1 {
            node.extra.make_mut().retry.max_attempts = max_attempts;
        }
        if let Some(t) = v.str("timeout").and_then(super::super::go_duration_seconds) {
            let extra = node.extra.make_mut();
            extra.retry.timeout_seconds = Some(t);
            extra.estimate.seconds = Some(t);
        }
        if v.is("control", "collect") {
            node.join = Join::All;
        }
        self.add(node, &v.ptr, region)
    }

    /// A transform's `params.map`, one input per key, so that the node's resolved inputs are
    /// its output (`{key: any}`): `from` (a dotted namespace path, read with its native type)
    /// is a path expression, `template` the `{{ }}` template the checker parsed (text without
    /// an action is a literal string), `value` the literal as written (never a template). An
    /// entry with several takes `from`, then `template`, then `value`; one with none is
    /// `null`. `produces: inputs` tells the runtime the map is lowered this way.
    fn transform_inputs(&mut self, v: &NodeView<'_>, node: &mut Node) {
        node.extra.make_mut().produces = Some(Produces::Inputs);
        let map = v
            .params()
            .and_then(|p| p.get("map"))
            .and_then(Doc::as_object);
        node.inputs.reserve_exact(map.map_or(0, DocMap::len));
        for (k, entry) in map.into_iter().flatten() {
            let ptr = format!(
                "{}/params/map/{}",
                v.ptr,
                crate::source::tree::escape_token(k)
            );
            let text = |f: &str| {
                entry
                    .get(f)
                    .and_then(Doc::as_str)
                    .filter(|s| !s.trim().is_empty())
            };
            let (ty, source) = if let Some(from) = text("from") {
                let at = format!("{ptr}/from");
                let expr = IrExpr {
                    lang: ExprLang::GoTemplate,
                    source: from.trim().into(),
                    core: Some(std::sync::Arc::new(path_expr(from.trim()))),
                    span: self.span(&at),
                };
                ("any", InputSource::Expr { expr })
            } else if let Some(t) = entry.get("template").and_then(Doc::as_str) {
                let at = format!("{ptr}/template");
                let source = match self.expr(ExprLang::GoTemplate, &at) {
                    Some(e) if e.core.is_some() => InputSource::Template { template: e },
                    _ => InputSource::Value {
                        value: self.values.intern(&json!(t)),
                    },
                };
                ("string", source)
            } else {
                let value = match entry.get("value") {
                    Some(v) => self.values.intern(v),
                    None => self.values.intern(&Value::Null),
                };
                ("any", InputSource::Value { value })
            };
            node.inputs.push(Input {
                name: k.clone(),
                ty: ty.into(),
                required: true,
                source,
                decl: Default::default(),
            });
        }
    }

    pub(super) fn output_schema<'d>(&self, v: &NodeView<'d>) -> Option<Cow<'d, Doc>>
    where
        'u: 'd,
    {
        self.schemas.as_ref()?.output_schema(v)
    }
}

/// The core expression of a dotted namespace path (`nodes.a.output.b`): the root name, then
/// one member per segment, ids in pre-order (the outermost member first), as the template
/// parser lowers `{{ .nodes.a.output.b }}`.
fn path_expr(path: &str) -> agc_runtime::expr::Expr {
    use agc_runtime::expr::{Expr, ExprKind};
    let segs: Vec<&str> = path.split('.').collect();
    let n = segs.len() as u32;
    let mut e = Expr {
        id: n - 1,
        kind: ExprKind::Ident {
            name: segs[0].to_string(),
        },
    };
    for (i, seg) in segs.iter().enumerate().skip(1) {
        e = Expr {
            id: n - 1 - i as u32,
            kind: ExprKind::Member {
                target: Box::new(e),
                field: (*seg).to_string(),
            },
        };
    }
    e
}

fn json_type(v: &Doc) -> &'static str {
    match v {
        Doc::Null => "null",
        Doc::Bool(_) => "boolean",
        Doc::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Doc::Number(_) => "number",
        Doc::String(_) => "string",
        Doc::Array(_) => "array",
        Doc::Object(_) => "object",
    }
}
