//! Topological order with the AGS tie-break (SPEC §17: topological, then declaration order).
//!
//! The flat IR has edges only inside a scope. The order is Kahn's algorithm with a min-heap on
//! the arena index (declaration order; bodies are lowered after their scope). Back
//! edges are ignored (they are bounded iteration, not ordering). `O((V + E) log V)`.

use crate::ir::{EdgeKind, Graph, NodeId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Nodes in execution order; `None` if the edges (other than back edges) have a cycle.
///
/// A region's body runs while its owner runs, so body nodes come after the owner and before the
/// owner's successors: each region gets a virtual "end" vertex (body nodes → end → successors
/// of the owner). Virtual vertices are popped first and never emitted.
pub fn topological(g: &Graph) -> Option<Vec<NodeId>> {
    let n = g.nodes.len();
    let total = n + g.regions.len();
    let mut indeg = vec![0u32; total];
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); total];
    let add = |out: &mut Vec<Vec<u32>>, indeg: &mut Vec<u32>, a: usize, b: usize| {
        out[a].push(b as u32);
        indeg[b] += 1;
    };
    for e in &g.edges {
        if e.kind == EdgeKind::Back {
            continue;
        }
        add(&mut out, &mut indeg, e.from.index(), e.to.index());
    }
    let mut owner_region: Vec<Option<usize>> = vec![None; n];
    for (ri, r) in g.regions.iter().enumerate() {
        owner_region[r.owner.index()] = Some(ri);
        for &m in &r.nodes {
            add(&mut out, &mut indeg, r.owner.index(), m.index());
            add(&mut out, &mut indeg, m.index(), n + ri);
        }
    }
    for e in &g.edges {
        if e.kind != EdgeKind::Back
            && let Some(ri) = owner_region[e.from.index()]
        {
            add(&mut out, &mut indeg, n + ri, e.to.index());
        }
    }
    // Key: (real vertex?, index): virtual vertices first, then declaration order.
    let key = |i: usize| Reverse((i < n, i as u32));
    let mut heap: BinaryHeap<Reverse<(bool, u32)>> =
        (0..total).filter(|&i| indeg[i] == 0).map(key).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse((real, i))) = heap.pop() {
        if real {
            order.push(NodeId(i));
        }
        for &j in &out[i as usize] {
            indeg[j as usize] -= 1;
            if indeg[j as usize] == 0 {
                heap.push(key(j as usize));
            }
        }
    }
    (order.len() == n).then_some(order)
}
/// Position of each node in `order` (inverse permutation).
pub fn positions(order: &[NodeId], n: usize) -> Vec<u32> {
    let mut pos = vec![u32::MAX; n];
    for (i, id) in order.iter().enumerate() {
        pos[id.index()] = i as u32;
    }
    pos
}
