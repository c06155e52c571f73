//! Compensation bookkeeping ([`Compensation`]): which node undoes which, and the undoing in
//! progress. The data of `compensate.rs`, whose `impl State` runs the compensations. Kept
//! apart so that the state's definition needs no file that implements the state (issue 44:
//! arrows only down).

use super::run_id::RunId;
use crate::plan::Plan;
use std::collections::HashMap;
use std::sync::Arc;

/// Which plan node compensates which.
#[derive(Debug)]
struct Targets {
    /// Per plan node, the node that compensates it.
    of: Vec<Option<usize>>,
    /// Per plan node, whether some node names it as its compensation.
    is_target: Vec<bool>,
}

/// Compensation bookkeeping: it owns which node undoes which, what succeeded that has an
/// undo, and the undoing in progress (`compensate.rs` asks it, and never reaches into it).
#[derive(Clone, Debug, Default)]
pub(crate) struct Compensation {
    /// `None` when no node of the plan has a compensation (nothing is tracked then).
    targets: Option<Arc<Targets>>,
    /// Succeeded runs that have a compensation, with its node, in completion order.
    completed: Vec<(RunId, usize)>,
    /// While compensating: the runs still to compensate, the next one last.
    queue: Vec<(RunId, usize)>,
    /// The run is compensating (its status is `running` until the last one ends).
    active: bool,
    /// The compensation run in progress.
    current: Option<RunId>,
    /// Compensation run → (its position among compensations, the run it compensates).
    runs: HashMap<RunId, (u64, RunId)>,
}

impl Compensation {
    /// The compensation targets of `plan` (`failure.compensation`, a node of the same scope).
    pub(crate) fn for_plan(plan: &Plan) -> Compensation {
        let named: Vec<Option<&str>> = plan
            .nodes
            .iter()
            .map(|n| n.failure.as_ref().and_then(|f| f.compensation.as_deref()))
            .collect();
        if named.iter().all(Option::is_none) {
            return Compensation::default();
        }
        let by_scope: HashMap<(Option<&str>, &str), usize> = plan
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| ((n.region.as_deref(), n.local_id.as_str()), i))
            .collect();
        let mut is_target = vec![false; plan.nodes.len()];
        let of = named
            .iter()
            .zip(&plan.nodes)
            .map(|(c, n)| {
                let t = by_scope.get(&(n.region.as_deref(), (*c)?)).copied()?;
                is_target[t] = true;
                Some(t)
            })
            .collect();
        Compensation {
            targets: Some(Arc::new(Targets { of, is_target })),
            ..Compensation::default()
        }
    }

    /// Whether any node of the plan has a compensation (successes are tracked only then).
    #[inline]
    pub(crate) fn tracks(&self) -> bool {
        self.targets.is_some()
    }

    /// Whether plan node `node` is some node's compensation (it runs only to compensate).
    pub(crate) fn is_target(&self, node: usize) -> bool {
        self.targets.as_ref().is_some_and(|t| t.is_target[node])
    }

    /// The run is compensating.
    #[inline]
    pub(crate) fn active(&self) -> bool {
        self.active
    }

    /// Run `r` of plan node `node` succeeded, not degraded: remembered when the node has a
    /// compensation (and `r` is not a compensation itself).
    pub(crate) fn succeeded(&mut self, r: RunId, node: usize) {
        let Some(t) = &self.targets else {
            return;
        };
        if let Some(undo) = t.of[node]
            && self.of_run(r).is_none()
        {
            self.completed.push((r, undo));
        }
    }

    /// The run failed: starts compensating what succeeded, latest first. False when
    /// nothing needs it (or it is compensating already).
    pub(crate) fn begin(&mut self) -> bool {
        if self.active || self.completed.is_empty() {
            return false;
        }
        self.queue = std::mem::take(&mut self.completed);
        self.active = true;
        true
    }

    /// The next run to compensate and the node that compensates it.
    pub(crate) fn next(&mut self) -> Option<(RunId, usize)> {
        self.queue.pop()
    }

    /// Compensation run `r` undoes run `c` now.
    pub(crate) fn started(&mut self, r: RunId, c: RunId) {
        let order = self.runs.len() as u64;
        self.runs.insert(r, (order, c));
        self.current = Some(r);
    }

    /// Nothing is left to compensate.
    pub(crate) fn end(&mut self) {
        self.current = None;
        self.active = false;
    }

    /// The compensation run in progress.
    pub(crate) fn current(&self) -> Option<RunId> {
        self.current
    }

    /// Position and compensated run of compensation run `r`.
    pub(crate) fn of_run(&self, r: RunId) -> Option<(u64, RunId)> {
        if self.runs.is_empty() {
            return None;
        }
        self.runs.get(&r).copied()
    }
}
