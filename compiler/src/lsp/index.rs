//! What a check tells about the nodes of the document it checked, kept for the requests:
//! each node's ids, kind, title, ports with their types, place in the file and enclosing
//! region, from the lowered IR ([`crate::ir::Graph`] and its span side table).
//!
//! The IR exists only for a document that checks without errors, so the outline, hover on a
//! node and go to definition answer for such a document; while it has errors they answer
//! nothing rather than from a stale check whose byte offsets no longer match the text.

use crate::ir::{Graph, NodeKind};
use crate::source::FileId;

/// One node of the document, in IR order.
#[derive(Clone, Debug)]
pub struct NodeInfo {
    pub scoped_id: String,
    pub local_id: String,
    pub kind: NodeKind,
    /// The dialect's own name for the kind.
    pub origin_kind: String,
    pub title: Option<String>,
    /// `(name, type, required)`.
    pub inputs: Vec<(String, String, bool)>,
    pub outputs: Vec<(String, String, bool)>,
    /// The node's bytes in the document.
    pub start: usize,
    pub end: usize,
    /// The node owning the region this node is in (an index into [`Index::nodes`]).
    pub parent: Option<usize>,
}

/// The nodes of one checked document.
#[derive(Clone, Debug, Default)]
pub struct Index {
    pub nodes: Vec<NodeInfo>,
}

impl Index {
    /// The nodes of `graphs` written in `file` (a node pulled in from another file, a
    /// `subgraph.ref` body, is not in this document).
    pub fn new<'g>(graphs: impl IntoIterator<Item = &'g Graph>, file: FileId) -> Index {
        let mut nodes = Vec::new();
        for g in graphs {
            let base = nodes.len();
            // IR node id → index in `nodes`, for the parents.
            let mut at = vec![None; g.nodes.len()];
            for (i, n) in g.nodes.iter().enumerate() {
                let span = g.spans.nodes[i];
                if span.file != file {
                    continue;
                }
                at[i] = Some(nodes.len());
                let ports = |ps: &mut dyn Iterator<Item = (String, String, bool)>| ps.collect();
                nodes.push(NodeInfo {
                    scoped_id: n.scoped_id.to_string(),
                    local_id: n.local_id.to_string(),
                    kind: n.kind,
                    origin_kind: n.origin_kind.to_string(),
                    title: n.title.as_deref().map(str::to_string),
                    inputs: ports(
                        &mut n
                            .inputs
                            .iter()
                            .map(|p| (p.name.to_string(), p.ty.to_string(), p.required)),
                    ),
                    outputs: ports(
                        &mut n
                            .outputs
                            .iter()
                            .map(|p| (p.name.to_string(), p.ty.to_string(), p.required)),
                    ),
                    start: span.start as usize,
                    end: span.end as usize,
                    parent: None,
                });
            }
            for (i, n) in g.nodes.iter().enumerate() {
                let (Some(me), Some(r)) = (at[i], n.region) else {
                    continue;
                };
                let owner = g.regions[r.index()].owner.index();
                nodes[me].parent = at.get(owner).copied().flatten();
            }
            debug_assert!(nodes[base..].iter().all(|n| n.start <= n.end));
        }
        Index { nodes }
    }

    /// The innermost node whose bytes hold `offset`.
    pub fn node_at(&self, offset: usize) -> Option<&NodeInfo> {
        self.nodes
            .iter()
            .filter(|n| n.start <= offset && offset < n.end.max(n.start + 1))
            .min_by_key(|n| n.end - n.start)
    }

    /// The nodes whose id (local or scoped) is `word`, in IR order.
    pub fn named<'a>(&'a self, word: &'a str) -> impl Iterator<Item = &'a NodeInfo> + 'a {
        self.nodes
            .iter()
            .filter(move |n| n.local_id == word || n.scoped_id == word)
    }
}
