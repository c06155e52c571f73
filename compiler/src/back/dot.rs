//! Graphviz DOT from the same IR and the same words as Mermaid (see
//! [`super::mermaid::text`]): the graph's title is the graph label; a region is a `cluster_`
//! subgraph titled with its owner's id, title and header, holding the owner node (so edges into
//! and out of the owner meet the box) and the body; node kinds become shapes and classes of
//! fill; conditional edges are dashed, failure edges red, back edges bold. Only the graph's own
//! entry nodes get a thick border. Strings are always quoted, with `"` and `\` escaped and
//! newlines written as `\n`, so any text is safe.

use super::mermaid::text;
use crate::ir::{EdgeKind, Graph, NodeId, NodeKind, RegionId, RegionKind};
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
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn shape(k: NodeKind) -> &'static str {
    match k {
        NodeKind::Task => "box",
        NodeKind::Decision => "diamond",
        NodeKind::Gate => "hexagon",
        NodeKind::Loop | NodeKind::Map | NodeKind::Subgraph => "box3d",
        NodeKind::Wait => "circle",
        NodeKind::StateUpdate => "parallelogram",
        NodeKind::External => "cylinder",
        NodeKind::Fork | NodeKind::Join => "trapezium",
        NodeKind::Terminal => "oval",
    }
}

fn fill(k: NodeKind) -> &'static str {
    match k {
        NodeKind::Decision => "#fff6d8",
        NodeKind::Gate => "#e9f1ff",
        NodeKind::Terminal => "#eceff1",
        _ => "#f4f6fa",
    }
}

/// The DOT text of a graph.
pub fn render(g: &Graph, collapse: bool) -> String {
    let mut out = String::from("digraph agc {\n    rankdir=TB;\n");
    if let Some(t) = g.title.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        let one_line = t.split_whitespace().collect::<Vec<_>>().join(" ");
        let _ = writeln!(out, "    label={};\n    labelloc=t;", quote(&one_line));
    }
    out.push_str("    node [fontname=\"Helvetica\", style=filled];\n");
    let root = g.regions.len();
    let visible = |n: NodeId| !collapse || g.node(n).region.is_none();
    // A node's scope for drawing: the region it owns (expanded), else the region it is in.
    let mut members: Vec<Vec<NodeId>> = vec![Vec::new(); root + 1];
    let mut child_regions: Vec<Vec<RegionId>> = vec![Vec::new(); root + 1];
    for (i, r) in g.regions.iter().enumerate() {
        child_regions[r.parent.map_or(root, |p| p.index()).min(root)].push(RegionId(i as u32));
    }
    for (i, n) in g.nodes.iter().enumerate() {
        let scope = match n.owns {
            Some(r) if !collapse && r.index() < root => r.index(),
            _ => n.region.map_or(root, |r| r.index()).min(root),
        };
        members[scope].push(NodeId(i as u32));
    }
    let entry: std::collections::HashSet<NodeId> = g.entrypoints.iter().copied().collect();
    let mut entered = vec![false; root + 1];
    let mut stack: Vec<(usize, usize, bool)> = vec![(root, 0, true)];
    while let Some((scope, depth, open)) = stack.pop() {
        let indent = "    ".repeat(depth + 1);
        if !open {
            let _ = writeln!(out, "{}}}", "    ".repeat(depth));
            continue;
        }
        if entered[scope] {
            continue;
        }
        entered[scope] = true;
        if scope != root {
            let r = RegionId(scope as u32);
            let owner = g.node(g.region(r).owner);
            let head = text::node_text(&owner.local_id, owner.title.as_deref(), 40, 2);
            let _ = writeln!(out, "{}subgraph cluster_r{scope} {{", "    ".repeat(depth));
            let _ = writeln!(
                out,
                "{indent}label={};\n{indent}style=rounded;",
                quote(&format!("{head}\n{}", text::region_summary(g, r)))
            );
        }
        for &n in &members[scope] {
            if !visible(n) {
                continue;
            }
            let node = g.node(n);
            let mut t = text::node_text(&node.local_id, node.title.as_deref(), 32, 2);
            if collapse && let Some(r) = node.owns.filter(|r| r.index() < root) {
                t = format!("{t}\n{}", text::region_summary(g, r));
            }
            let pen = if entry.contains(&n) {
                ", penwidth=3"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "{indent}n{} [label={}, shape={}, fillcolor=\"{}\"{pen}];",
                n.0,
                quote(&t),
                shape(node.kind),
                fill(node.kind)
            );
        }
        if scope != root {
            stack.push((scope, depth, false));
        }
        if !collapse {
            for &r in child_regions[scope].iter().rev() {
                stack.push((r.index(), depth + 1, true));
            }
        }
    }
    for e in &g.edges {
        if !visible(e.from) || !visible(e.to) {
            continue;
        }
        let mut attrs: Vec<String> = Vec::new();
        if let Some(l) = text::edge_label(g, e) {
            attrs.push(format!("label={}", quote(&l)));
        }
        match e.kind {
            EdgeKind::Sequence => {}
            EdgeKind::Conditional => attrs.push("style=dashed".into()),
            EdgeKind::Failure => attrs.push("style=dashed, color=\"#c62828\"".into()),
            EdgeKind::Back => attrs.push("style=bold".into()),
        }
        let attrs = if attrs.is_empty() {
            String::new()
        } else {
            format!(" [{}]", attrs.join(", "))
        };
        let _ = writeln!(out, "    n{} -> n{}{attrs};", e.from.0, e.to.0);
    }
    // A loop repeats: the owner (inside its box) leads back into the body.
    if !collapse {
        for (i, r) in g.regions.iter().enumerate() {
            if let RegionKind::Loop { .. } = r.kind
                && let Some(first) = r.entrypoints.first()
            {
                let _ = writeln!(
                    out,
                    "    n{} -> n{} [style=bold, label={}];",
                    r.owner.0,
                    first.0,
                    quote(&text::region_header(g, RegionId(i as u32)))
                );
            }
        }
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoting_escapes_quotes_backslashes_and_newlines() {
        assert_eq!(super::quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
    }
}
