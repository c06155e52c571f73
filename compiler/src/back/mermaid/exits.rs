//! Where a run ends, drawn as end nodes (stadiums, as LangGraph draws `__end__`) so that every
//! path visibly ends, for graphs that do not draw their own (AWP `end` nodes, Agent Graph
//! terminals):
//!
//! - an agh Loop ends `done` when a generation ends clean (an arrow from the body's last step,
//!   and one labelled `else` from each branch, whose false side skips what follows it),
//!   and a gate whose written `on_result` routes a verdict to `halt` or `escalate` ends it with
//!   that route's `terminal_status` (a red dashed arrow from the gate, labelled with the
//!   verdict: `error` to `failed`). These ends are drawn inside the generations' box: an arrow
//!   leaving the box would make Mermaid lay the box out with the rest of the graph, anchor its
//!   repeat arrow at its first step and draw it across the title;
//! - any other graph ends where its root flow stops: every root node with no arrow out on
//!   success (a failure or back edge does not count), and some arrow in, leads to one `end`.

use super::Layout;
use crate::ir::{EdgeKind, Graph, NodeId, NodeKind};
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
    if g.nodes.iter().any(|n| n.kind == NodeKind::Terminal) {
        return Ends::default();
    }
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
        [only] if g.dialect == "agh" && g.node(*only).attrs.get("generations").is_some() => {
            Some(*only)
        }
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
        for (i, n) in g.nodes.iter().enumerate() {
            let guarded = |e: &&crate::ir::Edge| e.from.index() == i;
            let mut outs = g.edges.iter().filter(guarded);
            let all_guarded = outs
                .clone()
                .all(|e| e.kind == crate::ir::EdgeKind::Conditional && e.guard.is_some());
            if n.kind == NodeKind::Decision
                && layout.visible[i]
                && outs.next().is_some()
                && all_guarded
            {
                add(
                    &mut out,
                    "done",
                    (NodeId(i as u32), Some("else".into()), false),
                );
            }
        }
        for (i, n) in g.nodes.iter().enumerate() {
            if n.kind != NodeKind::Gate || !layout.visible[i] {
                continue;
            }
            let (Some(Value::Object(written)), Some(routes)) =
                (n.attrs.get("on_result"), n.attrs.get("routes"))
            else {
                continue;
            };
            for (verdict, _) in written.iter() {
                let route = routes.get(verdict.as_str());
                let action = route.and_then(|r| r.get("route")).and_then(Value::as_str);
                if !matches!(action, Some("halt" | "escalate")) {
                    continue;
                }
                let status = route
                    .and_then(|r| r.get("terminal_status"))
                    .and_then(Value::as_str)
                    .unwrap_or("failed");
                let arrow = (NodeId(i as u32), Some(verdict.to_string()), true);
                add(&mut out, status, arrow);
            }
        }
        let inside = layout.container[owner.index()].map(|_| owner);
        return Ends { list: out, inside };
    }
    let mut has_out = vec![false; g.nodes.len()];
    let mut has_in = vec![false; g.nodes.len()];
    for e in &g.edges {
        if let Some(x) = has_in.get_mut(e.to.index()) {
            *x = true;
        }
    }
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
        // A node with no arrow at all stands alone: an arrow to `end` would only add noise
        // (and edges: a graph of many lone steps would pass Mermaid's edge limit).
        if layout.visible[n.index()] && has_in[n.index()] && !has_out[n.index()] {
            add(&mut out, "end", (n, None, false));
        }
    }
    Ends {
        list: out,
        inside: None,
    }
}
