//! Finding a mapping entry's position without storing its key twice.
//!
//! A mapping's span nodes sit in the same order as the entries of its `serde_json::Map`
//! (`preserve_order`), but that map has no "position of key" API. Small mappings (most of them)
//! are scanned; a mapping with more than [`LINEAR_MAX`] entries gets a sorted table of
//! `(key hash, position)` pairs, built once when it is loaded. Keys themselves stay only in the
//! value map.

use serde_json::{Map, Value};
use std::hash::BuildHasher;

/// Mappings with at most this many entries are scanned linearly; larger ones are indexed.
pub const LINEAR_MAX: usize = 12;

/// One large mapping's `(key hash, entry position)` pairs, sorted.
type Table = Box<[(u64, u32)]>;

/// The key tables of a document's large mappings.
///
/// Invariants: `tables` is sorted by its first field (the arena position of the mapping's first
/// span node, unique per non-empty mapping; aliased copies share their anchor's table); each
/// table is sorted and holds one `(hash, position)` per entry, hashes from `hasher`.
#[derive(Clone, Debug, Default)]
pub struct KeyIndex {
    /// Seeded per process, so nobody can pick keys that collide on purpose.
    hasher: foldhash::fast::RandomState,
    tables: Vec<(u32, Table)>,
}

impl KeyIndex {
    /// The hash the tables use for `key`.
    pub fn hash(&self, key: &str) -> u64 {
        self.hasher.hash_one(key)
    }

    /// Adds the table of the mapping whose first span node is at arena position `first`, with
    /// its keys in entry order. Mappings must be added in increasing `first` order.
    pub fn add<'k>(&mut self, first: u32, keys: impl ExactSizeIterator<Item = &'k str>) {
        debug_assert!(self.tables.last().is_none_or(|(f, _)| *f < first));
        let mut table: Table = keys
            .enumerate()
            .map(|(i, k)| (self.hash(k), i as u32))
            .collect();
        table.sort_unstable();
        self.tables.push((first, table));
    }

    /// The position and value of `token`'s entry in `map`, whose span node's children start at
    /// arena position `first`.
    pub fn entry<'v>(
        &self,
        map: &'v Map<String, Value>,
        first: u32,
        token: &str,
    ) -> Option<(usize, &'v Value)> {
        let scan = || {
            map.iter()
                .enumerate()
                .find_map(|(i, (k, v))| (k == token).then_some((i, v)))
        };
        if map.len() <= LINEAR_MAX {
            return scan();
        }
        let Ok(t) = self.tables.binary_search_by_key(&first, |(f, _)| *f) else {
            return scan();
        };
        let table = &self.tables[t].1;
        let h = self.hash(token);
        let lo = table.partition_point(|&(x, _)| x < h);
        let mut same = table[lo..].iter().take_while(|&&(x, _)| x == h);
        match (same.next(), same.next()) {
            (None, _) => None,
            // One key has this hash: it is the token's entry if the token is a key at all.
            (Some(&(_, i)), None) => map.get(token).map(|v| (i as usize, v)),
            // Two keys share a 64-bit hash: vanishingly rare, so scanning is fine.
            (Some(_), Some(_)) => scan(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(n: usize) -> Map<String, Value> {
        (0..n).map(|i| (format!("k{i}"), Value::from(i))).collect()
    }

    #[test]
    fn small_maps_are_scanned_and_large_ones_indexed() {
        let mut ix = KeyIndex::default();
        let small = map(LINEAR_MAX);
        let large = map(1000);
        ix.add(7, large.keys().map(String::as_str));
        assert_eq!(ix.entry(&small, 0, "k3").map(|e| e.0), Some(3));
        assert_eq!(ix.entry(&small, 0, "nope"), None);
        for i in [0, 1, 500, 999] {
            let (pos, v) = ix.entry(&large, 7, &format!("k{i}")).unwrap();
            assert_eq!((pos, v), (i, &Value::from(i)));
        }
        assert_eq!(ix.entry(&large, 7, "k1000"), None);
        // A large map without a table (not expected) still resolves, by scanning.
        assert_eq!(ix.entry(&large, 8, "k42").map(|e| e.0), Some(42));
    }

    #[test]
    fn colliding_hashes_fall_back_to_a_scan() {
        let large = map(100);
        let mut ix = KeyIndex::default();
        // Every key gets the same hash as "k5": the lookup must not trust the table.
        let h = ix.hash("k5");
        ix.tables
            .push((0, (0..100u32).map(|i| (h, i)).collect::<Vec<_>>().into()));
        assert_eq!(ix.entry(&large, 0, "k5").map(|e| e.0), Some(5));
        assert_eq!(ix.entry(&large, 0, "k77"), None);
        // One key with a hash the token shares but a different name: no false hit.
        let mut ix = KeyIndex::default();
        let h = ix.hash("absent");
        ix.tables.push((
            0,
            (0..100u32)
                .map(|i| (h.wrapping_add(1 + u64::from(i)), i))
                .collect::<Vec<_>>()
                .into(),
        ));
        ix.tables[0].1[0].0 = h;
        ix.tables[0].1.sort_unstable();
        assert_eq!(ix.entry(&large, 0, "absent"), None);
    }
}
