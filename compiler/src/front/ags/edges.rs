//! The effective edge set of a scope (SPEC §17): explicit edges plus desugared `depends_on`,
//! deduplicated by `(from, to, kind, when)`; edges with unknown endpoints are left out (they
//! are reported as AG113/AG114).

use super::scope::{Scope, strings};
use crate::source::tree::escape_token;
use indexmap::IndexMap;
use serde_json::Value;

#[derive(Clone, Debug)]
pub struct EffEdge<'a> {
    pub from: &'a str,
    pub to: &'a str,
    /// `sequence`, `conditional` or `on_failure`.
    pub kind: &'a str,
    pub when: Option<&'a str>,
    pub label: Option<&'a str>,
    /// Pointer to the explicit edge, or to the `depends_on` item.
    pub ptr: String,
    pub implicit: bool,
}

/// Node ids of a scope in declaration order, with their index.
pub fn node_index<'a>(scope: &Scope<'a>) -> IndexMap<&'a str, usize> {
    scope
        .nodes()
        .enumerate()
        .map(|(i, (id, _))| (id.as_str(), i))
        .collect()
}

/// The effective edges of a scope, explicit edges first, then `depends_on` in node order.
pub fn effective<'a>(scope: &Scope<'a>) -> Vec<EffEdge<'a>> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (i, e) in scope.edges() {
        let (Some(from), Some(to)) = (
            e.get("from").and_then(Value::as_str),
            e.get("to").and_then(Value::as_str),
        ) else {
            continue;
        };
        if !scope.has_node(from) || !scope.has_node(to) {
            continue;
        }
        let kind = e.get("kind").and_then(Value::as_str).unwrap_or("sequence");
        let when = e.get("when").and_then(Value::as_str);
        if seen.insert((from, to, kind, when)) {
            out.push(EffEdge {
                from,
                to,
                kind,
                when,
                label: e.get("label").and_then(Value::as_str),
                ptr: format!("{}/edges/{i}", scope.ptr),
                implicit: false,
            });
        }
    }
    for (id, node) in scope.nodes() {
        for (i, dep) in strings(node.get("depends_on")) {
            if !scope.has_node(dep) {
                continue;
            }
            if seen.insert((dep, id.as_str(), "sequence", None)) {
                out.push(EffEdge {
                    from: dep,
                    to: id,
                    kind: "sequence",
                    when: None,
                    label: None,
                    ptr: format!("{}/nodes/{}/depends_on/{i}", scope.ptr, escape_token(id)),
                    implicit: true,
                });
            }
        }
    }
    out
}
