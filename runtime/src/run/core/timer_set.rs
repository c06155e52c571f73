//! The timers a run holds ([`Timers`]) and what drivers see of them ([`Timer`]): the data of
//! `timers.rs`, whose `impl State` arms, fires and cancels them. Kept apart so that the
//! state's definition (`mod.rs`) needs no file that implements the state (issue 44: arrows
//! only down).

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
    pub(super) run: usize,
    pub(super) fire_at: String,
    pub(super) purpose: Purpose,
}

/// The timers a run holds.
#[derive(Clone, Debug, Default)]
pub(crate) struct Timers {
    pub(super) next_id: u64,
    pub(super) pending: BTreeMap<u64, Pending>,
    pub(super) by_run: HashMap<usize, u64>,
    /// Pending backoff and wait timers: while there is one, the run is not paused.
    pub(super) busy: usize,
    /// Retries whose backoff is over, waiting for a slot, by (plan node, run).
    pub(super) due_retries: BTreeSet<(usize, usize)>,
}

impl Timers {
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
