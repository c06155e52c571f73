//! Wide shapes of the agh and AWP front ends (`gen-dialect agh-wide|awp-wide N`): the passes
//! that work per edge or per branch, which the layered generators of [`crate::dialects`] and
//! [`crate::awp`] keep narrow.
//!
//! - [`agh_wide`]: `N - 1` run-agent nodes fed by the start node, and one node they all feed
//!   whose prompt reads every one of their outputs (read order checks of a node with `N`
//!   incoming edges).
//! - [`awp_wide`]: a parallel node whose `N / 2` branches each enter at their own node and
//!   all run into one shared chain of `N / 2` nodes before the join target (branch walks that
//!   share a tail).

use serde_json::{Map, Value, json};

fn run_agent(id: &str, prompt: String) -> Value {
    json!({
        "id": id,
        "class": "action",
        "kind": "run-agent",
        "params": {
            "agent": "coder",
            "prompt": prompt,
            "output_schema": { "type": "object", "properties": { "status": { "type": "string" } } },
        },
        "timeout": "10m",
    })
}

/// An agh.loop/v1 Loop of `n` nodes: a start node, `n - 2` nodes it feeds, and a sink they
/// all feed that reads each of their outputs.
pub fn agh_wide(n: usize) -> Value {
    let middle = n.saturating_sub(2).max(1);
    let mut nodes = vec![run_agent("start", "Plan {{ .inputs.plan }}.".into())];
    let mut edges = Vec::new();
    let mut reads = Vec::with_capacity(middle);
    for i in 0..middle {
        let id = format!("n{i}");
        nodes.push(run_agent(
            &id,
            format!("Part {i} after {{{{ .nodes.start.output.status }}}}."),
        ));
        edges.push(json!({ "from": "start", "to": id }));
        edges.push(json!({ "from": id, "to": "sink" }));
        reads.push(format!("{{{{ .nodes.{id}.output.status }}}}"));
    }
    nodes.push(run_agent("sink", format!("Join {}.", reads.join(" "))));
    json!({
        "apiVersion": "agh.loop/v1",
        "kind": "Loop",
        "meta": { "name": "wide", "description": "A generated wide loop for the scale bench." },
        "inputs": { "plan": { "type": "string", "required": true } },
        "contract": {
            "goal": "Run every part.",
            "definition_of_done": "Every part has run.",
            "iteration_cap": 5,
            "terminal_states": ["done", "failed"],
        },
        "graph": { "nodes": nodes, "edges": edges },
        "start": [{ "kind": "manual" }],
    })
}

/// An AWP workflow of about `n` nodes: a parallel node with `n / 2` branches, each entering at
/// its own node and running into one shared chain of `n / 2` nodes before the join target.
pub fn awp_wide(n: usize) -> Value {
    let half = (n / 2).max(1);
    let set = |id: String| json!({ "id": id, "type": "set_state", "config": { "assignments": { "x": { "jq": ".x" } } } });
    let mut nodes = vec![json!({ "id": "start", "type": "start" })];
    let branches: Vec<Value> = (0..half)
        .map(|i| json!({ "name": format!("b{i}"), "entry": format!("n{i}") }))
        .collect();
    nodes.push(json!({ "id": "fan", "type": "parallel", "config": { "join": "all", "branches": branches } }));
    let mut edges = vec![
        json!({ "source": "__start__", "target": "start" }),
        json!({ "source": "start", "target": "fan" }),
        json!({ "source": "fan", "target": "joined" }),
    ];
    for i in 0..half {
        nodes.push(set(format!("n{i}")));
        edges.push(json!({ "source": format!("n{i}"), "target": "c0" }));
    }
    for j in 0..half {
        nodes.push(set(format!("c{j}")));
        let next = if j + 1 < half {
            format!("c{}", j + 1)
        } else {
            "joined".to_string()
        };
        edges.push(json!({ "source": format!("c{j}"), "target": next }));
    }
    nodes.push(set("joined".into()));
    nodes.push(json!({ "id": "end", "type": "end", "config": { "output_mapping": ".x" } }));
    edges.push(json!({ "source": "joined", "target": "end" }));
    json!({
        "document": {
            "schema": "https://agent-workflow.dev/schemas/workflow-definition.json",
            "name": "wide",
            "version": "1.0.0",
        },
        "state_schema": { "type": "object", "properties": { "x": { "type": "string" } } },
        "nodes": nodes,
        "edges": edges,
    })
}

/// An AGS graph of `n` tasks in one chain (`c0 → c1 → ...`, each reading the one before's
/// `result`), and a run script answering every one of them (`gen-dialect ags-chain N` and
/// `ags-chain-script N`): the shape of `agc run` with the journal on, where every node is a
/// call, a script entry, a journal batch and a node run of the record (`bench/run.sh`).
pub fn ags_chain(n: usize) -> Value {
    let n = n.max(1);
    let s = |d: &str| json!({ "type": "string", "description": d });
    let mut nodes = Map::new();
    for i in 0..n {
        let mut node = json!({
            "title": "Step",
            "description": "One step of the chain.",
            "outputs": { "result": s("The step's result.") },
        });
        if i > 0 {
            node["depends_on"] = json!([format!("c{}", i - 1)]);
            node["inputs"] = json!({ "previous": { "type": "string", "description": "The step before's result.", "from": format!("nodes.c{}.outputs.result", i - 1) } });
        }
        nodes.insert(format!("c{i}"), node);
    }
    json!({
        "ags_version": "1.0",
        "kind": "AgenticGraph",
        "id": "bench/chain",
        "title": "A chain of tasks",
        "objective": "Run one task after another.",
        "constraints": { "max_cost_usd": 5.0 },
        "entrypoints": ["c0"],
        "nodes": nodes,
        "outputs": { "result": { "type": "string", "description": "The last result.", "from": format!("nodes.c{}.outputs.result", n - 1) } },
    })
}

/// The run script for [`ags_chain`]: every node answers its `result`.
pub fn ags_chain_script(n: usize) -> Value {
    let nodes: Map<String, Value> = (0..n.max(1))
        .map(|i| {
            (
                format!("c{i}"),
                json!({ "outputs": { "result": format!("r{i}") } }),
            )
        })
        .collect();
    json!({ "format": "agc.script/v1", "nodes": nodes })
}

/// An AGS graph whose one node maps over the param `items` (`n` at most), one task per item
/// (issue 48: a map over a params array), and a task after it.
pub fn ags_map(n: usize) -> Value {
    let s = |d: &str| json!({ "type": "string", "description": d });
    json!({
        "ags_version": "1.0",
        "kind": "AgenticGraph",
        "id": "bench/map",
        "title": "A map over a params array",
        "objective": "Work on every item of a param.",
        "params": { "items": { "type": "array", "description": "The items.", "schema": { "type": "array", "items": { "type": "string" } } } },
        "constraints": { "max_cost_usd": 5.0 },
        "entrypoints": ["each"],
        "outputs": { "summary": { "type": "string", "description": "The summary.", "from": "nodes.summarize.outputs.summary" } },
        "nodes": {
            "each": {
                "type": "map",
                "title": "Each item",
                "description": "Works on every item.",
                "map": {
                    "over": "params.items",
                    "as": "item",
                    "max_items": n.max(1),
                    "collect": { "results": "nodes.work.outputs.result" },
                    "body": {
                        "title": "One item",
                        "entrypoints": ["work"],
                        "nodes": { "work": {
                            "title": "Work",
                            "description": "Works on one item.",
                            "inputs": { "item": { "type": "string", "description": "The item.", "from": "item" } },
                            "outputs": { "result": s("What came out.") },
                        } },
                    },
                },
            },
            "summarize": {
                "title": "Summarize",
                "description": "Summarizes the results.",
                "depends_on": ["each"],
                "outputs": { "summary": s("The summary.") },
            },
        },
    })
}

/// The run script for [`ags_map`]: every item's task answers its `result` from its item.
pub fn ags_map_script() -> Value {
    json!({ "format": "agc.script/v1", "nodes": {
        "each/work": { "outputs": { "result": "done ${{ inputs.item }}" } },
        "summarize": { "outputs": { "summary": "all done" } },
    } })
}

/// The params for [`ags_map`]: `n` items.
pub fn ags_map_params(n: usize) -> Value {
    json!({ "items": (0..n).map(|i| format!("item {i}")).collect::<Vec<_>>() })
}
