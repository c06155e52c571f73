//! AGS name resolution edges from issue 13: keyword node ids after `.`, ids with `-` in paths,
//! `loop.carry` keys and values, and sealed bodies.

mod common;

use agc::check::{CheckOptions, check_text};
use agc::source::SourceMap;
use common::check_agraph;

fn codes(text: &str) -> Vec<&'static str> {
    let mut sources = SourceMap::new();
    let mut c: Vec<&str> = check_text(
        &mut sources,
        "t.agraph.yaml",
        text.to_string(),
        &CheckOptions::default(),
    )
    .iter()
    .map(|d| d.code)
    .collect();
    c.sort_unstable();
    c
}

/// Two nodes, `first` then `second`, where `second` reads `expr` as an input.
fn two(first: &str, expr: &str) -> String {
    format!(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: t\ntitle: T\nobjective: O.\n\
constraints: {{max_cost_usd: 1}}\nentrypoints: [\"{first}\"]\nnodes:\n  \"{first}\":\n    \
title: A\n    description: D.\n    outputs:\n      x: {{type: string, description: X.}}\n  \
second:\n    title: B\n    description: D.\n    depends_on: [\"{first}\"]\n    inputs:\n      \
v: {{type: string, description: V., from: \"{expr}\"}}\n"
    )
}

#[test]
fn keyword_node_ids_are_read_after_a_dot() {
    for id in ["in", "true", "null", "not", "and"] {
        let text = two(id, &format!("nodes.{id}.outputs.x"));
        assert_eq!(codes(&text), Vec::<&str>::new(), "{id}");
    }
}

#[test]
fn a_hyphenated_id_in_a_path_is_one_error_plus_an_advisory() {
    let text = two("build-docs", "nodes.build-docs.outputs.x");
    assert_eq!(codes(&text), ["AG203", "AGC110"]);
    // Three parts.
    let text = two("a-b-c", "nodes.a-b-c.outputs.x");
    assert_eq!(codes(&text), ["AG203", "AGC110"]);
    // The dynamic form works; the advisory stays.
    let text = two("build-docs", "output('build-docs', 'x')");
    assert_eq!(codes(&text), ["AGC110"]);
    // With spaces it is a subtraction, reported as such (two unknown names, no advisory
    // since no read names the node).
    let text = two("build-docs", "nodes.build - docs.outputs.x");
    assert_eq!(codes(&text), ["AG203", "AG203", "AG904"]);
    // No node of that name: the usual errors.
    let text = two("build", "nodes.build-docs.outputs.x");
    assert_eq!(codes(&text), ["AG203", "AG904"]);
}

fn looped(carry: &str, body_params: &str, collect: &str) -> String {
    format!(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: t\ntitle: T\nobjective: O.\n\
constraints: {{max_cost_usd: 1}}\nentrypoints: [l]\nnodes:\n  l:\n    type: loop\n    \
title: L\n    description: D.\n    loop:\n      mode: repeat\n      max_iterations: 2\n      \
carry: {carry}\n{collect}      body:\n        params: {body_params}\n        entrypoints: [w]\n        \
nodes:\n          w:\n            title: W\n            description: D.\n            \
outputs:\n              draft: {{type: string, description: X.}}\n"
    )
}

#[test]
fn carry_keys_are_body_outputs_and_values_body_params() {
    let p = "{prev: {type: string, required: false, description: P.}}";
    assert_eq!(codes(&looped("{draft: prev}", p, "")), Vec::<&str>::new());
    assert_eq!(codes(&looped("{drift: prev}", p, "")), ["AG206", "AG904"]);
    assert_eq!(codes(&looped("{draft: prevv}", p, "")), ["AG203"]);
    // Every key is judged.
    assert_eq!(
        codes(&looped("{draft: prev, nope: prev}", p, "")),
        ["AG206"]
    );
}

/// A map over `params.xs` as `page` whose body holds `inner` (a loop or map node reading
/// `expr`) or, when `inner` is empty, a plain node reading `expr`.
fn mapped(expr: &str, nested: Option<&str>) -> String {
    let leaf = |indent: &str| {
        format!(
            "{indent}w:\n{indent}  title: W\n{indent}  description: D.\n{indent}  inputs:\n{indent}    \
v: {{type: string, description: V., from: \"{expr}\"}}\n"
        )
    };
    let body = match nested {
        None => leaf("          "),
        Some(block) => {
            let extra = if block == "map" {
                "over: params.xs\n              as: it\n              max_items: 2\n"
            } else {
                "mode: repeat\n              max_iterations: 2\n"
            };
            format!(
                "          inner:\n            type: {block}\n            title: I\n            \
description: D.\n            {block}:\n              {extra}              body:\n                \
entrypoints: [w]\n                nodes:\n{}",
                leaf("                  ")
            )
        }
    };
    let entry = if nested.is_some() { "inner" } else { "w" };
    format!(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: t\ntitle: T\nobjective: O.\n\
constraints: {{max_cost_usd: 1}}\nparams:\n  xs: {{type: array, description: X.}}\n\
entrypoints: [m]\nnodes:\n  m:\n    type: loop\n    title: M\n    description: D.\n    \
loop:\n      mode: repeat\n      max_iterations: 2\n      body:\n        entrypoints: [mm]\n        \
nodes:\n          mm:\n            type: map\n            title: MM\n            description: D.\n            \
map:\n              over: params.xs\n              as: page\n              max_items: 2\n              \
body:\n                entrypoints: [{entry}]\n                nodes:\n{}",
        indent(&body, 8)
    )
}

fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines().map(|l| format!("{pad}{l}\n")).collect()
}

#[test]
fn bodies_are_sealed_for_map_variables_and_loop() {
    // Inside the map body itself: its element and index, but not the outer loop's `loop`.
    assert_eq!(codes(&mapped("page", None)), Vec::<&str>::new());
    assert_eq!(codes(&mapped("index", None)), Vec::<&str>::new());
    assert_eq!(codes(&mapped("loop.index", None)), ["AG203"]);
    // A loop body inside the map body: not the map's element, but its own `loop`.
    assert_eq!(codes(&mapped("page", Some("loop"))), ["AG203"]);
    assert_eq!(
        codes(&mapped("loop.index", Some("loop"))),
        Vec::<&str>::new()
    );
    // A map body inside the map body: its own `it`, not the outer `page`.
    assert_eq!(codes(&mapped("it", Some("map"))), Vec::<&str>::new());
    assert_eq!(codes(&mapped("page", Some("map"))), ["AG203"]);
}

/// Several loops running one fragment: each loop's carry is judged against the fragment's
/// outputs (gathered once), and each inline body against its own.
#[test]
fn carry_keys_of_loops_sharing_a_body_are_each_judged() {
    let loop_node = |id: &str, body: &str, carry: &str| {
        format!(
            "  {id}:\n    type: loop\n    title: L\n    description: D.\n    loop:\n      \
mode: repeat\n      max_iterations: 2\n      carry: {carry}\n{body}"
        )
    };
    let inline = |out: &str| {
        format!(
            "      body:\n        params: {{prev: {{type: string, required: false, description: P.}}}}\n        \
entrypoints: [w]\n        nodes:\n          w:\n            title: W\n            description: D.\n            \
outputs:\n              {out}: {{type: string, description: X.}}\n"
        )
    };
    let text = format!(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: t\ntitle: T\nobjective: O.\n\
constraints: {{max_cost_usd: 1}}\nsubgraphs:\n  f:\n    \
params: {{prev: {{type: string, required: false, description: P.}}}}\n    entrypoints: [w]\n    \
nodes:\n      w:\n        title: W\n        description: D.\n        \
outputs:\n          draft: {{type: string, description: X.}}\n\
entrypoints: [a, b, c, d, e]\nnodes:\n{}{}{}{}{}",
        loop_node("a", "      use: f\n", "{draft: prev}"),
        loop_node("b", "      use: f\n", "{drift: prev}"),
        loop_node("c", "      use: f\n", "{draft: prev, dreft: prev}"),
        loop_node("d", &inline("one"), "{one: prev}"),
        loop_node("e", &inline("two"), "{one: prev}"),
    );
    let diags = check_agraph(text);
    let errors: Vec<(&str, String)> = diags
        .iter()
        .filter(|d| d.code == "AG206")
        .map(|d| (d.code, d.message.clone()))
        .collect();
    assert_eq!(
        errors,
        [
            (
                "AG206",
                "`carry` reads `drift`, which no node of the loop's body outputs".to_string()
            ),
            (
                "AG206",
                "`carry` reads `dreft`, which no node of the loop's body outputs".to_string()
            ),
            (
                "AG206",
                "`carry` reads `one`, which no node of the loop's body outputs".to_string()
            ),
        ]
    );
}

/// AG131 on every `use` that stays inside a cycle of fragments (a fragment using itself, two
/// using each other, three in a ring), named with the whole cycle; uses into a cycle from
/// outside it, and a chain without one, are fine.
#[test]
fn recursive_fragment_uses_name_their_cycle() {
    let frag = |name: &str, uses: &str| {
        format!(
            "  {name}:\n    entrypoints: [w]\n    nodes:\n      w:\n        type: subgraph\n        \
title: W\n        description: D.\n        subgraph: {{use: {uses}}}\n"
        )
    };
    let text = format!(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: t\ntitle: T\nobjective: O.\n\
constraints: {{max_cost_usd: 1}}\nsubgraphs:\n{}{}{}{}{}{}{}{}entrypoints: [r]\nnodes:\n  r:\n    \
type: subgraph\n    title: R\n    description: D.\n    subgraph: {{use: c1}}\n",
        frag("selfish", "selfish"),
        frag("ping", "pong"),
        frag("pong", "ping"),
        frag("c1", "c2"),
        frag("c2", "c3"),
        frag("c3", "c1"),
        frag("head", "tail"),
        "  tail:\n    entrypoints: [w]\n    nodes:\n      w: {title: W, description: D.}\n",
    );
    let diags = check_agraph(text);
    let found: Vec<(String, String)> = diags
        .iter()
        .filter(|d| d.code == "AG131")
        .map(|d| (d.pointer.clone().unwrap_or_default(), d.message.clone()))
        .collect();
    let at = |f: &str| format!("/subgraphs/{f}/nodes/w/subgraph/use");
    let cycle = "recursive fragment use: `{}` is part of the cycle {c1, c2, c3}";
    let pair = "recursive fragment use: `{}` is part of the cycle {ping, pong}";
    assert_eq!(
        found,
        [
            (at("selfish"), "fragment `selfish` uses itself".to_string()),
            (at("ping"), pair.replace("{}", "pong")),
            (at("pong"), pair.replace("{}", "ping")),
            (at("c1"), cycle.replace("{}", "c2")),
            (at("c2"), cycle.replace("{}", "c3")),
            (at("c3"), cycle.replace("{}", "c1")),
        ]
    );
}
