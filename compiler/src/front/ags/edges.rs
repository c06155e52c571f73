//! The effective edge set of a scope (SPEC §17): explicit edges plus desugared `depends_on`,
//! deduplicated by `(from, to, kind, when)`; edges with unknown endpoints are left out (they
//! are reported as AG113/AG114).
//!
//! A scope computes its node index and effective edges once ([`Scope::graph`], defined here;
//! the types it fills are the scope's, in [`super::scope`]); every pass
//! (structure, expressions, advisories, lowering) reads that one copy. Pointers to an edge's
//! declaration are built only when a diagnostic or a span needs them ([`EffEdge::ptr`]).

use super::scope::{EffEdge, NodeIndex, Origin, Scope, ScopeGraph, strings};
use crate::hash::FastState;
use crate::source::Field;
use crate::source::Value;

impl<'a> Scope<'a> {
    /// The scope's node index and effective edges (computed once).
    pub fn graph(&self) -> &ScopeGraph<'a> {
        self.graph.get_or_init(|| scope_graph(self))
    }
}

/// Node ids of a scope in declaration order, with their index.
fn node_index<'a>(scope: &Scope<'a>) -> NodeIndex<'a> {
    let mut index = NodeIndex::with_capacity_and_hasher(scope.node_count(), FastState::default());
    index.extend(
        scope
            .nodes()
            .enumerate()
            .map(|(i, (id, _))| (id.as_str(), i)),
    );
    index
}

/// The node index and the effective edges of a scope, explicit edges first, then
/// `depends_on` in node order.
pub fn scope_graph<'a>(scope: &Scope<'a>) -> ScopeGraph<'a> {
    let index = node_index(scope);
    // Sized for the explicit edges and about two `depends_on` per node, so that a large
    // scope's set and list do not grow (and rehash) step by step. Endpoints are keyed by
    // their node's position, found once in the index, rather than hashed again as strings.
    let guess = scope.edges().count() + 2 * index.len();
    let mut seen: crate::hash::HashSet<(usize, usize, &str, Option<&str>)> =
        crate::hash::HashSet::with_capacity_and_hasher(guess, Default::default());
    let mut edges = Vec::with_capacity(guess);
    for (i, e) in scope.edges() {
        let (Some(from), Some(to)) = (
            e.field("from").and_then(Value::as_str),
            e.field("to").and_then(Value::as_str),
        ) else {
            continue;
        };
        let (Some(fi), Some(ti)) = (index.get_index_of(from), index.get_index_of(to)) else {
            continue;
        };
        let kind = e
            .field("kind")
            .and_then(Value::as_str)
            .unwrap_or("sequence");
        let when = e.field("when").and_then(Value::as_str);
        if seen.insert((fi, ti, kind, when)) {
            edges.push(EffEdge {
                from,
                to,
                kind,
                when,
                label: e.field("label").and_then(Value::as_str),
                origin: Origin::Edge(i),
                implicit: false,
            });
        }
    }
    for (ti, (id, node)) in scope.nodes().enumerate() {
        for (i, dep) in strings(node.field("depends_on")) {
            let Some(fi) = index.get_index_of(dep) else {
                continue;
            };
            if seen.insert((fi, ti, "sequence", None)) {
                edges.push(EffEdge {
                    from: dep,
                    to: id,
                    kind: "sequence",
                    when: None,
                    label: None,
                    origin: Origin::DependsOn(id, i),
                    implicit: true,
                });
            }
        }
    }
    ScopeGraph { index, edges }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::ags::scope::ScopeKind;
    use crate::source::{FileId, Limits};

    /// Explicit edges first, then `depends_on`; an edge is kept once per `(from, to, kind,
    /// when)`, so a `depends_on` repeating an explicit sequence edge adds nothing, while the
    /// same ends with another kind or condition stay; unknown ends are left out.
    #[test]
    fn effective_edges_are_deduplicated_by_ends_kind_and_condition() {
        let text = "nodes:\n  a: {}\n  b: {depends_on: [a, a, ghost]}\n  c: {depends_on: [b, a]}\n\
                    edges:\n  - {from: a, to: b}\n  - {from: a, to: b}\n  \
                    - {from: a, to: b, kind: conditional, when: 'x'}\n  \
                    - {from: a, to: b, kind: conditional, when: 'y'}\n  \
                    - {from: a, to: c, kind: on_failure}\n  - {from: ghost, to: c}\n";
        let doc = crate::source::yaml::load(FileId(0), text, 0, Limits::default())
            .doc
            .expect("loads");
        let root = doc.value.as_object().expect("a mapping");
        let scope = Scope::new(ScopeKind::Root, String::new(), root);
        let g = scope_graph(&scope);
        let got: Vec<_> = g
            .edges
            .iter()
            .map(|e| (e.from, e.to, e.kind, e.when, e.implicit))
            .collect();
        assert_eq!(
            got,
            [
                ("a", "b", "sequence", None, false),
                ("a", "b", "conditional", Some("x"), false),
                ("a", "b", "conditional", Some("y"), false),
                ("a", "c", "on_failure", None, false),
                ("b", "c", "sequence", None, true),
                ("a", "c", "sequence", None, true),
            ]
        );
        assert_eq!(g.index.get_index_of("c"), Some(2));
    }
}
