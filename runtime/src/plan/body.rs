//! What a loop, map or subgraph owner runs beyond its region entry, as the plan carries it
//! (`agc.plan/v5`, a node's `body`): the body's declared params (whose `default`s apply, and
//! which a body that declares them sees instead of the graph's), what a loop reaching
//! `max_iterations` does, what a map over more than `max_items` does and how many items an
//! agh fan-out's branch takes. Typed and decided at lowering (AGS `loop`, `map` and
//! `subgraph` blocks; an agh fan-out's `batch_size`), so that the scheduler reads no
//! attribute JSON to start or end a region instance (`run/core/regions.rs`, `agh.rs`).
//!
//! [`Body::from_block`] reads the form a v4 plan kept in the owner's
//! `attributes.<loop|map|subgraph>` (`body_params` a map of param specs, the two policies as
//! strings), which is also what the AGS lowering collects; what it does not hold stays there
//! ([`Body::residue`]).

use super::decl::Param;
use super::human::collected;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A region owner's body options (every field left out at its default).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// The body's declared params, in order (none: the body reads the graph's params).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<Param>,
    /// A loop's: what reaching `max_iterations` does (`fail` when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_max_iterations: Option<OnMaxIterations>,
    /// A map's: what more items than `max_items` does (`fail` when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_over_limit: Option<OnOverLimit>,
    /// An agh fan-out's: how many items each branch takes, as one array (1, each branch its
    /// item, when left out; written only above 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_size: Option<u64>,
}

/// What a loop that reaches `max_iterations` without its condition ending it does (AGS
/// `loop.on_max_iterations`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnMaxIterations {
    Fail,
    Succeed,
    Escalate,
}

impl OnMaxIterations {
    pub fn as_str(self) -> &'static str {
        match self {
            OnMaxIterations::Fail => "fail",
            OnMaxIterations::Succeed => "succeed",
            OnMaxIterations::Escalate => "escalate",
        }
    }
}

/// What a map over more than `max_items` items does (AGS `map.on_over_limit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnOverLimit {
    Fail,
    Truncate,
}

/// The keys of an owner's `attributes.<loop|map|subgraph>` [`Body`] holds.
const HELD: [&str; 3] = ["body_params", "on_max_iterations", "on_over_limit"];

impl Body {
    /// The options of a region block as lowering collects them (`body_params`: name → param
    /// spec; `on_max_iterations`, `on_over_limit`). A value of the wrong shape reads as
    /// absent (an unknown policy as `fail`, as the runtime read it before); `None` when it
    /// says nothing.
    pub fn from_block(block: &Value) -> Option<Body> {
        let named = |k: &str| block.get(k).cloned().unwrap_or(Value::Null);
        let body = Body {
            params: block
                .get("body_params")
                .and_then(Value::as_object)
                .map(|ps| {
                    ps.iter()
                        .map(|(name, spec)| collected(name, spec))
                        .collect()
                })
                .unwrap_or_default(),
            on_max_iterations: serde_json::from_value(named("on_max_iterations")).ok(),
            on_over_limit: serde_json::from_value(named("on_over_limit")).ok(),
            batch_size: None,
        };
        (body != Body::default()).then_some(body)
    }

    /// What of a region block [`Body`] does not hold (`None` when nothing is left).
    pub fn residue(block: &Map<String, Value>) -> Option<Map<String, Value>> {
        let left: Map<String, Value> = block
            .iter()
            .filter(|(k, _)| !HELD.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        (!left.is_empty()).then_some(left)
    }
}
