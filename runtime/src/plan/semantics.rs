//! What a plan says about how it runs where the dialects differ: typed fields the compiler
//! decides when it lowers a document, so that the scheduler reads the plan and never the
//! dialect's name (`agc.plan/v3`, docs/plan-format.md).
//!
//! - [`Semantics`] (the plan's `semantics`): the shared state and its reducers, how jq results
//!   and `null` bind, what an expression error does, how decisions and state updates run, the
//!   expression namespace and the loop rules. A fifth dialect picks among these behaviours (or
//!   adds one here) instead of adding a branch to the scheduler.
//! - [`Backoff`] (a node's `retry.backoff`): the delay before each retry, one formula for every
//!   dialect, in milliseconds.
//! - [`OnItemFailure`] and [`SubgraphSource`]: a map's and a subgraph's policies as enums
//!   instead of strings.
//!
//! Plans of the formats before `agc.plan/v3` carry none of these: their reader
//! (`super::read`) derives them from the dialect and the attributes, as the runtime did
//! while running before.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How the plan runs where dialects differ (the plan's `semantics`; every field written).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Semantics {
    /// The run's shared state, if any.
    pub state: StateModel,
    /// How a jq program's outputs become one value.
    pub jq_outputs: JqOutputs,
    /// Whether an expression that yields `null` binds an input to `null` (AWP: `null` is a
    /// value like any other) rather than leaving it absent.
    pub null_is_value: bool,
    /// What an expression error at run time does.
    pub expression_errors: ExpressionErrors,
    /// How a decision node without expression branches decides.
    pub decisions: Decisions,
    /// What a `state_update` node's outputs are.
    pub state_updates: StateUpdates,
    /// What expressions see besides `params`, `nodes` and the scope's variables.
    pub namespace: Namespace,
    /// The rules loops, gates and fan-outs follow beyond their regions.
    pub loop_rules: LoopRules,
}

/// The run's shared state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum StateModel {
    /// None: nodes exchange values only through their outputs (AGS, agh).
    #[default]
    None,
    /// A workflow state (AWP): it starts as the params; a node that succeeds merges each
    /// output into it by that key's reducer (`overwrite` when the key has none), and it must
    /// then fit the state schema (`attrs.state_schema`); jq expressions read it.
    Workflow {
        /// Per state key, in the state schema's order.
        #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
        reducers: IndexMap<String, Reducer>,
    },
    /// A fact store (Agent Graph): it starts as the params' `facts` object (the only param
    /// such a graph takes); a node that succeeds with a `facts` object output merges it in
    /// shallowly; fact checks read it.
    Facts,
}

impl StateModel {
    /// The reducer of state key `key` (`overwrite` unless the workflow state names another).
    pub fn reducer(&self, key: &str) -> Reducer {
        match self {
            StateModel::Workflow { reducers } => {
                reducers.get(key).copied().unwrap_or(Reducer::Overwrite)
            }
            _ => Reducer::Overwrite,
        }
    }
}

/// How an output merges into a workflow state key (AWP `reducer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reducer {
    /// Replaces the value.
    #[default]
    Overwrite,
    /// Appends to an array (an array's elements, any other value as one element).
    Append,
    /// Merges objects recursively.
    Merge,
}

impl Reducer {
    /// The reducer named `name`; anything else overwrites, as AWP's engine does.
    pub fn named(name: &str) -> Reducer {
        match name {
            "append" => Reducer::Append,
            "merge" => Reducer::Merge,
            _ => Reducer::Overwrite,
        }
    }
}

/// How a jq program's outputs become one value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JqOutputs {
    /// The first output; `null` when there is none.
    #[default]
    First,
    /// AWP's conventions (jq-wasm's `json()`): no output is `null`, one output is that
    /// value, several are the array of them.
    Collected,
}

/// What an expression error at run time does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpressionErrors {
    /// RT062 as an error, and the run stops (AGS `policy.on_expression_error: fail`, the
    /// spec's default).
    #[default]
    Stop,
    /// RT062 as a warning, and the expression takes its site's safe reading (AGS
    /// `on_expression_error: false`; the other dialects, which define no policy).
    Reading,
}

/// How a decision node without expression branches decides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decisions {
    /// Its handler is called and names the branch (AGS).
    #[default]
    Handler,
    /// It routes at once on the workflow state by its cases (AWP `switch`).
    Switch,
    /// It succeeds at once; its outgoing edges carry the conditions (agh `branch`, Agent
    /// Graph).
    Edges,
}

/// What a `state_update` node's outputs are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StateUpdates {
    /// Its evaluated inputs (AWP `set_state` assignments).
    Assignments,
    /// Its `output` by its [`Produces`]: an agh `transform` the evaluated map, an agh
    /// `input` source the Loop input it names; any other has none (AGC307 says so).
    #[default]
    Mapped,
}

/// What a `state_update` node's `output` is under [`StateUpdates::Mapped`] (`agc.plan/v5`,
/// a node's `produces`; v4 had `attributes.transform: inputs` and `attributes.input_ref`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Produces {
    /// Its evaluated inputs as one map (an agh `transform`, its `params.map` one input per
    /// key).
    Inputs,
    /// The param it names (an agh `input` source: a Loop input).
    Param(String),
}

/// What expressions see besides `params`, `nodes` and the scope's variables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Namespace {
    /// `inputs` are the node's own inputs (AGS).
    #[default]
    Standard,
    /// agh's: `inputs` are the Loop's inputs (the params), `generation` the 1-based
    /// generation running, and `nodes.<id>.output` a node's one output.
    Loop,
}

/// The rules loops, gates and fan-outs follow beyond their regions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopRules {
    /// Only the regions' own rules.
    #[default]
    Plain,
    /// agh's generations: a loop whose owner has `attributes.generations` ends as an agh
    /// Loop does, gates with `attributes.routes` route by it, and fan-outs split by
    /// `batch_size` and end the Loop past their width.
    Generations,
}

/// The delay before each retry of a node: `delay(k)` after attempt `k` (1-based) is 0
/// (`none`), `initial_ms` (`fixed`), `initial_ms × k` (`linear`) or `initial_ms ×
/// coefficient^(k−1)` (`exponential`), capped at `max_ms`; with `jitter` it is scaled by a
/// factor in [0.5, 1) the scheduler takes from a hash of the run id, the node's scope path
/// and `k`. The scheduler rounds to whole milliseconds, at most a year.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Backoff {
    pub curve: Curve,
    pub initial_ms: f64,
    /// The growth of an `exponential` curve (2 when left out).
    #[serde(default = "two", skip_serializing_if = "is_two")]
    pub coefficient: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub jitter: bool,
}

fn two() -> f64 {
    2.0
}

fn is_two(x: &f64) -> bool {
    *x == 2.0
}

/// The shape of a [`Backoff`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Curve {
    None,
    Fixed,
    Linear,
    Exponential,
}

impl Backoff {
    /// AGS `failure.retry` (ags.md §2.5): `backoff` `none|fixed|linear|exponential` (default
    /// and anything else `exponential`), `initial_delay_seconds` (default 2),
    /// `max_delay_seconds` (default 60), both at least 0, `jitter` (default true).
    pub fn ags(retry: Option<&Value>) -> Backoff {
        let num = |key: &str, default: f64| {
            retry
                .and_then(|r| r.get(key))
                .and_then(Value::as_f64)
                .unwrap_or(default)
                .max(0.0)
        };
        let curve = match retry.and_then(|r| r.get("backoff")).and_then(Value::as_str) {
            Some("none") => Curve::None,
            Some("fixed") => Curve::Fixed,
            Some("linear") => Curve::Linear,
            _ => Curve::Exponential,
        };
        Backoff {
            curve,
            initial_ms: num("initial_delay_seconds", 2.0) * 1000.0,
            coefficient: 2.0,
            max_ms: Some(num("max_delay_seconds", 60.0) * 1000.0),
            jitter: retry
                .and_then(|r| r.get("jitter"))
                .and_then(Value::as_bool)
                .unwrap_or(true),
        }
    }

    /// AWP `retry`: `initial_interval` × `backoff_coefficient`^(k−1) (defaults 0 and 1: no
    /// delay; the coefficient at least 0), capped by `max_interval` when given, no jitter.
    /// Intervals are [`awp_ms`] durations.
    pub fn awp(retry: Option<&Value>) -> Backoff {
        let field = |key: &str| retry.and_then(|r| r.get(key));
        Backoff {
            curve: Curve::Exponential,
            initial_ms: field("initial_interval").and_then(awp_ms).unwrap_or(0) as f64,
            coefficient: field("backoff_coefficient")
                .and_then(Value::as_f64)
                .unwrap_or(1.0)
                .max(0.0),
            max_ms: field("max_interval").and_then(awp_ms).map(|m| m as f64),
            jitter: false,
        }
    }

    /// The delay after attempt `k` (1-based) before jitter, in milliseconds (not rounded).
    pub fn base_ms(&self, k: u32) -> f64 {
        let k = k.max(1);
        let d = match self.curve {
            Curve::None => 0.0,
            Curve::Fixed => self.initial_ms,
            Curve::Linear => self.initial_ms * f64::from(k),
            Curve::Exponential => self.initial_ms * self.coefficient.powi((k - 1).min(1000) as i32),
        };
        match self.max_ms {
            Some(m) => d.min(m),
            None => d,
        }
    }
}

/// Milliseconds of an AWP duration: a number of milliseconds, or a string `N`, `Nms`, `Ns`,
/// `Nm` or `Nh` (case-insensitive, spaces around the unit allowed); `None` otherwise or on
/// overflow.
pub fn awp_ms(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let s = v.as_str()?.trim().to_ascii_lowercase();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = s[..digits].parse().ok()?;
    let unit = match s[digits..].trim() {
        "" | "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    n.checked_mul(unit)
}

/// What a map does when one of its items fails.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnItemFailure {
    /// The other open items are cancelled and the map fails (AGS's default).
    #[default]
    FailFast,
    /// Every item runs; the map succeeds.
    Continue,
    /// Every item runs; the map succeeds when at least `min_successes` did (every item when
    /// it is not given).
    Threshold,
    /// Every item runs; the map fails when any item failed (agh's fan-out).
    Fail,
}

/// Where a subgraph instance's body comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubgraphSource {
    /// A named subgraph of the document (AGS `use:`).
    Use(String),
    /// Written inline.
    Inline,
    /// Another document, by URI (AGS `ref`, AWP `workflow_ref`); the plan holds its body
    /// only when the compiler could load it.
    Ref(String),
    /// Another graph of the same provider, from one of its nodes (Agent Graph `graph` and
    /// `entry`).
    Graph { graph: String, entry: String },
    /// None was given (an unchecked document).
    Unknown,
}

/// The form formats before `agc.plan/v3` wrote: `use:NAME`, `inline`, `ref:URI`,
/// `graph:GRAPH#ENTRY`, or empty.
impl std::fmt::Display for SubgraphSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SubgraphSource::Use(name) => write!(f, "use:{name}"),
            SubgraphSource::Inline => f.write_str("inline"),
            SubgraphSource::Ref(uri) => write!(f, "ref:{uri}"),
            SubgraphSource::Graph { graph, entry } => write!(f, "graph:{graph}#{entry}"),
            SubgraphSource::Unknown => Ok(()),
        }
    }
}

/// Written `{"use": NAME}`, `"inline"`, `{"ref": URI}`, `{"graph": G, "entry": E}` or `""`;
/// the strings of [`Display`](std::fmt::Display) (formats before `agc.plan/v3`) are read too.
impl Serialize for SubgraphSource {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = match self {
            SubgraphSource::Inline => return s.serialize_str("inline"),
            SubgraphSource::Unknown => return s.serialize_str(""),
            _ => s.serialize_map(None)?,
        };
        match self {
            SubgraphSource::Use(name) => m.serialize_entry("use", name)?,
            SubgraphSource::Ref(uri) => m.serialize_entry("ref", uri)?,
            SubgraphSource::Graph { graph, entry } => {
                m.serialize_entry("graph", graph)?;
                m.serialize_entry("entry", entry)?;
            }
            SubgraphSource::Inline | SubgraphSource::Unknown => {}
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for SubgraphSource {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Text(String),
            Use { r#use: String },
            Ref { r#ref: String },
            Graph { graph: String, entry: String },
        }
        Ok(match Form::deserialize(d)? {
            Form::Use { r#use } => SubgraphSource::Use(r#use),
            Form::Ref { r#ref } => SubgraphSource::Ref(r#ref),
            Form::Graph { graph, entry } => SubgraphSource::Graph { graph, entry },
            Form::Text(t) => SubgraphSource::parse(&t),
        })
    }
}

impl SubgraphSource {
    /// The source a string of [`Display`](std::fmt::Display) names (anything else is
    /// [`SubgraphSource::Unknown`]).
    pub fn parse(t: &str) -> SubgraphSource {
        if t == "inline" {
            SubgraphSource::Inline
        } else if let Some(name) = t.strip_prefix("use:") {
            SubgraphSource::Use(name.to_string())
        } else if let Some(uri) = t.strip_prefix("ref:") {
            SubgraphSource::Ref(uri.to_string())
        } else if let Some((graph, entry)) =
            t.strip_prefix("graph:").and_then(|g| g.rsplit_once('#'))
        {
            SubgraphSource::Graph {
                graph: graph.to_string(),
                entry: entry.to_string(),
            }
        } else {
            SubgraphSource::Unknown
        }
    }
}

/// The bounds of one jq evaluation a plan asks for (`agc build --eval-stack/--eval-depth/
/// --eval-memory/--eval-timeout`, written as the plan's `eval_limits`): each given one
/// replaces the runtime's default (`crate::jq::Limits::RUN`), and a run's own setting
/// (`RunOptions::eval_limits`, from `agc run --eval-…`) replaces it in turn. Every run holds
/// its own (`State`), whatever engine drives it. What each bounds: `crate::jq::meter`; an
/// exceeded bound is AGC043.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalLimits {
    /// MiB of stack recursion may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack_mib: Option<u32>,
    /// How deeply a value built may nest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// MiB of memory one evaluation may hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u32>,
    /// Seconds one evaluation may run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<f64>,
}

impl EvalLimits {
    /// Whether no limit is given (then the plan leaves `eval_limits` out).
    pub fn is_empty(&self) -> bool {
        *self == EvalLimits::default()
    }

    /// `base` with each limit given here in its place (a run's options over its plan's).
    pub fn over(&self, base: &EvalLimits) -> EvalLimits {
        EvalLimits {
            stack_mib: self.stack_mib.or(base.stack_mib),
            depth: self.depth.or(base.depth),
            memory_mib: self.memory_mib.or(base.memory_mib),
            timeout_seconds: self.timeout_seconds.or(base.timeout_seconds),
        }
    }

    /// `base` with each limit given here in its place.
    #[cfg(feature = "awp")]
    pub fn apply(&self, base: crate::jq::Limits) -> crate::jq::Limits {
        crate::jq::Limits {
            stack: self.stack_mib.map_or(base.stack, |m| (m as usize) << 20),
            depth: self.depth.map_or(base.depth, |d| d as usize),
            memory: self.memory_mib.map_or(base.memory, |m| (m as usize) << 20),
            time: self
                .timeout_seconds
                .filter(|t| t.is_finite() && *t > 0.0)
                .map_or(base.time, std::time::Duration::from_secs_f64),
        }
    }
}
