//! What a diagram draws, shared by the Mermaid and DOT writers: which nodes are visible, which
//! owners are drawn as containers of their region, the order a region's members are written
//! in, how a loop shows that it repeats, and the one walk over the nesting both writers use.
//!
//! Members are written in execution order (a topological order of their forward edges, node
//! order among the ready ones): Mermaid's layout (dagre) breaks cycles by a depth-first search
//! that starts at the first node written and anchors the edges into a box at its first member,
//! so writing a body's start first is what makes a loop read top-down.

use crate::ir::{EdgeKind, Graph, NodeId, RegionId, RegionKind};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Which nodes are drawn, and how.
pub(crate) struct Layout {
    /// The members of each region (index `regions.len()` is the root), in execution order.
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
        // With `collapse`, every region is folded but one that holds the whole graph (its
        // owner is the root's only node: an agh Loop's generations), which would fold the
        // diagram into a single box.
        let open: Vec<bool> = g
            .regions
            .iter()
            .map(|r| !collapse || (members[root].len() == 1 && members[root][0] == r.owner))
            .collect();
        let mut container = vec![None; g.nodes.len()];
        for (i, r) in g.regions.iter().enumerate() {
            // An empty body is drawn as a plain owner node (Mermaid has no empty boxes).
            if open[i] && !members[i].is_empty() && r.owner.index() < g.nodes.len() {
                container[r.owner.index()] = Some(RegionId(i as u32));
            }
        }
        let visible = g
            .nodes
            .iter()
            .map(|n| n.region.is_none_or(|r| open.get(r.index()) == Some(&true)))
            .collect();
        let mut forward_out = vec![false; g.nodes.len()];
        let mut forward_in = vec![false; g.nodes.len()];
        // Forward edges between members of one region, by source (for the execution order).
        let mut next: Vec<Vec<NodeId>> = vec![Vec::new(); g.nodes.len()];
        let mut indegree = vec![0usize; g.nodes.len()];
        for e in &g.edges {
            let (Some(a), Some(b)) = (g.nodes.get(e.from.index()), g.nodes.get(e.to.index()))
            else {
                continue;
            };
            if e.kind != EdgeKind::Back && e.from != e.to && a.region == b.region {
                forward_out[e.from.index()] = true;
                forward_in[e.to.index()] = true;
                next[e.from.index()].push(e.to);
                indegree[e.to.index()] += 1;
            }
        }
        for list in &mut members {
            *list = execution_order(list, &next, &mut indegree);
        }
        Layout {
            members,
            container,
            visible,
            forward_out,
            forward_in,
        }
    }

    /// Whether region `r` is drawn as a box.
    pub(crate) fn boxed(&self, g: &Graph, r: RegionId) -> bool {
        g.regions
            .get(r.index())
            .is_some_and(|x| self.container.get(x.owner.index()) == Some(&Some(r)))
    }
}

/// `members` in a topological order of the forward edges among them (node order among the
/// ready ones); members left on a cycle (none in a checked graph) follow in node order.
/// `indegree` counts forward edges into each node and is consumed.
fn execution_order(
    members: &[NodeId],
    next: &[Vec<NodeId>],
    indegree: &mut [usize],
) -> Vec<NodeId> {
    let mut ready: BinaryHeap<Reverse<NodeId>> = members
        .iter()
        .filter(|n| indegree[n.index()] == 0)
        .map(|&n| Reverse(n))
        .collect();
    let mut out = Vec::with_capacity(members.len());
    while let Some(Reverse(n)) = ready.pop() {
        out.push(n);
        for &m in &next[n.index()] {
            indegree[m.index()] -= 1;
            if indegree[m.index()] == 0 {
                ready.push(Reverse(m));
            }
        }
    }
    if out.len() < members.len() {
        let placed: std::collections::HashSet<NodeId> = out.iter().copied().collect();
        out.extend(members.iter().filter(|n| !placed.contains(n)));
    }
    out
}

/// How a drawn loop shows that it repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Repeat {
    /// A thick arrow from the body's last node back to its first.
    Back { last: NodeId, first: NodeId },
    /// A thick arrow from the loop's box back into itself: a body holding boxes of its own
    /// (a map, a subgraph) is laid out by Mermaid from its inner boxes' members first, so an
    /// arrow between two of its nodes would turn the loop upside down; one that leaves and
    /// re-enters the box takes no part in the order of the body.
    Around,
}

/// How loop region `r` repeats, when it is drawn as a box (the DOT writer always draws
/// [`Repeat::Back`], see [`repetition`]).
pub(crate) fn repeat(layout: &Layout, g: &Graph, r: RegionId) -> Option<Repeat> {
    if !matches!(g.regions.get(r.index())?.kind, RegionKind::Loop { .. }) || !layout.boxed(g, r) {
        return None;
    }
    let nested = layout.members[r.index()]
        .iter()
        .any(|n| layout.container[n.index()].is_some());
    if nested {
        return Some(Repeat::Around);
    }
    let (last, first) = repetition(layout, g, r)?;
    Some(Repeat::Back { last, first })
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

/// One step of [`walk`].
pub(crate) enum Visit {
    /// A drawn node that is not a box, at its nesting depth (1 at the root).
    Node(NodeId, usize),
    /// A box opens: its owner, region and depth.
    Open(NodeId, RegionId, usize),
    /// The box opened at this depth closes.
    Close(usize),
}

/// The visible nodes of the root, each box opened with its members inside it, in the order
/// they are written; an explicit stack (no recursion on nesting depth), and a region entered
/// once even if the IR were cyclic.
pub(crate) fn walk(g: &Graph, layout: &Layout, mut visit: impl FnMut(Visit)) {
    enum Step {
        Node(NodeId, usize),
        Close(usize),
    }
    let root = g.regions.len();
    let mut entered = vec![false; root + 1];
    entered[root] = true;
    let mut stack: Vec<Step> = layout.members[root]
        .iter()
        .rev()
        .map(|&n| Step::Node(n, 1))
        .collect();
    while let Some(step) = stack.pop() {
        let (n, depth) = match step {
            Step::Close(depth) => {
                visit(Visit::Close(depth));
                continue;
            }
            Step::Node(n, depth) => (n, depth),
        };
        if !layout.visible[n.index()] {
            continue;
        }
        match layout.container[n.index()] {
            Some(r) if !entered[r.index()] => {
                entered[r.index()] = true;
                visit(Visit::Open(n, r, depth));
                stack.push(Step::Close(depth));
                for &m in layout.members[r.index()].iter().rev() {
                    stack.push(Step::Node(m, depth + 1));
                }
            }
            _ => visit(Visit::Node(n, depth)),
        }
    }
}
