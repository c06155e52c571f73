//! Mermaid flowcharts from the IR (never from the raw document, so every dialect that lowers
//! gets diagrams).
//!
//! - One shape per node kind; entrypoints get the `entry` class (thick border).
//! - Regions (loops, maps, subgraph instances) are nested `subgraph` blocks titled with their
//!   bound ("loop until … ≤ 5", "map over … ≤ 50 ∥ 4"); the owner node links to its region.
//! - Edges: `-->` sequence, `-->|"guard"|` conditional (the guard's source text), `-.->|"on
//!   failure"|` failure, `==>|"≤ n"|` back edges with their bound.
//! - `collapse` folds every region into its owner node.
//! - Ids are generated (`n3`, `r1`); all text is escaped (see [`escape`]). Output is a pure
//!   function of the IR: the same graph gives the same bytes.

pub mod escape;
pub mod inject;

use crate::ir::{EdgeKind, Graph, LoopMode, NodeId, NodeKind, RegionId, RegionKind};
use escape::{label, shorten};
use std::fmt::Write;

/// Mermaid refuses diagrams with more edges than this by default (`maxEdges`).
pub const MAX_EDGES: usize = 500;

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
}

/// The flowchart text, and how many edges it has (for the caller's limit check).
pub fn render(g: &Graph, opts: Options) -> (String, usize) {
    let mut out = String::new();
    let dir = match opts.direction {
        Direction::TopBottom => "TB",
        Direction::LeftRight => "LR",
    };
    let _ = writeln!(out, "flowchart {dir}");
    // Which nodes are visible: with `collapse`, only nodes outside every region.
    let visible = |n: NodeId| !opts.collapse || g.node(n).region.is_none();
    // Children of each region (and of the root, index = regions.len()).
    let root = g.regions.len();
    let mut child_regions: Vec<Vec<RegionId>> = vec![Vec::new(); root + 1];
    for (i, r) in g.regions.iter().enumerate() {
        child_regions[r.parent.map_or(root, |p| p.index())].push(RegionId(i as u32));
    }
    let mut members: Vec<Vec<NodeId>> = vec![Vec::new(); root + 1];
    for (i, n) in g.nodes.iter().enumerate() {
        members[n.region.map_or(root, |r| r.index())].push(NodeId(i as u32));
    }
    // Emit scopes with an explicit stack: (scope index, depth, opening?).
    let mut stack: Vec<(usize, usize, bool)> = vec![(root, 0, true)];
    while let Some((scope, depth, open)) = stack.pop() {
        let indent = "    ".repeat(depth + 1);
        if !open {
            let _ = writeln!(out, "{}end", "    ".repeat(depth));
            continue;
        }
        if scope != root {
            let _ = writeln!(
                out,
                "{}subgraph r{scope}[\"{}\"]",
                "    ".repeat(depth),
                label(&region_title(g, RegionId(scope as u32)))
            );
            let _ = writeln!(out, "{indent}direction {dir}");
        }
        for &n in &members[scope] {
            if visible(n) {
                let _ = writeln!(out, "{indent}{}", node_decl(g, n, opts.collapse));
            }
        }
        if scope != root {
            stack.push((scope, depth, false));
        }
        if !opts.collapse {
            for &r in child_regions[scope].iter().rev() {
                stack.push((r.index(), depth + 1, true));
            }
        }
    }
    let mut edges = 0;
    if !opts.collapse {
        for (i, r) in g.regions.iter().enumerate() {
            let _ = writeln!(out, "    n{} -.- r{i}", r.owner.0);
            edges += 1;
        }
    }
    for e in &g.edges {
        if !visible(e.from) || !visible(e.to) {
            continue;
        }
        let (a, b) = (e.from.0, e.to.0);
        let line = match e.kind {
            EdgeKind::Sequence => match &e.label {
                Some(l) => format!("n{a} -->|\"{}\"| n{b}", label(&shorten(l, 60))),
                None => format!("n{a} --> n{b}"),
            },
            EdgeKind::Conditional => {
                let text = e
                    .guard
                    .as_ref()
                    .map(|g| g.source.as_str())
                    .or(e.label.as_deref())
                    .unwrap_or("?");
                format!("n{a} -->|\"{}\"| n{b}", label(&shorten(text, 60)))
            }
            EdgeKind::Failure => {
                let text = match &e.guard {
                    Some(g) => format!("on failure: {}", g.source),
                    None => "on failure".into(),
                };
                format!("n{a} -.->|\"{}\"| n{b}", label(&shorten(&text, 60)))
            }
            EdgeKind::Back => {
                let bound = e
                    .bound
                    .map_or("unbounded".to_string(), |b| format!("≤ {b}"));
                format!("n{a} ==>|\"{}\"| n{b}", label(&bound))
            }
        };
        let _ = writeln!(out, "    {line}");
        edges += 1;
    }
    out.push_str("    classDef entry stroke-width:3px\n");
    let entries: Vec<String> = g
        .entrypoints
        .iter()
        .chain(g.regions.iter().flat_map(|r| r.entrypoints.iter()))
        .filter(|n| visible(**n))
        .map(|n| format!("n{}", n.0))
        .collect();
    if !entries.is_empty() {
        let _ = writeln!(out, "    class {} entry", entries.join(","));
    }
    (out, edges)
}

fn node_decl(g: &Graph, id: NodeId, collapse: bool) -> String {
    let n = g.node(id);
    let mut text = n.local_id.clone();
    if let Some(t) = &n.title
        && t != &n.local_id
    {
        text = format!("{}\n{}", n.local_id, shorten(t, 48));
    }
    if collapse && let Some(r) = n.owns {
        text = format!("{text}\n{}", region_title(g, r));
    }
    let l = label(&text);
    let i = id.0;
    match n.kind {
        NodeKind::Task => format!("n{i}[\"{l}\"]"),
        NodeKind::Decision => format!("n{i}{{\"{l}\"}}"),
        NodeKind::Gate => format!("n{i}{{{{\"{l}\"}}}}"),
        NodeKind::Loop | NodeKind::Map | NodeKind::Subgraph => format!("n{i}[[\"{l}\"]]"),
        NodeKind::Wait => format!("n{i}((\"{l}\"))"),
        NodeKind::StateUpdate => format!("n{i}[/\"{l}\"/]"),
        NodeKind::External => format!("n{i}[(\"{l}\")]"),
        NodeKind::Fork | NodeKind::Join => format!("n{i}[\\\"{l}\"/]"),
        NodeKind::Terminal => format!("n{i}([\"{l}\"])"),
    }
}

/// "loop until … ≤ 5", "map over … ≤ 50 ∥ 4", "subgraph use:checks".
pub fn region_title(g: &Graph, r: RegionId) -> String {
    let region = g.region(r);
    let owner = &g.node(region.owner).local_id;
    match &region.kind {
        RegionKind::Loop {
            mode,
            condition,
            max_iterations,
            ..
        } => {
            let cond = condition
                .as_ref()
                .map(|c| shorten(&c.source, 40))
                .unwrap_or_default();
            match mode {
                LoopMode::Until => format!("{owner}: loop until {cond} ≤ {max_iterations}"),
                LoopMode::While => format!("{owner}: loop while {cond} ≤ {max_iterations}"),
                LoopMode::Repeat => format!("{owner}: repeat × {max_iterations}"),
            }
        }
        RegionKind::Map {
            over,
            max_items,
            max_parallel,
            ..
        } => format!(
            "{owner}: map over {} ≤ {max_items} ∥ {max_parallel}",
            shorten(&over.source, 40)
        ),
        RegionKind::Subgraph { source, .. } => format!("{owner}: subgraph {source}"),
        RegionKind::Parallel => format!("{owner}: parallel"),
    }
}
