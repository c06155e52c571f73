//! A generator of large AGS 1.0 graphs made only of composite nodes (`gen-dialect
//! ags-composite N`): the scale bench's other AGS shape, for the passes that work per body
//! (loop `carry`, scopes, regions and their outputs in the plan), which [`crate::generate`]'s
//! plain tasks never reach.
//!
//! Layered like [`crate::dialects`] (a start node, about √N layers, each node fed by one or two
//! of the layer before). Node `i` is, in turn:
//!
//! - a `loop` (`until`, at most 3 iterations) whose inline body has one node writing `draft`
//!   and `done`; the condition reads `done`, `carry` feeds `draft` back as the body's
//!   `previous` param, `collect` makes `result` of it;
//! - a `map` over the graph's `pages` whose inline body has one node reading the element;
//!   `collect` makes `result` of its outputs;
//! - a `subgraph` running the one shared fragment `polish`, its `text` param read from the
//!   first feeding node's `result` (`params.topic` for the start node), `outputs_from`
//!   making `result` of the fragment's output.
//!
//! Every node `depends_on` its feeds; the graph's outputs read the last layer's `result`.
//! Deterministic for a seed.

use crate::Rng;
use crate::dialects::{feeds, layers};
use serde_json::{Map, Value, json};

/// An AGS graph of `n` composite nodes (each with one body node, so `2n` nodes in all).
pub fn ags_composite(n: usize, seed: u64) -> Value {
    let mut rng = Rng::new(seed);
    let layers = layers(n);
    let feeds = feeds(&mut rng, &layers);
    let id = |i: usize| format!("n{i}");
    let s = |d: &str| json!({ "type": "string", "description": d });
    let mut nodes = Map::new();
    for (i, from) in feeds.iter().enumerate() {
        let mut node = match i % 3 {
            0 => json!({
                "type": "loop",
                "title": "Refine",
                "description": "Refines a draft until it is done.",
                "loop": {
                    "mode": "until",
                    "max_iterations": 3,
                    "condition": "nodes.step.outputs.done",
                    "carry": { "draft": "previous" },
                    "collect": { "result": "nodes.step.outputs.draft" },
                    "body": {
                        "params": { "previous": { "type": "string", "required": false, "description": "The last draft." } },
                        "entrypoints": ["step"],
                        "nodes": { "step": {
                            "title": "Draft",
                            "description": "Writes the next draft.",
                            "inputs": { "previous": { "type": "string", "description": "The last draft.", "from": "params.previous" } },
                            "outputs": { "draft": s("The draft."), "done": { "type": "boolean", "description": "Whether it is done." } },
                        } },
                    },
                },
            }),
            1 => json!({
                "type": "map",
                "title": "Each page",
                "description": "Reviews every page.",
                "map": {
                    "over": "params.pages",
                    "as": "page",
                    "max_items": 10,
                    "collect": { "result": "nodes.each.outputs.note" },
                    "body": {
                        "entrypoints": ["each"],
                        "nodes": { "each": {
                            "title": "Review",
                            "description": "Reviews one page.",
                            "inputs": { "page": { "type": "string", "description": "The page.", "from": "page" } },
                            "outputs": { "note": s("The review.") },
                        } },
                    },
                },
            }),
            _ => json!({
                "type": "subgraph",
                "title": "Polish",
                "description": "Runs the shared polish fragment.",
                "subgraph": {
                    "use": "polish",
                    "params": { "text": from.first().map_or("params.topic".to_string(), |f| format!("nodes.{}.outputs.result", id(*f))) },
                    "outputs_from": { "result": "outputs.text" },
                },
            }),
        };
        if !from.is_empty() {
            node["depends_on"] = json!(from.iter().map(|&f| id(f)).collect::<Vec<_>>());
        }
        nodes.insert(id(i), node);
    }
    let last = layers.last().cloned().unwrap_or(0..0);
    let outputs: Map<String, Value> = last
        .map(|i| {
            (
                format!("result_{i}"),
                json!({ "type": "string", "description": "A last result.", "from": format!("nodes.{}.outputs.result", id(i)) }),
            )
        })
        .collect();
    json!({
        "ags_version": "1.0",
        "kind": "AgenticGraph",
        "id": "bench/composite",
        "title": "Composite nodes",
        "objective": "Exercise loops, maps and subgraphs at scale.",
        "constraints": { "max_cost_usd": 5.0, "max_node_executions": 20 * n + 100 },
        "params": {
            "topic": s("What to write about."),
            "pages": { "type": "array", "description": "The pages to review." },
        },
        "subgraphs": { "polish": {
            "params": { "text": s("The text to polish.") },
            "entrypoints": ["edit"],
            "nodes": { "edit": {
                "title": "Edit",
                "description": "Polishes the text.",
                "inputs": { "text": { "type": "string", "description": "The text.", "from": "params.text" } },
                "outputs": { "text": s("The polished text.") },
            } },
            "outputs": { "text": { "type": "string", "description": "The polished text.", "from": "nodes.edit.outputs.text" } },
        } },
        "entrypoints": [id(0)],
        "nodes": nodes,
        "outputs": outputs,
    })
}

/// An AGS graph of `n` nodes that are wide rather than deep: `source` declares an output per
/// reader, `(n - 2)` readers each read their own output of it, and `sink` depends on every
/// reader (one flow list, on one line) and reads each reader's `result` as an input of its own.
/// The shape of the passes that work per port or per read (output lookups by name, columns on
/// long lines, a node of many inputs).
pub fn ags_wide(n: usize) -> Value {
    let readers = n.saturating_sub(2).max(1);
    let s = |d: &str| json!({ "type": "string", "description": d });
    let outputs: Map<String, Value> = (0..readers)
        .map(|i| (format!("r{i}"), s("One reader's part.")))
        .collect();
    let mut nodes = Map::new();
    nodes.insert(
        "source".into(),
        json!({ "title": "Split", "description": "Splits the work.", "outputs": outputs }),
    );
    let mut inputs = Map::new();
    for i in 0..readers {
        nodes.insert(
            format!("b{i}"),
            json!({
                "title": "Work",
                "description": "Works on one part.",
                "depends_on": ["source"],
                "inputs": { "part": { "type": "string", "description": "The part.", "from": format!("nodes.source.outputs.r{i}") } },
                "outputs": { "result": s("The result.") },
            }),
        );
        inputs.insert(
            format!("i{i}"),
            json!({ "type": "string", "description": "A result.", "from": format!("nodes.b{i}.outputs.result") }),
        );
    }
    nodes.insert(
        "sink".into(),
        json!({
            "title": "Join",
            "description": "Joins every result.",
            "depends_on": (0..readers).map(|i| format!("b{i}")).collect::<Vec<_>>(),
            "inputs": inputs,
            "outputs": { "report": s("The report.") },
        }),
    );
    json!({
        "ags_version": "1.0",
        "kind": "AgenticGraph",
        "id": "bench/wide",
        "title": "Wide nodes",
        "objective": "Exercise nodes of many ports and reads at scale.",
        "constraints": { "max_cost_usd": 5.0 },
        "entrypoints": ["source"],
        "nodes": nodes,
        "outputs": { "report": { "type": "string", "description": "The report.", "from": "nodes.sink.outputs.report" } },
    })
}
