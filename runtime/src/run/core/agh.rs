//! agh.loop/v1 run semantics beyond AGS's model (research notes on agh §3.2, §3.4, §7): how
//! a Loop's generations end, where its gates route, and how a fan-out splits its collection.
//!
//! - **Generations.** The lowering makes the Loop's generations one loop region whose owner
//!   carries `generations` (the plan's typed field). When a generation ends:
//!   - it **failed** (a node failed, or a gate routed `revise`): the next generation starts;
//!   - it ran **clean**: with no `stop_when`, or with `stop_when` true, the Loop is `done`;
//!     with `stop_when` false, the next generation starts;
//!   - a next generation past `iteration_cap` is not started: the Loop is `exhausted`
//!     (`iteration_cap_exceeded`). An unbounded cap (0) never ends it.
//! - **Gates** with a routing table (`routes`, written by the lowering with
//!   upstream's defaults filled in): `approved` is the verdict `pass`, `rejected` is `fail`.
//!   The route `continue` succeeds the gate (its edges are the `continue` verdicts), `revise`
//!   fails it (so the generation fails), `halt` ends the Loop with the route's
//!   `terminal_status` (default `failed`) and `escalate` with its own (default
//!   `needs-approval`; agc does not park the run for an operator, it ends it). A `fail` at
//!   revision `generation - 1` >= `max_revisions` (the gate's own, else upstream's default
//!   10; none in a watch Loop) ends the Loop `exhausted` (`gate_max_revisions_exhausted`).
//!   `branch` succeeds the gate; its edges (only `continue` verdicts) are not taken.
//! - **Fan-out.** `batch_size` (the owner's `body.batch_size`, default 1) splits the collection into chunks: one branch per
//!   chunk, whose `item` is the element when `batch_size` is 1 and the chunk (an array, also
//!   a short last one) otherwise. More branches than `max_fan_out` (the map's `max_items`)
//!   end the Loop `exhausted` (`fan_out_width_exceeded`) before any branch runs.
//!
//! How the Loop ended is the record's `x-terminal` (`LoopTerminal`); the AGS status follows:
//! `done` and `no-op` are `succeeded`, every other ending `failed`. An ending other than
//! `done` is also `AGC329` in the record's diagnostics, saying why.

use super::{RunId, State};
use crate::plan::{LoopRules, RegionKind, Route, RouteAction, Verdict};
use crate::run::handler::GateOutcome;
use crate::run::record::{LoopTerminal, NodeStatus};
use serde_json::Value;

impl State {
    /// Whether the plan follows agh's loop rules (`LoopRules::Generations`).
    fn is_agh(&self) -> bool {
        self.plan.semantics.loop_rules == LoopRules::Generations
    }

    /// Whether loop run `r` is an agh Loop's generations.
    pub(super) fn is_generations(&self, r: RunId) -> bool {
        self.is_agh() && self.plan.nodes[self.runs[r].node].generations.is_some()
    }

    /// The 1-based generation of scope instance `s` (1 outside the generations).
    fn generation_of(&self, s: usize) -> u64 {
        self.scopes[s].iteration.map_or(1, |i| i + 1)
    }

    /// Records how the Loop ended (the first ending stands) and, unless it is `done`, says
    /// why (AGC329).
    fn end_loop(
        &mut self,
        status: &str,
        reason: Option<&str>,
        generation: u64,
        at: Option<RunId>,
        why: String,
    ) {
        if self.terminal.is_some() {
            return;
        }
        self.terminal = Some(LoopTerminal {
            status: status.to_string(),
            reason_code: reason.map(str::to_string),
            generation,
            node: at.map(|r| self.runs[r].path.clone()),
        });
        if status != "done" {
            let reason = reason.map_or(String::new(), |c| format!(" ({c})"));
            self.diag(
                "AGC329",
                "error",
                format!("{why}: the Loop ends `{status}`{reason}"),
                at,
            );
        }
    }

    /// Generation scope `s` of the generations run `r` ended; `ran` generations so far.
    pub(super) fn generation_done(&mut self, r: RunId, s: usize, ran: u64) {
        let failed = self.scopes[s].failed;
        if !failed {
            if self.scopes[s].degraded {
                self.runs[r].degraded = true;
            }
            let plan = std::sync::Arc::clone(&self.plan);
            let stop = match &plan.regions[self.idx.region_of_owner[&self.runs[r].node]].kind {
                RegionKind::Loop { condition, .. } => condition.as_ref(),
                _ => None,
            };
            let holds = match stop {
                None => true,
                Some(cond) => match self.eval_bool(s, cond, &super::env::Anchor::default()) {
                    Ok(b) => b,
                    Err(e) => {
                        self.diag("RT062", "error", format!("stop_when failed: {e}"), Some(r));
                        self.end_loop(
                            "failed",
                            Some("stop_when_error"),
                            ran,
                            Some(r),
                            format!("generation {ran}'s stop_when could not be evaluated"),
                        );
                        return self.finish_loop(r, NodeStatus::Failed);
                    }
                },
            };
            if holds {
                self.end_loop("done", None, ran, None, String::new());
                return self.finish_loop(r, NodeStatus::Succeeded);
            }
        }
        let cap = match &self.plan.regions[self.idx.region_of_owner[&self.runs[r].node]].kind {
            RegionKind::Loop { max_iterations, .. } => *max_iterations as u64,
            _ => u64::MAX,
        };
        if ran >= cap {
            let how = if failed {
                "failed"
            } else {
                "ran clean but stop_when is false"
            };
            self.end_loop(
                "exhausted",
                Some("iteration_cap_exceeded"),
                ran,
                Some(r),
                format!("generation {ran} {how}, and iteration_cap ({cap}) allows no other"),
            );
            return self.finish_loop(r, NodeStatus::Failed);
        }
        self.next_iteration(r);
    }

    /// Whether run `r` is a gate with agh's routing table.
    pub(super) fn routes_gate(&self, r: RunId) -> bool {
        self.is_agh() && self.plan.nodes[self.runs[r].node].routes.is_some()
    }

    /// Gate run `r` (with a routing table) got `outcome`: its route decides.
    pub(super) fn route_gate(&mut self, r: RunId, outcome: GateOutcome) {
        let verdict = match outcome {
            GateOutcome::Approved => Verdict::Pass,
            GateOutcome::Rejected => Verdict::Fail,
        };
        let route = match &self.plan.nodes[self.runs[r].node].routes {
            Some(table) => table.get(verdict).clone(),
            None => Route::default_for(verdict),
        };
        let action = route.route;
        let generation = self.generation_of(self.runs[r].scope);
        let revision = generation - 1;
        let max = self.max_revisions(r);
        if outcome == GateOutcome::Rejected && max > 0 && revision >= max {
            self.end_loop(
                "exhausted",
                Some("gate_max_revisions_exhausted"),
                generation,
                Some(r),
                format!(
                    "the gate's verdict is `fail` at revision {revision}, and max_revisions is {max}"
                ),
            );
            self.terminate(r, NodeStatus::Failed);
            return self.stop();
        }
        match action {
            RouteAction::Halt | RouteAction::Escalate => {
                let status = route.terminal_status.unwrap_or_else(|| {
                    if action == RouteAction::Halt {
                        "failed".into()
                    } else {
                        "needs-approval".into()
                    }
                });
                let action = action.as_str();
                let reason = route
                    .reason_code
                    .unwrap_or_else(|| format!("gate_{action}"));
                let verdict = verdict.as_str();
                let note = if action == "escalate" {
                    " (agc does not park the run for an operator's decision)"
                } else {
                    ""
                };
                self.end_loop(
                    &status,
                    Some(&reason),
                    generation,
                    Some(r),
                    format!("the gate's verdict `{verdict}` routes to `{action}`{note}"),
                );
                self.terminate(r, NodeStatus::Succeeded);
                self.stop();
            }
            RouteAction::Revise => self.terminate(r, NodeStatus::Failed),
            _ => self.terminate(r, NodeStatus::Succeeded),
        }
    }

    /// Gate run `r`'s revision limit, decided at lowering (`routes.max_revisions`: its own,
    /// else upstream's default, none in a watch Loop, at most the ceiling); 0 is no limit.
    fn max_revisions(&self, r: RunId) -> u64 {
        self.plan.nodes[self.runs[r].node]
            .routes
            .as_ref()
            .map_or(0, |t| t.max_revisions)
    }

    /// An agh fan-out's branches: the collection split into chunks of `batch_size`.
    pub(super) fn fan_out_branches(&self, r: RunId, items: Vec<Value>) -> Vec<Value> {
        if !self.is_agh() {
            return items;
        }
        let size = self.plan.nodes[self.runs[r].node]
            .body
            .as_ref()
            .and_then(|b| b.batch_size)
            .unwrap_or(1);
        batches(items, size)
    }

    /// An agh fan-out has `n` branches, over `max_fan_out`: the Loop ends `exhausted`.
    /// Returns false outside agh (the map's own over-limit rule applies).
    pub(super) fn fan_out_over(&mut self, r: RunId, n: usize, max: u32) -> bool {
        if !self.is_agh() {
            return false;
        }
        let generation = self.generation_of(self.runs[r].scope);
        self.end_loop(
            "exhausted",
            Some("fan_out_width_exceeded"),
            generation,
            Some(r),
            format!("the fan-out has {n} branches, over max_fan_out ({max})"),
        );
        self.terminate(r, NodeStatus::Failed);
        self.stop();
        true
    }
}

/// `items` in chunks of `size` (the last may be short): each chunk an array, except that
/// a size of 0 or 1 keeps the items as they are (upstream: `item` is then the element).
pub(super) fn batches(items: Vec<Value>, size: u64) -> Vec<Value> {
    if size <= 1 {
        return items;
    }
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    let mut out = Vec::with_capacity(items.len().div_ceil(size));
    let mut it = items.into_iter().peekable();
    while it.peek().is_some() {
        out.push(Value::Array(it.by_ref().take(size).collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::batches;
    use serde_json::json;

    #[test]
    fn batches_split_into_chunks_with_a_short_last_one() {
        let items = vec![json!("a"), json!("b"), json!("c"), json!("d"), json!("e")];
        assert_eq!(
            batches(items.clone(), 2),
            vec![json!(["a", "b"]), json!(["c", "d"]), json!(["e"])]
        );
        assert_eq!(batches(items.clone(), 1), items);
        assert_eq!(batches(items.clone(), 0), items);
        assert_eq!(batches(vec![json!(1)], 3), vec![json!([1])]);
        assert!(batches(Vec::new(), 2).is_empty());
    }
}
