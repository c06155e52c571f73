//! Compensation bookkeeping ([`Compensation`]): which node undoes which, and the undoing in
//! progress. The data of `compensate.rs`, whose `impl State` runs the compensations. Kept
//! apart so that the state's definition needs no file that implements the state (issue 44:
//! arrows only down).

use crate::plan::Plan;
use std::collections::HashMap;
use std::sync::Arc;

/// Which plan node compensates which.
#[derive(Debug)]
pub(super) struct Targets {
    /// Per plan node, the node that compensates it.
    pub(super) of: Vec<Option<usize>>,
    /// Per plan node, whether some node names it as its compensation.
    pub(super) is_target: Vec<bool>,
}

/// Compensation bookkeeping.
#[derive(Clone, Debug, Default)]
pub(crate) struct Compensation {
    /// `None` when no node of the plan has a compensation (nothing is tracked then).
    pub(super) targets: Option<Arc<Targets>>,
    /// Succeeded runs that have a compensation, in completion order.
    pub(super) completed: Vec<usize>,
    /// While compensating: the runs still to compensate, the next one last.
    pub(super) queue: Vec<usize>,
    /// The run is compensating (its status is `running` until the last one ends).
    pub(crate) active: bool,
    /// The compensation run in progress.
    pub(super) current: Option<usize>,
    /// Compensation run → (its position among compensations, the run it compensates).
    pub(super) runs: HashMap<usize, (u64, usize)>,
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

    /// Position and compensated run of compensation run `r`.
    pub(crate) fn of_run(&self, r: usize) -> Option<(u64, usize)> {
        if self.runs.is_empty() {
            return None;
        }
        self.runs.get(&r).copied()
    }
}
