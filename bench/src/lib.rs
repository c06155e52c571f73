//! Generator of large, valid AGS 1.0 graphs for agc's scale benchmark (`bench/scale.sh`).
//!
//! [`generate`] builds the document as a [`serde_json::Value`]; [`yaml::to_yaml`] writes it as
//! block-style YAML of the kind people write by hand (plain scalars where safe, flow lists of
//! ids, literal blocks for multi-line templates). The shape is described on [`generate`].

pub mod awp;
pub mod composite;
pub mod dialects;
pub mod shapes;
pub mod yaml;

use serde_json::{Map, Value, json};

/// A tiny xorshift64* generator: deterministic for a seed, no dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // Spread the seed and avoid the all-zero state.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-ish in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const VERBS: &[&str] = &[
    "Collect",
    "Review",
    "Summarize",
    "Classify",
    "Extract",
    "Validate",
    "Draft",
    "Refine",
    "Compare",
    "Rank",
    "Translate",
    "Normalize",
    "Audit",
    "Annotate",
    "Reconcile",
    "Score",
];
const OBJECTS: &[&str] = &[
    "the release notes",
    "the failing tests",
    "the customer tickets",
    "the API surface",
    "the dependency list",
    "the benchmark results",
    "the open questions",
    "the design notes",
    "the migration plan",
    "the changelog entries",
    "the error reports",
    "the survey answers",
];
const QUALIFIERS: &[&str] = &[
    "Keep the result short and factual.",
    "Cite the upstream item for every claim.",
    "Flag anything that looks inconsistent with earlier findings.",
    "Prefer concrete numbers over adjectives.",
    "Group related items and drop duplicates.",
    "Leave anything outside the stated scope untouched.",
];
/// Output value types a `result` output may have (all readable by `len()` or as text).
const RESULT_TYPES: &[&str] = &["string", "text", "markdown", "array", "json"];
const TIERS: &[&str] = &["minimal", "standard", "advanced"];
const EFFORTS: &[&str] = &["xs", "s", "m", "l"];

/// Identifier of the `i`-th node (global index): `n0`, `n1`, ...
fn node_id(i: usize) -> String {
    format!("n{i}")
}

/// Builds a layered AGS 1.0 graph of `n` nodes (at least 1), deterministic for `seed`.
///
/// * About √n layers of about √n nodes; every layer-0 node is an entrypoint.
/// * Every later node `depends_on` one or two nodes of the previous layer, and reads the first
///   one's `result` through an input `from: nodes.<pred>.outputs.result` of the same declared
///   `value_type`. Every third node also has a `template:` input using `${{ }}`.
/// * Every task declares `result` and an integer `count` output; about one node in seven has a
///   guard `when: nodes.<pred>.outputs.count > K`.
/// * About one node in 25 (not in the first or last layer) is an expression-evaluated
///   `decision` on an upstream `count`, with two `conditional` edges into the next layer.
/// * Graph outputs are bound from the last layer; the graph carries a cost ceiling.
pub fn generate(n: usize, seed: u64) -> Value {
    let n = n.max(1);
    let mut rng = Rng::new(seed);
    let layers = ((n as f64).sqrt().round() as usize).clamp(1, n);
    // Layer l holds the global indices starts[l]..starts[l + 1].
    let starts: Vec<usize> = (0..=layers).map(|l| l * n / layers).collect();
    let is_decision = |l: usize, i: usize| l > 0 && l + 1 < layers && i % 25 == 12 && i > starts[l];
    let mut result_type = vec![""; n];
    let mut nodes = Map::new();
    let mut edges = Vec::new();

    for l in 0..layers {
        for i in starts[l]..starts[l + 1] {
            let id = node_id(i);
            let mut node = Map::new();
            let verb = *rng.pick(VERBS);
            let object = *rng.pick(OBJECTS);
            // Predecessors: one or two data-producing (non-decision) nodes of layer l - 1.
            let mut preds = Vec::new();
            if l > 0 {
                let (lo, hi) = (starts[l - 1], starts[l]);
                let first = pick_task(&mut rng, lo, hi, |j| is_decision(l - 1, j));
                preds.push(first);
                if rng.below(3) == 0 && hi - lo > 1 {
                    let second = pick_task(&mut rng, lo, hi, |j| is_decision(l - 1, j));
                    if second != first {
                        preds.push(second);
                    }
                }
            }
            if is_decision(l, i) {
                let p = node_id(preds[0]);
                let threshold = 5 + rng.below(10);
                node.insert("type".into(), json!("decision"));
                node.insert(
                    "title".into(),
                    json!(format!("Route on the size of {object}")),
                );
                node.insert(
                    "description".into(),
                    json!(format!(
                        "Choose the detailed path when {p} reported at least {threshold} items, \
                         otherwise the quick path."
                    )),
                );
                node.insert("depends_on".into(), ids(&preds));
                node.insert(
                    "decision".into(),
                    json!({
                        "evaluator": "expression",
                        "branches": [
                            {"label": "detailed", "description": "Many items: go through them one by one.",
                             "when": format!("nodes.{p}.outputs.count >= {threshold}")},
                            {"label": "quick", "description": "Few items: a short pass is enough.",
                             "when": "true"}
                        ],
                        "default_branch": "quick"
                    }),
                );
                // Two conditional edges into the next layer (distinct targets when possible).
                let (lo, hi) = (starts[l + 1], starts[l + 2]);
                let a = pick_task(&mut rng, lo, hi, |j| is_decision(l + 1, j));
                let b = pick_task(&mut rng, lo, hi, |j| is_decision(l + 1, j));
                for (to, label) in [(a, "detailed"), (b, "quick")] {
                    if label == "quick" && b == a {
                        continue;
                    }
                    edges.push(json!({
                        "from": id,
                        "to": node_id(to),
                        "kind": "conditional",
                        "when": format!("nodes.{id}.outputs.decision == '{label}'"),
                        "label": label
                    }));
                }
                nodes.insert(id, Value::Object(node));
                continue;
            }

            node.insert("title".into(), json!(format!("{verb} {object}")));
            node.insert(
                "description".into(),
                json!(if i % 2 == 0 {
                    format!("{verb} {object}. {}", rng.pick(QUALIFIERS))
                } else {
                    format!("{verb} {object} for layer {l}.")
                }),
            );
            if !preds.is_empty() {
                node.insert("depends_on".into(), ids(&preds));
                if rng.below(7) == 0 {
                    node.insert(
                        "when".into(),
                        json!(format!(
                            "nodes.{}.outputs.count > {}",
                            node_id(*preds.last().unwrap_or(&preds[0])),
                            rng.below(4)
                        )),
                    );
                }
            }
            let mut inputs = Map::new();
            if let Some(&p) = preds.first() {
                inputs.insert(
                    "upstream".into(),
                    json!({
                        "type": result_type[p],
                        "description": format!("The result of {}.", node_id(p)),
                        "from": format!("nodes.{}.outputs.result", node_id(p))
                    }),
                );
            }
            if i % 3 == 0 {
                let src = preds
                    .last()
                    .map(|&p| {
                        format!(
                            "${{{{ nodes.{0}.outputs.count }}}} items from {0}",
                            node_id(p)
                        )
                    })
                    .unwrap_or_else(|| "the workspace".into());
                inputs.insert(
                    "brief".into(),
                    json!({
                        "type": "string",
                        "description": "What to focus on.",
                        "template": format!("Work on {src} for ${{{{ params.project }}}}.")
                    }),
                );
            } else if preds.is_empty() {
                inputs.insert(
                    "limit".into(),
                    json!({"type": "integer", "description": "Item limit.", "value": 10 + rng.below(90)}),
                );
            }
            if !inputs.is_empty() {
                node.insert("inputs".into(), Value::Object(inputs));
            }
            let rt = *rng.pick(RESULT_TYPES);
            result_type[i] = rt;
            node.insert(
                "outputs".into(),
                json!({
                    "result": {"type": rt, "description": format!("What {verb} produced.")},
                    "count": {"type": "integer", "description": "Items handled."}
                }),
            );
            if i % 5 == 0 {
                node.insert(
                    "instructions".into(),
                    json!(format!(
                        "Project: ${{{{ params.project }}}}\nStay within {} items.\n",
                        10 + rng.below(50)
                    )),
                );
            }
            if i % 4 == 0 {
                node.insert("intelligence".into(), json!({"tier": rng.pick(TIERS)}));
            }
            if i % 12 == 0 {
                node.insert(
                    "success".into(),
                    json!({"criteria": [{
                        "id": "counted",
                        "kind": "expression",
                        "description": "The node reported a count.",
                        "expr": "self.outputs.count >= 0"
                    }]}),
                );
            }
            if i % 3 == 0 {
                node.insert(
                    "estimate".into(),
                    json!({"effort": rng.pick(EFFORTS), "cost_usd": (1 + rng.below(40)) as f64 / 100.0}),
                );
            }
            nodes.insert(id, Value::Object(node));
        }
    }

    let mut outputs = Map::new();
    let last: Vec<usize> = (starts[layers - 1]..starts[layers])
        .filter(|&i| !is_decision(layers - 1, i))
        .take(3)
        .collect();
    for (k, &i) in last.iter().enumerate() {
        outputs.insert(
            format!("final_{k}"),
            json!({
                "type": result_type[i],
                "description": format!("The result of {}.", node_id(i)),
                "from": format!("nodes.{}.outputs.result", node_id(i))
            }),
        );
    }

    let mut doc = Map::new();
    doc.insert("ags_version".into(), json!("1.0"));
    doc.insert("kind".into(), json!("AgenticGraph"));
    doc.insert("id".into(), json!(format!("bench/layered-{n}-s{seed}")));
    doc.insert(
        "title".into(),
        json!(format!("Layered benchmark graph of {n} nodes")),
    );
    doc.insert(
        "objective".into(),
        json!("Exercise agc on a large, layered, valid graph with typed data flow."),
    );
    doc.insert("requires_conformance".into(), json!(2));
    doc.insert(
        "params".into(),
        json!({"project": {"type": "string", "description": "Project name.", "default": "agc"}}),
    );
    doc.insert(
        "constraints".into(),
        json!({"max_cost_usd": (n as f64) * 0.5, "max_parallel_nodes": 8}),
    );
    doc.insert(
        "entrypoints".into(),
        ids(&(starts[0]..starts[1]).collect::<Vec<_>>()),
    );
    doc.insert("nodes".into(), Value::Object(nodes));
    if !edges.is_empty() {
        doc.insert("edges".into(), Value::Array(edges));
    }
    if !outputs.is_empty() {
        doc.insert("outputs".into(), Value::Object(outputs));
    }
    Value::Object(doc)
}

/// A random index in `lo..hi` whose node is not a decision (layers always hold tasks: a layer
/// has at most one decision in 25 nodes and never at its first index).
fn pick_task(rng: &mut Rng, lo: usize, hi: usize, is_decision: impl Fn(usize) -> bool) -> usize {
    let j = lo + rng.below(hi - lo);
    if is_decision(j) { lo } else { j }
}

fn ids(indices: &[usize]) -> Value {
    Value::Array(indices.iter().map(|&i| json!(node_id(i))).collect())
}
