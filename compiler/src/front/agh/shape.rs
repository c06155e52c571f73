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

        // Cycles: each node where a back edge closes one, once.
        let mut reported = vec![false; n];
        let mut has_cycle = false;
        let starts = (0..n).filter(|&i| live[i]);
        let succ = |v: usize| out[v].iter().map(|&w| (w, ()));
        crate::analysis::cycles::back_edges(n, starts, succ, |path, ()| {
            let (w, v) = (path[0], path[path.len() - 1]);
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
        });

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
        let seen = crate::analysis::cycles::reachable(n, roots, |v| out[v].iter().copied());
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
