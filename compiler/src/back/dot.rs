//! Graphviz DOT from the same IR, layout and words as Mermaid (see [`super::mermaid`]): the
//! graph's title is the graph label; a region is a `cluster_` subgraph titled with its owner's
//! id, title and header, holding the body, and the owner is the cluster itself: edges into the
//! owner end at the cluster's border (`lhead`, meeting the body's first node) and edges out of
//! it leave from the border (`ltail`), so the main flow runs straight through. A loop's body
//! leads back from its last node to its first. Nodes take the Mermaid diagram's looks, in its
//! palette (one table, [`style::LOOKS`], with each look's nearest Graphviz shape), clusters the
//! colours of their frames, and the same end nodes mark where a run ends ([`exits`]);
//! conditional edges are dashed, failure edges red, back edges bold and out of the ranking
//! (`constraint=false`, so a loop reads top-down with its repeat arrow going back). Only the graph's own entry
//! nodes (or clusters) get a thick border. Strings are always quoted, with `"` and `\` escaped and
//! newlines written as `\n`, so any text is safe.

use super::mermaid::exits::{self, Ends};
use super::mermaid::style::{self, RED};
use super::mermaid::{Layout, Visit, container_title, node_words, repetition, text, walk};
use crate::ir::{EdgeKind, Graph, NodeId, RegionId, RegionKind};
use std::fmt::Write;

fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(super::mermaid::escape::visible(c)),
        }
    }
    out.push('"');
    out
}

/// The (last, first) nodes of a region's body.
fn body_ends(layout: &Layout, g: &Graph, r: RegionId) -> Option<(NodeId, NodeId)> {
    repetition(layout, g, r).or_else(|| {
        let m = &layout.members[r.index()];
        Some((*m.last()?, *m.first()?))
    })
}

/// Where an edge meets node `n`: the node itself, or for a container the real node at its
/// start (`first`) or end, reached through nested containers, with the cluster to clip at.
/// `ends` holds each region's (last, first) body node, computed once.
fn anchor(
    layout: &Layout,
    ends: &[Option<(NodeId, NodeId)>],
    n: NodeId,
    first: bool,
) -> (NodeId, Option<NodeId>) {
    let outer = layout.container[n.index()].map(|_| n);
    let mut cur = n;
    for _ in 0..=ends.len() {
        match layout.container[cur.index()].and_then(|r| ends[r.index()]) {
            Some((last, start)) => cur = if first { start } else { last },
            None => break,
        }
    }
    (cur, outer)
}

/// The DOT text of a graph.
pub fn render(g: &Graph, collapse: bool) -> String {
    let mut out = String::from("digraph agc {\n    rankdir=TB;\n    compound=true;\n");
    if let Some(t) = text::graph_title(g) {
        let _ = writeln!(out, "    label={};\n    labelloc=t;", quote(&t));
    }
    out.push_str(
        "    graph [fontname=\"Helvetica\"];\n    node [fontname=\"Helvetica\", style=filled];\n    edge [fontname=\"Helvetica\"];\n",
    );
    let layout = Layout::new(g, collapse);
    let body: Vec<Option<(NodeId, NodeId)>> = (0..g.regions.len())
        .map(|r| body_ends(&layout, g, RegionId(r as u32)))
        .collect();
    let entry: std::collections::HashSet<NodeId> = g.entrypoints.iter().copied().collect();
    let ends = exits::exits(g, &layout);
    write_nodes(&mut out, g, &layout, &entry, &ends);
    for e in &g.edges {
        let (Some(&a), Some(&b)) = (
            layout.visible.get(e.from.index()),
            layout.visible.get(e.to.index()),
        ) else {
            continue;
        };
        if !a || !b {
            continue;
        }
        let mut attrs: Vec<String> = Vec::new();
        if let Some(l) = text::edge_label(g, e) {
            attrs.push(format!("label={}", quote(&l)));
        }
        match e.kind {
            EdgeKind::Sequence => {}
            EdgeKind::Conditional => attrs.push("style=dashed".into()),
            EdgeKind::Failure => attrs.push(format!(
                "style=dashed, color=\"{RED}\", fontcolor=\"{RED}\""
            )),
            // Back edges take no part in ranking (`constraint=false`): the loop reads top-down
            // in execution order and the arrow goes back up, as in Mermaid (issue 45 item 1).
            EdgeKind::Back => attrs.push("style=bold, constraint=false".into()),
        }
        write_edge(&mut out, &layout, &body, (e.from, Head::Node(e.to)), attrs);
    }
    // A drawn loop repeats: its body's last node leads back to its first.
    for (i, r) in g.regions.iter().enumerate() {
        let rid = RegionId(i as u32);
        if matches!(r.kind, RegionKind::Loop { .. })
            && layout.container.get(r.owner.index()) == Some(&Some(rid))
            && let Some((last, first)) = repetition(&layout, g, rid)
        {
            let attrs = vec![
                format!("label={}", quote(super::mermaid::REPEAT)),
                "style=bold, constraint=false".into(),
            ];
            write_edge(&mut out, &layout, &body, (last, Head::Node(first)), attrs);
        }
    }
    // Where the run ends (see [`exits`]): labelled ends are taken on a verdict or a branch's
    // false side (dashed), failures are red.
    for (i, x) in ends.list.iter().enumerate() {
        for (from, words, failure) in &x.from {
            let mut attrs = Vec::new();
            if let Some(w) = words {
                attrs.push(format!("label={}", quote(w)));
            }
            if *failure {
                attrs.push(format!(
                    "style=dashed, color=\"{RED}\", fontcolor=\"{RED}\""
                ));
            } else if words.is_some() {
                attrs.push("style=dashed".into());
            }
            write_edge(&mut out, &layout, &body, (*from, Head::End(i)), attrs);
        }
    }
    out.push_str("}\n");
    out
}

/// Where an edge goes: a node of the graph, or end node `t<i>`.
enum Head {
    Node(NodeId),
    End(usize),
}

fn write_edge(
    out: &mut String,
    layout: &Layout,
    ends: &[Option<(NodeId, NodeId)>],
    (from, to): (NodeId, Head),
    mut attrs: Vec<String>,
) {
    let (a, tail) = anchor(layout, ends, from, false);
    let (b, head) = match to {
        Head::Node(to) => {
            let (b, head) = anchor(layout, ends, to, true);
            (format!("n{}", b.0), head)
        }
        Head::End(i) => (format!("t{i}"), None),
    };
    if let Some(t) = tail {
        attrs.push(format!("ltail=cluster_n{}", t.0));
    }
    if let Some(h) = head {
        attrs.push(format!("lhead=cluster_n{}", h.0));
    }
    let attrs = if attrs.is_empty() {
        String::new()
    } else {
        format!(" [{}]", attrs.join(", "))
    };
    let _ = writeln!(out, "    n{} -> {b}{attrs};", a.0);
}

/// Nodes and clusters, in the shared walk (see [`walk`]), and the end nodes (inside the box
/// [`Ends::inside`] names, else at the root).
fn write_nodes(
    out: &mut String,
    g: &Graph,
    layout: &Layout,
    entry: &std::collections::HashSet<NodeId>,
    ends: &Ends,
) {
    let pen = |n: NodeId| {
        if entry.contains(&n) {
            ", penwidth=3"
        } else {
            ""
        }
    };
    let write_ends = |out: &mut String, depth: usize| {
        for (i, x) in ends.list.iter().enumerate() {
            let _ = writeln!(
                out,
                "{}t{i} [label={}, {}];",
                "    ".repeat(depth),
                quote(&x.words),
                style::dot(style::Look::End)
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
            let _ = writeln!(out, "{}}}", "    ".repeat(depth));
        }
        Visit::Open(n, r, depth) => {
            if ends.inside == Some(n) {
                inside = Some(depth);
            }
            let indent = "    ".repeat(depth);
            let (_, _, class, _) = style::style(style::look(g, layout, n));
            let (fill, stroke, _) = style::colours(class);
            let _ = writeln!(out, "{indent}subgraph cluster_n{} {{", n.0);
            let _ = writeln!(
                out,
                "{indent}    graph [label={}, style=\"rounded,filled\", fillcolor=\"{fill}\", color=\"{stroke}\"{}];",
                quote(&container_title(g, n, r)),
                pen(n)
            );
        }
        Visit::Node(n, depth) => {
            let _ = writeln!(
                out,
                "{}n{} [label={}, {}{}];",
                "    ".repeat(depth),
                n.0,
                quote(&node_words(g, n)),
                style::dot(style::look(g, layout, n)),
                pen(n)
            );
        }
    });
    if ends.inside.is_none() {
        write_ends(out, 1);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoting_escapes_quotes_backslashes_and_newlines() {
        assert_eq!(super::quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
        assert_eq!(super::quote("\u{0}\u{1b}"), "\"␀␛\"");
    }
}
