//! Finding a mapping entry's position without storing its key twice.
//!
//! A mapping's span nodes sit in the same order as the entries of its `serde_json::Map`
//! (`preserve_order`), but that map has no "position of key" API. Small mappings (most of them)
//! are scanned; a mapping with more than [`LINEAR_MAX`] entries gets a hash table of
//! `(key hash, position)` pairs, built once when it is loaded. Keys themselves stay only in the
//! value map.
//!
//! The table is a hash table, not a sorted array: the `nodes` mapping of a 100k-node graph is
//! looked up for every reference, and a binary search over 100k pairs (17 dependent cache
//! misses) was the part of the checks that grew fastest with the graph's size (`perf`, 10k
//! against 100k nodes: 24x the samples for 10x the nodes; bench/README.md).

use hashbrown::HashTable;
use serde_json::{Map, Value};
use std::hash::BuildHasher;

/// Mappings with at most this many entries are scanned linearly; larger ones are indexed.
pub const LINEAR_MAX: usize = 12;

/// Position stored for a hash that two keys of the mapping share: look the key up by scanning.
const SHARED: u32 = u32::MAX;

/// One large mapping's `(key hash, entry position)` pairs, one per distinct hash.
type Table = HashTable<(u64, u32)>;

/// The key tables of a document's large mappings.
///
/// Invariants: `tables` is sorted by its first field (the arena position of the mapping's first
/// span node, unique per non-empty mapping; aliased copies share their anchor's table); each
/// table holds every key's hash (from `hasher`) once, with the key's entry position, or
/// [`SHARED`] when several keys have that hash.
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
        let hashes: Vec<u64> = keys.map(|k| self.hash(k)).collect();
        self.add_hashes(first, &hashes);
    }

    /// [`KeyIndex::add`] with the keys' hashes already computed (tests force collisions here).
    fn add_hashes(&mut self, first: u32, hashes: &[u64]) {
        debug_assert!(self.tables.last().is_none_or(|(f, _)| *f < first));
        let mut table = Table::with_capacity(hashes.len());
        for (i, &h) in hashes.iter().enumerate() {
            match table.find_mut(h, |&(x, _)| x == h) {
                Some(slot) => slot.1 = SHARED,
                None => {
                    table.insert_unique(h, (h, i as u32), |&(x, _)| x);
                }
            }
        }
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
        let h = self.hash(token);
        match self.tables[t].1.find(h, |&(x, _)| x == h) {
            // No key has the token's hash: the token is no key.
            None => None,
            // Two keys share a 64-bit hash: vanishingly rare, so scanning is fine.
            Some(&(_, SHARED)) => scan(),
            // One key has this hash: it is the token's entry if the token is a key at all.
            Some(&(_, i)) => map.get(token).map(|v| (i as usize, v)),
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
        ix.add_hashes(0, &[h; 100]);
        assert_eq!(ix.entry(&large, 0, "k5").map(|e| e.0), Some(5));
        // (A token whose own hash is not in the table is no key: with these forced hashes,
        // that is every other key.)
        assert_eq!(ix.entry(&large, 0, "k77"), None);
        // k3 (position 3) is given k9's hash: looking k9 up meets a shared hash and scans,
        // finding position 9, not the first position stored under that hash.
        let mut ix = KeyIndex::default();
        let mut hashes: Vec<u64> = large.keys().map(|k| ix.hash(k)).collect();
        hashes[3] = hashes[9];
        ix.add_hashes(0, &hashes);
        assert_eq!(ix.entry(&large, 0, "k9").map(|e| e.0), Some(9));
        assert_eq!(ix.entry(&large, 0, "k50").map(|e| e.0), Some(50));
        // One key with a hash the token shares but a different name: no false hit.
        let mut ix = KeyIndex::default();
        let mut hashes: Vec<u64> = large.keys().map(|k| ix.hash(k)).collect();
        hashes[0] = ix.hash("absent");
        ix.add_hashes(0, &hashes);
        assert_eq!(ix.entry(&large, 0, "absent"), None);
        assert_eq!(ix.entry(&large, 0, "k1").map(|e| e.0), Some(1));
    }
}
