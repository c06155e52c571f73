//! A node run's typed id ([`RunId`]): a leaf every part of the state names runs by (the
//! runs themselves are in `runs`), so that no part reaches a run by a bare index.

/// A node run's id: its position among the run's node runs, in creation order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct RunId(usize);

impl RunId {
    /// The run at position `i` in creation order.
    #[inline]
    pub(crate) fn at(i: usize) -> RunId {
        RunId(i)
    }

    /// The run `i` places after this one (a scope instance's runs are contiguous).
    #[inline]
    pub(crate) fn plus(self, i: usize) -> RunId {
        RunId(self.0 + i)
    }

    /// The `n` runs from this one on, in order (a scope instance's runs).
    #[inline]
    pub(crate) fn span(self, n: usize) -> impl DoubleEndedIterator<Item = RunId> + Clone + use<> {
        (self.0..self.0 + n).map(RunId)
    }

    /// The id as a position, for tables indexed by run.
    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0
    }
}
