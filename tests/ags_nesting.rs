//! AGC082: bodies nested deeper than `constraints.max_subgraph_depth` (default 5), at most 64
//! levels whatever it says; fragments, inline bodies and every kind of body count.

mod common;

use agc::diag::Diagnostic;
use common::check_agraph;

/// A graph whose root node runs fragment `f0`, each `f<i>` running `f<i+1>`, the last a plain
/// node: `levels` bodies deep. `limit` is the `max_subgraph_depth` written, if any.
fn chain(levels: usize, limit: Option<u64>) -> String {
    let mut text = String::from(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: t\ntitle: T\nobjective: O.\n\
constraints:\n  max_cost_usd: 1\n",
    );
    if let Some(l) = limit {
        text += &format!("  max_subgraph_depth: {l}\n");
    }
    text += "subgraphs:\n";
    for i in 0..levels {
        text += &format!(
            "  f{i}:\n    entrypoints: [w]\n    nodes:\n      w:\n        title: W\n        \
description: D.\n"
        );
        if i + 1 < levels {
            text += &format!(
                "        type: subgraph\n        subgraph: {{use: f{}}}\n",
                i + 1
            );
        }
    }
    text += "entrypoints: [r]\nnodes:\n  r:\n    type: subgraph\n    title: R\n    \
description: D.\n    subgraph: {use: f0}\n";
    text
}

fn agc082(diags: &[Diagnostic]) -> Vec<(String, String)> {
    diags
        .iter()
        .filter(|d| d.code == "AGC082")
        .map(|d| (d.pointer.clone().unwrap_or_default(), d.message.clone()))
        .collect()
}

#[test]
fn the_default_limit_is_five_levels() {
    assert_eq!(agc082(&check_agraph(chain(5, None))), []);
    assert_eq!(
        agc082(&check_agraph(chain(6, None))),
        [(
            "/subgraphs/f4/nodes/w/subgraph".to_string(),
            "the subgraph body of `r/w/w/w/w/w` would be nested 6 levels deep; \
`constraints.max_subgraph_depth` allows 5"
                .to_string()
        )]
    );
}

#[test]
fn the_graph_sets_its_own_limit() {
    assert_eq!(agc082(&check_agraph(chain(2, Some(1)))).len(), 1);
    assert_eq!(agc082(&check_agraph(chain(9, Some(9)))), []);
    assert_eq!(agc082(&check_agraph(chain(10, Some(9)))).len(), 1);
}

/// Past 64 levels agc stops whatever the graph allows, so that a long chain of uses cannot
/// cost the square of its length; the message says whose limit it is.
#[test]
fn agc_expands_at_most_64_levels() {
    assert_eq!(agc082(&check_agraph(chain(64, Some(1000)))), []);
    let found = agc082(&check_agraph(chain(3000, Some(100_000))));
    assert_eq!(found.len(), 1);
    assert!(
        found[0]
            .1
            .ends_with("would be nested 65 levels deep; agc expands at most 64 levels"),
        "{found:?}"
    );
}

/// A fragment reached along two paths is reported once, at its block; loop and map bodies
/// written inline count like fragments.
#[test]
fn each_site_is_reported_once_and_inline_bodies_count() {
    let text = "ags_version: \"1.0\"\nkind: AgenticGraph\nid: t\ntitle: T\nobjective: O.\n\
constraints: {max_cost_usd: 1, max_subgraph_depth: 1}\nsubgraphs:\n  inner:\n    \
entrypoints: [w]\n    nodes:\n      w: {title: W, description: D.}\n  outer:\n    \
entrypoints: [u]\n    nodes:\n      u:\n        type: subgraph\n        title: U\n        \
description: D.\n        subgraph: {use: inner}\nentrypoints: [a, b, c]\nnodes:\n  a:\n    \
type: subgraph\n    title: A\n    description: D.\n    subgraph: {use: outer}\n  b:\n    \
type: subgraph\n    title: B\n    description: D.\n    subgraph: {use: outer}\n  c:\n    \
type: loop\n    title: C\n    description: D.\n    loop:\n      mode: repeat\n      \
max_iterations: 2\n      body:\n        entrypoints: [m]\n        nodes:\n          m:\n            \
type: map\n            title: M\n            description: D.\n            map:\n              \
over: '[1]'\n              as: x\n              max_items: 2\n              body:\n                \
entrypoints: [z]\n                nodes:\n                  z: {title: Z, description: D.}\n";
    let found: Vec<String> = agc082(&check_agraph(text.to_string()))
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        found,
        [
            "/subgraphs/outer/nodes/u/subgraph",
            "/nodes/c/loop/body/nodes/m/map"
        ]
    );
}
