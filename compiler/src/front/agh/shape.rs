//! Graph shape, per graph (the root and each `sub-loop` body): `cycle`, `unreachable_node`,
//! `non_terminating_structure` (upstream's `lintGraphShape`).
//!
//! - A cycle is reported at each node a depth-first search re-enters (each once). The search
//!   is iterative, so a 100k-node chain cannot overflow the stack.
//! - Roots are the `source` nodes; with none, every node when there are no edges, else the
//!   nodes with no incoming edge. Every node not reachable from them is `unreachable_node`.
//! - With no cycle, a graph where every node has an outgoing edge never terminates.

use super::lint::Linter;

impl Linter<'_> {
    pub(super) fn shape(&mut self, si: usize) {
        let scope = &self.scopes[si];
        if scope.nodes.is_empty() {
            // An empty body was reported at its sub-loop already.
            if scope.owner.is_none() {
                let ptr = format!("{}/nodes", scope.ptr);
                self.error(
                    "non_terminating_structure",
                    &ptr,
                    "the graph must declare at least one node".into(),
                );
            }
            return;
        }
        let (out, inc) = scope.adjacency();
        let n = scope.nodes.len();
        // Only the first node of a duplicated id takes part (as in upstream's index).
        let live: Vec<bool> = (0..n)
            .map(|i| scope.index.get(scope.nodes[i].id) == Some(&i))
            .collect();

        // Cycles: 0 = new, 1 = on the stack, 2 = done.
        let mut state = vec![0u8; n];
        let mut reported = vec![false; n];
        let mut has_cycle = false;
        for start in (0..n).filter(|&i| live[i]) {
            if state[start] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some(&mut (v, ref mut next)) = stack.last_mut() {
                if let Some(&w) = out[v].get(*next) {
                    *next += 1;
                    match state[w] {
                        0 => {
                            state[w] = 1;
                            stack.push((w, 0));
                        }
                        1 => {
                            has_cycle = true;
                            if !std::mem::replace(&mut reported[w], true) {
                                let d = self.error(
                                    "cycle",
                                    &scope.nodes[w].field("id"),
                                    format!("cycle detected at node `{}`", scope.nodes[w].id),
                                );
                                d.help = Some(format!(
                                    "the edge from `{}` leads back to it; agh graphs are DAGs \
and repeat through generations (`iteration_cap`) instead",
                                    scope.nodes[v].id
                                ));
                            }
                        }
                        _ => {}
                    }
                } else {
                    state[v] = 2;
                    stack.pop();
                }
            }
        }

        // Reachability from the roots.
        let sources: Vec<usize> = (0..n)
            .filter(|&i| live[i] && scope.nodes[i].class == "source")
            .collect();
        let roots: Vec<usize> = if !sources.is_empty() {
            sources
        } else if scope.edges.is_empty() {
            (0..n).filter(|&i| live[i]).collect()
        } else {
            (0..n).filter(|&i| live[i] && inc[i].is_empty()).collect()
        };
        let has_sources = scope.nodes.iter().any(|m| m.class == "source");
        let mut seen = vec![false; n];
        let mut queue = roots;
        while let Some(v) = queue.pop() {
            if std::mem::replace(&mut seen[v], true) {
                continue;
            }
            queue.extend(out[v].iter().copied().filter(|&w| !seen[w]));
        }
        for i in (0..n).filter(|&i| live[i] && !seen[i]) {
            let why = if has_sources {
                "from the graph's source nodes"
            } else {
                "from the nodes without incoming edges"
            };
            self.error(
                "unreachable_node",
                &scope.nodes[i].field("id"),
                format!("node `{}` is unreachable {why}", scope.nodes[i].id),
            );
        }

        // Edges to unknown nodes count as outgoing (upstream indexes them too).
        let mut has_out = vec![false; n];
        for e in &scope.edges {
            if let Some(&i) = scope.index.get(e.from) {
                has_out[i] = true;
            }
        }
        if !has_cycle && (0..n).all(|i| !live[i] || has_out[i]) {
            let ptr = format!("{}/nodes", scope.ptr);
            self.error(
                "non_terminating_structure",
                &ptr,
                "the graph has no terminal node: every node has an outgoing edge".into(),
            );
        }
    }
}
