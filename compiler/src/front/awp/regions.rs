//! Parallel regions for the lowering: which parallel directly holds each node, the order the
//! regions are made in (parents first), and the nesting limit.
//!
//! **Nesting limit (AGC087).** A node's scoped id is the ids of the parallels around it, then
//! its own (`outer/inner/node`), so the IR and the plan grow with the square of the nesting:
//! 8,000 parallels each nested in the last (a 1 MB document) took 28 s and 1.2 GB to check.
//! AWP sets no limit of its own (the engine walks nested parallels recursively); agc lowers at
//! most [`MAX_PARALLEL_NESTING`] levels and reports each parallel that would open the next
//! one, at the parallel, without lowering further (an agc decision, in `agc explain AGC087`).

use super::model::Model;
use crate::diag::Diagnostic;
use crate::ir::RegionId;
use crate::source::Document;
use std::collections::HashMap;

/// Levels of parallels agc lowers (the same bound as AGS bodies, AGC082).
pub const MAX_PARALLEL_NESTING: usize = 64;

/// Parallel regions: each parallel's direct members (the nodes of its branches, nested
/// parallels' branches excluded), in creation order (parents first).
pub(super) struct Regions {
    /// Parallel nodes (model indices) in creation order.
    pub(super) order: Vec<usize>,
    /// Direct members of each parallel's region.
    pub(super) members: HashMap<usize, Vec<usize>>,
    /// The parallel whose region directly holds each model node ([`NONE`] for none): a
    /// vector by node, where a hash map was 30 bytes a node at a wide workflow's peak.
    region_of: Vec<u32>,
    /// The join target of each parallel.
    pub(super) join: HashMap<usize, usize>,
    /// The region of each parallel (creation order), then of each subworkflow.
    pub(super) rid: HashMap<usize, RegionId>,
    /// Subworkflow nodes (model indices), whose regions follow the parallel ones.
    pub(super) subs: Vec<usize>,
    /// Parallels past [`MAX_PARALLEL_NESTING`], the first on each path (model order).
    pub(super) too_deep: Vec<usize>,
}

impl Regions {
    pub(super) fn new(m: &Model<'_>) -> Regions {
        let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut region_of = vec![NONE; m.nodes.len()];
        let mut join = HashMap::new();
        let parallels: Vec<usize> = (0..m.nodes.len())
            .filter(|&i| m.nodes[i].ty == "parallel")
            .collect();
        for &p in &parallels {
            let Some(j) = m.join_target(p) else {
                continue;
            };
            join.insert(p, j);
            let mut own = Vec::new();
            let entries: Vec<usize> = m
                .branches(p)
                .iter()
                .filter_map(|b| m.node(b.entry))
                .collect();
            for n in super::graph::walk_branches(m, &entries, j).nodes {
                if n != p && region_of[n] == NONE {
                    region_of[n] = p as u32;
                    own.push(n);
                }
            }
            own.sort_unstable();
            members.insert(p, own);
        }
        let depth = depths(&parallels, &region_of);
        let mut order: Vec<usize> = join.keys().copied().collect();
        order.sort_unstable_by_key(|&p| (depth[&p], p));
        let too_deep = parallels
            .iter()
            .copied()
            .filter(|p| depth[p] == MAX_PARALLEL_NESTING)
            .collect();
        let subs: Vec<usize> = (0..m.nodes.len())
            .filter(|&i| m.nodes[i].ty == "subworkflow")
            .collect();
        let rid = order
            .iter()
            .chain(&subs)
            .enumerate()
            .map(|(k, &n)| (n, RegionId(k as u32)))
            .collect();
        Regions {
            order,
            members,
            region_of,
            join,
            rid,
            subs,
            too_deep,
        }
    }

    /// The region directly holding model node `n`.
    pub(super) fn of(&self, n: usize) -> Option<RegionId> {
        parent(&self.region_of, n).and_then(|p| self.rid.get(&p).copied())
    }

    /// The scoped id of a model node: the ids of the parallels around it, then its own.
    pub(super) fn scoped(&self, m: &Model<'_>, n: usize) -> String {
        let mut parts = vec![m.nodes[n].id];
        let mut cur = n;
        while let Some(p) = parent(&self.region_of, cur) {
            parts.push(m.nodes[p].id);
            cur = p;
            if parts.len() > m.nodes.len() {
                break;
            }
        }
        parts.reverse();
        parts.join("/")
    }

    /// AGC087 for each parallel that would open a level past the limit.
    pub(super) fn nesting_diags(&self, m: &Model<'_>, doc: &Document) -> Vec<Diagnostic> {
        self.too_deep
            .iter()
            .map(|&p| {
                let ptr = m.nodes[p].ptr();
                Diagnostic::error(
                    "AGC087",
                    format!(
                        "parallel `{}` is nested {} levels deep; agc lowers at most \
                         {MAX_PARALLEL_NESTING} levels of parallels",
                        m.nodes[p].id,
                        MAX_PARALLEL_NESTING + 1
                    ),
                )
                .at(doc.key_span(&format!("{ptr}/type")))
                .with_pointer(&ptr)
                .with_help(
                    "each level repeats the ids of the parallels around it in its nodes' ids; \
                     run the inner branches one after another, or move them into a \
                     subworkflow",
                )
            })
            .collect()
    }
}

/// No parallel: [`Regions::region_of`] of a node at the top level or outside any region.
const NONE: u32 = u32::MAX;

/// The parallel directly holding model node `n`, if any.
fn parent(region_of: &[u32], n: usize) -> Option<usize> {
    region_of
        .get(n)
        .copied()
        .filter(|&p| p != NONE)
        .map(|p| p as usize)
}

/// How many parallels enclose each parallel (0 at the top level), each found once from its
/// parent's: a chain of thousands of nested parallels costs its length, not its square.
fn depths(parallels: &[usize], region_of: &[u32]) -> HashMap<usize, usize> {
    let mut depth: HashMap<usize, usize> = HashMap::with_capacity(parallels.len());
    let mut path = Vec::new();
    for &p in parallels {
        path.clear();
        let mut cur = p;
        let mut known = None;
        loop {
            if let Some(&d) = depth.get(&cur) {
                known = Some(d);
                break;
            }
            // A checked document's regions form a forest; the bound only stops a cycle.
            if path.len() > parallels.len() {
                break;
            }
            path.push(cur);
            match parent(region_of, cur) {
                Some(q) => cur = q,
                None => break,
            }
        }
        let top = known.map_or(0, |d| d + 1);
        for (d, &n) in (top..).zip(path.iter().rev()) {
            depth.insert(n, d);
        }
    }
    depth
}

#[cfg(test)]
mod tests {
    use super::{NONE, depths};

    #[test]
    fn depths_count_the_enclosing_parallels_once_each() {
        // 5 in 3 in 1; 7 at the top; 9 in 1. Asked innermost first, so each climb meets the
        // depths the last one left.
        let region_of = of(10, &[(5, 3), (3, 1), (9, 1), (2, 5)]);
        let d = depths(&[5, 9, 3, 1, 7], &region_of);
        assert_eq!(
            [d[&1], d[&3], d[&5], d[&7], d[&9]],
            [0, 1, 2, 0, 1],
            "{d:?}"
        );
        // A cycle (never in a checked document) ends the climb instead of looping.
        let cyclic = of(3, &[(1, 2), (2, 1)]);
        assert_eq!(depths(&[1, 2], &cyclic).len(), 2);
    }

    /// `region_of` for `nodes` nodes with the (node, parallel) pairs given.
    fn of(nodes: usize, pairs: &[(usize, u32)]) -> Vec<u32> {
        let mut v = vec![NONE; nodes];
        for &(n, p) in pairs {
            v[n] = p;
        }
        v
    }
}
