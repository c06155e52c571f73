//! Generator of large, valid AWP workflow definitions full of jq programs, for the jq-checking
//! figure (`awp-jq`, `gen-awp`).
//!
//! [`generate`] builds a chain of `set_state` nodes, with a `switch` every tenth node, ending
//! in an `end` node: `programs` jq programs in all (assignments, `when`s, the output mapping).
//! The programs vary in shape (paths into nested arrays, `select`, `map`, `//`, string
//! interpolation, `if`, `reduce`, slices) and read declared state properties, so the path
//! checks have real work to do.

use super::Rng;
use serde_json::{Map, Value, json};

/// State properties the programs read.
const PROPS: usize = 40;

fn program(rng: &mut Rng, k: usize) -> String {
    let p = |rng: &mut Rng| format!("p{}", rng.below(PROPS));
    match rng.below(8) {
        0 => format!(".{}.items[] | select(.score > {k}) | .name", p(rng)),
        1 => format!(
            "[.{}.items[].tags[]] | map(ascii_downcase) | unique",
            p(rng)
        ),
        2 => format!(
            "(.{}.title // \"untitled\") | tostring | .[0:{}]",
            p(rng),
            10 + k % 50
        ),
        3 => format!(
            "\"item \\(.{}.title) has \\(.{}.items | length) entries\"",
            p(rng),
            p(rng)
        ),
        4 => format!(
            "if .{}.count > {k} then \"high\" elif .{}.count > 0 then \"low\" else \"none\" end",
            p(rng),
            p(rng)
        ),
        5 => format!("reduce .{}.items[] as $i (0; . + ($i.score // 0))", p(rng)),
        6 => format!(
            "{{title: .{}.title, n: (.{}.items | length)}}",
            p(rng),
            p(rng)
        ),
        _ => format!(
            ".{}.items | map(select(.tags | index(\"t{k}\"))) | first",
            p(rng)
        ),
    }
}

/// A workflow definition with `programs` jq programs (at least 2).
pub fn generate(programs: usize, seed: u64) -> Value {
    let mut rng = Rng::new(seed);
    let mut props = Map::new();
    for i in 0..PROPS {
        props.insert(
            format!("p{i}"),
            json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "count": {"type": "integer"},
                    "items": {"type": "array", "items": {"type": "object", "properties": {
                        "name": {"type": "string"},
                        "score": {"type": "number"},
                        "tags": {"type": "array", "items": {"type": "string"}}
                    }}}
                }
            }),
        );
    }
    props.insert("out".into(), json!({"type": "object"}));
    let mut nodes = vec![json!({"id": "start", "type": "start"})];
    let mut edges = vec![json!({"source": "__start__", "target": "start"})];
    let mut prev = "start".to_string();
    let mut left = programs.max(2) - 1; // the end node's mapping is one
    let mut k = 0;
    while left > 0 {
        let id = format!("n{k}");
        let next = format!("n{}", k + 1);
        if k % 10 == 9 {
            nodes.push(json!({"id": id, "type": "switch", "config": {
                "cases": [{"when": format!("{} | length > 0", program(&mut rng, k)), "target": next}],
                "default": next
            }}));
        } else {
            nodes.push(json!({"id": id, "type": "set_state", "config": {
                "assignments": {"out": {"jq": program(&mut rng, k)}}
            }}));
        }
        edges.push(json!({"source": prev, "target": id}));
        prev = id;
        left -= 1;
        k += 1;
    }
    nodes.push(json!({"id": format!("n{k}"), "type": "end",
        "config": {"output_mapping": "{out, first: .p0.title}"}}));
    edges.push(json!({"source": prev, "target": format!("n{k}")}));
    json!({
        "document": {"schema": "https://agent-workflow.dev/schemas/workflow-definition.json",
            "name": format!("jq-scale-{programs}"), "version": "1.0.0"},
        "state_schema": {"type": "object", "properties": props},
        "nodes": nodes,
        "edges": edges
    })
}
