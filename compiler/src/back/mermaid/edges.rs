//! The diagram's links and classes: edges in node and branch order, a drawn loop's repeat
//! arrow, and the `classDef`/`class`/`linkStyle` lines, with the bookkeeping ([`Edges`]) the
//! legend and the caller's edge limit read.

use super::escape::label;
use super::layout::{Layout, Repeat, repeat};
use super::{style, text};
use crate::ir::{EdgeKind, Graph, NodeId, RegionId};
use std::fmt::Write;

/// The label of a loop's repeat arrow (the loop's box says until when, and how often).
pub(crate) const REPEAT: &str = "repeat";

/// Edge bookkeeping: how many were written, and which (by Mermaid's 0-based link index) are
/// failure edges, for `linkStyle`.
#[derive(Default)]
pub(super) struct Edges {
    pub(super) count: usize,
    pub(super) failure: Vec<usize>,
    /// Classes the legend uses that the diagram itself may not.
    pub(super) classes: Vec<&'static str>,
    /// The end nodes' ids (`t0,t1`), drawn as terminals.
    pub(super) ends: String,
}

impl Edges {
    pub(super) fn push(&mut self, out: &mut String, line: &str, failure: bool) {
        let _ = writeln!(out, "    {line}");
        if failure {
            self.failure.push(self.count);
        }
        self.count += 1;
    }
}

pub(super) fn write_edges(out: &mut String, g: &Graph, layout: &Layout, edges: &mut Edges) {
    // Edges leave their sources in node order, and a source's edges in their branch order.
    let mut order: Vec<usize> = (0..g.edges.len()).collect();
    order.sort_by_key(|&i| {
        let e = &g.edges[i];
        (e.from, e.order.unwrap_or(u32::MAX), i)
    });
    for i in order {
        let e = &g.edges[i];
        let (Some(&from_visible), Some(&to_visible)) = (
            layout.visible.get(e.from.index()),
            layout.visible.get(e.to.index()),
        ) else {
            continue;
        };
        if !from_visible || !to_visible {
            continue;
        }
        let arrow = match e.kind {
            EdgeKind::Sequence => "-->",
            EdgeKind::Conditional | EdgeKind::Failure => "-.->",
            EdgeKind::Back => "==>",
        };
        let line = match text::edge_label(g, e) {
            Some(l) => format!("n{} {arrow}|\"{}\"| n{}", e.from.0, label(&l), e.to.0),
            None => format!("n{} {arrow} n{}", e.from.0, e.to.0),
        };
        edges.push(out, &line, e.kind == EdgeKind::Failure);
    }
    // A drawn loop repeats: its body's last node leads back to its first, or its box back
    // into itself (see [`Repeat`]).
    for i in 0..g.regions.len() {
        let r = RegionId(i as u32);
        let (from, to) = match repeat(layout, g, r) {
            Some(Repeat::Back { last, first }) => (last, first),
            Some(Repeat::Around) => (g.regions[i].owner, g.regions[i].owner),
            None => continue,
        };
        let line = format!("n{} ==>|\"{REPEAT}\"| n{}", from.0, to.0);
        edges.push(out, &line, false);
    }
}

/// `classDef` for the classes in use (the legend uses the same ones, see [`style`]), then
/// `class` lines.
pub(super) fn write_classes(out: &mut String, g: &Graph, layout: &Layout, edges: &Edges) {
    let mut by_class: Vec<Vec<String>> = vec![Vec::new(); style::CLASSES.len()];
    for i in 0..g.nodes.len() {
        if !layout.visible[i] {
            continue;
        }
        let (_, _, class, _) = style::style(style::look(g, layout, NodeId(i as u32)));
        if let Some(slot) = style::CLASSES.iter().position(|c| c.0 == class) {
            by_class[slot].push(format!("n{i}"));
        }
    }
    for ((class, css), ids) in style::CLASSES.iter().zip(&by_class) {
        if !ids.is_empty() || edges.classes.contains(class) {
            let _ = writeln!(out, "    classDef {class} {css}");
        }
    }
    for ((class, _), ids) in style::CLASSES.iter().zip(&by_class) {
        if !ids.is_empty() {
            let _ = writeln!(out, "    class {} {class}", ids.join(","));
        }
    }
    if !edges.ends.is_empty() {
        let _ = writeln!(out, "    class {} terminal", edges.ends);
    }
    let entries: Vec<String> = g
        .entrypoints
        .iter()
        .filter(|n| layout.visible.get(n.index()) == Some(&true))
        .map(|n| format!("n{}", n.0))
        .collect();
    if !entries.is_empty() {
        let _ = writeln!(out, "    classDef entry stroke-width:3px");
        let _ = writeln!(out, "    class {} entry", entries.join(","));
    }
    if !edges.failure.is_empty() {
        let ids: Vec<String> = edges.failure.iter().map(usize::to_string).collect();
        let red = style::RED;
        let _ = writeln!(
            out,
            "    linkStyle {} stroke:{red},color:{red}",
            ids.join(",")
        );
    }
}
