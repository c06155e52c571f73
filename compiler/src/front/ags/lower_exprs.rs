//! The expressions lowering keeps for the runtime beyond a node's guard (`ir::Node::exprs`):
//! success criteria, expression-evaluated decision branches, and the human checkpoints' and
//! failure ladder's conditions and templates.

use super::node::NodeLowerer;
use crate::front::ags::defaults;
use crate::front::ags::scope::Scope;
use crate::ir::{ExprLang, IrExpr};
use crate::source::Field;
use crate::source::{Map, Value};

impl NodeLowerer<'_> {
    /// The expressions the runtime evaluates besides the guard (see `ir::Node::exprs`):
    /// `expression` criteria, `regex` criteria targets, and decision branch conditions under
    /// `evaluator: expression`.
    pub(super) fn runtime_exprs(&self, node: &Map, ptr: &str) -> Vec<(String, IrExpr)> {
        let mut out = Vec::new();
        let criteria = node
            .field("success")
            .and_then(|s| s.field("criteria"))
            .and_then(Value::as_array);
        for (i, c) in criteria.into_iter().flatten().enumerate() {
            let Some(id) = c.field("id").and_then(Value::as_str) else {
                continue;
            };
            let cptr = format!("{ptr}/success/criteria/{i}");
            match c.field("kind").and_then(Value::as_str) {
                Some("expression") if c.field("expr").is_some() => {
                    if let Some(e) = self.expr(ExprLang::Agx, &format!("{cptr}/expr")) {
                        out.push((format!("criteria.{id}"), e));
                    }
                }
                Some("regex") if c.field("target").is_some() => {
                    if let Some(e) = self.expr(ExprLang::Agx, &format!("{cptr}/target")) {
                        out.push((format!("criteria.{id}.target"), e));
                    }
                }
                _ => {}
            }
        }
        let decision = node.field("decision");
        if decision
            .and_then(|d| d.field("evaluator"))
            .and_then(Value::as_str)
            == Some("expression")
        {
            let branches = decision
                .and_then(|d| d.field("branches"))
                .and_then(Value::as_array);
            for (i, b) in branches.into_iter().flatten().enumerate() {
                if let (Some(label), Some(_)) =
                    (b.field("label").and_then(Value::as_str), b.field("when"))
                    && let Some(e) =
                        self.expr(ExprLang::Agx, &format!("{ptr}/decision/branches/{i}/when"))
                {
                    out.push((format!("branches.{label}"), e));
                }
            }
        }
        out
    }

    /// The expressions of a node's human checkpoints, with defaults merged (so read where
    /// the merged value came from: the node, or its scope's `defaults`), by the keys
    /// `agc_runtime::plan::HumanCheckpoint::list_from` asks for: `human.<i>.when`,
    /// `human.<i>.prompt`.
    pub(super) fn checkpoint_exprs(
        &self,
        s: &Scope<'_>,
        node: &Map,
        ptr: &str,
    ) -> Vec<(String, IrExpr)> {
        let mut out = Vec::new();
        let dflt = format!("{}/defaults", s.ptr);
        // `human` is replaced whole (so the node's, else the default's: what
        // `defaults::scalar` reads).
        let human_ptr = if node.contains_key("human") {
            format!("{ptr}/human")
        } else {
            format!("{dflt}/human")
        };
        if let Some(Value::Array(list)) = defaults::scalar(s, node, "human") {
            for (i, h) in list.iter().enumerate() {
                for (field, lang) in [("when", ExprLang::Agx), ("prompt", ExprLang::AgxTemplate)] {
                    if h.field(field).is_some()
                        && let Some(e) = self.expr(lang, &format!("{human_ptr}/{i}/{field}"))
                    {
                        out.push((format!("human.{i}.{field}"), e));
                    }
                }
            }
        }
        out
    }

    /// The expressions of a node's failure ladder, with defaults merged (read where the
    /// merged value came from, as [`Self::checkpoint_exprs`]), by the keys
    /// `agc_runtime::plan::Failure::from_block` asks for: `fallback.<i>.when`,
    /// `escalation.message`.
    pub(super) fn failure_exprs(
        &self,
        s: &Scope<'_>,
        node: &Map,
        ptr: &str,
    ) -> Vec<(String, IrExpr)> {
        let mut out = Vec::new();
        let dflt = format!("{}/defaults", s.ptr);
        // `failure` merges key by key.
        let failure_ptr = |key: &str| {
            if node.field("failure").and_then(|f| f.field(key)).is_some() {
                format!("{ptr}/failure/{key}")
            } else {
                format!("{dflt}/failure/{key}")
            }
        };
        if let Some(Value::Array(steps)) = defaults::field(s, node, "failure", "fallback") {
            let at = failure_ptr("fallback");
            for (i, step) in steps.iter().enumerate() {
                if step.field("when").is_some()
                    && let Some(e) = self.expr(ExprLang::Agx, &format!("{at}/{i}/when"))
                {
                    out.push((format!("fallback.{i}.when"), e));
                }
            }
        }
        if let Some(esc) = defaults::field(s, node, "failure", "escalation")
            && esc.field("message").is_some()
            && let Some(e) = self.expr(
                ExprLang::AgxTemplate,
                &format!("{}/message", failure_ptr("escalation")),
            )
        {
            out.push(("escalation.message".into(), e));
        }
        out
    }
}
