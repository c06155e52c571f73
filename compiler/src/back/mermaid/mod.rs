//! Mermaid flowcharts from the IR (never from the raw document, so every dialect that lowers
//! gets the same diagrams).
//!
//! - The graph's title (its first sentence, cut to fit; else its name) is the diagram title
//!   (front matter `title:`), see [`text::graph_title`].
//! - A region (loop, map, subgraph instance, parallel block) **is** its owner: one Mermaid
//!   `subgraph` with the owner's id (`n1`), titled with the owner's id, title and a header in
//!   plain language (`for each page in pages · max 200 · 4 in parallel`, `uses checks`), holding
//!   the body. Edges into and out of the owner attach to the container, so the main flow runs
//!   straight through; the loop's title says until when and how often (`loop until
//!   failing_count == 0 · max 5`), and a thick `repeat` edge leads from the body's last node
//!   back to its first, or, when the body holds boxes of its own, from the loop's box back into
//!   itself (see [`layout::Repeat`]). Regions nest at any depth; members are written in execution order
//!   (see [`layout`]).
//! - One shape and class per node kind (tasks, decisions, gates, terminals...); only the
//!   graph's own entry nodes get the `entry` class (thick border).
//! - Edges: `-->` sequence, `-.->` conditional (dashed), `-.->` in red for failure, `==>` back
//!   edges and loop repetition. Labels follow [`text::edge_label`]: the author's label first.
//! - `collapse` folds every region into its owner node, whose text ends with the header.
//! - `legend` adds a small key of the shapes and edge styles the diagram uses.
//! - Ids are generated (`n3`, `l0`); all text is escaped (see [`escape`]). Output is a pure
//!   function of the IR: the same graph gives the same bytes.

mod edges;
pub mod escape;
pub(crate) mod exits;
pub mod inject;
pub(crate) mod layout;
mod legend;
pub(crate) mod style;
pub mod text;

pub(crate) use edges::REPEAT;
use edges::{Edges, write_classes, write_edges};
pub(crate) use layout::{Layout, Visit, repeat, repetition, walk};

use crate::ir::{Graph, NodeId, NodeKind, RegionId, RegionKind};
use escape::label;
use std::fmt::Write;

/// Mermaid refuses diagrams with more edges than this by default (`maxEdges`).
pub const MAX_EDGES: usize = 500;

/// Mermaid draws "Maximum text size in diagram exceeded" instead of a diagram whose text is
/// longer than this, in UTF-16 code units (`maxTextSize`, default 50,000).
pub const MAX_TEXT: usize = 50_000;

/// The length of a diagram's text as Mermaid measures it (JavaScript's `length`).
pub fn text_size(text: &str) -> usize {
    text.encode_utf16().count()
}

/// Layout direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Direction {
    #[default]
    TopBottom,
    LeftRight,
}

/// Options of the Mermaid back end.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    pub direction: Direction,
    pub collapse: bool,
    pub legend: bool,
}

/// Front matter configuration when the diagram has containers: their titles take two lines.
const CONTAINER_CONFIG: &str =
    "config:\n  flowchart:\n    subGraphTitleMargin:\n      top: 4\n      bottom: 36\n";

/// The flowchart text, and how many edges it has (for the caller's limit check).
pub fn render(g: &Graph, opts: Options) -> (String, usize) {
    let mut out = String::new();
    let layout = Layout::new(g, opts.collapse);
    let title = text::graph_title(g);
    let boxes = layout.container.iter().any(Option::is_some);
    if title.is_some() || boxes {
        out.push_str("---\n");
        if let Some(t) = &title {
            let _ = writeln!(out, "title: {}", escape::yaml_title(t));
        }
        if boxes {
            // Room below the two-line container titles, which Mermaid does not measure.
            out.push_str(CONTAINER_CONFIG);
        }
        out.push_str("---\n");
    }
    let dir = match opts.direction {
        Direction::TopBottom => "TB",
        Direction::LeftRight => "LR",
    };
    let _ = writeln!(out, "flowchart {dir}");
    let ends = exits::exits(g, &layout);
    write_nodes(&mut out, g, &layout, dir, &ends);
    let ends = ends.list;
    let mut edges = Edges::default();
    write_edges(&mut out, g, &layout, &mut edges);
    // Where the run ends (see [`exits`]).
    for (i, x) in ends.iter().enumerate() {
        for (from, words, failure) in &x.from {
            // Labelled ends are taken on a verdict or a branch's false side: dashed.
            let arrow = if *failure || words.is_some() {
                "-.->"
            } else {
                "-->"
            };
            let line = match words {
                Some(w) => format!("n{} {arrow}|\"{}\"| t{i}", from.0, label(w)),
                None => format!("n{} {arrow} t{i}", from.0),
            };
            edges.push(&mut out, &line, *failure);
        }
    }
    if !ends.is_empty() {
        edges.classes.push("terminal");
        let ids: Vec<String> = (0..ends.len()).map(|i| format!("t{i}")).collect();
        edges.ends = ids.join(",");
    }
    if opts.legend {
        legend::write(&mut out, g, &layout, &mut edges);
    }
    write_classes(&mut out, g, &layout, &edges);
    (out, edges.count)
}

/// Emits the root's nodes, opening a container for each owner (see [`layout::walk`]).
fn write_nodes(out: &mut String, g: &Graph, layout: &Layout, dir: &str, ends: &exits::Ends) {
    let write_ends = |out: &mut String, depth: usize| {
        for (i, x) in ends.list.iter().enumerate() {
            let _ = writeln!(
                out,
                "{}t{i}([\"{}\"])",
                "    ".repeat(depth),
                label(&x.words)
            );
        }
    };
    // The box the ends are drawn in, once opened: its depth.
    let mut inside: Option<usize> = None;
    walk(g, layout, |v| match v {
        Visit::Close(depth) => {
            if inside == Some(depth) {
                write_ends(out, depth + 1);
                inside = None;
            }
            let _ = writeln!(out, "{}end", "    ".repeat(depth));
        }
        Visit::Open(n, r, depth) => {
            if ends.inside == Some(n) {
                inside = Some(depth);
            }
            let indent = "    ".repeat(depth);
            let _ = writeln!(
                out,
                "{indent}subgraph n{}[\"{}\"]",
                n.0,
                label(&container_title(g, n, r))
            );
            let _ = writeln!(out, "{indent}    direction {dir}");
        }
        Visit::Node(n, depth) => {
            let _ = writeln!(out, "{}{}", "    ".repeat(depth), node_decl(g, layout, n));
        }
    });
    if ends.inside.is_none() {
        write_ends(out, 1);
    }
}

/// A container's title, two lines: the owner's id and title, then what the region does (a
/// loop's condition and bound too: its repeat arrow only says `repeat`, a short label that
/// fits between the two arrows of a two-step body).
pub(crate) fn container_title(g: &Graph, owner: NodeId, r: RegionId) -> String {
    let n = g.node(owner);
    let head = match n.title.as_deref().map(str::trim) {
        Some(t) if !t.is_empty() && t != n.local_id => {
            text::words(&format!("{} · {t}", n.local_id), 60, 1)
        }
        _ => n.local_id.to_string(),
    };
    let header = match g.region(r).kind {
        RegionKind::Loop { .. } => text::region_summary(g, r),
        _ => text::region_header(g, r),
    };
    format!("{head}\n{header}")
}

/// A node's words: id, title (wrapped, short for decisions) and, for a folded owner, what its
/// region does. Shared with the DOT writer.
pub(crate) fn node_words(g: &Graph, id: NodeId) -> String {
    let n = g.node(id);
    let title = n.title.as_deref();
    let mut t = match n.kind {
        // Diamonds grow with their text: id and a short title only, in a smaller font (the
        // `decision` class), so that a decision is about as wide as a task.
        NodeKind::Decision => text::node_text(&n.local_id, title, 20, 2),
        NodeKind::Gate | NodeKind::Terminal | NodeKind::Wait => {
            text::node_text(&n.local_id, title, 24, 2)
        }
        _ => text::node_text(&n.local_id, title, 26, 2),
    };
    if let Some(r) = n.owns
        && r.index() < g.regions.len()
    {
        t = format!("{t}\n{}", text::region_summary(g, r));
    }
    t
}

fn node_decl(g: &Graph, layout: &Layout, id: NodeId) -> String {
    let (open, close, _, _) = style::style(style::look(g, layout, id));
    format!("n{}{open}{}{close}", id.0, label(&node_words(g, id)))
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_ends;
