//! Generators of large, valid Agent Graph v1 graphs and agh.loop/v1 Loops, so that the scale
//! bench measures every front end, not only AGS (`gen-dialect`, `scale.sh`'s `DIALECTS=1`).
//!
//! Both are layered like [`crate::generate`]: about √N layers of about √N nodes after a single
//! start node, every later node fed by one or two nodes of the layer before it, and the last
//! layer feeding the end. Deterministic for a seed.
//!
//! - [`agent_graph`]: `action` nodes (every seventh with a `requiresFacts` check), edges on
//!   `completed` or on `[completed, partial]`, a `repeat` edge back to its source on about one
//!   edge in forty, and a `completed` terminal. Written as one graph file, checked on its own
//!   (action files are not resolved for a lone graph file).
//! - [`agh`]: `run-agent` nodes whose prompts read the loop's input and their feeding nodes'
//!   outputs through `{{ }}` templates, each declaring its `output_schema`.

use super::Rng;
use serde_json::{Value, json};

/// Layer sizes: one start node, then about √(n-1) layers sharing the other nodes.
pub(crate) fn layers(n: usize) -> Vec<std::ops::Range<usize>> {
    let n = n.max(1);
    let rest = n - 1;
    let count = ((rest as f64).sqrt().round() as usize).clamp(usize::from(rest > 0), rest.max(1));
    let mut out: Vec<std::ops::Range<usize>> = Vec::with_capacity(count + 1);
    out.push(0..1);
    let mut start = 1;
    for l in 0..count {
        let end = 1 + rest * (l + 1) / count;
        if end > start {
            out.push(start..end);
        }
        start = end;
    }
    out
}

/// For each node, the nodes feeding it (none for the start node): one or two of the previous
/// layer, the first being the node at the same relative place.
pub(crate) fn feeds(rng: &mut Rng, layers: &[std::ops::Range<usize>]) -> Vec<Vec<usize>> {
    let total = layers.last().map_or(0, |l| l.end);
    let mut out = vec![Vec::new(); total];
    for w in layers.windows(2) {
        let (prev, cur) = (&w[0], &w[1]);
        for (k, i) in cur.clone().enumerate() {
            let first = prev.start + k * prev.len() / cur.len();
            let mut from = vec![first];
            if prev.len() > 1 && rng.below(3) == 0 {
                let second = prev.start + rng.below(prev.len());
                if second != first {
                    from.push(second);
                }
            }
            out[i] = from;
        }
    }
    out
}

/// An Agent Graph v1 graph of `n` action nodes and one terminal.
pub fn agent_graph(n: usize, seed: u64) -> Value {
    let mut rng = Rng::new(seed);
    let layers = layers(n);
    let feeds = feeds(&mut rng, &layers);
    let id = |i: usize| format!("n{i}");
    let mut nodes = Vec::with_capacity(feeds.len() + 1);
    for i in 0..feeds.len() {
        let mut node = json!({
            "id": id(i),
            "kind": "action",
            "action": format!("actions/a{}.yaml", i % 16),
            "reasonCode": format!("route.big.{}", id(i)),
        });
        if i % 7 == 3 {
            node["requiresFacts"] =
                json!([{ "path": format!("work.step{}.ready", i % 50), "equals": true }]);
        }
        nodes.push(node);
    }
    nodes.push(json!({ "id": "done", "kind": "terminal", "terminalOutcome": "completed" }));
    let mut edges = Vec::new();
    for (to, from) in feeds.iter().enumerate() {
        for &f in from {
            let mut edge = json!({ "from": id(f), "to": id(to) });
            if rng.below(5) == 0 {
                edge["outcomes"] = json!(["completed", "partial"]);
            }
            edges.push(edge);
            if rng.below(40) == 0 {
                edges.push(json!({ "from": id(to), "to": id(f), "kind": "repeat", "outcomes": ["failed"] }));
            }
        }
    }
    if let Some(last) = layers.last() {
        for i in last.clone() {
            edges.push(json!({ "from": id(i), "to": "done" }));
        }
    }
    json!({
        "schema": "agent-graph.graph.v1",
        "id": "big",
        "entrypoints": { "default": id(0) },
        "nodes": nodes,
        "edges": edges,
    })
}

/// An agh.loop/v1 Loop of `n` run-agent nodes.
pub fn agh(n: usize, seed: u64) -> Value {
    let mut rng = Rng::new(seed);
    let layers = layers(n);
    let feeds = feeds(&mut rng, &layers);
    let id = |i: usize| format!("n{i}");
    let mut nodes = Vec::with_capacity(feeds.len());
    for (i, from) in feeds.iter().enumerate() {
        let reads: Vec<String> = from
            .iter()
            .map(|f| format!("{{{{ .nodes.{}.output.status }}}}", id(*f)))
            .collect();
        let prompt = if reads.is_empty() {
            format!("Step {i} of {{{{ .inputs.plan }}}}.")
        } else {
            format!(
                "Step {i} of {{{{ .inputs.plan }}}} after {}.",
                reads.join(" and ")
            )
        };
        nodes.push(json!({
            "id": id(i),
            "class": "action",
            "kind": "run-agent",
            "params": {
                "agent": "coder",
                "prompt": prompt,
                "output_schema": {
                    "type": "object",
                    "properties": { "status": { "type": "string" }, "files": { "type": "array", "items": { "type": "string" } } },
                },
            },
            "timeout": "10m",
        }));
    }
    let mut edges = Vec::new();
    for (to, from) in feeds.iter().enumerate() {
        for &f in from {
            edges.push(json!({ "from": id(f), "to": id(to) }));
        }
    }
    json!({
        "apiVersion": "agh.loop/v1",
        "kind": "Loop",
        "meta": { "name": "big", "description": "A generated loop for the scale bench." },
        "inputs": { "plan": { "type": "string", "required": true } },
        "contract": {
            "goal": "Run every step.",
            "definition_of_done": "Every step has run.",
            "iteration_cap": 5,
            "terminal_states": ["done", "failed"],
        },
        "graph": { "nodes": nodes, "edges": edges },
        "start": [{ "kind": "manual" }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_cover_every_node_once() {
        for n in [1, 2, 3, 10, 101, 1000] {
            let l = layers(n);
            assert_eq!(l[0], 0..1);
            assert_eq!(l.last().unwrap().end, n, "{n}");
            for w in l.windows(2) {
                assert_eq!(w[0].end, w[1].start);
                assert!(!w[1].is_empty());
            }
        }
    }

    #[test]
    fn every_later_node_is_fed_by_the_layer_before() {
        let l = layers(500);
        let f = feeds(&mut Rng::new(3), &l);
        assert!(f[0].is_empty());
        for w in l.windows(2) {
            for i in w[1].clone() {
                assert!(
                    !f[i].is_empty() && f[i].iter().all(|p| w[0].contains(p)),
                    "{i}"
                );
            }
        }
    }
}
