//! Back-edge bookkeeping ([`Passes`]) and the default bound: the data of `back.rs`, whose
//! `impl State` follows back edges. Kept apart so that the state's definition needs no file
//! that implements the state (issue 44: arrows only down).

use super::RunId;
use std::collections::HashMap;

/// How many times a back edge without a bound is followed per scope instance.
pub const DEFAULT_BOUND: u32 = 10;

/// Back-edge bookkeeping of one scope instance (only for plans with back edges).
#[derive(Clone, Debug, Default)]
pub(crate) struct Passes {
    /// Node index → its latest run, for nodes re-armed at least once.
    pub(crate) latest: HashMap<usize, RunId>,
    /// Back edge index → times followed.
    pub(crate) followed: HashMap<usize, u32>,
    /// Forward edge index → whether its last resolution was active.
    pub(crate) resolved: HashMap<usize, bool>,
}
