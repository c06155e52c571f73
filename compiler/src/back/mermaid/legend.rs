//! `--legend`: a compact key beside the diagram that names every shape it uses (and only
//! those), drawn with the diagram's own shapes and classes (see [`super::style`]), in columns
//! of four held together by invisible links, and one entry that says what each kind of arrow
//! used means (no sample arrows between empty boxes).

use super::edges::Edges;
use super::layout::Layout;
use super::style::{self, Look};
use crate::ir::{EdgeKind, Graph, NodeId};
use std::fmt::Write;

/// Entries per column.
const COLUMN: usize = 4;

pub(super) fn write(out: &mut String, g: &Graph, layout: &Layout, edges: &mut Edges) {
    let mut used = vec![false; style::LOOKS.len()];
    for i in 0..g.nodes.len() {
        if layout.visible[i] {
            let look = style::look(g, layout, NodeId(i as u32));
            if let Some(at) = style::LOOKS.iter().position(|l| l.0 == look) {
                used[at] = true;
            }
        }
    }
    // The ends the diagram adds (see `exits`).
    if !edges.ends.is_empty()
        && let Some(at) = style::LOOKS.iter().position(|l| l.0 == Look::End)
    {
        used[at] = true;
    }
    let boxes = |l: Look| matches!(l, Look::Loop | Look::Map | Look::Subgraph | Look::Parallel);
    let mut entries: Vec<String> = Vec::new();
    for ((look, open, close, class, words, _), _) in style::LOOKS.iter().zip(&used).filter(|x| *x.1)
    {
        // A box drawn as a frame says so; folded, it is a node like the others.
        let frame = boxes(*look)
            && g.nodes.iter().enumerate().any(|(i, _)| {
                layout.container[i].is_some() && style::look(g, layout, NodeId(i as u32)) == *look
            });
        let (open, close) = if frame {
            ("[\"", "\"]")
        } else {
            (*open, *close)
        };
        let words = if frame {
            format!("{words} (a frame)")
        } else {
            words.to_string()
        };
        entries.push(format!("{open}{words}{close}:::{class}"));
        if !edges.classes.contains(class) {
            edges.classes.push(class);
        }
    }
    let has = |k: EdgeKind| g.edges.iter().any(|e| e.kind == k);
    let loops = (0..g.regions.len())
        .any(|r| super::repeat(layout, g, crate::ir::RegionId(r as u32)).is_some());
    let arrows: Vec<&str> = [
        (has(EdgeKind::Sequence), "──▶ then"),
        (has(EdgeKind::Conditional), "┄┄▶ only if"),
        (has(EdgeKind::Failure), "┄┄▶ on failure (red)"),
        (has(EdgeKind::Back) || loops, "━━▶ repeat"),
    ]
    .into_iter()
    .filter(|a| a.0)
    .map(|a| a.1)
    .collect();
    if !arrows.is_empty() {
        entries.push(format!(
            "[\"{}\"]:::legendkey",
            super::label(&arrows.join("\n"))
        ));
        if !edges.classes.contains(&"legendkey") {
            edges.classes.push("legendkey");
        }
    }
    out.push_str("    subgraph legend[\"Legend\"]\n        direction TB\n");
    for (i, decl) in entries.iter().enumerate() {
        let _ = writeln!(out, "        l{i}{decl}");
    }
    // Invisible links (`~~~`) stack each column's entries; the columns stand side by side.
    for i in 1..entries.len() {
        if i % COLUMN != 0 {
            out.push_str("    ");
            edges.push(out, &format!("l{} ~~~ l{i}", i - 1), false);
        }
    }
    out.push_str("    end\n");
    out.push_str("    style legend fill:#ffffff,stroke:#c4c9d0,color:#1b1f24\n");
}
