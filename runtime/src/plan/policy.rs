//! Graph policies the runtime acts on, as the plan carries them (`agc.plan/v5`), decided at
//! lowering so that the scheduler reads no attribute JSON: what a node's failure does to the
//! run ([`OnNodeFailure`], the plan's `on_node_failure`).
//!
//! A plan written before it kept it in `attrs.policy.on_node_failure` (AGS `policy`); the
//! reader moves it ([`OnNodeFailure::from_policy`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a node's failure that nothing absorbs does to the run (AGS
/// `policy.on_node_failure`; `isolate` when left out).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnNodeFailure {
    /// The run stops.
    Halt,
    /// Only the failed node's dependents are skipped.
    #[default]
    Isolate,
    /// Dependents whose join permits it are attempted too.
    Continue,
}

impl OnNodeFailure {
    /// Whether this is the default (`isolate`; a plan leaves it out).
    pub fn is_default(&self) -> bool {
        *self == OnNodeFailure::Isolate
    }

    /// The policy a `policy` block names (`isolate` when it names none, or one this
    /// runtime does not know, as the runtime read it).
    pub fn from_policy(policy: &Value) -> OnNodeFailure {
        policy
            .get("on_node_failure")
            .cloned()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default()
    }
}
