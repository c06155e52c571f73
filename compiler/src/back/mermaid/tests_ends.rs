//! Where runs end (see [`super::exits`]), in every dialect, in Mermaid and DOT.

use super::tests::{B, draw, edge_lines, until, x};
use crate::ir::{EdgeKind, Generations, NodeKind, Route, Routes};
use crate::source::{Map, Value};

fn obj(pairs: &[(&str, Value)]) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(*k, v.clone());
    }
    Value::Object(m)
}

fn s(x: &str) -> Value {
    Value::String(x.into())
}

/// Every path visibly ends (issue 45): an agh Loop's generations end `done` after the body's
/// last step and on a branch's false side, and a gate's written `halt` route ends `failed`,
/// drawn inside the generations' box; another graph's root sinks (a lone node too) lead to one
/// `end`; a graph that draws its own ends gets none for them.
#[test]
fn every_path_ends_at_a_drawn_end() {
    let mut b = B::new();
    b.0.dialect = "agh";
    let owner = b.node("generations", NodeKind::Loop, None);
    b.0.nodes[owner as usize].extra.make_mut().generations = Some(Generations::default());
    let r = b.region(owner, until("done", 5), None);
    let plan = b.node("plan", NodeKind::Task, Some(r));
    let gate = b.node("review", NodeKind::Gate, Some(r));
    let branch = b.node("strict", NodeKind::Decision, Some(r));
    let verify = b.node("verify", NodeKind::Task, Some(r));
    let node = &mut b.0.nodes[gate as usize];
    node.attrs.insert(
        "on_result",
        obj(&[("pass", s("done")), ("error", s("halt"))]),
    );
    // Upstream's table: `pass` continues, `error` halts `failed`, `blocked` halts `blocked`.
    node.extra.make_mut().routes = Some(Box::new(Routes::from_fn(Route::default_for)));
    b.entry(None, owner);
    b.edge(plan, gate, EdgeKind::Sequence);
    b.edge(gate, branch, EdgeKind::Sequence);
    let e = b.edge(branch, verify, EdgeKind::Conditional);
    b.0.edges[e].guard = Some(Box::new(x("inputs.strict")));
    let text = draw(&b.0);
    // Inside the box: declared before its `end`.
    let close = text.find("\n    end\n").unwrap();
    assert!(
        text.find("        t0([\"done\"])").unwrap() < close,
        "{text}"
    );
    assert!(
        text.find("        t1([\"failed\"])").unwrap() < close,
        "{text}"
    );
    assert!(text.contains(&format!("n{verify} --> t0\n")), "{text}");
    assert!(
        text.contains(&format!("n{branch} -.->|\"else\"| t0\n")),
        "{text}"
    );
    assert!(
        text.contains(&format!("n{gate} -.->|\"error\"| t1\n")),
        "{text}"
    );
    // Only the routes the document wrote: `blocked` is a default, not drawn.
    assert!(!text.contains("blocked"), "{text}");
    assert!(text.contains("class t0,t1 terminal"), "{text}");
    let edges = edge_lines(&text);
    let red = edges.iter().position(|l| l.contains("error")).unwrap();
    assert!(
        text.contains(&format!("linkStyle {red} stroke:#c62828")),
        "{text}"
    );

    // Elsewhere: the root's sinks lead to one `end`.
    let mut b = B::new();
    let a = b.node("a", NodeKind::Task, None);
    let c = b.node("c", NodeKind::Task, None);
    let d = b.node("d", NodeKind::Task, None);
    b.edge(a, c, EdgeKind::Sequence);
    b.edge(a, d, EdgeKind::Sequence);
    let text = draw(&b.0);
    assert!(text.contains("    t0([\"end\"])\n"), "{text}");
    assert!(
        text.contains("n1 --> t0\n") && text.contains("n2 --> t0\n"),
        "{text}"
    );
    assert!(!text.contains("n0 --> t0"), "{text}");
    // A lone step ends too; a terminal of the document's own needs no end.
    let lone = b.node("lone", NodeKind::Task, None);
    let stop = b.node("stop", NodeKind::Terminal, None);
    let text = draw(&b.0);
    assert!(text.contains(&format!("n{lone} --> t0\n")), "{text}");
    assert!(!text.contains(&format!("n{stop} --> t0")), "{text}");
    assert_eq!(text.matches("([\"end\"])").count(), 1, "{text}");
}

/// The false side of a branch, in every dialect that names it (issue 45): an AGS decision's
/// branch or default that no edge takes goes to `end` with its name; an AWP switch without a
/// default fails (`no match`, red, to `failed`); an Agent Graph gate with no edge on `failed`
/// blocks; a decision whose ways out are all guarded has an `else`; a branch every edge takes,
/// or a switch with a default, draws nothing more.
#[test]
fn the_false_side_of_a_branch_is_drawn_in_every_dialect() {
    // AGS: `hold` and the default `later` are named, only `ship` is taken.
    let mut b = B::new();
    b.0.dialect = "ags";
    let d = b.node("triage", NodeKind::Decision, None);
    let ship = b.node("ship", NodeKind::Task, None);
    let branch = |label: &str| agc_runtime::plan::Branch {
        label: label.into(),
        description: None,
        when: None,
        extensions: Default::default(),
    };
    b.0.nodes[d as usize].extra.make_mut().decision = Some(Box::new(crate::ir::Decision {
        evaluator: Default::default(),
        question: None,
        branches: vec![branch("ship"), branch("hold")],
        default_branch: Some("later".into()),
        extensions: Default::default(),
    }));
    let e = b.edge(d, ship, EdgeKind::Conditional);
    b.0.edges[e].guard = Some(Box::new(x("nodes.triage.outputs.decision == \"ship\"")));
    let text = draw(&b.0);
    assert!(text.contains(&format!("n{ship} --> t0\n")), "{text}");
    assert!(
        text.contains(&format!("n{d} -.->|\"hold\"| t0\n")),
        "{text}"
    );
    assert!(
        text.contains(&format!("n{d} -.->|\"later\"| t0\n")),
        "{text}"
    );
    assert!(!text.contains("|\"ship\"| t0"), "{text}");
    // Every branch taken: nothing more.
    let hold = b.node("hold", NodeKind::Task, None);
    let later = b.node("later", NodeKind::Task, None);
    for (to, name) in [(hold, "hold"), (later, "later")] {
        let e = b.edge(d, to, EdgeKind::Conditional);
        b.0.edges[e].label = Some(name.into());
    }
    let text = draw(&b.0);
    assert!(!text.contains(&format!("n{d} -.->|\"hold\"| t0")), "{text}");
    assert!(
        !text.contains(&format!("n{d} -.->|\"later\"| t0")),
        "{text}"
    );

    // AWP: a switch whose every case is guarded fails when none matches.
    let mut b = B::new();
    b.0.dialect = "awp";
    let sw = b.node("route", NodeKind::Decision, None);
    let bug = b.node("bug", NodeKind::Task, None);
    let e = b.edge(sw, bug, EdgeKind::Conditional);
    b.0.edges[e].guard = Some(Box::new(x(".intent == \"bug\"")));
    let text = draw(&b.0);
    assert!(text.contains("t1([\"failed\"])"), "{text}");
    assert!(
        text.contains(&format!("n{sw} -.->|\"no match\"| t1\n")),
        "{text}"
    );
    let red = edge_lines(&text)
        .iter()
        .position(|l| l.contains("no match"))
        .unwrap();
    assert!(
        text.contains(&format!("linkStyle {red} stroke:#c62828")),
        "{text}"
    );
    // With a default (an unguarded case): nothing more.
    let other = b.node("other", NodeKind::Task, None);
    let e = b.edge(sw, other, EdgeKind::Conditional);
    b.0.edges[e].label = Some("default".into());
    assert!(!draw(&b.0).contains("no match"));

    // Agent Graph: a gate that only goes on when completed blocks when it fails.
    let mut b = B::new();
    b.0.dialect = "agent-graph";
    let gate = b.node("approve", NodeKind::Gate, None);
    let done = b.node("done", NodeKind::Terminal, None);
    let e = b.edge(gate, done, EdgeKind::Sequence);
    b.0.edges[e].on = vec!["completed".into()];
    let text = draw(&b.0);
    assert!(text.contains("t0([\"blocked\"])"), "{text}");
    assert!(
        text.contains(&format!("n{gate} -.->|\"failed\"| t0\n")),
        "{text}"
    );
    let fix = b.node("fix", NodeKind::Task, None);
    let e = b.edge(gate, fix, EdgeKind::Failure);
    b.0.edges[e].on = vec!["failed".into()];
    let text = draw(&b.0);
    assert!(!text.contains("blocked"), "{text}");
    assert!(text.contains(&format!("n{fix} --> t0\n")), "{text}");

    // Any other decision whose ways out are all guarded: `else`.
    let mut b = B::new();
    let d = b.node("check", NodeKind::Decision, None);
    let a = b.node("a", NodeKind::Task, None);
    let e = b.edge(d, a, EdgeKind::Conditional);
    b.0.edges[e].guard = Some(Box::new(x("score > 3")));
    let text = draw(&b.0);
    assert!(
        text.contains(&format!("n{d} -.->|\"else\"| t0\n")),
        "{text}"
    );
}

/// A plain AGS gate fails the run when a human rejects (`on_reject: fail`, the default): a red
/// `rejected` arrow to `failed`; not when the rejection goes on (`skip_dependents`, `route`)
/// or a failure edge takes it.
#[test]
fn a_plain_ags_gate_s_rejection_ends_failed() {
    let gate_with = |on_reject: Option<&str>| {
        let mut b = B::new();
        b.0.dialect = "ags";
        let gate = b.node("approve", NodeKind::Gate, None);
        let ship = b.node("ship", NodeKind::Task, None);
        b.edge(gate, ship, EdgeKind::Sequence);
        let mut g = serde_json::json!({"mode": "approve"});
        if let Some(r) = on_reject {
            g["on_reject"] = r.into();
        }
        b.0.nodes[gate as usize].extra.make_mut().gate =
            crate::ir::Gate::from_block(&g).map(Box::new);
        (b, gate)
    };
    for on_reject in [None, Some("fail")] {
        let (b, gate) = gate_with(on_reject);
        let text = draw(&b.0);
        assert!(text.contains("t1([\"failed\"])"), "{text}");
        assert!(
            text.contains(&format!("n{gate} -.->|\"rejected\"| t1\n")),
            "{text}"
        );
        let red = edge_lines(&text)
            .iter()
            .position(|l| l.contains("rejected"))
            .unwrap();
        assert!(
            text.contains(&format!("linkStyle {red} stroke:#c62828")),
            "{text}"
        );
    }
    for on_reject in ["skip_dependents", "route"] {
        let (b, _) = gate_with(Some(on_reject));
        assert!(!draw(&b.0).contains("rejected"), "{on_reject}");
    }
    let (mut b, gate) = gate_with(None);
    let notify = b.node("notify", NodeKind::Task, None);
    b.edge(gate, notify, EdgeKind::Failure);
    assert!(!draw(&b.0).contains("rejected"));
}

/// DOT draws what Mermaid draws (issue 45): the same end nodes and arrows into them, and the
/// same palette, from the one table of looks.
#[test]
fn dot_draws_the_same_ends_and_palette() {
    let mut b = B::new();
    b.0.dialect = "awp";
    let sw = b.node("route", NodeKind::Decision, None);
    let bug = b.node("bug", NodeKind::Task, None);
    let owner = b.node("retry", NodeKind::Loop, None);
    let r = b.region(owner, until("done", 3), None);
    let body = b.node("attempt", NodeKind::Task, Some(r));
    let e = b.edge(sw, bug, EdgeKind::Conditional);
    b.0.edges[e].guard = Some(Box::new(x(".intent == \"bug\"")));
    b.edge(bug, owner, EdgeKind::Sequence);
    b.entry(None, sw);
    let _ = body;
    let dot = crate::back::dot::render(&b.0, false);
    // The ends: the loop's box ends the run, a switch without a default fails.
    assert!(
        dot.contains(
            "t0 [label=\"end\", shape=box, style=\"rounded,filled\", fillcolor=\"#eceff1\""
        ),
        "{dot}"
    );
    assert!(dot.contains("t1 [label=\"failed\""), "{dot}");
    assert!(
        dot.contains(&format!("n{body} -> t0 [ltail=cluster_n{owner}];")),
        "{dot}"
    );
    assert!(
        dot.contains(&format!(
            "n{sw} -> t1 [label=\"no match\", style=dashed, color=\"#c62828\", fontcolor=\"#c62828\"];"
        )),
        "{dot}"
    );
    // The palette: the Mermaid classes' colours, by look.
    assert!(
        dot.contains(&format!(
            "n{sw} [label=\"route\", shape=diamond, fillcolor=\"#fff6d8\", color=\"#b8860b\""
        )),
        "{dot}"
    );
    assert!(
        dot.contains("fillcolor=\"#f1f8ec\", color=\"#7aa35b\""),
        "{dot}"
    );
    let mermaid = draw(&b.0);
    assert!(
        mermaid.contains("classDef decision fill:#fff6d8,stroke:#b8860b"),
        "{mermaid}"
    );
    assert_eq!(
        mermaid.matches("t0").count() > 0,
        dot.matches("t0").count() > 0,
        "{mermaid}\n{dot}"
    );
}
