//! The streamed plan against the same plan materialised as a `serde_json::Value`, on a small
//! hand-made graph that touches every optional field and every region kind.

use super::*;
use crate::ir::expr::ExprLang;
use crate::ir::{
    DataLink, Edge, EdgeKind, Input, Join, LoopMode, Node, NodeKind, Outcome, Outcomes, Output,
    Param, Region, RegionId,
};
use crate::source::{FileId, SourceFile};
use agc_runtime::expr::{Expr as Core, ExprKind};
use serde_json::json;

fn expr(source: &str, at: usize) -> IrExpr {
    IrExpr {
        lang: ExprLang::Agx,
        source: source.into(),
        core: Some(
            Core {
                id: 0,
                kind: ExprKind::Ident {
                    name: source.into(),
                },
            }
            .into(),
        ),
        span: Span::point(FileId(0), at),
    }
}

fn node(id: &str, kind: NodeKind, region: Option<RegionId>) -> Node {
    let local = id.rsplit('.').next().unwrap_or(id).to_string();
    Node {
        region,
        ..Node::bare(id, local, kind, "task")
    }
}

/// Four nodes: `a` (inputs of every source, a guard, a title), then the owners of a loop, a
/// map and a subgraph (the loop's `collect` and `carry` repeat a key), plus a parallel region.
fn graph() -> Graph {
    let mut g = Graph::new("ags", "g".into());
    g.title = Some("A \"quoted\" title".into());
    g.params.push(Param {
        name: "p".into(),
        ty: "integer".into(),
        required: false,
        default: Some(json!(3)),
        decl: Default::default(),
    });
    g.constraints.insert("max_cost_usd".into(), json!(1.5));
    let sp = |at| Span::point(FileId(0), at);
    let mut a = node("a", NodeKind::Task, None);
    a.title = Some("é".into());
    a.guard = Some(Box::new(expr("params.p", 4)));
    a.join = Join::NOf { count: 2 };
    a.extra.make_mut().retry.timeout_seconds = Some(2.0);
    a.extra.make_mut().estimate.cost_usd = Some(0.25);
    a.attrs
        .insert("x", json!({"z": 1, "a": [true, null]}).into());
    let input = |name: &str, source| Input {
        name: name.into(),
        ty: "any".into(),
        required: true,
        source,
        decl: Default::default(),
    };
    a.inputs = vec![
        input(
            "e",
            InputSource::Expr {
                expr: expr("params.p", 9),
            },
        ),
        input(
            "t",
            InputSource::Template {
                template: expr("t", 12),
            },
        ),
        input(
            "v",
            InputSource::Value {
                value: json!([1]).into(),
            },
        ),
        input("i", InputSource::Implicit),
    ];
    a.outputs.push(Output {
        name: "out".into(),
        ty: "string".into(),
        required: false,
        decl: Default::default(),
    });
    let a = g.add_node(a, sp(0));
    let lp = g.add_node(node("lp", NodeKind::Loop, None), sp(14));
    let mp = g.add_node(node("mp", NodeKind::Map, None), sp(16));
    let sub = g.add_node(node("sub", NodeKind::Subgraph, None), sp(18));
    let lr = g.add_region(
        Region {
            kind: RegionKind::Loop {
                mode: LoopMode::Until,
                condition: Some(expr("done", 20)),
                max_iterations: 3,
                carry: vec![("k".into(), "one".into()), ("k".into(), "two".into())],
                collect: vec![
                    ("c".into(), expr("first", 1)),
                    ("d".into(), expr("d", 2)),
                    ("c".into(), expr("last", 3)),
                ],
            },
            owner: lp,
            parent: None,
            entrypoints: vec![a],
            nodes: vec![a],
        },
        sp(14),
    );
    g.nodes[a.index()].region = Some(lr);
    g.add_region(
        Region {
            kind: RegionKind::Map {
                over: expr("items", 16),
                item: "it".into(),
                index_as: "i".into(),
                max_items: 10,
                max_parallel: 2,
                on_item_failure: crate::ir::OnItemFailure::Continue,
                min_successes: None,
                collect: vec![],
            },
            owner: mp,
            parent: Some(lr),
            entrypoints: vec![],
            nodes: vec![],
        },
        sp(16),
    );
    g.add_region(
        Region {
            kind: RegionKind::Subgraph {
                source: crate::ir::SubgraphSource::Use("s".into()),
                params: vec![("q".into(), expr("q", 18))],
                outputs: vec![],
                inherit_context: true,
            },
            owner: sub,
            parent: None,
            entrypoints: vec![],
            nodes: vec![],
        },
        sp(18),
    );
    g.add_region(
        Region {
            kind: RegionKind::Parallel,
            owner: sub,
            parent: None,
            entrypoints: vec![],
            nodes: vec![],
        },
        sp(19),
    );
    g.add_edge(
        Edge {
            from: lp,
            to: mp,
            kind: EdgeKind::Back,
            outcomes: Outcomes::from([Outcome::Succeeded, Outcome::Failed]),
            guard: Some(Box::new(expr("again", 21))),
            order: Some(1),
            bound: Some(4),
            implicit: false,
            label: Some("retry".into()),
            on: vec![],
        },
        sp(21),
    );
    g.add_edge(
        Edge {
            from: mp,
            to: sub,
            kind: EdgeKind::Sequence,
            outcomes: Outcomes::from([Outcome::Succeeded]),
            guard: None,
            order: None,
            bound: None,
            implicit: true,
            label: None,
            on: vec![],
        },
        sp(22),
    );
    g.links.push(DataLink {
        from: a,
        output: "out".into(),
        to: mp,
        at: "inputs.x".into(),
        ty: "string".into(),
    });
    g.entrypoints.push(lp);
    g
}

fn with_plan<T>(digest: Option<&str>, f: impl FnOnce(&PlanInput<'_>) -> T) -> T {
    with_plan_at("dir/g.yaml", digest, f)
}

/// The plan of [`graph`] (written in `dir/g.yaml`) for a source document named `path`.
fn with_plan_at<T>(path: &str, digest: Option<&str>, f: impl FnOnce(&PlanInput<'_>) -> T) -> T {
    with_plan_of(graph(), path, digest, f)
}

/// The plan of `g` (written in `dir/g.yaml`) for a source document named `path`.
fn with_plan_of<T>(
    g: Graph,
    path: &str,
    digest: Option<&str>,
    f: impl FnOnce(&PlanInput<'_>) -> T,
) -> T {
    let mut sources = SourceMap::new();
    sources.add(SourceFile::new(
        "dir/g.yaml",
        "ab\ncdé\nefghijklmnopqrstuvwxyz\n",
    ));
    let order: Vec<NodeId> = (0..g.nodes.len() as u32).map(NodeId).collect();
    let bounds = crate::analysis::bounds::compute(&g, &order);
    f(&PlanInput {
        graph: &g,
        order: &order,
        bounds: &bounds,
        sources: &sources,
        path,
        digest,
        eval_limits: Default::default(),
    })
}

#[test]
fn streamed_text_is_the_laid_out_value() {
    for digest in [None, Some("sha256-x")] {
        with_plan(digest, |input| {
            let text = to_string(input);
            let value = build(input);
            let mut laid_out = Vec::new();
            agc_runtime::plan::layout::write_plan_layout(&mut laid_out, &value).unwrap();
            assert_eq!(text.as_bytes(), laid_out);
            let mut streamed = Vec::new();
            write(input, &mut streamed).unwrap();
            assert_eq!(streamed, text.as_bytes());
            let mut compact = Vec::new();
            write_compact(input, &mut compact).unwrap();
            assert_eq!(
                compact,
                (serde_json::to_string(&value).unwrap() + "\n").as_bytes()
            );
            assert_eq!(compact.iter().filter(|&&b| b == b'\n').count(), 1);
            assert_eq!(
                value["source"].get("graph_digest").is_some(),
                digest.is_some()
            );
        });
    }
}

#[test]
fn a_repeated_key_keeps_its_first_place_and_its_last_value() {
    with_plan(None, |input| {
        let v = build(input);
        let lp = &v["regions"][0];
        let collect = lp["collect"].as_object().unwrap();
        let keys: Vec<&str> = collect.keys().map(String::as_str).collect();
        assert_eq!(keys, ["c", "d"]);
        assert_eq!(collect["c"]["source"], "last");
        assert_eq!(lp["carry"], json!({"k": "two"}));
        let text = to_string(input);
        // The text itself carries each key once (`k` only appears in `carry`).
        assert_eq!(text.matches("\"k\"").count(), 1);
    });
}

#[test]
fn fields_come_in_schema_order_with_locations() {
    with_plan(None, |input| {
        let v = build(input);
        let top: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            top,
            [
                "format",
                "source",
                "graph",
                "params",
                "entrypoints",
                "constraints",
                "semantics",
                "nodes",
                "edges",
                "regions",
                "links",
                "bounds"
            ]
        );
        let a = &v["nodes"][0];
        assert_eq!(a["region"], "lp");
        assert_eq!(a["join"], json!({"mode": "n_of", "count": 2}));
        // Line 2 is `cdé` (5 bytes, 3 columns), so byte 9 is line 3, column 2.
        assert_eq!(a["inputs"][0]["from"]["location"], "3:2");
        // `required: true` is the default and left out.
        assert_eq!(
            a["inputs"][3],
            json!({"name": "i", "type": "any", "implicit": true})
        );
        assert_eq!(v["regions"][1]["parent"], "lp");
        assert_eq!(
            v["regions"][3],
            json!({"owner": "sub", "kind": "parallel", "entrypoints": [], "nodes": [], "location": "3:12"})
        );
        assert_eq!(v["edges"][1].get("guard"), None);
        assert_eq!(v["links"][0]["type"], "string");
    });
}

/// Locations in another file than the plan's source document name their path.
#[test]
fn locations_outside_the_document_name_their_file() {
    with_plan_at("other.yaml", None, |input| {
        let v = build(input);
        assert_eq!(
            v["nodes"][0]["inputs"][0]["from"]["location"],
            "dir/g.yaml:3:2"
        );
        let plan = agc_runtime::plan::Plan::from_json(&to_string(input)).expect("plan");
        let loc = &plan.nodes[0].location;
        assert_eq!(
            (loc.path.as_str(), loc.line, loc.column),
            ("dir/g.yaml", 1, 1)
        );
    });
}

/// Graph outputs and body outputs declared interleaved come out under their owner each, in
/// declaration order; a body without outputs has no `body_outputs`.
#[test]
fn outputs_go_to_their_owner_in_declaration_order() {
    let mut g = graph();
    for (owner, region) in [(1, 0), (2, 1), (3, 2)] {
        g.nodes[owner].owns = Some(RegionId(region));
    }
    let regions = [
        None,
        Some(RegionId(0)),
        Some(RegionId(2)),
        None,
        Some(RegionId(0)),
    ];
    for (i, region) in regions.into_iter().enumerate() {
        g.outputs.push(crate::ir::GraphOutput {
            region,
            name: format!("o{i}"),
            ty: "string".into(),
            required: true,
            from: None,
            decl: Default::default(),
        });
    }
    with_plan_of(g, "dir/g.yaml", None, |input| {
        let v = build(input);
        let names = |list: &Value| -> Vec<String> {
            list.as_array()
                .unwrap()
                .iter()
                .map(|o| o["name"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(names(&v["outputs"]), ["o0", "o3"]);
        assert_eq!(names(&v["regions"][0]["body_outputs"]), ["o1", "o4"]);
        assert_eq!(v["regions"][1].get("body_outputs"), None);
        assert_eq!(names(&v["regions"][2]["body_outputs"]), ["o2"]);
        assert_eq!(to_string(input), {
            let mut t = Vec::new();
            agc_runtime::plan::layout::write_plan_layout(&mut t, &v).unwrap();
            String::from_utf8(t).unwrap()
        });
    });
}

/// A graph large enough for its nodes, edges and links to be formatted on two threads, each
/// array's last chunk short: the same bytes as the plan laid out by one serializer, and as the
/// compact form read back.
#[test]
fn arrays_formatted_on_two_threads_are_the_laid_out_value() {
    let mut g = graph();
    let count = super::array::PARALLEL_FROM + 3 * super::array::chunk_len("edges") + 17;
    let mut ids = Vec::new();
    for i in 0..count {
        let mut n = node(&format!("n{i}"), NodeKind::Task, None);
        if i % 3 == 0 {
            n.title = Some(format!("node \"{i}\"").into());
        }
        if i % 5 == 0 {
            n.guard = Some(Box::new(expr("params.p", i % 20)));
        }
        ids.push(g.add_node(n, Span::point(FileId(0), i % 20)));
    }
    for (i, w) in ids.windows(2).enumerate() {
        let edge = Edge {
            from: w[0],
            to: w[1],
            kind: EdgeKind::Sequence,
            outcomes: Outcomes::from([Outcome::Succeeded]),
            guard: (i % 7 == 0).then(|| Box::new(expr("params.p", i % 20))),
            order: None,
            bound: None,
            implicit: i % 2 == 0,
            label: (i % 11 == 0).then(|| format!("e{i}")),
            on: vec![],
        };
        g.add_edge(edge, Span::point(FileId(0), i % 20));
        g.links.push(DataLink {
            from: w[0],
            output: format!("o{i}"),
            to: w[1],
            at: "inputs.x".into(),
            ty: "string".into(),
        });
    }
    with_plan_of(g, "dir/g.yaml", Some("sha256-x"), |input| {
        let mut streamed = Vec::new();
        write(input, &mut streamed).unwrap();
        let mut laid_out = Vec::new();
        agc_runtime::plan::layout::write_plan_layout(&mut laid_out, &Plan::new(input)).unwrap();
        assert_eq!(streamed.len(), laid_out.len());
        assert!(streamed == laid_out, "the two layouts differ");
        let value: serde_json::Value = serde_json::from_slice(&streamed).unwrap();
        assert_eq!(value["nodes"].as_array().unwrap().len(), count + 4);
        assert_eq!(value["edges"].as_array().unwrap().len(), count - 1 + 2);
        assert_eq!(value["links"].as_array().unwrap().len(), count - 1 + 1);
        assert_eq!(
            value["links"][count - 1]["output"],
            format!("o{}", count - 2)
        );
        assert_eq!(value, build(input));
    });
}

/// `eval_limits` (from `agc build --eval-…`) is written after everything else and reads back
/// into the runtime's plan, which writes the same bytes.
#[test]
fn eval_limits_are_written_and_read_back() {
    with_plan(None, |input| {
        assert!(!to_string(input).contains("eval_limits"));
        let limits = agc_runtime::plan::EvalLimits {
            depth: Some(50),
            timeout_seconds: Some(0.5),
            ..Default::default()
        };
        let input = PlanInput {
            eval_limits: limits,
            ..*input
        };
        let text = to_string(&input);
        assert!(
            text.ends_with(
                "  \"eval_limits\": {\n    \"depth\": 50,\n    \"timeout_seconds\": 0.5\n  }\n}\n"
            ),
            "{text}"
        );
        let plan = agc_runtime::plan::Plan::from_json(&text).unwrap();
        assert_eq!(plan.eval_limits, limits);
        assert_eq!(plan.to_pretty_string(), text);
        let applied = limits.apply(agc_runtime::jq::Limits::DEFAULT);
        assert_eq!(applied.depth, 50);
        assert_eq!(applied.time, std::time::Duration::from_millis(500));
        assert_eq!(applied.stack, agc_runtime::jq::Limits::DEFAULT.stack);
    });
}
