//! AWP `switch` routing, decided when the switch runs (upstream's `resolveSwitchTarget`).
//!
//! - The switch's cases are its outgoing edges with an `order` (forward or back: a case may
//!   loop back), each guarded by its `when`; the default is the last, unguarded, labelled
//!   `default`. The first case whose `when` holds (jq's truth on AWP's result: neither
//!   `false` nor `null`) wins, else the default.
//! - The switch fails (AGC327, upstream `switch_routing_failed`) when a `when` fails to
//!   evaluate, when no case holds and there is no default, or when the case that holds loops
//!   back over an edge that reached its bound (agc's bound on AWP cycles, see `back`: AWP has
//!   none, so agc cannot route where AWP would; taking a later case instead would be a route
//!   AWP never takes).
//! - The chosen order is kept on the run ([`super::Run::route`]): the switch's edges resolve
//!   by it, against the state as the switch saw it, without evaluating the cases again.

use super::RunId;
use super::State;
use super::env::Anchor;
use crate::plan::{Edge, EdgeKind};
use std::sync::Arc;

impl State {
    /// Routes AWP switch run `r`: the `order` of the edge it takes, or why it cannot route.
    pub(super) fn route_switch(&mut self, r: RunId) -> Result<u32, String> {
        let plan = Arc::clone(&self.plan);
        let idx = Arc::clone(&self.idx);
        let node = self.runs[r].node;
        let scope = self.runs[r].scope;
        let id = &plan.nodes[node].local_id;
        let mut edges: Vec<usize> = idx.outgoing[node]
            .iter()
            .copied()
            .filter(|&e| plan.edges[e].order.is_some())
            .collect();
        edges.sort_by_key(|&e| plan.edges[e].order);
        let mut cases = 0;
        for e in edges {
            let edge = &plan.edges[e];
            let holds = match &edge.guard {
                Some(g) => {
                    cases += 1;
                    let anchor = Anchor {
                        run: Some(r),
                        inputs: None,
                    };
                    self.eval_bool(scope, g, &anchor)
                        .map_err(|err| format!("switch `{id}`: a case failed: {err}"))?
                }
                None => edge.label.as_deref() == Some("default"),
            };
            if !holds {
                continue;
            }
            if edge.kind == EdgeKind::Back {
                let bound = edge.bound.unwrap_or(super::passes::DEFAULT_BOUND);
                let followed = self.scopes[scope]
                    .passes
                    .as_ref()
                    .and_then(|p| p.followed.get(&e).copied())
                    .unwrap_or(0);
                if followed >= bound {
                    return Err(format!(
                        "switch `{id}`: the case leading back to `{}` holds, but that back edge reached its bound ({bound}): agc follows an AWP cycle at most {bound} times per scope instance",
                        edge.to
                    ));
                }
            }
            return Ok(edge.order.unwrap_or_default());
        }
        Err(match cases {
            0 => format!("switch `{id}`: no case and no default to route to"),
            _ => format!("switch `{id}`: no case matched and there is no default"),
        })
    }

    /// How `edge` leaving run `r` resolves when `r` is a routed switch: (active, when
    /// result), as evaluating the cases in order would give them (cases before the chosen
    /// one false, the chosen one true, later ones not evaluated). `None` for other runs.
    pub(super) fn routed(&self, r: RunId, edge: &Edge) -> Option<(bool, Option<bool>)> {
        let route = self.runs[r].route?;
        let order = edge.order?;
        let guarded = edge.guard.is_some();
        Some(match order.cmp(&route) {
            std::cmp::Ordering::Less => (false, guarded.then_some(false)),
            std::cmp::Ordering::Equal => (true, guarded.then_some(true)),
            std::cmp::Ordering::Greater => (false, None),
        })
    }
}
