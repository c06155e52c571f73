//! The scheduler's part of the state ([`Scheduler`]): which runs are ready, which just ended,
//! which scope instances have nothing to run, and the slots calls take. It owns that data;
//! the state asks it (`mod.rs`'s `pump`, `ladder::send`) and never reaches into it. Kept
//! apart, with no `impl State`, so that the state's definition needs no file that implements
//! the state (issue 44: arrows only down).
//!
//! Order: ready runs start in plan order (the plan node's index), then creation order (the
//! run id), which a `BTreeSet` of `(node, run)` gives for free; containers and structural
//! nodes never wait for a slot and start before calls.

use super::run_id::RunId;
use std::collections::{BTreeSet, VecDeque};

/// Ready runs, ended runs to propagate, empty scope instances, and call slots.
#[derive(Clone, Debug)]
pub(crate) struct Scheduler {
    /// Ready runs that call the handler, by (plan node, run).
    calls: BTreeSet<(usize, RunId)>,
    /// Ready containers and structural nodes (they never wait for a slot), same order.
    free: BTreeSet<(usize, RunId)>,
    /// Runs that just became terminal, to propagate.
    done: VecDeque<RunId>,
    /// Scope instances created with no nodes, to finish.
    empty: VecDeque<usize>,
    /// Calls in flight (slots used).
    running: usize,
    /// Global concurrency (`constraints.max_parallel_nodes`, at least 1).
    max_parallel: usize,
}

impl Scheduler {
    /// An empty scheduler with `max_parallel` slots (at least one).
    pub(crate) fn new(max_parallel: usize) -> Scheduler {
        Scheduler {
            calls: BTreeSet::new(),
            free: BTreeSet::new(),
            done: VecDeque::new(),
            empty: VecDeque::new(),
            running: 0,
            max_parallel: max_parallel.max(1),
        }
    }

    /// The number of slots.
    pub(crate) fn max_parallel(&self) -> usize {
        self.max_parallel
    }

    /// A call may start now.
    #[inline]
    pub(crate) fn slot_free(&self) -> bool {
        self.running < self.max_parallel
    }

    /// A call starts: it takes a slot.
    #[inline]
    pub(crate) fn take_slot(&mut self) {
        self.running += 1;
    }

    /// A call returned or was withdrawn: its slot is free again.
    #[inline]
    pub(crate) fn release_slot(&mut self) {
        self.running = self.running.saturating_sub(1);
    }

    /// Run `r` of plan node `node` is ready; `needs_slot`: it calls the handler.
    #[inline]
    pub(crate) fn push_ready(&mut self, node: usize, r: RunId, needs_slot: bool) {
        if needs_slot {
            self.calls.insert((node, r));
        } else {
            self.free.insert((node, r));
        }
    }

    /// Run `r` is no longer ready (it ended while it waited).
    pub(crate) fn unready(&mut self, node: usize, r: RunId) {
        // A parked call waits among the calls whatever its node's kind.
        self.calls.remove(&(node, r));
        self.free.remove(&(node, r));
    }

    /// The next ready run that may start now: containers and structural nodes always, calls
    /// while a slot is free.
    pub(crate) fn next_ready(&mut self) -> Option<RunId> {
        if let Some((_, r)) = self.free.pop_first() {
            return Some(r);
        }
        if self.slot_free() {
            return self.calls.pop_first().map(|(_, r)| r);
        }
        None
    }

    /// Run `r` ended: its edges are to be followed.
    #[inline]
    pub(crate) fn push_done(&mut self, r: RunId) {
        self.done.push_back(r);
    }

    /// The next ended run to propagate.
    #[inline]
    pub(crate) fn pop_done(&mut self) -> Option<RunId> {
        self.done.pop_front()
    }

    /// Scope instance `s` has no nodes: it is to be finished (from `pump`, never where it
    /// is made: no recursion through nested starts).
    pub(crate) fn push_empty(&mut self, s: usize) {
        self.empty.push_back(s);
    }

    /// The next empty scope instance to finish.
    #[inline]
    pub(crate) fn pop_empty(&mut self) -> Option<usize> {
        self.empty.pop_front()
    }

    /// No call in flight and nothing ready: the run ends or pauses unless a timer holds it.
    pub(crate) fn idle(&self) -> bool {
        self.running == 0 && self.calls.is_empty() && self.free.is_empty()
    }

    /// The run stopped: nothing is ready, ended or running any more.
    pub(crate) fn clear(&mut self) {
        *self = Scheduler::new(self.max_parallel);
    }
}
