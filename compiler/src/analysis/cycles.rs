//! The graph-shape questions every front end asks of its own graph before there is an IR:
//! which nodes are reachable, which edges close a cycle, which nodes and edges lie on one. One
//! copy, used by every dialect (AGS AG111, AG131, AG903; Agent Graph `graph-flow-cycle`,
//! `graph-recursion`; agh `cycle`, `unreachable_node`; AWP AGC240, `branch-not-converging`
//! and its unbounded back edges), each of which reports in its own words and codes.
//!
//! Nodes are `0..n`; successors are given per node, in the order the dialect wants findings in.
//! Every function is iterative (an explicit stack: no recursion over graph depth) and linear in
//! nodes + edges.

use petgraph::algo::kosaraju_scc;
use petgraph::graph::DiGraph;

/// Which of the `n` nodes some path from `starts` reaches (the starts included).
pub fn reachable<I>(
    n: usize,
    starts: impl IntoIterator<Item = usize>,
    succ: impl Fn(usize) -> I,
) -> Vec<bool>
where
    I: IntoIterator<Item = usize>,
{
    let mut seen = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    for s in starts {
        if !std::mem::replace(&mut seen[s], true) {
            stack.push(s);
        }
    }
    while let Some(v) = stack.pop() {
        for w in succ(v) {
            if !std::mem::replace(&mut seen[w], true) {
                stack.push(w);
            }
        }
    }
    seen
}

/// Every back edge of a depth-first search: from each of `starts` not yet visited, in order,
/// following each node's successors in order. For an edge `(to, e)` from the node being
/// visited to one still on the search path, `found(path, e)` gets the path from `to` to that
/// node (so `path[0]` is `to` and `path.last()` the edge's source): each cycle of the graph
/// closes at least one such edge, and each back edge is reported once.
pub fn back_edges<I, E>(
    n: usize,
    starts: impl IntoIterator<Item = usize>,
    succ: impl Fn(usize) -> I,
    mut found: impl FnMut(&[usize], E),
) where
    I: IntoIterator<Item = (usize, E)>,
{
    // A node on the path holds its place on it, so a cycle's start is found without a search;
    // a finished node holds `DONE`, an unseen one `NEW`.
    const DONE: usize = usize::MAX;
    const NEW: usize = usize::MAX - 1;
    let mut state = vec![NEW; n];
    let mut path: Vec<usize> = Vec::new();
    for start in starts {
        if state[start] != NEW {
            continue;
        }
        state[start] = 0;
        path.push(start);
        let mut stack = vec![succ(start).into_iter()];
        while let Some(next) = stack.last_mut() {
            match next.next() {
                Some((to, e)) => match state[to] {
                    NEW => {
                        state[to] = path.len();
                        path.push(to);
                        stack.push(succ(to).into_iter());
                    }
                    DONE => {}
                    at => found(&path[at..], e),
                },
                None => {
                    stack.pop();
                    if let Some(v) = path.pop() {
                        state[v] = DONE;
                    }
                }
            }
        }
    }
}

/// The nodes that lie on a cycle, grouped by strongly connected component: every component of
/// more than one node, and every node with an edge to itself. Each component's nodes are
/// sorted, and the components by their first node.
pub fn cyclic_components(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut g: DiGraph<(), (), u32> = DiGraph::with_capacity(n, edges.len());
    for _ in 0..n {
        g.add_node(());
    }
    let mut self_loop = vec![false; n];
    for &(a, b) in edges {
        g.add_edge((a as u32).into(), (b as u32).into(), ());
        if a == b {
            self_loop[a] = true;
        }
    }
    let mut out: Vec<Vec<usize>> = kosaraju_scc(&g)
        .into_iter()
        .map(|c| {
            let mut c: Vec<usize> = c.into_iter().map(|v| v.index()).collect();
            c.sort_unstable();
            c
        })
        .filter(|c| c.len() > 1 || self_loop[c[0]])
        .collect();
    out.sort_unstable();
    out
}

/// The edges that lie on a cycle: `cyclic_components(n, edges)`, and for each edge the index
/// there of the component it stays inside (None for an edge between components, which no
/// cycle passes through).
pub fn edges_on_cycles(
    n: usize,
    edges: &[(usize, usize)],
) -> (Vec<Vec<usize>>, Vec<Option<usize>>) {
    let components = cyclic_components(n, edges);
    let mut of = vec![None; n];
    for (c, members) in components.iter().enumerate() {
        for &v in members {
            of[v] = Some(c);
        }
    }
    let on = edges
        .iter()
        .map(|&(a, b)| of[a].filter(|_| of[a] == of[b]))
        .collect();
    (components, on)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); n];
        for &(a, b) in edges {
            out[a].push(b);
        }
        out
    }

    #[test]
    fn reachable_follows_edges_from_every_start() {
        let out = lists(5, &[(0, 1), (1, 2), (3, 4)]);
        let seen = reachable(5, [0], |v| out[v].clone());
        assert_eq!(seen, [true, true, true, false, false]);
        let seen = reachable(5, [3, 0, 3], |v| out[v].clone());
        assert_eq!(seen, [true; 5]);
    }

    #[test]
    fn back_edges_give_each_cycle_path_once() {
        // 0 → 1 → 2 → 0 and 2 → 2; 3 → 1 reaches the cycle without closing one.
        let edges = [(0, 1), (1, 2), (2, 0), (2, 2), (3, 1)];
        let out: Vec<Vec<(usize, usize)>> = {
            let mut o = vec![Vec::new(); 4];
            for (i, &(a, b)) in edges.iter().enumerate() {
                o[a].push((b, i));
            }
            o
        };
        let mut found = Vec::new();
        back_edges(
            4,
            0..4,
            |v| out[v].clone(),
            |p, e| found.push((p.to_vec(), e)),
        );
        assert_eq!(found, [(vec![0, 1, 2], 2), (vec![2], 3)]);
    }

    #[test]
    fn a_deep_chain_does_not_exhaust_the_stack() {
        let n = 200_000;
        let mut found = 0;
        back_edges(
            n,
            [0],
            |v| {
                (v + 1 < n)
                    .then_some((v + 1, ()))
                    .into_iter()
                    .chain((v + 1 == n).then_some((0, ())))
            },
            |p, ()| {
                assert_eq!(p.len(), n);
                found += 1;
            },
        );
        assert_eq!(found, 1);
        assert!(reachable(n, [0], |v| (v + 1 < n).then_some(v + 1))[n - 1]);
    }

    #[test]
    fn cyclic_components_are_sorted_with_self_loops() {
        let c = cyclic_components(6, &[(4, 3), (3, 4), (1, 1), (0, 2), (5, 0)]);
        assert_eq!(c, [vec![1], vec![3, 4]]);
    }

    #[test]
    fn edges_on_cycles_stay_inside_one_component() {
        // 3 ⇄ 4 and 1 → 1 are cycles; 4 → 1 joins two of them, 0 → 2 and 5 → 0 none.
        let edges = [(4, 3), (3, 4), (1, 1), (0, 2), (5, 0), (4, 1)];
        let (c, on) = edges_on_cycles(6, &edges);
        assert_eq!(c, [vec![1], vec![3, 4]]);
        assert_eq!(on, [Some(1), Some(1), Some(0), None, None, None]);
    }
}
