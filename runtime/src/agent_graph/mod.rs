//! Agent Graph v1 evaluation and routing, byte-compatible with `@c4a/agent-graph` 0.2.6.
//!
//! - [`model`]: a loaded Provider (filled in by the compiler's front end) and the input state.
//! - [`eval`]: `evaluate` → `agent-graph.evaluation.v1`, with revision and route ids.
//! - [`route`]: `route` → `agent-graph.route.v1` (command plan, resources, gate, afterAction).
//! - [`canon`]: `stableStringify` / `digestValue` with ICU key order and JavaScript numbers.
//!
//! Both `evaluate` and `route` are pure functions of the model and the input.

pub mod canon;
pub mod eval;
pub mod model;
pub mod route;

/// An outcome string (`completed`, `partial`, `failed`, `unverified`, `skipped`, `pending`,
/// `blocked`, `waiting-user`).
pub type Outcome = String;

/// The eight outcomes, in the schema's order.
pub const OUTCOMES: [&str; 8] = [
    "completed",
    "partial",
    "failed",
    "unverified",
    "skipped",
    "pending",
    "blocked",
    "waiting-user",
];

/// A failure with an upstream error code (`graph-missing`, `route-stale`, ...), as the
/// `agent-graph.error.v1` envelope reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: &'static str,
    pub message: String,
}

impl Error {
    pub fn new(code: &'static str, message: String) -> Error {
        Error { code, message }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}
