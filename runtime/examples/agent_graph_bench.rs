//! Agent Graph evaluation cost against chain depth: a chain of N action nodes, every one
//! recorded `completed`, so that reachability walks to the terminal at the end (N passes of the
//! fixpoint). Prints µs per evaluation and per node; linear cost keeps µs/node flat as N grows.
//! It asserts nothing.
//!
//! ```sh
//! cargo run --release -p agc-runtime --example agent_graph_bench             # 1k, 10k, 100k
//! cargo run --release -p agc-runtime --example agent_graph_bench -- 1000 50000
//! ```

use agc_runtime::agent_graph::eval;
use agc_runtime::agent_graph::model::{Edge, Graph, Input, Node, NodeKind, Provider};
use indexmap::IndexMap;
use serde_json::json;
use std::time::Instant;

fn chain(n: usize) -> (Provider, Input) {
    let mut nodes = Vec::with_capacity(n + 1);
    let mut edges = Vec::with_capacity(n);
    let mut outcomes = IndexMap::new();
    for i in 0..n {
        let mut node = Node::bare(&format!("a{i}"), NodeKind::Action);
        node.reason_code = Some("route.step".to_string());
        nodes.push(node);
        outcomes.insert(format!("chain/a{i}"), "completed".to_string());
        let to = if i + 1 < n {
            format!("a{}", i + 1)
        } else {
            "done".to_string()
        };
        edges.push(Edge {
            from: format!("a{i}"),
            to,
            outcomes: vec!["completed".to_string()],
            kind: "flow".to_string(),
        });
    }
    let mut done = Node::bare("done", NodeKind::Terminal);
    done.terminal_outcome = Some("completed".to_string());
    nodes.push(done);
    let graph = Graph {
        id: "chain".to_string(),
        path: "/bench/graphs/chain.yaml".to_string(),
        entrypoints: [("default".to_string(), "a0".to_string())]
            .into_iter()
            .collect(),
        nodes,
        edges,
    };
    let provider = Provider {
        id: "bench".to_string(),
        version: "1.0.0".to_string(),
        root: "/bench".to_string(),
        graphs: [("chain".to_string(), graph)].into_iter().collect(),
        graph_digests: [("chain".to_string(), format!("sha256:{}", "0".repeat(64)))]
            .into_iter()
            .collect(),
        ..Provider::default()
    };
    let input = Input {
        facts: json!({}),
        outcomes,
        ..Input::default()
    };
    (provider, input)
}

fn main() {
    let sizes: Vec<usize> = {
        let args: Vec<usize> = std::env::args()
            .skip(1)
            .filter_map(|a| a.parse().ok())
            .collect();
        if args.is_empty() {
            vec![1_000, 10_000, 100_000]
        } else {
            args
        }
    };
    println!("{:>8} {:>12} {:>10}", "nodes", "µs/eval", "µs/node");
    for n in sizes {
        let (provider, input) = chain(n);
        let rounds = (200_000 / n).clamp(1, 50);
        let start = Instant::now();
        for _ in 0..rounds {
            let e = eval::evaluate(&provider, "chain", "default", &input).expect("evaluates");
            assert_eq!(e.evaluation.status_code, "complete");
        }
        let per = start.elapsed().as_secs_f64() * 1e6 / rounds as f64;
        println!("{n:>8} {per:>12.0} {:>10.3}", per / n as f64);
    }
}
