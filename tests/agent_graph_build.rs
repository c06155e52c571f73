//! Agent Graph Providers through `build` and `graph`: one IR graph per graph, picked with
//! `--graph`; outcome lists on edges, repeat edges as back edges, subgraph calls as regions.

mod common;

use agc::check::CheckOptions;
use agc::compile::compile_file;
use agc::ir::{EdgeKind, NodeKind, RegionKind, Retry};
use agc::source::SourceMap;
use common::TempDir;
use std::path::Path;

fn provider(name: &str, files: &[(&str, String)]) -> TempDir {
    let d = TempDir::new(&format!("agc-agb-{name}-"));
    for (rel, text) in files {
        let p = d.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    d
}

fn opts(graph: &str) -> CheckOptions {
    CheckOptions {
        graph: Some(graph.to_string()),
        ..CheckOptions::default()
    }
}

const ACTION: &str =
    "schema: agent-graph.action.v1\nid: work\nrunner: command\neffect: write\ncommand: make\n";

#[test]
fn a_graph_lowers_with_outcomes_repeat_edges_and_subgraph_regions() {
    let d = provider(
        "lower",
        &[
            (
                "provider.yaml",
                "schema: agent-graph.provider.v1\nid: demo\nversion: 1.0.0\n\
                 graphs: [graphs/main.yaml, graphs/child.yaml]\n"
                    .into(),
            ),
            ("actions/work.yaml", ACTION.into()),
            (
                "graphs/main.yaml",
                "schema: agent-graph.graph.v1\nid: main\nentrypoints: {default: poll}\nnodes:\n\
                 - {id: poll, kind: action, action: actions/work.yaml, reasonCode: route.poll,\n   \
                    requiresFacts: [{path: source.ready, equals: true}]}\n\
                 - {id: call, kind: subgraph, graph: child, entry: default}\n\
                 - {id: done, kind: terminal, terminalOutcome: completed}\n\
                 edges:\n\
                 - {from: poll, to: poll, kind: repeat, outcomes: [partial]}\n\
                 - {from: poll, to: call, outcomes: [completed, skipped]}\n\
                 - {from: call, to: done}\n"
                    .into(),
            ),
            (
                "graphs/child.yaml",
                "schema: agent-graph.graph.v1\nid: child\nentrypoints: {default: step}\nnodes:\n\
                 - {id: step, kind: action, action: actions/work.yaml, reasonCode: route.step}\n\
                 - {id: end, kind: terminal, terminalOutcome: completed}\n\
                 edges: [{from: step, to: end}]\n"
                    .into(),
            ),
        ],
    );
    let mut sources = SourceMap::new();
    let manifest = d.join("provider.yaml");
    let (compiled, diags) = compile_file(&mut sources, &manifest, "provider.yaml", &opts("main"));
    assert!(!diags.iter().any(|d| d.is_error()), "{diags:?}");
    assert_eq!(compiled.len(), 1);
    let g = &compiled[0].graph;
    assert_eq!(g.id, "main");
    let ids: Vec<&str> = g.nodes.iter().map(|n| n.scoped_id.as_str()).collect();
    assert_eq!(ids, ["poll", "call", "done", "call/step", "call/end"]);
    assert_eq!(
        g.nodes[0].guard.as_ref().unwrap().source,
        "source.ready == true"
    );
    assert_eq!(g.nodes[0].attrs["reasonCode"], "route.poll");
    assert_eq!(g.nodes[1].kind, NodeKind::Subgraph);
    let region = g.region(g.nodes[1].owns.expect("call owns a region"));
    assert!(
        matches!(&region.kind, RegionKind::Subgraph { source, .. } if source.to_string() == "graph:child#default")
    );
    assert_eq!(region.nodes.len(), 2);
    assert_eq!(g.node(region.entrypoints[0]).scoped_id, "call/step");
    let repeat = &g.edges[0];
    assert_eq!(
        (repeat.kind, repeat.on.clone()),
        (EdgeKind::Back, vec!["partial".to_string()])
    );
    assert_eq!(g.edges[1].kind, EdgeKind::Conditional);
    assert_eq!(g.edges[1].on, ["completed", "skipped"]);
    assert_eq!(g.edges[2].kind, EdgeKind::Sequence);
    // Agent Graph sets no retry policy: each node runs once, and the plan says nothing of
    // retries (it said `"max_attempts": 0`, zero attempts, before the IR's default was one).
    assert!(g.nodes.iter().all(|n| n.extra.retry == Retry::ONCE));
    let mut plan = Vec::new();
    agc::compile::write_plan(&compiled[0], &sources, "provider.yaml", &mut plan).unwrap();
    let plan: serde_json::Value = serde_json::from_slice(&plan).unwrap();
    let nodes = plan["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 5);
    assert!(nodes.iter().all(|n| n.get("retry").is_none()), "{nodes:?}");
}

#[test]
fn graph_names_a_graph_the_provider_has() {
    let c = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/agent-graph/examples/subgraphs");
    if !c.is_dir() {
        eprintln!("skipped: corpus absent");
        return;
    }
    let mut sources = SourceMap::new();
    let m = c.join("provider.yaml");
    let (all, _) = compile_file(&mut sources, &m, "provider.yaml", &CheckOptions::default());
    assert_eq!(all.len(), 2, "one lowered graph per graph file");
    let (none, diags) = compile_file(&mut sources, &m, "provider.yaml", &opts("nope"));
    assert!(none.is_empty());
    assert!(diags.iter().any(|d| d.code == "AGC206"), "{diags:?}");
}

#[test]
fn a_provider_folder_builds_like_its_manifest() {
    let c = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/agent-graph/examples/subgraphs");
    if !c.is_dir() {
        eprintln!("skipped: corpus absent");
        return;
    }
    let mut sources = SourceMap::new();
    let (from_dir, diags) = compile_file(&mut sources, &c, "subgraphs", &CheckOptions::default());
    assert!(!diags.iter().any(|d| d.is_error()), "{diags:?}");
    let (from_manifest, _) = compile_file(
        &mut sources,
        &c.join("provider.yaml"),
        "subgraphs/provider.yaml",
        &CheckOptions::default(),
    );
    let ids = |v: &[agc::compile::Compiled]| -> Vec<String> {
        v.iter().map(|c| c.graph.id.clone()).collect()
    };
    assert_eq!(ids(&from_dir), ids(&from_manifest));
    assert_eq!(from_dir.len(), 2);
}

/// A Provider manifest listing `graphs/g0.yaml` … `graphs/g{n-1}.yaml`.
fn manifest_of(n: usize) -> String {
    format!(
        "schema: agent-graph.provider.v1\nid: demo\nversion: 1.0.0\ngraphs: [{}]\n",
        (0..n)
            .map(|i| format!("graphs/g{i}.yaml"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Each graph calls the next one twice: inlining doubles per level, and stops with AGC205.
#[test]
fn runaway_subgraph_inlining_stops_with_a_warning() {
    let levels = 18;
    let mut files: Vec<(String, String)> = vec![("provider.yaml".into(), manifest_of(levels))];
    for i in 0..levels {
        let body = if i + 1 < levels {
            format!(
                "- {{id: a, kind: subgraph, graph: g{n}, entry: default}}\n\
                 - {{id: b, kind: subgraph, graph: g{n}, entry: default}}\n\
                 - {{id: done, kind: terminal, terminalOutcome: completed}}\n\
                 edges: [{{from: a, to: b}}, {{from: b, to: done}}]\n",
                n = i + 1
            )
        } else {
            "- {id: a, kind: terminal, terminalOutcome: completed}\nedges: []\n".to_string()
        };
        files.push((
            format!("graphs/g{i}.yaml"),
            format!("schema: agent-graph.graph.v1\nid: g{i}\nentrypoints: {{default: a}}\nnodes:\n{body}"),
        ));
    }
    let refs: Vec<(&str, String)> = files.iter().map(|(a, b)| (a.as_str(), b.clone())).collect();
    let d = provider("runaway", &refs);
    let mut sources = SourceMap::new();
    let m = d.join("provider.yaml");
    let (compiled, diags) = compile_file(&mut sources, &m, "provider.yaml", &opts("g0"));
    assert!(diags.iter().any(|d| d.code == "AGC205"), "{diags:?}");
    assert!(compiled[0].graph.nodes.len() < 2 * agc::front::agent_graph::MAX_NODES);
}

/// A chain of 70 graphs, each calling the next: every graph is lowered with its calls
/// inlined, at most 64 levels deep, so the five graphs at the top of the chain warn (AGC205)
/// and the rest lower in full.
#[test]
fn a_long_chain_of_subgraph_calls_inlines_64_levels() {
    let n = 70;
    let mut files: Vec<(String, String)> = vec![
        ("provider.yaml".into(), manifest_of(n)),
        ("actions/work.yaml".into(), ACTION.to_string()),
    ];
    for i in 0..n {
        let call = if i + 1 < n {
            format!(
                "{{id: call, kind: subgraph, graph: g{}, entry: default}}",
                i + 1
            )
        } else {
            format!("{{id: call, kind: action, action: actions/work.yaml, reasonCode: route.g{i}}}")
        };
        files.push((
            format!("graphs/g{i}.yaml"),
            format!(
                "schema: agent-graph.graph.v1\nid: g{i}\nentrypoints: {{default: call}}\n\
                 nodes: [{call}, {{id: done, kind: terminal, terminalOutcome: completed}}]\n\
                 edges: [{{from: call, to: done}}]\n"
            ),
        ));
    }
    let refs: Vec<(&str, String)> = files.iter().map(|(a, b)| (a.as_str(), b.clone())).collect();
    let d = provider("chain", &refs);
    let m = d.join("provider.yaml");
    let mut sources = SourceMap::new();
    let (compiled, diags) = compile_file(&mut sources, &m, "provider.yaml", &opts("g0"));
    let warned: Vec<&str> = diags
        .iter()
        .filter(|d| d.code == "AGC205")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(warned.len(), 5, "{diags:?}");
    assert!(
        warned[0].starts_with("graph `g0`'s subgraph calls nest more than 64 levels deep"),
        "{}",
        warned[0]
    );
    let g0 = &compiled[0].graph;
    let deepest = g0
        .nodes
        .iter()
        .map(|n| n.scoped_id.matches('/').count())
        .max();
    assert_eq!(deepest, Some(64));
    let (compiled, _) = compile_file(&mut sources, &m, "provider.yaml", &opts("g5"));
    assert_eq!(compiled[0].graph.nodes.len(), 2 * (n - 5));
}

/// A Provider's plans name each graph's own file as their source, not the argument given.
#[test]
fn each_plan_names_its_own_graph_file() {
    let c = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/agent-graph/examples/subgraphs");
    if !c.is_dir() {
        eprintln!("skipped: corpus absent");
        return;
    }
    let mut sources = SourceMap::new();
    let (all, diags) = compile_file(&mut sources, &c, "subgraphs", &CheckOptions::default());
    assert!(!diags.iter().any(|d| d.is_error()), "{diags:?}");
    let mut paths: Vec<String> = all
        .iter()
        .map(|g| {
            let plan: serde_json::Value =
                serde_json::from_str(&agc::compile::plan_text(g, &sources, "subgraphs")).unwrap();
            format!(
                "{}={}",
                g.graph.id,
                plan["source"]["path"].as_str().unwrap()
            )
        })
        .collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            "main=subgraphs/graphs/main.yaml",
            "quality=subgraphs/graphs/quality.yaml"
        ]
    );
}

/// A graph file given to a compiling command is compiled with the Provider that lists it,
/// the nearest at or above its folder (a folder whose manifest does not list it is passed
/// over): the same graph as the Provider with `--graph`, subgraph calls resolved. A graph no
/// Provider lists is AGC084, and `--graph` naming another graph is AGC206.
#[test]
fn a_graph_file_compiles_with_the_provider_that_lists_it() {
    let manifest = |graphs: &str| {
        format!("schema: agent-graph.provider.v1\nid: demo\nversion: 1.0.0\ngraphs: [{graphs}]\n")
    };
    let graph = |id: &str| {
        format!(
            "schema: agent-graph.graph.v1\nid: {id}\nentrypoints: {{default: step}}\nnodes:\n\
             - {{id: step, kind: action, action: actions/work.yaml, reasonCode: route.{id}}}\n\
             - {{id: done, kind: terminal, terminalOutcome: completed}}\n\
             edges: [{{from: step, to: done}}]\n"
        )
    };
    let d = provider(
        "lone",
        &[
            (
                "provider.yaml",
                manifest("graphs/main.yaml, graphs/child.yaml"),
            ),
            ("actions/work.yaml", ACTION.into()),
            ("graphs/main.yaml", graph("main")),
            ("graphs/child.yaml", graph("child")),
            // A nearer manifest that lists other graphs only.
            ("graphs/provider.yaml", manifest("other.yaml")),
            ("graphs/stray.yaml", graph("stray")),
        ],
    );
    // `.agc-root` marks the workspace root, so the search stops at the temp folder.
    std::fs::write(d.join(".agc-root"), "").unwrap();
    let build = |path: &Path, display: &str, o: &CheckOptions| {
        let mut sources = SourceMap::new();
        let (compiled, diags) = compile_file(&mut sources, path, display, o);
        let codes: Vec<&str> = diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.code)
            .collect();
        let plans: Vec<String> = compiled
            .iter()
            .map(|c| agc::compile::plan_text(c, &sources, &c.display))
            .collect();
        (plans, codes, diags)
    };
    let (through, codes, _) = build(
        &d.join("graphs/child.yaml"),
        "graphs/child.yaml",
        &CheckOptions::default(),
    );
    assert_eq!(codes, Vec::<&str>::new());
    let (direct, _, _) = build(&d.join("provider.yaml"), "provider.yaml", &opts("child"));
    assert_eq!(through.len(), 1);
    assert_eq!(through, direct);
    // Listed by no Provider.
    let (plans, codes, diags) = build(
        &d.join("graphs/stray.yaml"),
        "graphs/stray.yaml",
        &CheckOptions::default(),
    );
    assert!(plans.is_empty());
    assert_eq!(codes, ["AGC084"]);
    assert!(
        diags[0]
            .message
            .contains("no Provider up to the workspace root lists `graphs/stray.yaml`"),
        "{}",
        diags[0].message
    );
    // `--graph` naming another graph than the file's.
    let (_, codes, _) = build(
        &d.join("graphs/main.yaml"),
        "graphs/main.yaml",
        &opts("child"),
    );
    assert_eq!(codes, ["AGC206"]);
}

/// With no `--root` and no root marker above it, the default root of a document is its own
/// folder, which never holds a graph's Provider: a graph file then finds its Provider with no
/// bound on the search, given by an absolute or a relative path.
#[test]
fn a_graph_file_finds_its_provider_without_a_root_marker() {
    let d = provider(
        "unmarked",
        &[
            ("provider.yaml", manifest_of(1)),
            ("actions/work.yaml", ACTION.into()),
            (
                "graphs/g0.yaml",
                "schema: agent-graph.graph.v1\nid: g0\nentrypoints: {default: a}\nnodes:\n\
                 - {id: a, kind: action, action: actions/work.yaml, reasonCode: route.g0.a}\n\
                 - {id: done, kind: terminal, terminalOutcome: completed}\n\
                 edges: [{from: a, to: done}]\n"
                    .into(),
            ),
        ],
    );
    assert!(
        agc::front::marked_root(&d.join("graphs/g0.yaml")).is_none(),
        "the temp folder is unmarked"
    );
    let mut sources = SourceMap::new();
    let (compiled, diags) = compile_file(
        &mut sources,
        &d.join("graphs/g0.yaml"),
        "g0.yaml",
        &CheckOptions::default(),
    );
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(compiled.len(), 1);
    assert_eq!(compiled[0].graph.id, "g0");
    // An explicit root below the Provider still bounds the search.
    let o = CheckOptions {
        root: Some(d.join("graphs")),
        ..CheckOptions::default()
    };
    let (_, diags) = compile_file(&mut sources, &d.join("graphs/g0.yaml"), "g0.yaml", &o);
    assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), ["AGC084"]);
}
