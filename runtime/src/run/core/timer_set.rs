//! The timers a run holds ([`Timers`]) and what drivers see of them ([`Timer`]): the data of
//! `timers.rs`, whose `impl State` arms, fires and cancels them. Kept apart so that the
//! state's definition (`mod.rs`) needs no file that implements the state (issue 44: arrows
//! only down).

use super::run_id::RunId;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The longest delay the core arms (a year), so `fire_at` never overflows.
pub(super) const MAX_DELAY_MS: u64 = 365 * 24 * 3600 * 1000;

/// What a timer is for (drivers may show it; only the core acts on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimerKind {
    /// The pause before a retry.
    Backoff,
    /// A timed `wait` node.
    Wait,
    /// How long a human may take to answer (a gate's or a checkpoint's `timeout_seconds`).
    HumanTimeout,
}

/// A timer the driver must fire ([`crate::run::Event::TimerFired`]) once `fire_at` (RFC 3339)
/// has come.
#[derive(Clone, Debug, PartialEq)]
pub struct Timer {
    pub id: u64,
    /// The scope path of the node run that owns it.
    pub path: String,
    pub fire_at: String,
    pub kind: TimerKind,
}

pub use crate::plan::OnTimeout;

/// The human interaction a timeout bounds: the stage (`gate`, or a checkpoint's `at`) and
/// its mode, as the record's human event names them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct HumanWait {
    pub(crate) stage: String,
    pub(crate) mode: String,
}

#[derive(Clone, Debug)]
pub(super) enum Purpose {
    Backoff,
    Wait,
    Human {
        wait: HumanWait,
        seconds: f64,
        on_timeout: OnTimeout,
    },
}

impl Purpose {
    pub(super) fn kind(&self) -> TimerKind {
        match self {
            Purpose::Backoff => TimerKind::Backoff,
            Purpose::Wait => TimerKind::Wait,
            Purpose::Human { .. } => TimerKind::HumanTimeout,
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Pending {
    pub(super) run: RunId,
    pub(super) fire_at: String,
    pub(super) purpose: Purpose,
}

/// The timers a run holds: it owns their ids, what each is for and which run holds it
/// (`timers.rs` asks it to arm, take and list them, and never reaches into it).
#[derive(Clone, Debug, Default)]
pub(crate) struct Timers {
    next_id: u64,
    pending: BTreeMap<u64, Pending>,
    by_run: HashMap<RunId, u64>,
    /// Pending backoff and wait timers: while there is one, the run is not paused.
    busy: usize,
    /// Retries whose backoff is over, waiting for a slot, by (plan node, run).
    due_retries: BTreeSet<(usize, RunId)>,
}

impl Timers {
    /// Holds a new timer for `run` (which holds no other), firing at `fire_at`; its id.
    pub(super) fn arm(&mut self, run: RunId, fire_at: String, purpose: Purpose) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        if !matches!(purpose, Purpose::Human { .. }) {
            self.busy += 1;
        }
        let p = Pending {
            run,
            fire_at,
            purpose,
        };
        self.pending.insert(id, p);
        self.by_run.insert(run, id);
        id
    }

    /// Lets timer `id` go (fired or cancelled): what it was, if it was held.
    pub(super) fn take(&mut self, id: u64) -> Option<Pending> {
        let p = self.pending.remove(&id)?;
        self.by_run.remove(&p.run);
        if !matches!(p.purpose, Purpose::Human { .. }) {
            self.busy -= 1;
        }
        Some(p)
    }

    /// Timer `id`, if it is held.
    pub(super) fn get(&self, id: u64) -> Option<&Pending> {
        self.pending.get(&id)
    }

    /// The timer run `r` holds, if any.
    pub(super) fn of_run(&self, r: RunId) -> Option<u64> {
        self.by_run.get(&r).copied()
    }

    /// Every held timer, in id order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u64, &Pending)> {
        self.pending.iter().map(|(&id, p)| (id, p))
    }

    /// Run `r` of plan node `node` may retry now (its backoff is over): it waits for a slot.
    pub(super) fn push_due(&mut self, node: usize, r: RunId) {
        self.due_retries.insert((node, r));
    }

    /// The next retry whose backoff is over, in plan order.
    pub(super) fn pop_due(&mut self) -> Option<RunId> {
        self.due_retries.pop_first().map(|(_, r)| r)
    }

    /// Run `r` of plan node `node` no longer retries (it ended or the run stopped).
    pub(super) fn forget_due(&mut self, node: usize, r: RunId) {
        self.due_retries.remove(&(node, r));
    }

    /// No retry waits any more (the run stopped).
    pub(super) fn clear_due(&mut self) {
        self.due_retries.clear();
    }

    /// Something the run waits on besides calls and humans: a backoff, a wait, a due retry.
    #[inline]
    pub(crate) fn hold_run(&self) -> bool {
        self.busy > 0 || !self.due_retries.is_empty()
    }

    /// Some run holds a timer or a due retry (else nothing needs disarming).
    #[inline]
    pub(crate) fn owns_any(&self) -> bool {
        !self.by_run.is_empty() || !self.due_retries.is_empty()
    }

    #[inline]
    pub(crate) fn has_due_retries(&self) -> bool {
        !self.due_retries.is_empty()
    }
}
