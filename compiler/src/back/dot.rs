//! Graphviz DOT from the same IR walk as Mermaid: regions become `cluster_` subgraphs, node kinds
//! become shapes, edge kinds become styles. Strings are always quoted, with `"` and `\` escaped
//! and newlines written as `\n`, so any text is safe.

use super::mermaid::escape::shorten;
use super::mermaid::region_title;
use crate::ir::{EdgeKind, Graph, NodeId, NodeKind, RegionId};
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

/// The DOT text of a graph.
pub fn render(g: &Graph, collapse: bool) -> String {
    let mut out =
        String::from("digraph agc {\n    rankdir=TB;\n    node [fontname=\"Helvetica\"];\n");
    let visible = |n: NodeId| !collapse || g.node(n).region.is_none();
    let root = g.regions.len();
    let mut child_regions: Vec<Vec<RegionId>> = vec![Vec::new(); root + 1];
    for (i, r) in g.regions.iter().enumerate() {
        child_regions[r.parent.map_or(root, |p| p.index())].push(RegionId(i as u32));
    }
    let mut members: Vec<Vec<NodeId>> = vec![Vec::new(); root + 1];
    for (i, n) in g.nodes.iter().enumerate() {
        members[n.region.map_or(root, |r| r.index())].push(NodeId(i as u32));
    }
    let entry: std::collections::HashSet<NodeId> = g
        .entrypoints
        .iter()
        .chain(g.regions.iter().flat_map(|r| r.entrypoints.iter()))
        .copied()
        .collect();
    let mut stack: Vec<(usize, usize, bool)> = vec![(root, 0, true)];
    while let Some((scope, depth, open)) = stack.pop() {
        let indent = "    ".repeat(depth + 1);
        if !open {
            let _ = writeln!(out, "{}}}", "    ".repeat(depth));
            continue;
        }
        if scope != root {
            let _ = writeln!(out, "{}subgraph cluster_r{scope} {{", "    ".repeat(depth));
            let _ = writeln!(
                out,
                "{indent}label={};",
                quote(&region_title(g, RegionId(scope as u32)))
            );
        }
        for &n in &members[scope] {
            if !visible(n) {
                continue;
            }
            let node = g.node(n);
            let mut text = node.local_id.clone();
            if let Some(t) = &node.title {
                text = format!("{text}\n{}", shorten(t, 48));
            }
            let pen = if entry.contains(&n) {
                ", penwidth=3"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "{indent}n{} [label={}, shape={}{pen}];",
                n.0,
                quote(&text),
                shape(node.kind)
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
        let attrs = match e.kind {
            EdgeKind::Sequence => e
                .label
                .as_ref()
                .map(|l| format!(" [label={}]", quote(l)))
                .unwrap_or_default(),
            EdgeKind::Conditional => {
                let t = e.guard.as_ref().map(|g| g.source.as_str()).unwrap_or("?");
                format!(" [label={}]", quote(&shorten(t, 60)))
            }
            EdgeKind::Failure => " [style=dashed, label=\"on failure\"]".to_string(),
            EdgeKind::Back => format!(
                " [style=bold, label={}]",
                quote(&format!("≤ {}", e.bound.unwrap_or(0)))
            ),
        };
        let _ = writeln!(out, "    n{} -> n{}{attrs};", e.from.0, e.to.0);
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
