//! A lowered graph with its analyses (order, static bounds) and the bound warnings: what the
//! drivers hand to the back ends.

use super::{bounds, order};
use crate::diag::Diagnostic;
use crate::front::Lowered;
use crate::ir::Graph;
use serde_json::Value;

/// A lowered and analysed graph.
#[derive(Debug)]
pub struct Compiled {
    pub graph: Graph,
    pub order: Vec<crate::ir::NodeId>,
    pub bounds: bounds::Bounds,
    /// The source document's `sha256-` digest of its RFC 8785 canonical form (AGS
    /// `graph_digest`).
    pub digest: Option<String>,
    /// The file the graph comes from, as shown to users.
    pub display: String,
}

/// Runs the analyses on a lowered graph (order, static bounds) with the bound warnings.
pub fn analyse(l: Lowered) -> (Option<Compiled>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let Some(order) = order::topological(&l.graph) else {
        // Checked graphs are acyclic but for bounded back edges; reaching here is a bug,
        // reported, not a panic.
        diags.push(Diagnostic::error(
            "AGC080",
            "internal: the lowered graph has a cycle",
        ));
        return (None, diags);
    };
    let b = bounds::compute(&l.graph, &order);
    diags.extend(bound_warnings(&l.graph, &b));
    (
        Some(Compiled {
            graph: l.graph,
            order,
            bounds: b,
            digest: l.digest,
            display: l.display,
        }),
        diags,
    )
}

fn bound_warnings(g: &Graph, b: &bounds::Bounds) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let limit = |k: &str| g.constraints.get(k).and_then(Value::as_f64);
    let mut check = |code: &'static str, key: &str, figure: f64, what: &str| {
        if let Some(max) = limit(key)
            && figure > max
        {
            let mut d =
                Diagnostic::warning(code, format!("{what} is {figure}, above `{key}: {max}`"));
            if let Some(&span) = g.spans.constraints.get(key) {
                d = d.at(span);
            }
            out.push(d.with_pointer(format!("/constraints/{key}")));
        }
    };
    check(
        "AGC090",
        "max_node_executions",
        b.max_node_executions,
        "the worst-case number of node executions",
    );
    check(
        "AGC091",
        "max_cost_usd",
        b.projected_cost_usd,
        "the projected worst-case cost (USD)",
    );
    check(
        "AGC092",
        "max_wall_clock_seconds",
        b.projected_wall_clock_seconds,
        "the projected worst-case time (s)",
    );
    out
}
