//! Static bounds: worst-case node executions and projected cost and time, from the IR alone.
//! No upstream AGS implementation computes them.
//!
//! - A node runs at most `max_attempts` times per instance of its scope.
//! - Its scope runs at most `multiplier` times: the product, over its enclosing regions, of
//!   loop `max_iterations` and map `max_items` (subgraph instances run once).
//! - Worst-case executions = Σ attempts × multiplier. Projected cost = Σ estimate.cost_usd ×
//!   attempts × multiplier (a node without an estimate counts 0 and is listed as unestimated).
//! - Projected time: the longest path through the topological order, where a node's time is
//!   `estimate.wall_clock_seconds` × attempts × its *sequential* multiplier (loop iterations ×
//!   ⌈map items / max_parallel⌉), since map items run `max_parallel` at a time.
//!
//! Figures are saturating `f64`s, so absurd nesting cannot overflow.

use crate::ir::{Graph, NodeId, RegionKind};
use serde::Serialize;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Bounds {
    pub max_node_executions: f64,
    pub projected_cost_usd: f64,
    pub projected_wall_clock_seconds: f64,
    /// Nodes with no cost estimate (scoped ids, in order), so readers know what is missing.
    pub unestimated_nodes: usize,
}

/// (total multiplier, sequential multiplier) of each region, in region order.
fn region_multipliers(g: &Graph) -> Vec<(f64, f64)> {
    let mut m: Vec<(f64, f64)> = Vec::with_capacity(g.regions.len());
    for r in &g.regions {
        let (own, seq) = match &r.kind {
            RegionKind::Loop { max_iterations, .. } => {
                (*max_iterations as f64, *max_iterations as f64)
            }
            RegionKind::Map {
                max_items,
                max_parallel,
                ..
            } => {
                let par = (*max_parallel).max(1) as f64;
                (*max_items as f64, (*max_items as f64 / par).ceil())
            }
            _ => (1.0, 1.0),
        };
        // Regions are created parents first, so the parent's entry already exists.
        let (pt, ps) = r.parent.map_or((1.0, 1.0), |p| m[p.index()]);
        m.push((own * pt, seq * ps));
    }
    m
}

/// Computes the bounds; `order` is a topological order of all nodes.
pub fn compute(g: &Graph, order: &[NodeId]) -> Bounds {
    let mult = region_multipliers(g);
    let mut execs = 0.0;
    let mut cost = 0.0;
    let mut unestimated = 0;
    // One instance's duration of each node (owners get their region's time added below).
    let mut time = vec![0.0f64; g.nodes.len()];
    // Nodes of each scope (root = last bucket) in topological order.
    let root = g.regions.len();
    let mut scopes: Vec<Vec<NodeId>> = vec![Vec::new(); root + 1];
    for &id in order {
        let n = g.node(id);
        let total = n.region.map_or(1.0, |r| mult[r.index()].0);
        let attempts = n.extra.retry.max_attempts.max(1) as f64;
        execs += attempts * total;
        match n.extra.estimate.cost_usd {
            Some(c) => cost += c * attempts * total,
            None => unestimated += 1,
        }
        time[id.index()] = n.extra.estimate.seconds.unwrap_or(0.0) * attempts;
        scopes[n.region.map_or(root, |r| r.index())].push(id);
    }
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); g.nodes.len()];
    for e in &g.edges {
        preds[e.to.index()].push(e.from.0);
    }
    let mut finish = vec![0.0f64; g.nodes.len()];
    let mut longest = |nodes: &[NodeId], time: &[f64]| -> f64 {
        let mut end = 0.0f64;
        for &id in nodes {
            let s = preds[id.index()]
                .iter()
                .map(|p| finish[*p as usize])
                .fold(0.0, f64::max);
            finish[id.index()] = s + time[id.index()];
            end = end.max(finish[id.index()]);
        }
        end
    };
    // Regions are created parents first, so innermost regions come last: walk backwards.
    for (ri, r) in g.regions.iter().enumerate().rev() {
        let len = longest(&scopes[ri], &time);
        let seq = match &r.kind {
            RegionKind::Loop { max_iterations, .. } => *max_iterations as f64,
            RegionKind::Map {
                max_items,
                max_parallel,
                ..
            } => (*max_items as f64 / (*max_parallel).max(1) as f64).ceil(),
            _ => 1.0,
        };
        time[r.owner.index()] += len * seq;
    }
    let total_time = longest(&scopes[root], &time);
    Bounds {
        max_node_executions: execs,
        projected_cost_usd: (cost * 1e6).round() / 1e6,
        projected_wall_clock_seconds: total_time,
        unestimated_nodes: unestimated,
    }
}
