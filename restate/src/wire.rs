//! The JSON that crosses Restate: what `agc run --engine restate` submits, what the workflow
//! sends its task service, what a gate decision carries, and what `status` answers.
//!
//! The CLI speaks this format over HTTP without depending on this crate; `docs/restate.md`
//! documents it field by field, and a change here is a change of that contract.

use agc_runtime::plan::{EvalLimits, Node, NodeKind};
use agc_runtime::run::{CallResult, Checkpoint, GateOutcome};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The workflow's service name (`AgcRun/{run_id}/run`).
pub const RUN_SERVICE: &str = "AgcRun";
/// The task service's name (`AgcTask/execute`).
pub const TASK_SERVICE: &str = "AgcTask";

/// Input of `AgcRun/{run_id}/run`. The workflow key must equal `run_id`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunInput {
    pub run_id: String,
    /// An agc plan (`agc.plan/v5`, or an older format the runtime upgrades).
    pub plan: Value,
    #[serde(default)]
    pub params: Map<String, Value>,
    /// The host's `context` values (over the graph's own).
    #[serde(default)]
    pub context: Map<String, Value>,
    /// Event times from a fixed clock (`--fixed-clock`): records byte-identical to a local run.
    #[serde(default)]
    pub fixed_clock: bool,
    /// Deadline for calls whose node sets no `timeout_seconds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_timeout_seconds: Option<f64>,
    /// A run script (`agc.script/v1`, as JSON) for a scripted worker; other workers ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<Value>,
    /// Evaluation limits over the plan's `eval_limits` (`agc run --engine restate --eval-…`):
    /// each one given replaces the plan's, for this run only.
    #[serde(default, skip_serializing_if = "EvalLimits::is_empty")]
    pub eval_limits: EvalLimits,
}

/// Input of `AgcTask/execute`: one handler call the core asked for.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskSpec {
    pub run_id: String,
    /// The node run's scope path.
    pub path: String,
    pub node: Node,
    pub kind: NodeKind,
    pub attempt: u32,
    pub inputs: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iteration: Option<u64>,
    #[serde(default)]
    pub resumed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<Value>,
    /// Set: the call asks the handler about a human checkpoint of the node
    /// (`Handler::checkpoint`) instead of running it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<Checkpoint>,
}

/// Output of `AgcTask/execute`: the call's result and when the worker had it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskAnswer {
    pub result: CallResult,
    pub at: String,
}

/// Input of `AgcRun/{run_id}/decide`: a human's decision for the gate at `gate` (an exact
/// scope path from `status().awaiting`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GateDecision {
    pub gate: String,
    pub outcome: GateOutcome,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub outputs: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Filled in by `decide` (the worker's clock) when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// Output of `AgcRun/{run_id}/status`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct StatusView {
    /// `running`, `awaiting_human`, or a final run status; `unknown` before the run starts.
    pub status: String,
    /// Node runs that reached a terminal status so far.
    pub finished: u64,
    /// The last node run that finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<String>,
    /// Gates (scope paths) and checkpoints (`<scope path>.<id>`) waiting for a decision.
    #[serde(default)]
    pub awaiting: Vec<String>,
    /// The run record, written when the run pauses or ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<Value>,
}
