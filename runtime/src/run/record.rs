//! The AGS run record (`AgenticGraphRun`, `agentic-graph-run-1.0.schema.json`), written at the
//! end of a run and on every pause. Field order is fixed, so the same run gives the same bytes.

use super::handler::Usage;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A whole run record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub ags_version: String,
    pub kind: String,
    pub run_id: String,
    pub graph_id: String,
    pub graph_digest: String,
    pub harness: Harness,
    pub status: RunStatus,
    pub started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    #[serde(default)]
    pub params: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub context: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub outputs: Map<String, Value>,
    #[serde(default)]
    pub usage: Usage,
    #[serde(default)]
    pub diagnostics: Vec<RunDiagnostic>,
    pub nodes: Vec<NodeRun>,
    #[serde(default)]
    pub edges_taken: Vec<EdgeTaken>,
    /// How an agh Loop ended (agh's terminal states; absent for other dialects and for a
    /// run that has not ended).
    #[serde(
        rename = "x-terminal",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub terminal: Option<LoopTerminal>,
}

/// How an agh Loop ended: its terminal state (`done`, `exhausted`, `failed`, `blocked`, ...;
/// research on agh §7), upstream's reason code, the 1-based generation it ended in, and the
/// scope path of the node that ended it (a gate, a fan-out, the generations).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopTerminal {
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_code: Option<String>,
    pub generation: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

impl RunRecord {
    /// Pretty JSON with a trailing newline.
    pub fn to_pretty_string(&self) -> String {
        // serde_json's bytes, written without its per-piece overhead (`crate::json`).
        let mut s = crate::json::to_string_pretty(self).expect("run record serializes");
        s.push('\n');
        s
    }

    /// [`Self::to_pretty_string`]'s text in pieces, in order, written on two threads when the
    /// record has [`SPLIT_FROM`] node runs or more: the second half of the node runs on another
    /// thread, the rest here (a 10k-node chain's record is 6.8 MB, a tenth of its `agc run`;
    /// issue 41). The pieces are written out as they are (joining them would copy the whole
    /// text once more). The node runs are taken out while the rest is written and put back.
    pub fn to_pretty_parts(&mut self) -> Vec<String> {
        self.parts_from(SPLIT_FROM)
    }

    pub(crate) fn parts_from(&mut self, from: usize) -> Vec<String> {
        if self.nodes.len() < from.max(2) {
            return vec![self.to_pretty_string()];
        }
        let nodes = std::mem::take(&mut self.nodes);
        let (first, second) = nodes.split_at(nodes.len() / 2);
        // The node runs' elements, at the depth of a top-level field's list.
        let elements = |part: &[NodeRun]| {
            crate::json::pretty_elements(part, 2).expect("run record serializes")
        };
        let (mut head, first, second) = std::thread::scope(|s| {
            let later = std::thread::Builder::new()
                .name("agc-record".into())
                .stack_size(8 << 20)
                .spawn_scoped(s, || elements(second));
            let first = elements(first);
            let rest = self.to_pretty_string();
            let second = match later {
                Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                Err(_) => elements(second),
            };
            (rest, first, second)
        });
        self.nodes = nodes;
        // The record's own `nodes` is the one key two spaces in on its line: a line break
        // inside a string is escaped, and every deeper key is indented further.
        const EMPTY: &str = "\n  \"nodes\": []";
        let at = head.find(EMPTY).expect("a record has its nodes") + EMPTY.len() - 1;
        let tail = format!("\n  {}", &head[at..]);
        head.truncate(at);
        vec![head, first, ",".into(), second, tail]
    }
}

/// From this many node runs a record is written on two threads
/// ([`RunRecord::to_pretty_parts`]); below, a thread costs more than it saves.
pub const SPLIT_FROM: usize = 512;

/// Who ran the graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Harness {
    pub name: String,
    pub version: String,
    pub conformance_level: u8,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supported_features: Vec<String>,
}

impl Default for Harness {
    fn default() -> Self {
        Harness {
            name: "agc-runtime".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            conformance_level: 3,
            supported_features: Vec::new(),
        }
    }
}

/// How a run ended (or where it stands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Succeeded,
    Failed,
    Cancelled,
    AwaitingHuman,
    Partial,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Succeeded => "succeeded",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::AwaitingHuman => "awaiting_human",
            RunStatus::Partial => "partial",
        }
    }
}

/// A node run's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeStatus {
    Pending,
    Ready,
    Running,
    AwaitingHuman,
    Succeeded,
    Failed,
    Skipped,
    Cancelled,
    Blocked,
}

impl NodeStatus {
    /// Succeeded, failed, skipped, cancelled or blocked.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            NodeStatus::Succeeded
                | NodeStatus::Failed
                | NodeStatus::Skipped
                | NodeStatus::Cancelled
                | NodeStatus::Blocked
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            NodeStatus::Pending => "pending",
            NodeStatus::Ready => "ready",
            NodeStatus::Running => "running",
            NodeStatus::AwaitingHuman => "awaiting_human",
            NodeStatus::Succeeded => "succeeded",
            NodeStatus::Failed => "failed",
            NodeStatus::Skipped => "skipped",
            NodeStatus::Cancelled => "cancelled",
            NodeStatus::Blocked => "blocked",
        }
    }
}

/// A diagnostic raised while running (`RT021`, `RT061`, ...).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunDiagnostic {
    pub code: String,
    pub severity: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// One node run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeRun {
    /// The node's id as written (its local id).
    pub node_id: String,
    /// `fix_loop[2].run_tests` (0-based indices); the local id for root nodes.
    pub scope_path: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub status: NodeStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<Attempt>,
    /// The fallback strategy that settled the node (`alternate_node`, `degrade_outputs`,
    /// `relax_criteria`, `human_takeover`, `skip`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_used: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub escalated: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub human_events: Vec<HumanEvent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<u64>,
    #[serde(default, skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
    /// A node run `awaiting_human` at a checkpoint: the name a decision gives
    /// (`publish.pre_upload`). A gate awaiting its decision is named by its scope path.
    #[serde(
        rename = "x-awaiting",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub awaiting: Option<String>,
    /// An AWP signal wait: the signal it waits for (`config.signal`). While the run is
    /// `awaiting_human` on it, a decision names the wait by its scope path.
    #[serde(rename = "x-signal", default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// A compensation run: the scope path of the node run it compensates.
    #[serde(
        rename = "x-compensates",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub compensates: Option<String>,
}

/// One attempt of a node run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    pub attempt: u32,
    pub status: AttemptStatus,
    pub started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    #[serde(default, skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
    /// The success criteria as evaluated on this attempt's outputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success: Option<CriteriaResults>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The node whose call this attempt ran, when it is not the node itself (a fallback
    /// `alternate_node`, an escalation `to: node`).
    #[serde(rename = "x-node", default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

/// An attempt's success criteria results (`criteria_results` in the run schema).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CriteriaResults {
    pub passed: bool,
    pub mode: String,
    pub results: Vec<CriterionResult>,
}

/// One criterion's verdict on one attempt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CriterionResult {
    pub id: String,
    pub kind: String,
    /// `required` or `advisory`.
    pub severity: String,
    pub passed: bool,
    /// What was seen: the matched text, the expression's value, a schema error, or who
    /// vouched for a criterion the runtime does not evaluate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub evidence_truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluated_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Not evaluated by agc-runtime: a handler that completes vouches for it.
    #[serde(
        rename = "x-vouched",
        default,
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub vouched: bool,
}

/// How an attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptStatus {
    Succeeded,
    Failed,
    Timeout,
    BudgetExceeded,
    CriteriaFailed,
    Cancelled,
}

/// A human interaction at a gate or a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HumanEvent {
    /// The checkpoint's id (none for a gate's own decision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_id: Option<String>,
    pub at_stage: String,
    pub mode: String,
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// An edge resolved when its source reached a terminal state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EdgeTaken {
    /// Scope paths of the two ends.
    pub from: String,
    pub to: String,
    /// `sequence`, `conditional` or `on_failure`.
    pub kind: String,
    pub active: bool,
    /// The guard's value, `null` when the edge has none or it was not evaluated.
    pub when_result: Option<bool>,
    pub at: String,
}
