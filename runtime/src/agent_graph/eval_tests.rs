//! The incremental fixpoint against upstream's loop written out literally, on random
//! graphs: the same nodes reached in the same order, the same outcomes, the same settle
//! order.
use super::*;
use crate::agent_graph::model::Edge;
use proptest::prelude::*;

const OUTCOMES: [&str; 4] = ["completed", "failed", "partial", "pending"];

/// Upstream's `evaluateFrame` loop, as §5.3 of the research note gives it.
fn literal(
    graph: &Graph,
    index: &HashMap<&str, usize>,
    entry: usize,
    mut settle: impl FnMut(usize) -> Outcome,
) -> (IndexSet<usize>, Vec<Option<Outcome>>) {
    let mut reached = IndexSet::new();
    reached.insert(entry);
    let mut outcomes: Vec<Option<Outcome>> = vec![None; graph.nodes.len()];
    let mut changed = true;
    while changed {
        changed = false;
        let snapshot: Vec<usize> = reached.iter().copied().collect();
        for n in snapshot {
            if outcomes[n].is_none() {
                outcomes[n] = Some(settle(n));
                changed = true;
            }
        }
        for e in graph.edges.iter().filter(|e| e.is_repeat()) {
            let (from, to) = (index[e.from.as_str()], index[e.to.as_str()]);
            if !reached.contains(&from) || !edge_matches(outcomes[from].as_ref(), &e.outcomes) {
                continue;
            }
            if reached.insert(to) {
                changed = true;
            }
            if outcomes[to].as_deref() != Some("pending") {
                outcomes[to] = Some("pending".to_string());
                changed = true;
            }
        }
        for (n, node) in graph.nodes.iter().enumerate() {
            let incoming: Vec<&Edge> = graph
                .edges
                .iter()
                .filter(|e| !e.is_repeat() && index[e.to.as_str()] == n)
                .collect();
            if reached.contains(&n) || incoming.is_empty() {
                continue;
            }
            let m: Vec<bool> = incoming
                .iter()
                .map(|e| {
                    let from = index[e.from.as_str()];
                    reached.contains(&from) && edge_matches(outcomes[from].as_ref(), &e.outcomes)
                })
                .collect();
            let ok = if node.join_any {
                m.iter().any(|&b| b)
            } else {
                m.iter().all(|&b| b)
            };
            if ok {
                reached.insert(n);
                changed = true;
            }
        }
    }
    (reached, outcomes)
}

/// A random graph: forward flow edges (acyclic, as the loader requires), back repeat edges,
/// `join: any` on some nodes, and a settled outcome per node.
fn graphs() -> impl Strategy<Value = (Graph, Vec<usize>)> {
    (2usize..12).prop_flat_map(|n| {
        (
            proptest::collection::vec(
                (
                    0..n,
                    0..n,
                    0usize..4,
                    0usize..4,
                    proptest::bool::weighted(0.25),
                ),
                0..(3 * n),
            ),
            proptest::collection::vec(proptest::bool::ANY, n),
            proptest::collection::vec(0usize..4, n),
        )
            .prop_map(move |(edges, any, settled)| {
                let nodes = (0..n)
                    .map(|i| {
                        let mut node = Node::bare(&format!("n{i}"), NodeKind::Action);
                        node.join_any = any[i];
                        node
                    })
                    .collect();
                let edges = edges
                    .into_iter()
                    .filter(|(a, b, ..)| a != b)
                    .map(|(a, b, o1, o2, repeat)| {
                        let (from, to) = if repeat {
                            (a.max(b), a.min(b))
                        } else {
                            (a.min(b), a.max(b))
                        };
                        let mut outcomes = vec![OUTCOMES[o1].to_string()];
                        if o2 != o1 {
                            outcomes.push(OUTCOMES[o2].to_string());
                        }
                        Edge {
                            from: format!("n{from}"),
                            to: format!("n{to}"),
                            outcomes,
                            kind: if repeat { "repeat" } else { "flow" }.to_string(),
                        }
                    })
                    .collect();
                let graph = Graph {
                    id: "g".to_string(),
                    nodes,
                    edges,
                    ..Graph::default()
                };
                (graph, settled)
            })
    })
}

proptest! {
    #[test]
    fn the_incremental_fixpoint_is_upstreams_loop((graph, settled) in graphs()) {
        let index: HashMap<&str, usize> =
            graph.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
        let mut order_a = Vec::new();
        let a = reach(&graph, &index, 0, |n| { order_a.push(n); OUTCOMES[settled[n]].to_string() });
        let mut order_b = Vec::new();
        let b = literal(&graph, &index, 0, |n| { order_b.push(n); OUTCOMES[settled[n]].to_string() });
        prop_assert_eq!(a.0.iter().collect::<Vec<_>>(), b.0.iter().collect::<Vec<_>>());
        prop_assert_eq!(a.1, b.1);
        prop_assert_eq!(order_a, order_b);
    }
}
