//! What an agh Loop runs beyond AGS's model, as the plan carries it (`agc.plan/v5`): the
//! outer loop of its generations (the owner's `generations`) and the routing table of each
//! of its gates (a gate's `routes`, upstream's defaults filled in, with its revision limit). Typed and decided at
//! lowering, so that the scheduler reads no attribute JSON to end a generation or route a
//! verdict (`run/core/agh.rs`).
//!
//! [`Generations::from_block`] and [`Routes::from_block`] read the form a plan written
//! before them kept in the node's `attributes.generations` and `attributes.routes`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The outer loop of an agh Loop's generations: its owner node's `generations`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Generations {
    /// The Loop's `contract.iteration_cap` (upstream's default when it has none); 0 is no
    /// cap. (The region's `max_iterations` is what the scheduler counts against.)
    pub iteration_cap: u64,
    /// Whether the cap is 0: the generations never run out.
    pub unbounded: bool,
    /// A watch Loop: its gates have no default `max_revisions`.
    pub watch: bool,
}

impl Generations {
    /// The form a plan kept in `attributes.generations` (a field of the wrong type reads as
    /// its default, as the runtime read it).
    pub fn from_block(block: &Value) -> Generations {
        let flag = |k: &str| block.get(k).and_then(Value::as_bool) == Some(true);
        Generations {
            iteration_cap: block
                .get("iteration_cap")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            unbounded: flag("unbounded"),
            watch: flag("watch"),
        }
    }
}

/// A verdict an agh gate's evaluation gives (a key of `on_result`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
    Approval,
    Blocked,
    Error,
    Timeout,
    InvalidOutput,
}

impl Verdict {
    /// Every verdict, in the order a routing table lists them.
    pub const ALL: [Verdict; 7] = [
        Verdict::Pass,
        Verdict::Fail,
        Verdict::Approval,
        Verdict::Blocked,
        Verdict::Error,
        Verdict::Timeout,
        Verdict::InvalidOutput,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Approval => "approval",
            Verdict::Blocked => "blocked",
            Verdict::Error => "error",
            Verdict::Timeout => "timeout",
            Verdict::InvalidOutput => "invalid_output",
        }
    }

    /// The verdict named `name`, if it is one.
    pub fn named(name: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == name)
    }
}

/// Where a gate's verdict routes (`on_result.<verdict>.route`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteAction {
    /// The gate succeeds; its edges are the verdicts that continue.
    Continue,
    /// The gate fails, so the generation fails.
    Revise,
    /// The gate succeeds; its edges are not taken.
    Branch,
    /// The Loop ends with the route's `terminal_status`.
    Halt,
    /// The Loop ends with the route's `terminal_status` (agc parks no run for an operator).
    Escalate,
}

impl RouteAction {
    pub fn as_str(self) -> &'static str {
        match self {
            RouteAction::Continue => "continue",
            RouteAction::Revise => "revise",
            RouteAction::Branch => "branch",
            RouteAction::Halt => "halt",
            RouteAction::Escalate => "escalate",
        }
    }
}

/// One verdict's route, as written with upstream's defaults filled in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Route {
    pub route: RouteAction,
    /// A `branch` route's branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// How a `halt` or `escalate` ends the Loop (the lowering fills in `failed` and
    /// `needs-approval`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_status: Option<String>,
    /// Why the Loop ended (`gate_<route>` when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_code: Option<String>,
}

impl Route {
    /// Upstream's route for a verdict its gate does not route (research §3.4).
    pub fn default_for(verdict: Verdict) -> Route {
        let (route, status) = match verdict {
            Verdict::Pass => (RouteAction::Continue, None),
            Verdict::Fail => (RouteAction::Revise, None),
            Verdict::Approval => (RouteAction::Escalate, Some("needs-approval")),
            Verdict::Blocked => (RouteAction::Halt, Some("blocked")),
            _ => (RouteAction::Halt, Some("failed")),
        };
        Route {
            route,
            branch: None,
            terminal_status: status.map(str::to_string),
            reason_code: None,
        }
    }
}

/// An agh gate's routing table: a route for every verdict, and how many revisions a `fail`
/// may ask for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Routes {
    pub pass: Route,
    pub fail: Route,
    pub approval: Route,
    pub blocked: Route,
    pub error: Route,
    pub timeout: Route,
    pub invalid_output: Route,
    /// A `fail` at revision `generation - 1` at or past it ends the Loop `exhausted`
    /// (`gate_max_revisions_exhausted`); 0 is no limit ([`Routes::revision_limit`]).
    #[serde(default)]
    pub max_revisions: u64,
}

/// Upstream's `gates.max_revisions` default for delivery Loops (research §6).
const DEFAULT_MAX_REVISIONS: u64 = 10;
/// Upstream's ceiling on `max_revisions` (research §6).
const MAX_REVISIONS_CEILING: u64 = 64;

impl Routes {
    /// The route of `verdict`.
    pub fn get(&self, verdict: Verdict) -> &Route {
        match verdict {
            Verdict::Pass => &self.pass,
            Verdict::Fail => &self.fail,
            Verdict::Approval => &self.approval,
            Verdict::Blocked => &self.blocked,
            Verdict::Error => &self.error,
            Verdict::Timeout => &self.timeout,
            Verdict::InvalidOutput => &self.invalid_output,
        }
    }

    /// A gate's revision limit from the `max_revisions` it declares (0 when it declares
    /// none): its own, at most upstream's ceiling (64), else upstream's default (10), or none
    /// in a `watch` Loop; 0 is no limit.
    pub fn revision_limit(own: u64, watch: bool) -> u64 {
        match own {
            0 if watch => 0,
            0 => DEFAULT_MAX_REVISIONS,
            n => n.min(MAX_REVISIONS_CEILING),
        }
    }

    /// A table of `route(verdict)` for each verdict, with no revision limit.
    pub fn from_fn(mut route: impl FnMut(Verdict) -> Route) -> Routes {
        Routes {
            pass: route(Verdict::Pass),
            fail: route(Verdict::Fail),
            approval: route(Verdict::Approval),
            blocked: route(Verdict::Blocked),
            error: route(Verdict::Error),
            timeout: route(Verdict::Timeout),
            invalid_output: route(Verdict::InvalidOutput),
            max_revisions: 0,
        }
    }

    /// The form a plan kept in `attributes.routes` (verdict → `{"route", ...}`): a verdict
    /// missing, or whose route is not one, takes upstream's route ([`Route::default_for`]).
    /// Its revision limit is none: the reader sets it ([`Routes::revision_limit`]).
    pub fn from_block(block: &Value) -> Routes {
        Routes::from_fn(|v| {
            let Some(r) = block.get(v.as_str()) else {
                return Route::default_for(v);
            };
            let text = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_string);
            match serde_json::from_value(r.get("route").cloned().unwrap_or(Value::Null)) {
                Ok(route) => Route {
                    route,
                    branch: text("branch"),
                    terminal_status: text("terminal_status"),
                    reason_code: text("reason_code"),
                },
                Err(_) => Route::default_for(v),
            }
        })
    }
}
