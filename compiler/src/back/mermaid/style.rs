//! How each node looks, in one table shared by the diagram, its classes and the legend: the
//! Mermaid shape, the class (one palette, dark text on light fills, readable in dark themes
//! too) and the words the legend uses.
//!
//! Gates are told apart by what they wait for: a person approving or reviewing (hexagon), a
//! person supplying input (trapezoid), a notice that waits for nobody (flag), and an automatic
//! check (an agh gate whose criteria are all commands or agent judges: hexagon, amber). Calls to
//! something outside are rounded boxes; only sources that read data (agh `class: source`) are
//! cylinders, the shape of a data store.

use super::Layout;
use crate::ir::{Graph, NodeId, NodeKind, RegionKind};
use crate::source::Value;

/// What a drawn node is, for its shape, class and legend entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Look {
    Task,
    Decision,
    Approval,
    Input,
    Notify,
    Check,
    Wait,
    State,
    Call,
    Source,
    Flow,
    End,
    Loop,
    Map,
    Subgraph,
    Parallel,
}

/// Each look: Mermaid shape (opening and closing brackets), class, legend words, and the
/// nearest Graphviz shape (DOT attributes), in legend order.
pub(crate) const LOOKS: [(Look, &str, &str, &str, &str, &str); 16] = [
    (Look::Task, "[\"", "\"]", "task", "task", "shape=box"),
    (
        Look::Decision,
        "{\"",
        "\"}",
        "decision",
        "decision",
        "shape=diamond",
    ),
    (
        Look::Approval,
        "{{\"",
        "\"}}",
        "gate",
        "approval or review",
        "shape=hexagon",
    ),
    (
        Look::Input,
        "[/\"",
        "\"\\]",
        "gate",
        "input from a person",
        "shape=trapezium",
    ),
    (
        Look::Notify,
        ">\"",
        "\"]",
        "gate",
        "notice (no wait)",
        "shape=cds",
    ),
    (
        Look::Check,
        "{{\"",
        "\"}}",
        "check",
        "automatic check",
        "shape=hexagon",
    ),
    (Look::Wait, "((\"", "\"))", "wait", "wait", "shape=circle"),
    (
        Look::State,
        "[/\"",
        "\"/]",
        "state",
        "state update",
        "shape=parallelogram",
    ),
    (
        Look::Call,
        "(\"",
        "\")",
        "outside",
        "call outside",
        "shape=box, style=\"rounded,filled\"",
    ),
    (
        Look::Source,
        "[(\"",
        "\")]",
        "outside",
        "data source",
        "shape=cylinder",
    ),
    (
        Look::Flow,
        "[\\\"",
        "\"/]",
        "flow",
        "fork or join",
        "shape=invtrapezium",
    ),
    (
        Look::End,
        "([\"",
        "\"])",
        "terminal",
        "end",
        "shape=box, style=\"rounded,filled\"",
    ),
    (
        Look::Loop,
        "[[\"",
        "\"]]",
        "loopbox",
        "loop",
        "shape=box, peripheries=2",
    ),
    (
        Look::Map,
        "[[\"",
        "\"]]",
        "mapbox",
        "map",
        "shape=box, peripheries=2",
    ),
    (
        Look::Subgraph,
        "[[\"",
        "\"]]",
        "subbox",
        "subgraph",
        "shape=box, peripheries=2",
    ),
    (
        Look::Parallel,
        "[[\"",
        "\"]]",
        "parbox",
        "in parallel",
        "shape=box, peripheries=2",
    ),
];

/// Red, for failure edges (stroke and label) in both writers.
pub(crate) const RED: &str = "#c62828";

/// The classes and their styles, in the order they are defined.
pub(crate) const CLASSES: [(&str, &str); 14] = [
    ("task", "fill:#f4f6fa,stroke:#5b6b82,color:#1b1f24"),
    (
        "decision",
        "fill:#fff6d8,stroke:#b8860b,color:#1b1f24,font-size:12px",
    ),
    ("gate", "fill:#e9f1ff,stroke:#2f5fb3,color:#1b1f24"),
    ("check", "fill:#fff0e0,stroke:#c77700,color:#1b1f24"),
    ("wait", "fill:#fbeef5,stroke:#a8537e,color:#1b1f24"),
    ("state", "fill:#eef7f3,stroke:#4f8f77,color:#1b1f24"),
    ("outside", "fill:#e8f6f8,stroke:#3c8ea0,color:#1b1f24"),
    ("flow", "fill:#fdf3ea,stroke:#c08a5b,color:#1b1f24"),
    ("terminal", "fill:#eceff1,stroke:#455a64,color:#1b1f24"),
    ("loopbox", "fill:#f1f8ec,stroke:#7aa35b,color:#1b1f24"),
    ("mapbox", "fill:#eef6ff,stroke:#7a9cc6,color:#1b1f24"),
    ("subbox", "fill:#f7f4fb,stroke:#9a86b8,color:#1b1f24"),
    ("parbox", "fill:#fdf3ea,stroke:#c08a5b,color:#1b1f24"),
    // The legend's key of arrows: plain text, left-aligned.
    (
        "legendkey",
        "fill:#ffffff,stroke:#c4c9d0,color:#1b1f24,text-align:left",
    ),
];

/// The shape, class and legend words of `look`.
pub(crate) fn style(look: Look) -> (&'static str, &'static str, &'static str, &'static str) {
    let (_, open, close, class, words, _) = row(look);
    (open, close, class, words)
}

fn row(
    look: Look,
) -> (
    Look,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
) {
    LOOKS[LOOKS.iter().position(|l| l.0 == look).unwrap_or(0)]
}

/// The DOT attributes of `look`: its shape, and its class's fill, stroke and text colours.
pub(crate) fn dot(look: Look) -> String {
    let (_, _, _, class, _, shape) = row(look);
    let (fill, stroke, text) = colours(class);
    format!("{shape}, fillcolor=\"{fill}\", color=\"{stroke}\", fontcolor=\"{text}\"")
}

/// A class's fill, stroke and text colours, read from its style in [`CLASSES`].
pub(crate) fn colours(class: &str) -> (&'static str, &'static str, &'static str) {
    let css = CLASSES.iter().find(|c| c.0 == class).map_or("", |c| c.1);
    let get = |key: &str| {
        css.split(',')
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix(':'))
            .unwrap_or("#000000")
    };
    (get("fill"), get("stroke"), get("color"))
}

/// How node `id` looks: a box (drawn as a container, or folded) by its region's kind, a gate by
/// what it waits for, a call by whether it reads data.
pub(crate) fn look(g: &Graph, layout: &Layout, id: NodeId) -> Look {
    let n = g.node(id);
    let region = layout.container[id.index()]
        .or(n.owns)
        .and_then(|r| g.regions.get(r.index()));
    if let Some(r) = region {
        return match r.kind {
            RegionKind::Loop { .. } => Look::Loop,
            RegionKind::Map { .. } => Look::Map,
            RegionKind::Subgraph { .. } => Look::Subgraph,
            RegionKind::Parallel => Look::Parallel,
        };
    }
    match n.kind {
        NodeKind::Task => Look::Task,
        NodeKind::Decision => Look::Decision,
        NodeKind::Gate => gate(n),
        NodeKind::Loop => Look::Loop,
        NodeKind::Map => Look::Map,
        NodeKind::Subgraph => Look::Subgraph,
        NodeKind::Wait => Look::Wait,
        NodeKind::StateUpdate => Look::State,
        NodeKind::External => {
            if n.attrs.get("class").and_then(Value::as_str) == Some("source") {
                Look::Source
            } else {
                Look::Call
            }
        }
        NodeKind::Fork | NodeKind::Join => Look::Flow,
        NodeKind::Terminal => Look::End,
    }
}

/// A gate by what it waits for: AGS `gate.mode` (`input`, `notify`; `approve` and `review`
/// are approvals), AWP `interrupt` (input), an agh gate with no `human` criterion (an
/// automatic check); any other gate is an approval.
fn gate(n: &crate::ir::Node) -> Look {
    use crate::ir::HumanMode;
    let mode = n.extra.gate.as_ref().map(|g| g.mode);
    match (mode, &*n.origin_kind) {
        (Some(HumanMode::Input), _) | (_, "interrupt") => Look::Input,
        (Some(HumanMode::Notify), _) => Look::Notify,
        _ => match n.attrs.get("criteria").and_then(Value::as_array) {
            Some(list) if !list.is_empty() => {
                let human = list
                    .iter()
                    .any(|c| c.get("type").and_then(Value::as_str) == Some("human"));
                if human { Look::Approval } else { Look::Check }
            }
            _ => Look::Approval,
        },
    }
}
