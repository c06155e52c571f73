//! AGS checks found wanting in exploratory testing: subgraph outputs and params, criterion
//! outputs, reserved map bindings, a node reading itself, inherited `n_of` joins, param
//! defaults, `loop.previous`, `map.over` types and the AG201 help.

mod common;

use agc::diag::Diagnostic;
use common::check_agraph;

/// A graph with `top` (top-level fields) and `nodes` (indented YAML under `nodes:`).
fn graph(top: &str, nodes: &str) -> String {
    format!(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: t\ntitle: T\nobjective: O.\n\
constraints: {{max_cost_usd: 1}}\n{top}nodes:\n{nodes}"
    )
}

fn errors(text: &str) -> Vec<Diagnostic> {
    check_agraph(text.to_string())
        .into_iter()
        .filter(Diagnostic::is_error)
        .collect()
}

/// The error codes of `text`, sorted.
fn codes(text: &str) -> Vec<&'static str> {
    let mut c: Vec<&str> = errors(text).iter().map(|d| d.code).collect();
    c.sort_unstable();
    c
}

const FRAGMENT: &str = "subgraphs:
  frag:
    title: F
    description: F.
    params:
      need: {type: string, description: N.}
      opt: {type: string, description: O., required: false}
      dflt: {type: string, description: D., default: x}
    entrypoints: [w]
    nodes:
      w:
        title: W
        description: W.
        inputs:
          n: {type: string, description: N., from: params.need}
        outputs:
          r: {type: string, description: R.}
    outputs:
      r: {type: string, description: R., from: nodes.w.outputs.r}
entrypoints: [s]
";

/// A `subgraph.use` node `s` with `sub` (indented under `subgraph:`), read by graph outputs.
fn use_node(sub: &str, read: &str) -> String {
    graph(
        FRAGMENT,
        &format!(
            "  s:\n    type: subgraph\n    title: S\n    description: S.\n    subgraph:\n      \
use: frag\n{sub}outputs:\n  r: {{type: string, description: R., from: {read}}}\n"
        ),
    )
}

#[test]
fn a_use_without_outputs_from_has_its_fragments_outputs() {
    let text = use_node("      params: {need: '\"v\"'}\n", "nodes.s.outputs.r");
    assert_eq!(codes(&text), Vec::<&str>::new());
    // A name the fragment does not declare is still unknown.
    let text = use_node("      params: {need: '\"v\"'}\n", "nodes.s.outputs.nope");
    assert_eq!(codes(&text), ["AG206"]);
}

#[test]
fn subgraph_params_are_checked_against_the_child() {
    // `need` is required with no default: leaving it out is AG301; `opt` and `dflt` may be.
    let text = use_node("", "nodes.s.outputs.r");
    assert_eq!(codes(&text), ["AG301"]);
    let text = use_node("      params: {opt: '\"v\"'}\n", "nodes.s.outputs.r");
    let found = errors(&text);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].code, "AG301");
    assert!(found[0].message.contains("`need`"), "{}", found[0].message);
    // A name the child does not declare is AG302, with a suggestion.
    let text = use_node(
        "      params: {need: '\"v\"', neede: '\"w\"'}\n",
        "nodes.s.outputs.r",
    );
    let found = errors(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].code, "AG302");
    assert_eq!(found[0].help.as_deref(), Some("did you mean `need`?"));
}

#[test]
fn a_criterion_output_names_a_declared_output() {
    for kind in [
        "artifact_present",
        "regex\n          pattern: x",
        "json_schema\n          schema: {type: string}",
    ] {
        let nodes = format!(
            "  a:\n    title: A\n    description: A.\n    outputs:\n      x: {{type: string, \
description: X.}}\n    success:\n      criteria:\n        - id: c\n          kind: {kind}\n          \
description: C.\n          output: OUT\n"
        );
        let top = "entrypoints: [a]\n";
        assert_eq!(
            codes(&graph(top, &nodes.replace("OUT", "x"))),
            Vec::<&str>::new()
        );
        let found = errors(&graph(top, &nodes.replace("OUT", "nope")));
        assert_eq!(found.len(), 1, "{kind}: {found:?}");
        assert_eq!(found[0].code, "AG206");
    }
    // The graph's own success names graph outputs.
    let top = "entrypoints: [a]\noutputs:\n  o: {type: string, description: O., from: nodes.a.outputs.x}\n\
success:\n  criteria:\n    - {id: c, kind: artifact_present, description: C., output: OUT}\n";
    let nodes = "  a:\n    title: A\n    description: A.\n    outputs:\n      x: {type: string, description: X.}\n";
    assert_eq!(
        codes(&graph(&top.replace("OUT", "o"), nodes)),
        Vec::<&str>::new()
    );
    assert_eq!(codes(&graph(&top.replace("OUT", "x"), nodes)), ["AG206"]);
}

/// A map node binding `as` and `index_as` (`None`: left out), whose body reads `read`.
fn map_graph(name_as: &str, index_as: Option<&str>, read: &str) -> String {
    let index = index_as.map_or(String::new(), |i| format!("      index_as: {i}\n"));
    graph(
        "params:\n  dir: {type: string, description: D., default: docs}\nentrypoints: [m]\n",
        &format!(
            "  m:\n    type: map\n    title: M\n    description: M.\n    map:\n      \
over: '[\"a\", \"b\"]'\n      as: {name_as}\n{index}      max_items: 2\n      body:\n        \
title: B\n        description: B.\n        entrypoints: [w]\n        nodes:\n          w:\n            \
title: W\n            description: W.\n            inputs:\n              d: {{type: string, \
description: D., from: {read}}}\n"
        ),
    )
}

#[test]
fn map_bindings_cannot_be_reserved_or_equal() {
    assert_eq!(
        codes(&map_graph("page", Some("i"), "params.dir")),
        Vec::<&str>::new()
    );
    for reserved in [
        "params", "nodes", "graph", "self", "loop", "item", "secrets",
    ] {
        let found = codes(&map_graph(reserved, Some("i"), "params.dir"));
        // `item` is the future default of `as` (see `agc explain AGC111`).
        assert_eq!(
            found.contains(&"AGC111"),
            reserved != "item",
            "as: {reserved}: {found:?}"
        );
        let found = codes(&map_graph("page", Some(reserved), "params.dir"));
        assert!(found.contains(&"AGC111"), "index_as: {reserved}: {found:?}");
    }
    // A reserved binding does not hide the root: `params.dir` still reads the param.
    assert_eq!(
        codes(&map_graph("params", Some("i"), "params.dir")),
        ["AGC111"]
    );
    assert_eq!(codes(&map_graph("p", Some("p"), "p")), ["AGC111"]);
    // `index_as` defaults to `index`.
    assert_eq!(codes(&map_graph("index", None, "index")), ["AGC111"]);
}

/// One node `a` with output `x`, a `field` (YAML lines under the node) reading `expr`.
fn own(field: &str) -> String {
    graph(
        "entrypoints: [a]\n",
        &format!(
            "  a:\n    title: A\n    description: A.\n{field}    outputs:\n      x: {{type: string, \
description: X.}}\n"
        ),
    )
}

#[test]
fn a_node_reads_itself_only_after_it_ran() {
    for field in [
        "    when: nodes.a.outputs.x == \"go\"\n",
        "    when: nodes.self.outputs.x == \"go\"\n",
        "    when: succeeded(\"a\")\n",
        "    inputs:\n      p: {type: string, description: P., from: nodes.a.outputs.x}\n",
        "    instructions: \"${{ nodes.a.outputs.x }}\"\n",
    ] {
        let found = errors(&own(field));
        assert_eq!(found.len(), 1, "{field}: {found:?}");
        assert_eq!(found[0].code, "AG201", "{field}");
        assert!(found[0].message.contains("itself"), "{}", found[0].message);
    }
    // Where its outputs exist, it may.
    for field in [
        "    success:\n      criteria:\n        - {id: c, kind: expression, description: C., \
expr: 'nodes.a.outputs.x == \"go\"'}\n",
        "    human:\n      - {id: h, at: after_outputs, mode: review, prompt: \
'${{ nodes.a.outputs.x }}'}\n",
        "    failure:\n      escalation: {to: human, message: '${{ nodes.a.outputs.x }}'}\n",
    ] {
        assert_eq!(codes(&own(field)), Vec::<&str>::new(), "{field}");
    }
}

#[test]
fn an_inherited_n_of_join_needs_its_own_count() {
    let top = "defaults:\n  join: n_of\nentrypoints: [a]\n";
    // `a`, an entrypoint, never waits on its join: it needs no count.
    let nodes = "  a: {title: A, description: A.}\n  b: {title: B, description: B., \
depends_on: [a]COUNT}\n";
    let found = errors(&graph(top, &nodes.replace("COUNT", "")));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].code, "AG001");
    assert!(found[0].message.contains("`b`"), "{}", found[0].message);
    assert_eq!(
        codes(&graph(top, &nodes.replace("COUNT", ", join_count: 1"))),
        Vec::<&str>::new()
    );
    // Its own `join` decides.
    assert_eq!(
        codes(&graph(top, &nodes.replace("COUNT", ", join: all"))),
        Vec::<&str>::new()
    );
    // AG116 counts inherited joins too.
    assert_eq!(
        codes(&graph(top, &nodes.replace("COUNT", ", join_count: 2"))),
        ["AG116"]
    );
}

#[test]
fn param_defaults_fit_their_declaration() {
    let text = |spec: &str| {
        graph(
            &format!("params:\n  p: {spec}\nentrypoints: [a]\n"),
            "  a: {title: A, description: A.}\n",
        )
    };
    for bad in [
        "{type: boolean, description: D., default: yes}",
        "{type: integer, description: D., default: many}",
        "{type: string, description: D., default: prod, enum: [dev, staging]}",
        "{type: string, description: D., default: ab, schema: {type: string, minLength: 3}}",
    ] {
        assert_eq!(codes(&text(bad)), ["AG302"], "{bad}");
    }
    for good in [
        "{type: boolean, description: D., default: true}",
        "{type: integer, description: D., default: 3}",
        "{type: string, description: D., default: dev, enum: [dev, staging]}",
        "{type: any, description: D., default: [1]}",
    ] {
        assert_eq!(codes(&text(good)), Vec::<&str>::new(), "{good}");
    }
}

/// A loop collecting `done`, whose body reads `read` as an input.
fn loop_graph(read: &str) -> String {
    graph(
        "entrypoints: [l]\n",
        &format!(
            "  l:\n    type: loop\n    title: L\n    description: L.\n    loop:\n      mode: until\n      \
max_iterations: 3\n      condition: nodes.w.outputs.done == true\n      collect:\n        \
done: nodes.w.outputs.done\n      body:\n        title: B\n        description: B.\n        \
entrypoints: [w]\n        nodes:\n          w:\n            title: W\n            description: W.\n            \
inputs:\n              p: {{type: any, description: P., required: false, from: {read}}}\n            \
outputs:\n              done: {{type: boolean, description: D.}}\n"
        ),
    )
}

#[test]
fn loop_previous_holds_the_collected_outputs() {
    assert_eq!(codes(&loop_graph("loop.previous.done")), Vec::<&str>::new());
    assert_eq!(codes(&loop_graph("loop.previous")), Vec::<&str>::new());
    assert_eq!(codes(&loop_graph("loop.previous.nope")), ["AG206"]);
    assert_eq!(codes(&loop_graph("loop.previous.nope.deep")), ["AG206"]);
}

/// `a` outputs `x` of type `ty`; map `m` after it maps over `over`.
fn over(ty: &str, over: &str) -> String {
    graph(
        "params:\n  s: {type: string, description: S., default: x}\nentrypoints: [a]\n",
        &format!(
            "  a:\n    title: A\n    description: A.\n    outputs:\n      x: {{type: {ty}, \
description: X.}}\n  m:\n    type: map\n    title: M\n    description: M.\n    depends_on: [a]\n    \
map:\n      over: {over}\n      as: e\n      max_items: 2\n      body:\n        title: B\n        \
description: B.\n        entrypoints: [w]\n        nodes:\n          w: {{title: W, description: W.}}\n"
        ),
    )
}

#[test]
fn map_over_a_value_that_is_never_an_array_is_an_error() {
    for ty in ["array", "file_set", "any", "json"] {
        assert_eq!(
            codes(&over(ty, "nodes.a.outputs.x")),
            Vec::<&str>::new(),
            "{ty}"
        );
    }
    for ty in ["markdown", "string", "integer", "object", "boolean"] {
        assert_eq!(codes(&over(ty, "nodes.a.outputs.x")), ["AG204"], "{ty}");
    }
    assert_eq!(codes(&over("array", "params.s")), ["AG204"]);
    assert_eq!(
        codes(&over("markdown", "split(nodes.a.outputs.x, ' ')")),
        Vec::<&str>::new()
    );
}

#[test]
fn the_ag201_help_never_proposes_a_cycle() {
    // `b` runs after `a`: `a` (here, the edge from `a`) reading `b` goes against the order.
    let nodes = "  a:\n    title: A\n    description: A.\n    outputs:\n      x: {type: string, description: X.}\n  \
b:\n    title: B\n    description: B.\n    outputs:\n      y: {type: string, description: Y.}\n";
    let text = graph(
        "entrypoints: [a]\n",
        &format!(
            "{nodes}edges:\n  - {{from: a, to: b, kind: conditional, when: 'nodes.b.outputs.y == \"q\"'}}\n"
        ),
    );
    let found = errors(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    let help = found[0].help.as_deref().unwrap_or_default();
    assert!(!help.contains("depends_on"), "{help}");
    assert!(help.contains("against the order"), "{help}");
    // Unordered siblings: a dependency is the fix.
    let text = graph(
        "entrypoints: [a, c]\n",
        &format!(
            "{nodes}  c:\n    title: C\n    description: C.\n    inputs:\n      \
v: {{type: string, description: V., from: nodes.b.outputs.y}}\nedges:\n  - {{from: a, to: b}}\n"
        ),
    );
    let found = errors(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].help.as_deref(),
        Some("add `depends_on: [b]` to `c` (or an edge between them)")
    );
}
