//! agc's own hash maps: std's maps with foldhash's seeded `quality` hasher instead of SipHash.
//! The checks and lowering hash short keys (node ids, output names) millions of times on large
//! graphs; foldhash is several times faster there and still randomly seeded per process.

/// The hasher of agc's own maps.
pub type FastState = foldhash::quality::RandomState;

/// `std::collections::HashMap` with [`FastState`] (build with `default()`, not `new()`).
pub type HashMap<K, V> = std::collections::HashMap<K, V, FastState>;

/// `std::collections::HashSet` with [`FastState`] (build with `default()`, not `new()`).
pub type HashSet<T> = std::collections::HashSet<T, FastState>;
