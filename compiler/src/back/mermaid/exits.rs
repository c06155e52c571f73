//! Where a run ends, drawn as end nodes (stadiums, as LangGraph draws `__end__`) so that every
//! path visibly ends, in every dialect (shared by the Mermaid and DOT writers):
//!
//! - an agh Loop ends `done` when a generation ends clean (an arrow from the body's last step),
//!   and a gate whose written `on_result` routes a verdict to `halt` or `escalate` ends it with
//!   that route's `terminal_status` (a red dashed arrow from the gate, labelled with the
//!   verdict: `error` to `failed`). These ends are drawn inside the generations' box: an arrow
//!   leaving the box would make Mermaid lay the box out with the rest of the graph, anchor its
//!   repeat arrow at its first step and draw it across the title;
//! - any other graph ends where its root flow stops: every root node that is not a terminal of
//!   the document's own, with no arrow out on success (a failure or back edge does not count),
//!   leads to one `end`, a lone node too;
//! - the false side of a branch is drawn where the document names it and nothing follows it
//!   (see [`false_side`]): an AGS decision's branch or `default_branch` (or a routed gate's
//!   `approved` / `rejected`) that no edge takes, labelled with its name, to the clean end
//!   (when every edge out names the branch it is taken on); an
//!   agh branch or any other decision whose every way out is guarded, labelled `else`; an AWP
//!   `switch` without a `default`, `no match` to `failed` (the engine fails the run); an Agent
//!   Graph gate with no edge on `failed`, `failed` to `blocked` (nothing is reached, the
//!   evaluation blocks); a plain AGS gate (`on_reject: fail`, the default) with no failure
//!   edge, `rejected` to `failed`. Inside a loop, map or subgraph body (but an agh Loop's generations) a
//!   false side only ends the iteration and is not drawn.

use super::{Layout, text};
use crate::ir::{Edge, EdgeKind, Graph, NodeId, NodeKind, RouteAction, Verdict};
use crate::source::Value;

/// One end node: its words, and the arrows into it (source, label, failure).
pub(crate) struct Exit {
    pub(crate) words: String,
    pub(crate) from: Vec<(NodeId, Option<String>, bool)>,
}

/// The end nodes, and the box they are drawn in (an agh Loop's generations), if any.
#[derive(Default)]
pub(crate) struct Ends {
    pub(crate) list: Vec<Exit>,
    pub(crate) inside: Option<NodeId>,
}

/// The end nodes to draw, in a fixed order (`done` or `end` first, then by first use).
pub(crate) fn exits(g: &Graph, layout: &Layout) -> Ends {
    let root = &layout.members[g.regions.len()];
    let mut out: Vec<Exit> = Vec::new();
    let add = |out: &mut Vec<Exit>, words: &str, arrow: (NodeId, Option<String>, bool)| match out
        .iter_mut()
        .find(|x| x.words == words)
    {
        Some(x) => x.from.push(arrow),
        None => out.push(Exit {
            words: words.to_string(),
            from: vec![arrow],
        }),
    };
    let generations = match root.as_slice() {
        [only] if g.node(*only).extra.generations.is_some() => Some(*only),
        _ => None,
    };
    if let Some(owner) = generations {
        // The body's last step, through the boxes it ends with.
        let mut last = owner;
        for _ in 0..=g.regions.len() {
            match layout.container[last.index()] {
                Some(r) => match layout.members[r.index()].last() {
                    Some(&m) => last = m,
                    None => break,
                },
                None => break,
            }
        }
        if last != owner {
            add(&mut out, "done", (last, None, false));
        }
        // A branch's false side skips what follows it: the generation ends there.
        for i in 0..g.nodes.len() {
            let n = NodeId(i as u32);
            if layout.visible[i] {
                for (words, end, failure) in false_side(g, n, "done") {
                    add(&mut out, end, (n, Some(words), failure));
                }
            }
        }
        for (i, n) in g.nodes.iter().enumerate() {
            if n.kind != NodeKind::Gate || !layout.visible[i] {
                continue;
            }
            let (Some(Value::Object(written)), Some(routes)) =
                (n.attrs.get("on_result"), n.extra.routes.as_deref())
            else {
                continue;
            };
            for (verdict, _) in written.iter() {
                let Some(route) = Verdict::named(verdict).map(|v| routes.get(v)) else {
                    continue;
                };
                if !matches!(route.route, RouteAction::Halt | RouteAction::Escalate) {
                    continue;
                }
                let status = route.terminal_status.as_deref().unwrap_or("failed");
                let arrow = (NodeId(i as u32), Some(verdict.to_string()), true);
                add(&mut out, status, arrow);
            }
        }
        let inside = layout.container[owner.index()].map(|_| owner);
        return Ends { list: out, inside };
    }
    let mut has_out = vec![false; g.nodes.len()];
    // Failure and back edges are not where a successful run goes next.
    for e in &g.edges {
        if e.from != e.to
            && matches!(e.kind, EdgeKind::Sequence | EdgeKind::Conditional)
            && let Some(x) = has_out.get_mut(e.from.index())
        {
            *x = true;
        }
    }
    for &n in root {
        let i = n.index();
        if layout.visible[i] && !has_out[i] && g.node(n).kind != NodeKind::Terminal {
            add(&mut out, "end", (n, None, false));
        }
    }
    for &n in root {
        if layout.visible[n.index()] {
            for (words, end, failure) in false_side(g, n, "end") {
                add(&mut out, end, (n, Some(words), failure));
            }
        }
    }
    Ends {
        list: out,
        inside: None,
    }
}

/// The false sides of node `n` that the document names and no edge takes: (label, end words,
/// failure), `clean` being the words of the end a run reaches when nothing fails.
fn false_side(g: &Graph, n: NodeId, clean: &'static str) -> Vec<(String, &'static str, bool)> {
    let node = g.node(n);
    let outs: Vec<&Edge> = g
        .edges
        .iter()
        .filter(|e| e.from == n && e.to != n && e.kind != EdgeKind::Back)
        .collect();
    // What each way out is taken on: its authored label, the branch its guard compares
    // with, its named outcomes.
    let taken = |name: &str| {
        outs.iter().any(|e| {
            e.label.as_deref() == Some(name)
                || e.on.iter().any(|o| o == name)
                || e.guard
                    .as_ref()
                    .and_then(|x| text::branch_name(&x.source))
                    .as_deref()
                    == Some(name)
        })
    };
    let named = |e: &Edge| match (&e.guard, e.kind) {
        (_, EdgeKind::Failure) => true,
        (Some(x), _) => text::branch_name(&x.source).is_some(),
        (None, kind) => kind == EdgeKind::Conditional && (e.label.is_some() || !e.on.is_empty()),
    };
    let mut sides = Vec::new();
    let guarded = !outs.is_empty() && outs.iter().all(|e| e.guard.is_some());
    match (g.dialect, node.kind) {
        ("awp", NodeKind::Decision) if guarded => {
            sides.push(("no match".to_string(), "failed", true));
        }
        ("awp", NodeKind::Decision) => {}
        ("agent-graph", NodeKind::Gate) if !taken("failed") => {
            sides.push(("failed".to_string(), "blocked", true));
        }
        // A plain AGS gate (`on_reject: fail`, the default) fails the run when a human rejects,
        // unless a failure edge takes the failure elsewhere.
        ("ags", NodeKind::Gate)
            if rejection_fails(node) && !outs.iter().any(|e| e.kind == EdgeKind::Failure) =>
        {
            sides.push(("rejected".to_string(), "failed", true));
        }
        // Only where every way out says which branch it takes: an edge taken on any branch, or
        // on a condition that is not one branch, leaves the false side unknown.
        ("ags", NodeKind::Decision | NodeKind::Gate) if outs.iter().all(|e| named(e)) => {
            let decision = node.extra.decision.as_deref();
            let mut names: Vec<&str> = decision
                .map(|d| d.branches.as_slice())
                .unwrap_or_default()
                .iter()
                .map(|b| b.label.as_str())
                .chain(decision.and_then(|d| d.default_branch.as_deref()))
                .collect();
            // A routed gate decides `approved` or `rejected`: drawn once an edge takes either.
            if node.kind == NodeKind::Gate && (taken("approved") || taken("rejected")) {
                names.extend(["approved", "rejected"]);
            }
            let mut seen = std::collections::HashSet::new();
            for name in names {
                if seen.insert(name) && !taken(name) {
                    sides.push((name.to_string(), clean, false));
                }
            }
        }
        (_, NodeKind::Decision) => {
            let guarded = outs
                .iter()
                .all(|e| e.kind == EdgeKind::Conditional && e.guard.is_some());
            if !outs.is_empty() && guarded {
                sides.push(("else".to_string(), clean, false));
            }
        }
        _ => {}
    }
    sides
}

/// Whether a human's rejection of an AGS gate fails the run (`gate.on_reject`, `fail` by
/// default; `route` and `skip_dependents` go on).
fn rejection_fails(node: &crate::ir::Node) -> bool {
    node.extra
        .gate
        .as_ref()
        .is_none_or(|g| g.on_reject == crate::ir::OnReject::Fail)
}
