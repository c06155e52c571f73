//! What the Agent Graph front end's check gives ([`Unit`]).

use super::provider::LoadedProvider;
use crate::source::Document;

/// What checking gives: the root document and, for a Provider, what was loaded.
pub struct Unit {
    pub root: Document,
    pub provider: Option<LoadedProvider>,
    /// A graph checked on its own (not through a Provider).
    pub lone_graph: Option<String>,
}
