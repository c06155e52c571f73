//! One node's lowering (its ports, guard, runtime expressions and attributes), apart from the
//! graph it joins: [`NodeLowerer`] reads only the document and the expression cache, so the
//! nodes of a large scope are lowered on several threads ([`lower_nodes`]) and then added to
//! the graph in the scope's order, which keeps node ids and plans as one thread makes them.

use super::decl::{declared, port_type, required};
use crate::front::ags::checker::ExprCache;
use crate::front::ags::checker::node_type;
use crate::front::ags::defaults::{self, merged};
use crate::front::ags::scope::Scope;
use crate::ir::{
    Decision, Estimate, ExprLang, Failure, Gate, HumanCheckpoint, Input, InputSource, IrExpr, Join,
    Node, NodeExtra, NodeKind, Output, RegionId, Retry, Success,
};
use crate::source::scalar::ScalarMap;
use crate::source::tree::escape_token;
use crate::source::{Cursor, Document, Field, Span, Walker};
use crate::source::{Map, Str, Value};
use std::cell::RefCell;
use std::sync::Mutex;

/// Runs of this many nodes or more are lowered on several threads.
pub(super) const PARALLEL_NODES: usize = 4096;

/// Nodes lowered before they are added to the graph: a bound on the lowered nodes held
/// outside the graph at once (a node is a few hundred bytes; all 100k of a 100k-node graph
/// held at once added 4% to the peak of its check, blocks of 8,192 nodes 3% at 10k).
pub(super) const BLOCK: usize = PARALLEL_NODES;

/// Reads one document's fields for lowering: pointer lookups through a [`Walker`] and parsed
/// expressions from the checks' cache (each *taken*, so it is held once; one not there is
/// parsed). One per thread; the cache is shared.
pub(super) struct NodeLowerer<'d> {
    doc: &'d Document,
    text: &'d str,
    cache: &'d Mutex<ExprCache>,
    walker: RefCell<Walker<'d>>,
}

impl<'d> NodeLowerer<'d> {
    pub(super) fn new(doc: &'d Document, text: &'d str, cache: &'d Mutex<ExprCache>) -> Self {
        NodeLowerer {
            doc,
            text,
            cache,
            walker: RefCell::new(Walker::new(doc)),
        }
    }

    /// The cursor at a pointer ([`Document::at`], walked from where the previous lookup
    /// parted).
    fn at(&self, ptr: &str) -> Option<Cursor<'d>> {
        self.walker.borrow_mut().at(ptr)
    }

    /// The value's span at a pointer ([`Document::span`]).
    pub(super) fn span(&self, ptr: &str) -> Span {
        match self.at(ptr) {
            Some(c) => c.node.span,
            None => self.doc.span(ptr),
        }
    }

    /// The key's span at a pointer, else the value's ([`Document::key_span`]).
    pub(super) fn key_span(&self, ptr: &str) -> Span {
        match self.at(ptr) {
            Some(c) => c.node.key().unwrap_or(c.node.span),
            None => self.doc.span(ptr),
        }
    }

    /// An expression field at `ptr`, with its core form (the document is checked, so it
    /// parses; a failure would only leave `core` empty).
    pub(super) fn expr(&self, lang: ExprLang, ptr: &str) -> Option<IrExpr> {
        let at = self.at(ptr)?;
        let (node, source) = (at.node, at.value.as_str()?);
        let template = lang == ExprLang::AgxTemplate;
        let key = (node.span.file, node.span.start, template);
        let cached = self
            .cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(&key);
        let core = match cached {
            Some(e) => Some(e),
            None => {
                let map = ScalarMap::for_scalar(self.text, node, source);
                match lang {
                    ExprLang::AgxTemplate => crate::expr::template::parse_template(source, &map),
                    _ => crate::expr::agx::parse_agx(source, &map),
                }
                .ok()
                .map(|(e, _)| e)
            }
        };
        Some(IrExpr {
            lang,
            source: source.into(),
            core: core.map(std::sync::Arc::new),
            span: node.span,
        })
    }

    /// One node of scope `s`, at `ptr`, as the IR holds it, with its span (the node's key).
    pub(super) fn node(
        &self,
        s: &Scope<'_>,
        local: &str,
        node: &Map,
        ptr: &str,
        scoped: String,
        region: Option<RegionId>,
    ) -> (Node, Span) {
        let ty = node_type(node);
        let kind = match ty {
            "decision" => NodeKind::Decision,
            "gate" => NodeKind::Gate,
            "loop" => NodeKind::Loop,
            "map" => NodeKind::Map,
            "subgraph" => NodeKind::Subgraph,
            _ => NodeKind::Task,
        };
        // Vectors sized exactly: a 100k-node graph holds hundreds of thousands of ports.
        let declared_inputs = node.field("inputs").and_then(Value::as_object);
        let mut inputs = Vec::with_capacity(declared_inputs.map_or(0, Map::len));
        for (name, spec) in declared_inputs.into_iter().flatten() {
            let iptr = format!("{ptr}/inputs/{}", escape_token(name));
            let source = if spec.field("from").is_some() {
                match self.expr(ExprLang::Agx, &format!("{iptr}/from")) {
                    Some(expr) => InputSource::Expr { expr },
                    None => InputSource::Implicit,
                }
            } else if spec.field("template").is_some() {
                match self.expr(ExprLang::AgxTemplate, &format!("{iptr}/template")) {
                    Some(template) => InputSource::Template { template },
                    None => InputSource::Implicit,
                }
            } else if let Some(v) = spec.field("value") {
                InputSource::Value {
                    value: v.to_json().into(),
                }
            } else {
                InputSource::Implicit
            };
            inputs.push(Input {
                name: name.clone(),
                ty: port_type(spec),
                required: required(spec),
                source,
                decl: declared(spec).into(),
            });
        }
        let declared_outputs = node.field("outputs").and_then(Value::as_object);
        let decides = matches!(kind, NodeKind::Decision | NodeKind::Gate);
        let mut outputs =
            Vec::with_capacity(declared_outputs.map_or(0, Map::len) + decides as usize);
        outputs.extend(
            declared_outputs
                .into_iter()
                .flatten()
                .map(|(name, spec)| Output {
                    name: name.clone(),
                    ty: port_type(spec),
                    required: required(spec),
                    decl: declared(spec).into(),
                }),
        );
        if decides {
            outputs.push(Output {
                name: "decision".into(),
                ty: "string".into(),
                required: true,
                decl: Default::default(),
            });
        }
        let join = match defaults::scalar(s, node, "join").and_then(Value::as_str) {
            Some("any") => Join::Any,
            // Checked: `n_of` without `join_count`, the node's own or through `defaults`,
            // is AG001 and never lowered; `u32::MAX` (a join that never fires) only keeps
            // lowering total rather than making up a count.
            Some("n_of") => Join::NOf {
                count: node
                    .field("join_count")
                    .and_then(Value::as_u64)
                    .map_or(u32::MAX, |n| u32::try_from(n).unwrap_or(u32::MAX)),
            },
            _ => Join::All,
        };
        let retry_block = defaults::field(s, node, "failure", "retry");
        let max_attempts = retry_block
            .and_then(|r| r.field("max_attempts"))
            .and_then(Value::as_u64)
            .unwrap_or(1) as u32;
        let retry = Retry {
            max_attempts,
            timeout_seconds: defaults::field(s, node, "constraints", "max_wall_clock_seconds")
                .and_then(Value::as_f64),
            // The delay between attempts, by AGS's rules (`Backoff::ags`), for a node that
            // may retry.
            backoff: (max_attempts > 1)
                .then(|| crate::ir::Backoff::ags(retry_block.map(|r| r.to_json()).as_ref())),
        };
        let est = node.field("estimate");
        let estimate = Estimate {
            cost_usd: est
                .and_then(|e| e.field("cost_usd"))
                .and_then(Value::as_f64),
            seconds: est
                .and_then(|e| e.field("wall_clock_seconds"))
                .and_then(Value::as_f64),
        };
        // Everything not modelled above, with defaults merged, kept losslessly: merged blocks
        // in the node's own key order, then blocks only the defaults set.
        const MERGED: [&str; 5] = [
            "intelligence",
            "requirements",
            "constraints",
            "failure",
            "human",
        ];
        // The failure ladder and the checkpoints are typed (`Failure`, `HumanCheckpoint`);
        // `attributes.failure` keeps only what the ladder does not hold, and `human` leaves.
        let failure_block = merged(s, node, "failure");
        let human_list = merged(s, node, "human");
        let block = |k: &str| match k {
            "failure" => failure_block.as_ref().and_then(Failure::residue),
            "human" => None,
            _ => merged(s, node, k),
        };
        let mut attrs = crate::ir::Attrs::new();
        for (k, v) in node {
            if MERGED.contains(&k.as_str()) {
                if let Some(m) = block(k) {
                    attrs.insert(k.clone(), m.into());
                }
            } else if !matches!(
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
                // The criteria, the decision and the gate are typed (`Success`,
                // `Decision`, `Gate`): `attributes.success` keeps only what the criteria do
                // not hold.
                match k.as_str() {
                    "success" => {
                        if let Some(rest) = Success::residue(&v.to_json()) {
                            attrs.insert(k.clone(), rest.into());
                        }
                    }
                    "decision" | "gate" => {}
                    _ => {
                        attrs.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        for k in MERGED {
            if !node.contains_key(k)
                && let Some(v) = block(k)
            {
                attrs.insert(k, v.into());
            }
        }
        let guard = node
            .field("when")
            .and_then(|_| self.expr(ExprLang::Agx, &format!("{ptr}/when")));
        let mut judged = self.runtime_exprs(node, ptr);
        let mut take = |key: &str| {
            let i = judged.iter().position(|(k, _)| k == key)?;
            Some(judged.swap_remove(i).1)
        };
        let success = node
            .field("success")
            .and_then(|b| Success::from_block(&b.to_json(), &mut take));
        let decision = node
            .field("decision")
            .and_then(|b| Decision::from_block(&b.to_json(), &mut take));
        let human = human_list.as_ref().and_then(|l| {
            let mut asked = self.checkpoint_exprs(s, node, ptr);
            HumanCheckpoint::list_from(l, |key| {
                let i = asked.iter().position(|(k, _)| k == key)?;
                Some(asked.swap_remove(i).1)
            })
        });
        let failure = failure_block.as_ref().and_then(|b| {
            let mut ladder = self.failure_exprs(s, node, ptr);
            Failure::from_block(b, |key| {
                let i = ladder.iter().position(|(k, _)| k == key)?;
                Some(ladder.swap_remove(i).1)
            })
        });
        let gate = node
            .field("gate")
            .and_then(|b| Gate::from_block(&b.to_json()));
        let span = self.key_span(ptr);
        (
            Node {
                scoped_id: scoped.into(),
                local_id: local.into(),
                kind,
                origin_kind: ty.into(),
                region,
                owns: None,
                inputs,
                outputs,
                title: node.field("title").and_then(Value::as_str).map(Box::from),
                guard: guard.map(Box::new),
                join,
                attrs,
                extra: NodeExtra {
                    retry,
                    failure: failure.map(Box::new),
                    human,
                    success: success.map(Box::new),
                    decision: decision.map(Box::new),
                    gate: gate.map(Box::new),
                    // What a `before_side_effects` checkpoint asks: the requirements stay
                    // in `attributes` for the handler.
                    side_effects: agc_runtime::plan::may_have_side_effects(
                        merged(s, node, "requirements").as_ref(),
                    ),
                    estimate,
                    ..NodeExtra::NONE
                }
                .into(),
            },
            span,
        )
    }
}

/// The nodes `entries` of scope `s` lowered ([`NodeLowerer::node`]), in order: from
/// [`PARALLEL_NODES`] nodes on, on up to `threads` threads (see [`in_parts`]).
pub(super) fn lower_nodes(
    reader: &NodeLowerer<'_>,
    s: &Scope<'_>,
    entries: &[(&Str, &Map)],
    prefix: &str,
    region: Option<RegionId>,
    threads: usize,
) -> Vec<(Node, Span)> {
    in_parts(reader, entries, threads, |nl, (local, node)| {
        let ptr = s.node_ptr(local);
        nl.node(s, local, node, &ptr, format!("{prefix}{local}"), region)
    })
}

/// `f` over `items` in order, with a [`NodeLowerer`] of the document: from [`PARALLEL_NODES`]
/// items on, cut into parts that up to `threads` threads take in turn, each with a lowerer of
/// its own, and joined in order (what one thread gives; compared in the tests).
pub(super) fn in_parts<T: Sync, R: Send>(
    reader: &NodeLowerer<'_>,
    items: &[T],
    threads: usize,
    f: impl Fn(&NodeLowerer<'_>, &T) -> R + Sync,
) -> Vec<R> {
    if threads < 2 || items.len() < PARALLEL_NODES {
        return items.iter().map(|x| f(reader, x)).collect();
    }
    let size = crate::beside::part_size(items.len(), threads, 1);
    let (doc, text, cache) = (reader.doc, reader.text, reader.cache);
    let (parts, ()) = crate::beside::parts(
        "agc-lower",
        items.chunks(size).collect(),
        threads,
        || NodeLowerer::new(doc, text, cache),
        |nl, part| part.iter().map(|x| f(nl, x)).collect::<Vec<_>>(),
        || (),
    );
    parts.into_iter().flatten().collect()
}

#[cfg(test)]
#[path = "lower_node_tests.rs"]
mod tests;
