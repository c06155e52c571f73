//! Predecessor queries for the AGS predecessor rule (AG201): "is X a transitive predecessor of
//! R?", answered for many `(R, X)` pairs at once without per-node reachability sets.
//!
//! 1. Topological positions reject most impossible pairs at once: X must come before R.
//! 2. A direct edge X → R answers most real reads (a node reading what it depends on).
//! 3. A small backward search from R, pruned to nodes positioned at or after X, with a visit
//!    budget, settles local reads.
//! 4. The rest are answered by forward bitset propagation in topological order, 64 targets per
//!    pass: `O((V + E) · T / 64)` for `T` distinct remaining targets, with one `u64` per node.
//!
//! Back edges are ignored (they are bounded iteration, and never make a read safe).

use crate::ir::{EdgeKind, Graph, NodeId};
use std::collections::{HashMap, HashSet};

const SEARCH_BUDGET: usize = 256;

/// For each query `(reader, target)`, whether `target` is a transitive predecessor of `reader`
/// in the IR (back edges ignored). `order` is a topological order of all nodes.
pub fn are_predecessors(g: &Graph, order: &[NodeId], queries: &[(NodeId, NodeId)]) -> Vec<bool> {
    let edges: Vec<(u32, u32)> = g
        .edges
        .iter()
        .filter(|e| e.kind != EdgeKind::Back)
        .map(|e| (e.from.0, e.to.0))
        .collect();
    answer(g.nodes.len(), &edges, order, queries)
}

/// The same over a plain edge list of `n` vertices. `None` when the edges have a cycle.
pub fn are_predecessors_in(
    n: usize,
    edges: &[(u32, u32)],
    queries: &[(NodeId, NodeId)],
) -> Option<Vec<bool>> {
    let mut indeg = vec![0u32; n];
    let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(a, b) in edges {
        succ[a as usize].push(b);
        indeg[b as usize] += 1;
    }
    let mut ready: Vec<u32> = (0..n as u32).filter(|&i| indeg[i as usize] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(v) = ready.pop() {
        order.push(NodeId(v));
        for &w in &succ[v as usize] {
            indeg[w as usize] -= 1;
            if indeg[w as usize] == 0 {
                ready.push(w);
            }
        }
    }
    (order.len() == n).then(|| answer(n, edges, &order, queries))
}

fn answer(
    n: usize,
    edges: &[(u32, u32)],
    order: &[NodeId],
    queries: &[(NodeId, NodeId)],
) -> Vec<bool> {
    let pos = super::order::positions(order, n);
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(a, b) in edges {
        preds[b as usize].push(a);
        succs[a as usize].push(b);
    }
    // Sorted, so that step 2 is a binary search: a node of 100k predecessors read 100k times
    // would otherwise cost the product. The order of a node's predecessors changes which
    // reads the budgeted search settles, never an answer (step 4 is exact).
    for p in &mut preds {
        p.sort_unstable();
    }
    let mut answer = vec![false; queries.len()];
    let mut deferred: Vec<usize> = Vec::new();
    let mut visited: HashSet<u32> = HashSet::new();
    for (qi, &(r, x)) in queries.iter().enumerate() {
        if pos[x.index()] >= pos[r.index()] {
            continue;
        }
        if preds[r.index()].binary_search(&x.0).is_ok() {
            answer[qi] = true;
            continue;
        }
        // Pruned backward search with a budget.
        visited.clear();
        let floor = pos[x.index()];
        let mut stack = vec![r.0];
        let mut found = false;
        let mut exhausted = true;
        while let Some(v) = stack.pop() {
            for &p in &preds[v as usize] {
                if p == x.0 {
                    found = true;
                    break;
                }
                if pos[p as usize] > floor && visited.insert(p) {
                    stack.push(p);
                }
            }
            if found {
                break;
            }
            if visited.len() > SEARCH_BUDGET {
                exhausted = false;
                break;
            }
        }
        if found {
            answer[qi] = true;
        } else if !exhausted {
            deferred.push(qi);
        }
    }
    if deferred.is_empty() {
        return answer;
    }
    // Distinct targets, in topological order, 64 per pass.
    let mut targets: Vec<NodeId> = deferred.iter().map(|&qi| queries[qi].1).collect();
    targets.sort_by_key(|t| pos[t.index()]);
    targets.dedup();
    let slot: HashMap<NodeId, usize> = targets.iter().enumerate().map(|(i, t)| (*t, i)).collect();
    let mut by_chunk: Vec<Vec<usize>> = vec![Vec::new(); targets.len().div_ceil(64)];
    for &qi in &deferred {
        by_chunk[slot[&queries[qi].1] / 64].push(qi);
    }
    let mut bits = vec![0u64; n];
    for (chunk_no, chunk) in targets.chunks(64).enumerate() {
        bits.iter_mut().for_each(|b| *b = 0);
        for (i, t) in chunk.iter().enumerate() {
            bits[t.index()] |= 1 << i;
        }
        let start = pos[chunk[0].index()] as usize;
        for &v in &order[start..] {
            let b = bits[v.index()];
            if b != 0 {
                for &s in &succs[v.index()] {
                    bits[s as usize] |= b;
                }
            }
        }
        for &qi in &by_chunk[chunk_no] {
            let (r, x) = queries[qi];
            // A target's own bit is set on itself; only strict successors count.
            answer[qi] = r != x && bits[r.index()] & (1 << (slot[&x] % 64)) != 0;
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Edge, EdgeKind, Node, NodeKind, Outcome, Outcomes};
    use crate::source::Span;

    fn graph(n: usize, edges: &[(u32, u32)]) -> Graph {
        let mut g = Graph::new("test", "g".into());
        for i in 0..n {
            g.add_node(
                Node::bare(format!("n{i}"), format!("n{i}"), NodeKind::Task, "task"),
                Span::default(),
            );
        }
        for &(a, b) in edges {
            g.add_edge(
                Edge {
                    from: NodeId(a),
                    to: NodeId(b),
                    kind: EdgeKind::Sequence,
                    outcomes: Outcomes::from([Outcome::Succeeded]),
                    guard: None,
                    order: None,
                    bound: None,
                    implicit: false,
                    label: None,
                    on: vec![],
                },
                Span::default(),
            );
        }
        g
    }

    /// Naive reachability, for comparison.
    fn reaches(n: usize, edges: &[(u32, u32)], from: u32, to: u32) -> bool {
        let mut seen = vec![false; n];
        let mut stack = vec![from];
        while let Some(v) = stack.pop() {
            for &(a, b) in edges {
                if a == v && !seen[b as usize] {
                    seen[b as usize] = true;
                    stack.push(b);
                }
            }
        }
        seen[to as usize]
    }

    #[test]
    fn agrees_with_naive_reachability_on_pseudo_random_dags() {
        let mut state = 0x9e3779b97f4a7c15u64;
        let mut rnd = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for n in [2usize, 10, 70, 400] {
            let mut edges = Vec::new();
            for to in 1..n as u32 {
                for _ in 0..(rnd() % 3) {
                    edges.push(((rnd() % to as u64) as u32, to));
                }
            }
            let g = graph(n, &edges);
            let order = crate::analysis::order::topological(&g).unwrap();
            let queries: Vec<(NodeId, NodeId)> = (0..2000)
                .map(|_| {
                    (
                        NodeId((rnd() % n as u64) as u32),
                        NodeId((rnd() % n as u64) as u32),
                    )
                })
                .collect();
            let got = are_predecessors(&g, &order, &queries);
            let plain = are_predecessors_in(n, &edges, &queries).expect("acyclic");
            assert_eq!(got, plain, "the IR and edge-list forms agree");
            for (q, ans) in queries.iter().zip(got) {
                let want = q.0 != q.1 && reaches(n, &edges, q.1.0, q.0.0);
                assert_eq!(ans, want, "n={n} query {q:?}");
            }
        }
    }

    #[test]
    fn long_chains_use_the_bitset_pass() {
        // A chain longer than the search budget: reading the first node from the last.
        let n = 2000;
        let edges: Vec<(u32, u32)> = (1..n as u32).map(|i| (i - 1, i)).collect();
        let g = graph(n, &edges);
        let order = crate::analysis::order::topological(&g).unwrap();
        let last = NodeId(n as u32 - 1);
        let got = are_predecessors(
            &g,
            &order,
            &[(last, NodeId(0)), (NodeId(0), last), (last, last)],
        );
        assert_eq!(got, [true, false, false]);
    }
}

#[cfg(test)]
mod cycle_tests {
    #[test]
    fn cyclic_edge_lists_give_none() {
        assert!(super::are_predecessors_in(2, &[(0, 1), (1, 0)], &[]).is_none());
    }
}
