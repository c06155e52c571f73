//! The node runs of a run ([`Runs`]), by their typed id (`run_id`): every node run of
//! every scope instance, in creation order, found by id or by scope path. The data of the
//! state's node runs; it implements nothing on the state (issue 44: arrows only down).
//!
//! A run's id is its position in creation order, which is what orders ready runs of one
//! node (`scheduler`) and what a replay rebuilds identically. Ids are never reused: a run
//! stays in the list once it ended (the record lists them all).

use super::run_id::RunId;
use super::types::Run;
use crate::hash::HashMap;
use std::ops::{Index, IndexMut};

/// Every node run, by id and by scope path.
#[derive(Clone, Debug, Default)]
pub(crate) struct Runs {
    list: Vec<Run>,
    by_path: HashMap<String, RunId>,
}

impl Runs {
    /// The id the next run added gets.
    #[inline]
    pub(crate) fn next_id(&self) -> RunId {
        RunId::at(self.list.len())
    }

    /// Room for `n` more runs (a scope instance's runs are made at once: grown once, not
    /// doubled and copied run by run).
    pub(crate) fn reserve(&mut self, n: usize) {
        self.list.reserve(n);
        self.by_path.reserve(n);
    }

    /// Adds `run`, found later by its path; returns its id.
    pub(crate) fn add(&mut self, run: Run) -> RunId {
        let r = self.next_id();
        self.by_path.insert(run.path.clone(), r);
        self.list.push(run);
        r
    }

    /// The run at scope path `path`.
    #[inline]
    pub(crate) fn find(&self, path: &str) -> Option<RunId> {
        self.by_path.get(path).copied()
    }

    /// The number of runs.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// Every run id, in creation order.
    pub(crate) fn ids(&self) -> impl Iterator<Item = RunId> + use<> {
        (0..self.list.len()).map(RunId::at)
    }

    /// Every run, in creation order.
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, Run> {
        self.list.iter()
    }

    /// Every run, in creation order, mutably.
    pub(crate) fn iter_mut(&mut self) -> std::slice::IterMut<'_, Run> {
        self.list.iter_mut()
    }
}

impl Index<RunId> for Runs {
    type Output = Run;

    #[inline]
    fn index(&self, r: RunId) -> &Run {
        &self.list[r.index()]
    }
}

impl IndexMut<RunId> for Runs {
    #[inline]
    fn index_mut(&mut self, r: RunId) -> &mut Run {
        &mut self.list[r.index()]
    }
}
