//! The subgraph dependency graph: cross-graph cycles (`graph-recursion`) and a children-first
//! order for closure digests. Iterative, so deep chains of subgraphs cannot exhaust the stack.

use crate::source::Span;

/// Each cycle once: the graph indices along it (first repeated at the end) and the span of the
/// subgraph call that closes it.
pub(super) fn cycles(deps: &[Vec<(usize, Span)>]) -> Vec<(Vec<usize>, Span)> {
    let mut out = Vec::new();
    let mut state = vec![0u8; deps.len()]; // 0 new, 1 on the stack, 2 done
    for start in 0..deps.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some(&mut (g, ref mut next)) = stack.last_mut() {
            if let Some(&(c, at)) = deps[g].get(*next) {
                *next += 1;
                match state[c] {
                    1 => {
                        let from = stack.iter().position(|(x, _)| *x == c).unwrap_or(0);
                        let mut cycle: Vec<usize> = stack[from..].iter().map(|(x, _)| *x).collect();
                        cycle.push(c);
                        out.push((cycle, at));
                    }
                    0 => {
                        state[c] = 1;
                        stack.push((c, 0));
                    }
                    _ => {}
                }
            } else {
                state[g] = 2;
                stack.pop();
            }
        }
    }
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
