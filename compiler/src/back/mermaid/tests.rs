//! Diagrams of graphs built directly in the IR, the way every dialect lowers: regions of each
//! kind as containers, labels, entry marks, the title, folding and the legend.

use super::*;
use crate::ir::expr::ExprLang;
use crate::ir::{Edge, EdgeKind, IrExpr, LoopMode, Node, Outcome, Outcomes, Region};
use crate::source::{FileId, Span};

fn sp() -> Span {
    Span::point(FileId(0), 0)
}

pub(super) fn x(source: &str) -> IrExpr {
    IrExpr {
        lang: ExprLang::Agx,
        source: source.into(),
        core: None,
        span: sp(),
    }
}

pub(super) struct B(pub(super) Graph);

impl B {
    pub(super) fn new() -> B {
        B(Graph::new("test", "g".into()))
    }
    pub(super) fn node(&mut self, id: &str, kind: NodeKind, region: Option<u32>) -> u32 {
        let mut n = Node::bare(id, id, kind, "task");
        n.region = region.map(RegionId);
        self.0.add_node(n, sp()).0
    }
    fn titled(&mut self, n: u32, title: &str) {
        self.0.nodes[n as usize].title = Some(title.into());
    }
    pub(super) fn edge(&mut self, from: u32, to: u32, kind: EdgeKind) -> usize {
        self.0.add_edge(
            Edge {
                from: NodeId(from),
                to: NodeId(to),
                kind,
                outcomes: Outcomes::from([Outcome::Succeeded]),
                guard: None,
                order: None,
                bound: None,
                implicit: false,
                label: None,
                on: Vec::new(),
            },
            sp(),
        );
        self.0.edges.len() - 1
    }
    pub(super) fn region(&mut self, owner: u32, kind: RegionKind, parent: Option<u32>) -> u32 {
        let r = self.0.add_region(
            Region {
                kind,
                owner: NodeId(owner),
                parent: parent.map(RegionId),
                entrypoints: Vec::new(),
                nodes: Vec::new(),
            },
            sp(),
        );
        self.0.nodes[owner as usize].owns = Some(r);
        r.0
    }
    pub(super) fn entry(&mut self, region: Option<u32>, n: u32) {
        match region {
            None => self.0.entrypoints.push(NodeId(n)),
            Some(r) => self.0.regions[r as usize].entrypoints.push(NodeId(n)),
        }
    }
}

pub(super) fn until(cond: &str, max: u32) -> RegionKind {
    RegionKind::Loop {
        mode: LoopMode::Until,
        condition: Some(x(cond)),
        max_iterations: max,
        carry: Vec::new(),
        collect: Vec::new(),
    }
}

fn map(over: &str, item: &str) -> RegionKind {
    RegionKind::Map {
        over: x(over),
        item: item.into(),
        index_as: "i".into(),
        max_items: 200,
        max_parallel: 4,
        on_item_failure: crate::ir::OnItemFailure::Fail,
        min_successes: None,
        collect: Vec::new(),
    }
}

pub(super) fn draw(g: &Graph) -> String {
    let text = render(g, Options::default()).0;
    assert_eq!(text, render(g, Options::default()).0, "not deterministic");
    text
}

/// The edge lines, in Mermaid's link order.
pub(super) fn edge_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| {
            l.contains("-->") || l.contains("-.->") || l.contains("==>") || l.contains("~~~")
        })
        .collect()
}

/// a → repair (loop over run, fix) → done.
fn repair_loop() -> Graph {
    let mut b = B::new();
    let a = b.node("a", NodeKind::Task, None);
    let owner = b.node("repair", NodeKind::Loop, None);
    b.titled(owner, "Fix until green");
    let done = b.node("done", NodeKind::Terminal, None);
    let r = b.region(
        owner,
        until("nodes.run.outputs.failing_count == 0", 5),
        None,
    );
    let run = b.node("run", NodeKind::Task, Some(r));
    let fix = b.node("fix", NodeKind::Task, Some(r));
    b.entry(None, a);
    b.entry(Some(r), run);
    b.edge(a, owner, EdgeKind::Sequence);
    b.edge(owner, done, EdgeKind::Sequence);
    let e = b.edge(run, fix, EdgeKind::Conditional);
    b.0.edges[e].guard = Some(Box::new(x("nodes.run.outputs.failing_count > 0")));
    b.0
}

#[test]
fn a_region_is_a_container_the_flow_runs_through() {
    let text = draw(&repair_loop());
    assert!(
        text.contains(
            "subgraph n1[\"repair #183; Fix until green<br>loop until failing_count == 0 #183; max 5\"]"
        ),
        "{text}"
    );
    // The owner is the container: never also a node, never tied to a box by a loose link.
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with("n1[")),
        "{text}"
    );
    assert!(!text.contains("-.- ") && !text.contains(" --- "), "{text}");
    let edges = edge_lines(&text);
    assert!(edges.contains(&"n0 --> n1"), "{edges:?}");
    assert!(edges.contains(&"n1 --> n2"), "{edges:?}");
    // The body sits inside the container.
    let open = text.find("subgraph n1").unwrap();
    let close = open + text[open..].find("    end").unwrap();
    assert!(text[open..close].contains("n3[\"run\"]") && text[open..close].contains("n4[\"fix\"]"));
    // The loop repeats: from the body's last node back to its first (its box says until when).
    assert!(edges.contains(&"n4 ==>|\"repeat\"| n3"), "{edges:?}");
    assert!(
        edges.contains(&"n3 -.->|\"failing_count #62; 0\"| n4"),
        "{edges:?}"
    );
    // The container is styled as a loop, its body as tasks.
    assert!(text.contains("    class n1 loopbox\n") && text.contains("    class n0,n3,n4 task\n"));
}

#[test]
fn only_the_graphs_own_entry_nodes_are_marked() {
    let text = draw(&repair_loop());
    assert!(text.contains("    class n0 entry\n"), "{text}");
    assert_eq!(text.matches(" entry\n").count(), 1, "{text}");
}

#[test]
fn regions_nest_at_every_depth_and_say_what_they_do() {
    // A subgraph holding a map holding a loop, then a chain 200 regions deep.
    let mut b = B::new();
    let s = b.node("checks", NodeKind::Subgraph, None);
    let rs = b.region(
        s,
        RegionKind::Subgraph {
            source: crate::ir::SubgraphSource::Use("publish_checks".into()),
            params: Vec::new(),
            outputs: Vec::new(),
            inherit_context: false,
        },
        None,
    );
    let m = b.node("pages", NodeKind::Map, Some(rs));
    let rm = b.region(m, map("nodes.inventory.outputs.pages", "page"), Some(rs));
    let l = b.node("again", NodeKind::Loop, Some(rm));
    let rl = b.region(
        l,
        RegionKind::Loop {
            mode: LoopMode::Repeat,
            condition: None,
            max_iterations: 3,
            carry: Vec::new(),
            collect: Vec::new(),
        },
        Some(rm),
    );
    b.node("leaf", NodeKind::Task, Some(rl));
    let text = draw(&b.0);
    assert!(
        text.contains("subgraph n0[\"checks<br>uses publish_checks\"]"),
        "{text}"
    );
    assert!(
        text.contains(
            "subgraph n1[\"pages<br>for each page in pages #183; max 200 #183; 4 in parallel\"]"
        ),
        "{text}"
    );
    assert!(
        text.contains("subgraph n2[\"again<br>loop 3 times\"]"),
        "{text}"
    );
    // Nested in order, each inside the one before.
    let at = |s: &str| text.find(s).unwrap();
    assert!(at("subgraph n0") < at("subgraph n1") && at("subgraph n1") < at("subgraph n2"));
    assert!(text.contains("            n3[\"leaf\"]"), "{text}");
    assert!(text.contains("n3 ==>|\"repeat\"| n3"), "{text}");
    for class in ["class n2 loopbox", "class n1 mapbox", "class n0 subbox"] {
        assert!(text.contains(class), "{class} in {text}");
    }

    let mut b = B::new();
    let mut owner = b.node("o0", NodeKind::Loop, None);
    let mut parent = None;
    for depth in 1..=200 {
        let r = b.region(owner, until("x", 2), parent);
        owner = b.node(&format!("o{depth}"), NodeKind::Loop, Some(r));
        parent = Some(r);
    }
    let text = draw(&b.0);
    assert_eq!(text.matches("subgraph ").count(), 200);
    assert_eq!(text.lines().filter(|l| l.trim() == "end").count(), 200);
    assert!(text.contains("n200[[\"o200\"]]"), "{text}");
}

#[test]
fn the_authors_words_win_over_expressions() {
    let mut b = B::new();
    let d = b.node("readiness", NodeKind::Decision, None);
    let fix = b.node("fix", NodeKind::Task, None);
    let ship = b.node("ship", NodeKind::Task, None);
    let other = b.node("other", NodeKind::Task, None);
    let e = b.edge(d, fix, EdgeKind::Conditional);
    b.0.edges[e].guard = Some(Box::new(x(
        "nodes.readiness.outputs.decision == \"needs_remediation\"",
    )));
    b.0.edges[e].label = Some("needs work".into());
    // No author label: the branch name the decision picks.
    let e = b.edge(d, ship, EdgeKind::Conditional);
    b.0.edges[e].guard = Some(Box::new(x(
        "nodes.readiness.outputs.decision == \"ready_to_release\"",
    )));
    // Named outcomes (Agent Graph outcomes, agh verdicts) when there is no label.
    let e = b.edge(fix, ship, EdgeKind::Conditional);
    b.0.edges[e].on = vec!["approved".into(), "waived".into()];
    b.0.edges[e].guard = Some(Box::new(x("true")));
    // Named outcomes that only restate a sequence edge are not drawn (Agent Graph's
    // `completed`).
    let e = b.edge(ship, fix, EdgeKind::Sequence);
    b.0.edges[e].on = vec!["completed".into()];
    // Not from a decision: the expression, with its compared value kept when cut.
    let e = b.edge(ship, other, EdgeKind::Conditional);
    b.0.edges[e].guard = Some(Box::new(x(
        "len(nodes.some_long_node_name.outputs.collection_of_things) >= \"the_threshold_value\"",
    )));
    let edges = edge_lines(&draw(&b.0)).join("\n");
    assert!(edges.contains("n0 -.->|\"needs work\"| n1"), "{edges}");
    assert!(
        edges.contains("n0 -.->|\"ready_to_release\"| n2"),
        "{edges}"
    );
    assert!(
        edges.contains("n1 -.->|\"approved #124; waived\"| n2"),
        "{edges}"
    );
    // Cut from the end: the subject stays.
    assert!(
        edges.contains("n2 -.->|\"len(collection_of_things) #62;= #34;the_thres#8230;\"| n3"),
        "{edges}"
    );
    assert!(!edges.contains("needs_remediation"), "{edges}");
    assert!(edges.contains("n2 --> n1\n"), "{edges}");
}

#[test]
fn failure_edges_are_red_and_back_edges_show_their_bound() {
    let mut b = B::new();
    let a = b.node("a", NodeKind::Task, None);
    let c = b.node("c", NodeKind::Task, None);
    let h = b.node("h", NodeKind::Gate, None);
    b.edge(a, c, EdgeKind::Sequence);
    b.edge(a, h, EdgeKind::Failure);
    let back = b.edge(c, a, EdgeKind::Back);
    b.0.edges[back].bound = Some(3);
    b.0.edges[back].on = vec!["retry".into()];
    let text = draw(&b.0);
    let edges = edge_lines(&text);
    let failure = edges.iter().position(|l| l.contains("on failure")).unwrap();
    assert_eq!(edges[failure], "n0 -.->|\"on failure\"| n2");
    assert!(
        text.contains(&format!("linkStyle {failure} stroke:#c62828")),
        "{text}"
    );
    assert!(
        edges.contains(&"n1 ==>|\"retry #183; max 3\"| n0"),
        "{edges:?}"
    );
    assert!(text.contains("class n0,n1 task\n") && text.contains("class n2 gate\n"));
    // A label and named outcomes both (an Agent Graph `repeat` edge taken on `partial`): the
    // label names the edge, the outcomes say when.
    b.0.edges[back].label = Some("repeat".into());
    b.0.edges[back].on = vec!["partial".into()];
    b.0.edges[back].bound = None;
    let text = draw(&b.0);
    let edges = edge_lines(&text);
    assert!(
        edges.contains(&"n1 ==>|\"repeat: partial #183; unbounded\"| n0"),
        "{edges:?}"
    );
}

#[test]
fn the_title_is_written_and_cut_titles_keep_their_words() {
    let mut g = repair_loop();
    g.title = Some("Repair <the> \"suite\"\nuntil green".into());
    g.nodes[0].title = Some("Establish the baseline\nthen repair".into());
    g.nodes[2].title = Some("Summarize what was repaired in the suite, and why".into());
    let text = draw(&g);
    assert!(
        text.starts_with("---\ntitle: \"Repair ‹the› \\\"suite\\\" until green\"\nconfig:\n"),
        "{text}"
    );
    // The authored line break kept; long titles wrapped and cut at word boundaries.
    assert!(
        text.contains("n0[\"a<br>Establish the baseline<br>then repair\"]"),
        "{text}"
    );
    assert!(
        text.contains("n2([\"done<br>Summarize what was<br>repaired in the suite,#8230;\"])"),
        "{text}"
    );
}

#[test]
fn collapse_folds_regions_into_their_owner_without_repeating_its_id() {
    let g = repair_loop();
    let opts = Options {
        collapse: true,
        ..Options::default()
    };
    let text = render(&g, opts).0;
    assert!(!text.contains("subgraph"), "{text}");
    assert!(
        text.contains(
            "n1[[\"repair<br>Fix until green<br>loop until failing_count == 0 #183; max 5\"]]"
        ),
        "{text}"
    );
    assert_eq!(edge_lines(&text), ["n0 --> n1", "n1 --> n2"]);
}

#[test]
fn an_empty_region_is_drawn_as_its_owner() {
    let mut b = B::new();
    let o = b.node("each", NodeKind::Map, None);
    b.region(o, map("params.items", "item"), None);
    let text = draw(&b.0);
    assert!(!text.contains("subgraph"), "{text}");
    assert!(
        text.contains("n0[[\"each<br>map for each item in params.items"),
        "{text}"
    );
}

#[test]
fn parallel_regions_and_every_shape_render() {
    let mut b = B::new();
    let fork = b.node("fan", NodeKind::Fork, None);
    let r = b.region(fork, RegionKind::Parallel, None);
    for (i, k) in [
        NodeKind::Wait,
        NodeKind::StateUpdate,
        NodeKind::External,
        NodeKind::Join,
    ]
    .into_iter()
    .enumerate()
    {
        b.node(&format!("k{i}"), k, Some(r));
    }
    let text = draw(&b.0);
    assert!(
        text.contains("subgraph n0[\"fan<br>in parallel\"]"),
        "{text}"
    );
    // A call outside is a rounded box (a cylinder is a data store, kept for sources).
    for decl in [
        "n1((\"k0\"))",
        "n2[/\"k1\"/]",
        "n3(\"k2\")",
        "n4[\\\"k3\"/]",
    ] {
        assert!(text.contains(decl), "{decl} in {text}");
    }
    // Every kind has its class: none falls back to Mermaid's default lavender.
    for class in [
        "class n1 wait",
        "class n2 state",
        "class n3 outside",
        "class n4 flow",
    ] {
        assert!(text.contains(class), "{class} in {text}");
    }
}

/// Gates are told apart by what they wait for, and folded boxes by their kind.
#[test]
fn gates_and_folded_boxes_look_like_what_they_are() {
    use crate::source::Value;
    let mut b = B::new();
    let gate = |b: &mut B, id: &str, origin: &str, attrs: &[(&str, Value)]| {
        let n = b.node(id, NodeKind::Gate, None);
        b.0.nodes[n as usize].origin_kind = origin.into();
        for (k, v) in attrs {
            let node = &mut b.0.nodes[n as usize];
            match *k {
                // A gate's block is its typed `gate`, as the AGS lowering makes it.
                "gate" => {
                    node.extra.make_mut().gate =
                        crate::ir::Gate::from_block(&v.to_json()).map(Box::new)
                }
                _ => {
                    node.attrs.insert(*k, v.clone());
                }
            }
        }
        n
    };
    let mode = |m: &str| {
        let mut map = crate::source::Map::new();
        map.insert("mode", Value::String(m.into()));
        Value::Object(map)
    };
    let criteria = |t: &str| {
        let mut map = crate::source::Map::new();
        map.insert("type", Value::String(t.into()));
        Value::Array(vec![Value::Object(map)].into())
    };
    let approve = gate(&mut b, "approve", "gate", &[("gate", mode("approve"))]);
    let input = gate(&mut b, "ask", "gate", &[("gate", mode("input"))]);
    let notify = gate(&mut b, "tell", "gate", &[("gate", mode("notify"))]);
    let interrupt = gate(&mut b, "pause", "interrupt", &[]);
    let judge = gate(
        &mut b,
        "judge",
        "gate",
        &[("criteria", criteria("agent-judge"))],
    );
    let human = gate(&mut b, "human", "gate", &[("criteria", criteria("human"))]);
    let m = b.node("each", NodeKind::Map, None);
    let rm = b.region(m, map("xs", "x"), None);
    b.node("work", NodeKind::Task, Some(rm));
    let text = render(
        &b.0,
        Options {
            collapse: true,
            ..Options::default()
        },
    )
    .0;
    for decl in [
        format!("n{approve}{{{{\"approve\"}}}}"),
        format!("n{input}[/\"ask\"\\]"),
        format!("n{notify}>\"tell\"]"),
        format!("n{interrupt}[/\"pause\"\\]"),
        format!("n{judge}{{{{\"judge\"}}}}"),
        format!("n{human}{{{{\"human\"}}}}"),
        format!("n{m}[[\"each<br>map"),
    ] {
        assert!(text.contains(&decl), "{decl} in {text}");
    }
    assert!(text.contains(&format!("class n{judge} check\n")), "{text}");
    assert!(text.contains(&format!("class n{m} mapbox\n")), "{text}");
}

#[test]
fn the_legend_names_only_what_is_drawn() {
    let g = repair_loop();
    let plain = render(&g, Options::default());
    let (text, count) = render(
        &g,
        Options {
            legend: true,
            ..Options::default()
        },
    );
    assert!(!plain.0.contains("Legend"));
    assert!(text.contains("subgraph legend[\"Legend\"]"), "{text}");
    assert!(text.contains("[\"task\"]:::task") && text.contains("([\"end\"]):::terminal"));
    assert!(!text.contains(":::decision"), "{text}");
    // The arrows used, in one entry: no sample arrows between empty boxes.
    assert!(!text.contains("[\" \"]"), "{text}");
    assert!(
        text.contains(&format!(
            "[\"{}\"]:::legendkey",
            label("──▶ then\n┄┄▶ only if\n━━▶ repeat")
        )),
        "{text}"
    );
    assert!(!text.contains("on failure"), "{text}");
    // The loop is drawn as a frame, and the legend says so, in the loop's colours.
    assert!(text.contains("[\"loop (a frame)\"]:::loopbox"), "{text}");
    assert!(text.contains("    style legend fill:#ffffff"), "{text}");
    // Every entry is styled (no default colours); columns of four, stacked by invisible links.
    for line in text
        .lines()
        .filter(|l| l.trim_start().starts_with('l') && l.contains("["))
    {
        assert!(line.contains(":::"), "{line}");
    }
    assert!(text.contains("    classDef legendkey "), "{text}");
    assert_eq!(count, edge_lines(&text).len());
    assert!(text.contains("        l0 ~~~ l1\n") && text.contains("        l2 ~~~ l3\n"));
    assert!(!text.contains("l3 ~~~ l4"), "{text}");
}

#[test]
fn a_switch_draws_its_cases_in_order_with_their_names() {
    // An AWP-style switch: cases guarded by jq comparisons, lowered in reverse creation order,
    // with `order` saying which is tried first; the default case is labelled by the front end.
    let mut b = B::new();
    let s = b.node("route", NodeKind::Decision, None);
    let targets: Vec<u32> = ["late", "early", "fallback"]
        .iter()
        .map(|id| b.node(id, NodeKind::Task, None))
        .collect();
    for (i, (t, guard, order)) in [
        (targets[2], None, 2),
        (targets[0], Some(".state.when == \"late\""), 1),
        (targets[1], Some(".state.when == \"early\""), 0),
    ]
    .into_iter()
    .enumerate()
    {
        let e = b.edge(s, t, EdgeKind::Conditional);
        b.0.edges[e].guard = guard.map(|g| Box::new(x(g)));
        b.0.edges[e].order = Some(order);
        if i == 0 {
            b.0.edges[e].label = Some("default".into());
        }
    }
    assert_eq!(
        edge_lines(&draw(&b.0)),
        [
            "n0 -.->|\"early\"| n2",
            "n0 -.->|\"late\"| n1",
            "n0 -.->|\"default\"| n3",
            "n1 --> t0",
            "n2 --> t0",
            "n3 --> t0"
        ]
    );
}

#[test]
fn unbounded_loops_and_open_maps_say_so() {
    // agh writes an unbounded generation loop as `u32::MAX` and a fan-out without a cap as 0.
    let mut b = B::new();
    let o = b.node("generations", NodeKind::Loop, None);
    let r = b.region(o, until("{{ .state.done }}", u32::MAX), None);
    let f = b.node("fan", NodeKind::Map, Some(r));
    let mut m = map("{{- .steps.scan.output.items -}}", "item");
    if let RegionKind::Map { max_items, .. } = &mut m {
        *max_items = 0;
    }
    let rf = b.region(f, m, Some(r));
    b.node("work", NodeKind::Task, Some(rf));
    let text = draw(&b.0);
    assert!(
        text.contains("subgraph n0[\"generations<br>loop until .state.done #183; no limit\"]"),
        "{text}"
    );
    // The body holds a box: the loop repeats around its own box (see `Repeat::Around`).
    assert!(text.contains("n0 ==>|\"repeat\"| n0"), "{text}");
    assert!(
        text.contains("subgraph n1[\"fan<br>for each item in items #183; 4 in parallel\"]"),
        "{text}"
    );
    assert!(!text.contains("4294967295"), "{text}");
}

/// A loop whose body holds a box of its own (an agh Loop's fan-out and sub-loop): its members
/// are written in execution order and it repeats around its own box, never from a node inside
/// it, so that Mermaid does not lay the body out from the inner box up.
#[test]
fn a_loop_holding_a_box_reads_top_down_and_repeats_around_its_box() {
    let mut b = B::new();
    let owner = b.node("generations", NodeKind::Loop, None);
    let r = b.region(owner, until("done", 5), None);
    // Written out of order on purpose: the verify box first, the plan step last.
    let verify = b.node("verify", NodeKind::Subgraph, Some(r));
    let rv = b.region(
        verify,
        RegionKind::Subgraph {
            source: crate::ir::SubgraphSource::Inline,
            params: Vec::new(),
            outputs: Vec::new(),
            inherit_context: false,
        },
        Some(r),
    );
    let lint = b.node("lint", NodeKind::Task, Some(rv));
    let review = b.node("review", NodeKind::Gate, Some(r));
    let plan = b.node("plan", NodeKind::Task, Some(r));
    b.entry(None, owner);
    b.entry(Some(r), plan);
    b.edge(plan, review, EdgeKind::Sequence);
    b.edge(review, verify, EdgeKind::Sequence);
    let text = draw(&b.0);
    let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s} in {text}"));
    assert!(at(&format!("n{plan}[")) < at(&format!("n{review}{{{{")));
    assert!(at(&format!("n{review}{{{{")) < at(&format!("subgraph n{verify}[")));
    assert!(at(&format!("subgraph n{verify}[")) < at(&format!("n{lint}[")));
    assert!(
        text.contains(&format!("n{owner} ==>|\"repeat\"| n{owner}")),
        "{text}"
    );
    // No arrow from inside the body back to its start.
    assert!(
        !text.contains(&format!("==>|\"repeat\"| n{plan}")),
        "{text}"
    );
}

/// `--collapse` on a graph that is one loop (an agh Loop's generations) keeps that loop open
/// and folds what it holds: folding it too would draw the whole graph as one box.
#[test]
fn collapse_keeps_a_loop_that_is_the_whole_graph_open() {
    let mut b = B::new();
    let owner = b.node("generations", NodeKind::Loop, None);
    let r = b.region(owner, until("done", 5), None);
    let plan = b.node("plan", NodeKind::Task, Some(r));
    let fan = b.node("each", NodeKind::Map, Some(r));
    let rf = b.region(fan, map("tasks", "task"), Some(r));
    let work = b.node("work", NodeKind::Task, Some(rf));
    b.edge(plan, fan, EdgeKind::Sequence);
    let opts = Options {
        collapse: true,
        ..Options::default()
    };
    let text = render(&b.0, opts).0;
    assert!(text.contains(&format!("subgraph n{owner}[")), "{text}");
    assert!(text.contains(&format!("n{plan}[\"plan\"]")), "{text}");
    assert!(
        text.contains(&format!("n{fan}[[\"each<br>map for each task")),
        "{text}"
    );
    assert!(!text.contains(&format!("n{work}[")), "{text}");
    assert!(!text.contains(&format!("subgraph n{fan}[")), "{text}");
}
