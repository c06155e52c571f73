//! The runtime's own hash maps: std's maps with foldhash's seeded hasher instead of SipHash
//! (as agc's are). A run looks up node runs by path and scripted calls by key once or twice a
//! node; SipHash spent 160 instructions on a key of a few bytes. Nothing iterates these maps
//! into an output (their order would change from run to run either way: both hashers are
//! seeded per process).

/// The hasher of the runtime's own maps.
pub(crate) type FastState = foldhash::quality::RandomState;

/// `std::collections::HashMap` with [`FastState`] (build with `default()`, not `new()`).
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, FastState>;
