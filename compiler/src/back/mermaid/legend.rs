//! `--legend`: a small key beside the diagram, naming the shapes and edge styles it uses (and
//! only those), drawn with the same syntax and classes as the diagram itself, in two rows held
//! together by invisible links.

use super::{Edges, Layout};
use crate::ir::{EdgeKind, Graph, NodeKind};
use std::fmt::Write;

/// Each node kind's key entry, in a fixed order: Mermaid shape, class, words.
const KINDS: [(NodeKind, &str, &str, &str); 12] = [
    (NodeKind::Task, "[\"", "\"]", "task"),
    (NodeKind::Decision, "{\"", "\"}", "decision"),
    (NodeKind::Gate, "{{\"", "\"}}", "gate (approval)"),
    (NodeKind::Loop, "[[\"", "\"]]", "loop"),
    (NodeKind::Map, "[[\"", "\"]]", "map"),
    (NodeKind::Subgraph, "[[\"", "\"]]", "subgraph"),
    (NodeKind::Wait, "((\"", "\"))", "wait"),
    (NodeKind::StateUpdate, "[/\"", "\"/]", "state update"),
    (NodeKind::External, "[(\"", "\")]", "external call"),
    (NodeKind::Fork, "[\\\"", "\"/]", "fork"),
    (NodeKind::Join, "[\\\"", "\"/]", "join"),
    (NodeKind::Terminal, "([\"", "\"])", "end"),
];

pub(super) fn write(out: &mut String, g: &Graph, layout: &Layout, edges: &mut Edges) {
    let drawn = |k: NodeKind| {
        g.nodes
            .iter()
            .enumerate()
            .any(|(i, n)| n.kind == k && layout.visible[i] && layout.container[i].is_none())
    };
    let contained = layout.container.iter().any(Option::is_some);
    let mut entries: Vec<(String, &str)> = Vec::new();
    for (kind, open, close, words) in KINDS {
        if drawn(kind) {
            let class = match kind {
                NodeKind::Task => ":::task",
                NodeKind::Decision => ":::decision",
                NodeKind::Gate => ":::gate",
                NodeKind::Terminal => ":::terminal",
                _ => "",
            };
            entries.push((format!("{open}{words}{close}{class}"), words));
        }
    }
    out.push_str("    subgraph legend[\"Legend\"]\n        direction LR\n");
    let mut shapes: Vec<String> = Vec::new();
    for (i, (decl, _)) in entries.iter().enumerate() {
        let _ = writeln!(out, "        l{i}{decl}");
        shapes.push(format!("l{i}"));
    }
    if contained {
        out.push_str("        lr[\"a box: a loop, map or subgraph and its body\"]\n");
        shapes.push("lr".into());
    }
    // Invisible links (`~~~`) keep the key in two compact rows, shapes then arrows, instead of
    // one item per row.
    for pair in shapes.windows(2) {
        out.push_str("    ");
        edges.push(out, &format!("{} ~~~ {}", pair[0], pair[1]), false);
    }
    let has = |k: EdgeKind| g.edges.iter().any(|e| e.kind == k);
    let loops = g.regions.iter().enumerate().any(|(i, r)| {
        matches!(r.kind, crate::ir::RegionKind::Loop { .. }) && {
            layout.container.get(r.owner.index()) == Some(&Some(crate::ir::RegionId(i as u32)))
        }
    });
    let samples: [(bool, &str, &str, bool); 4] = [
        (has(EdgeKind::Sequence), "-->", "then", false),
        (has(EdgeKind::Conditional), "-.->", "only if", false),
        (has(EdgeKind::Failure), "-.->", "on failure", true),
        (has(EdgeKind::Back) || loops, "==>", "repeats", false),
    ];
    for (i, (_, arrow, words, failure)) in samples.iter().filter(|s| s.0).enumerate() {
        if i > 0 {
            out.push_str("    ");
            edges.push(out, &format!("le{}b ~~~ le{i}a", i - 1), false);
        }
        let line = format!("le{i}a[\" \"] {arrow}|\"{words}\"| le{i}b[\" \"]");
        out.push_str("    ");
        edges.push(out, &line, *failure);
    }
    out.push_str("    end\n");
}
