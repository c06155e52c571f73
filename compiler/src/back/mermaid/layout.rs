//! What a diagram draws, shared by the Mermaid and DOT writers: which nodes are visible, which
//! owners are drawn as containers of their region, and where a loop body starts and ends.

use crate::ir::{EdgeKind, Graph, NodeId, RegionId};

/// Which nodes are drawn, and how.
pub(crate) struct Layout {
    /// The members of each region (index `regions.len()` is the root), in node order.
    pub(crate) members: Vec<Vec<NodeId>>,
    /// For each node: the region it owns and draws as a container, when expanded.
    pub(crate) container: Vec<Option<RegionId>>,
    /// For each node: drawn at all (with `collapse`, region bodies are not).
    pub(crate) visible: Vec<bool>,
    /// For each node: it has a forward (not back, not self) edge to / from a node of its own
    /// region (where a loop's body starts and ends).
    pub(crate) forward_out: Vec<bool>,
    pub(crate) forward_in: Vec<bool>,
}

impl Layout {
    pub(crate) fn new(g: &Graph, collapse: bool) -> Layout {
        let root = g.regions.len();
        let mut members: Vec<Vec<NodeId>> = vec![Vec::new(); root + 1];
        for (i, n) in g.nodes.iter().enumerate() {
            let scope = n.region.map_or(root, |r| r.index()).min(root);
            members[scope].push(NodeId(i as u32));
        }
        let mut container = vec![None; g.nodes.len()];
        if !collapse {
            for (i, r) in g.regions.iter().enumerate() {
                // An empty body is drawn as a plain owner node (Mermaid has no empty boxes).
                if !members[i].is_empty() && r.owner.index() < g.nodes.len() {
                    container[r.owner.index()] = Some(RegionId(i as u32));
                }
            }
        }
        let visible = g
            .nodes
            .iter()
            .map(|n| !collapse || n.region.is_none())
            .collect();
        let mut forward_out = vec![false; g.nodes.len()];
        let mut forward_in = vec![false; g.nodes.len()];
        for e in &g.edges {
            let (Some(a), Some(b)) = (g.nodes.get(e.from.index()), g.nodes.get(e.to.index()))
            else {
                continue;
            };
            if e.kind != EdgeKind::Back && e.from != e.to && a.region == b.region {
                forward_out[e.from.index()] = true;
                forward_in[e.to.index()] = true;
            }
        }
        Layout {
            members,
            container,
            visible,
            forward_out,
            forward_in,
        }
    }
}

/// The body's last node (the last member with no forward edge to another member) and its first
/// (the region's first entry point, else the first member with no edge into it).
pub(crate) fn repetition(layout: &Layout, g: &Graph, r: RegionId) -> Option<(NodeId, NodeId)> {
    let members = &layout.members[r.index()];
    let inside = |n: &NodeId| g.nodes.get(n.index()).and_then(|x| x.region) == Some(r);
    let last = members
        .iter()
        .rev()
        .find(|n| !layout.forward_out[n.index()])?;
    let first = g
        .region(r)
        .entrypoints
        .iter()
        .find(|n| inside(n))
        .or_else(|| members.iter().find(|n| !layout.forward_in[n.index()]))
        .or(members.first())?;
    Some((*last, *first))
}
