//! [`Table`]: a document's mapping ([`super::Map`]), its entries in document order in one exact slice.
//!
//! Most mappings of a workflow hold a handful of entries, and comparing a few short keys in
//! order costs less than hashing one; a mapping with more than [`LINEAR_MAX`] entries (a
//! 100k-entry `nodes`) gets a hash table of entry positions, keys not stored twice, so its
//! lookups stay `O(1)`. The table is hashed with one per-process seed, so nobody can choose keys
//! that collide on purpose.

use super::Str;
use hashbrown::HashTable;
use std::fmt;
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// Mappings with at most this many entries are scanned; larger ones are indexed.
pub const LINEAR_MAX: usize = 12;

/// The hash of a key in every mapping's table (and in the loader's duplicate-key check).
pub(crate) fn key_hash(key: &str) -> u64 {
    static STATE: OnceLock<foldhash::fast::RandomState> = OnceLock::new();
    STATE.get_or_init(Default::default).hash_one(key)
}

/// A mapping with unique string keys, in insertion order, of values `V` (the document's
/// mapping is `Table<Value>`, [`super::Map`]; generic so that this file does not depend on
/// the value type that contains it).
///
/// Invariant: keys are unique; a mapping is [`Repr::Large`] exactly when it has more than
/// [`LINEAR_MAX`] entries. 16 bytes, so that a document value is 24.
#[derive(Clone)]
pub struct Table<V>(Repr<V>);

#[derive(Clone)]
enum Repr<V> {
    Small(Box<[Entry<V>]>),
    Large(Box<Large<V>>),
}

/// A large mapping's entries and every entry's position, hashed by [`key_hash`].
#[derive(Clone)]
struct Large<V> {
    entries: Box<[Entry<V>]>,
    index: HashTable<u32>,
}

impl<V> Default for Table<V> {
    fn default() -> Table<V> {
        Table(Repr::default())
    }
}

impl<V> Default for Repr<V> {
    fn default() -> Repr<V> {
        Repr::Small(Box::default())
    }
}

type Entry<V> = (Str, V);
type Pair<'a, V> = (&'a Str, &'a V);

fn pair<V>(e: &Entry<V>) -> Pair<'_, V> {
    (&e.0, &e.1)
}

/// Iterator over a mapping's entries, in order.
pub type Iter<'a, V> =
    std::iter::Map<std::slice::Iter<'a, Entry<V>>, fn(&'a Entry<V>) -> Pair<'a, V>>;

impl<V> Table<V> {
    /// An empty mapping (no allocation).
    pub fn new() -> Table<V> {
        Table::default()
    }

    /// A mapping of `entries`; a later entry with a key seen before replaces the earlier one's
    /// value and keeps its position (as `serde_json::Map` does).
    pub fn from_entries(entries: Vec<Entry<V>>) -> Table<V> {
        let mut table = HashTable::<u32>::new();
        let big = entries.len() > LINEAR_MAX;
        let mut out: Vec<Entry<V>> = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            let found = if big {
                table
                    .find(key_hash(&k), |&i| out[i as usize].0 == k)
                    .copied()
                    .map(|i| i as usize)
            } else {
                out.iter().position(|e| e.0 == k)
            };
            match found {
                Some(i) => out[i].1 = v,
                None => {
                    if big {
                        let i = out.len() as u32;
                        let h = key_hash(&k);
                        out.push((k, v));
                        table.insert_unique(h, i, |&j| key_hash(&out[j as usize].0));
                    } else {
                        out.push((k, v));
                    }
                }
            }
        }
        Table::with_table(out.into_boxed_slice(), big.then_some(table))
    }

    /// A mapping of entries whose keys are known to be unique, with their position table when
    /// the caller built one (the loader does, to find duplicate keys).
    pub(crate) fn with_table(entries: Box<[Entry<V>]>, table: Option<HashTable<u32>>) -> Table<V> {
        if entries.len() <= LINEAR_MAX {
            return Table(Repr::Small(entries));
        }
        let index = table.unwrap_or_else(|| {
            let mut t = HashTable::with_capacity(entries.len());
            for (i, e) in entries.iter().enumerate() {
                t.insert_unique(key_hash(&e.0), i as u32, |&j| {
                    key_hash(&entries[j as usize].0)
                });
            }
            t
        });
        debug_assert_eq!(index.len(), entries.len());
        Table(Repr::Large(Box::new(Large { entries, index })))
    }

    /// Sets `key` to `value`: in place when the key is there (returning the old value, as
    /// `serde_json::Map::insert` does), else appended. Appending copies the entries (and
    /// rebuilds the position table of a large mapping): for the few keys of an IR node's
    /// attributes; build large mappings with [`Table::from_entries`] or `collect`.
    pub fn insert(&mut self, key: impl Into<Str>, value: V) -> Option<V> {
        let key = key.into();
        if let Some((i, _)) = self.get_full(&key) {
            let entries = match &mut self.0 {
                Repr::Small(entries) => entries,
                Repr::Large(large) => &mut large.entries,
            };
            return Some(std::mem::replace(&mut entries[i].1, value));
        }
        let mut entries = match std::mem::take(&mut self.0) {
            Repr::Small(entries) => entries.into_vec(),
            Repr::Large(large) => large.entries.into_vec(),
        };
        entries.push((key, value));
        *self = Table::with_table(entries.into_boxed_slice(), None);
        None
    }

    /// The entries, in order.
    fn entries(&self) -> &[Entry<V>] {
        match &self.0 {
            Repr::Small(entries) => entries,
            Repr::Large(large) => &large.entries,
        }
    }

    pub fn len(&self) -> usize {
        self.entries().len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// The position and value of `key`'s entry.
    pub fn get_full(&self, key: &str) -> Option<(usize, &V)> {
        let (i, entries) = match &self.0 {
            Repr::Small(entries) => (entries.iter().position(|e| e.0 == key)?, &**entries),
            Repr::Large(large) => {
                let i = *large
                    .index
                    .find(key_hash(key), |&i| large.entries[i as usize].0 == key)?;
                (i as usize, &*large.entries)
            }
        };
        Some((i, &entries[i].1))
    }

    pub fn get(&self, key: &str) -> Option<&V> {
        self.get_full(key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get_full(key).is_some()
    }

    /// The entry at a position.
    pub fn get_index(&self, i: usize) -> Option<(&Str, &V)> {
        self.entries().get(i).map(pair)
    }

    pub fn iter(&self) -> Iter<'_, V> {
        self.entries()
            .iter()
            .map(pair as fn(&Entry<V>) -> Pair<'_, V>)
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Str> + ExactSizeIterator {
        self.entries().iter().map(|e| &e.0)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.entries().iter().map(|e| &e.1)
    }

    /// The entries, in order, taken out of the mapping (its position table is dropped).
    pub(crate) fn into_entries(self) -> Box<[Entry<V>]> {
        match self.0 {
            Repr::Small(entries) => entries,
            Repr::Large(large) => large.entries,
        }
    }
}

impl<'a, V> IntoIterator for &'a Table<V> {
    type Item = Pair<'a, V>;
    type IntoIter = Iter<'a, V>;
    fn into_iter(self) -> Iter<'a, V> {
        self.iter()
    }
}

impl<K: Into<Str>, V> FromIterator<(K, V)> for Table<V> {
    fn from_iter<T: IntoIterator<Item = (K, V)>>(iter: T) -> Table<V> {
        Table::from_entries(iter.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}

/// Equal when both hold the same entries, in any order (as `serde_json::Map`).
impl<V: PartialEq> PartialEq for Table<V> {
    fn eq(&self, other: &Table<V>) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl<V: Eq> Eq for Table<V> {}

impl<V: fmt::Debug> fmt::Debug for Table<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}
