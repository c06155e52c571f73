//! The subgraph dependency graph: cross-graph cycles (`graph-recursion`) and a children-first
//! order for closure digests. Iterative, so deep chains of subgraphs cannot exhaust the stack.

use crate::source::Span;

/// Each cycle once: the graph indices along it (first repeated at the end) and the span of the
/// subgraph call that closes it.
pub(super) fn cycles(deps: &[Vec<(usize, Span)>]) -> Vec<(Vec<usize>, Span)> {
    let mut out = Vec::new();
    let succ = |g: usize| deps[g].iter().copied();
    crate::analysis::cycles::back_edges(deps.len(), 0..deps.len(), succ, |path, at| {
        let mut cycle = path.to_vec();
        cycle.push(path[0]);
        out.push((cycle, at));
    });
    out
}

/// Every graph after all graphs it calls (the dependency graph must be acyclic).
pub(super) fn post_order(deps: &[Vec<(usize, Span)>]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut seen = vec![false; deps.len()];
    for start in 0..deps.len() {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        while let Some(&mut (g, ref mut next)) = stack.last_mut() {
            if let Some(&(c, _)) = deps[g].get(*next) {
                *next += 1;
                if !seen[c] {
                    seen[c] = true;
                    stack.push((c, 0));
                }
            } else {
                out.push(g);
                stack.pop();
            }
        }
    }
    out
}
