//! [`Grouped`]: items grouped by node in one array (compressed sparse rows), for adjacency
//! lists of large graphs: one allocation for all nodes, where a vector per node costs 24 bytes
//! and an allocation each.

use std::ops::Range;

/// Items grouped by node: node `n`'s are `items[start[n]..start[n + 1]]`, in the order given.
#[derive(Clone, Debug, Default)]
pub struct Grouped<T> {
    start: Vec<usize>,
    items: Vec<T>,
}

impl<T: Copy + Default> Grouped<T> {
    /// Groups `(node, item)` pairs for nodes `0..nodes` (a stable counting sort: each node's
    /// items keep their order in `pairs`). A pair whose node is out of range is dropped.
    pub fn new(nodes: usize, pairs: &[(usize, T)]) -> Grouped<T> {
        let mut start = vec![0usize; nodes + 1];
        for &(n, _) in pairs.iter().filter(|p| p.0 < nodes) {
            start[n + 1] += 1;
        }
        for n in 0..nodes {
            start[n + 1] += start[n];
        }
        let mut next = start.clone();
        // Every slot is written once: the counts above are the pairs placed here.
        let mut items = vec![T::default(); start[nodes]];
        for &(n, item) in pairs.iter().filter(|p| p.0 < nodes) {
            items[next[n]] = item;
            next[n] += 1;
        }
        Grouped { start, items }
    }

    /// Node `n`'s items.
    pub fn of(&self, n: usize) -> &[T] {
        &self.items[self.range(n)]
    }

    /// Where node `n`'s items lie in [`Grouped::items`].
    pub fn range(&self, n: usize) -> Range<usize> {
        self.start[n]..self.start[n + 1]
    }

    /// All items, node by node.
    pub fn items(&self) -> &[T] {
        &self.items
    }
}

#[cfg(test)]
mod tests {
    use super::Grouped;

    #[test]
    fn items_are_grouped_by_node_in_their_order() {
        let g = Grouped::new(4, &[(2, 'a'), (0, 'b'), (2, 'c'), (9, 'x'), (0, 'd')]);
        assert_eq!(g.of(0), ['b', 'd']);
        assert_eq!(g.of(1), [] as [char; 0]);
        assert_eq!(g.of(2), ['a', 'c']);
        assert_eq!(g.of(3), [] as [char; 0]);
        assert_eq!(g.range(2), 2..4);
        assert_eq!(g.items(), ['b', 'd', 'a', 'c']);
    }
}
