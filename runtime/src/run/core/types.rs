//! The core's data: the commands it gives its driver, node runs, scope instances and the
//! loop/map bookkeeping a container run keeps.

use super::asks::Asks;
use super::ladder_state::Ladder;
use super::passes::Passes;
use super::run_id::RunId;
use super::timer_set::Timer;
use crate::plan::NodeKind;
use crate::run::handler::{Checkpoint, Usage};
use crate::run::record::{Attempt, HumanEvent, NodeStatus, RunStatus};
use serde_json::{Map, Value};

/// What the core asks its driver to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Call the handler.
    Call(Call),
    /// Fire [`crate::run::Event::TimerFired`] for this timer once its time has come.
    Timer(Timer),
    /// The core no longer waits on this timer: the driver may forget it (a firing that
    /// still arrives is ignored).
    CancelTimer { id: u64 },
    /// The run ended or paused (`awaiting_human`); no more commands until a new event.
    Finish { status: RunStatus },
}

/// One handler call to make.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The run's scope path (the key every later event uses).
    pub path: String,
    /// Index of the node in the plan.
    pub node: usize,
    pub kind: NodeKind,
    pub attempt: u32,
    pub inputs: Map<String, Value>,
    pub item: Option<u64>,
    pub iteration: Option<u64>,
    pub resumed: bool,
    /// The node's `retry.timeout_seconds`.
    pub timeout_seconds: Option<f64>,
    /// Set: the call asks the handler about this human checkpoint (or ladder hand-off)
    /// instead of running the node (`Handler::checkpoint`).
    pub checkpoint: Option<Box<Checkpoint>>,
}

/// Loop or map bookkeeping on the run that owns the region.
#[derive(Clone, Debug, Default)]
pub(crate) struct Container {
    /// Item values (maps).
    pub(super) items: Vec<Value>,
    /// Next item to start (maps) / next iteration index (loops).
    pub(super) next: usize,
    /// Item or iteration scopes started, in order.
    pub(super) scopes: Vec<usize>,
    /// Item scopes running now.
    pub(super) active: usize,
    pub(super) succeeded: usize,
    pub(super) failed: usize,
    pub(super) finished: usize,
    /// Loops: the previous iteration's collected values; maps: unused.
    pub(super) previous: Option<Map<String, Value>>,
    /// Loops: body params for the next iteration (carry).
    pub(super) carry: Map<String, Value>,
    /// Maps under `fail_fast` after a failed item: start nothing more.
    pub(super) stopped: bool,
}

/// One node run in one scope instance.
#[derive(Clone, Debug)]
pub(crate) struct Run {
    pub(crate) node: usize,
    pub(crate) scope: usize,
    pub(crate) path: String,
    pub(crate) status: NodeStatus,
    pub(crate) skip_reason: Option<String>,
    pub(crate) started_at: Option<String>,
    pub(crate) finished_at: Option<String>,
    pub(crate) inputs: Option<Map<String, Value>>,
    pub(crate) outputs: Option<Map<String, Value>>,
    pub(crate) attempts: Vec<Attempt>,
    /// Current attempt number (1-based once started).
    pub(crate) attempt: u32,
    /// When the current attempt's call was handed to a worker.
    pub(crate) attempt_started: Option<String>,
    /// A call is outstanding.
    pub(crate) dispatched: bool,
    pub(super) resolved: u32,
    pub(super) active: u32,
    /// The join was met (or the run was an entrypoint): later edges do not re-trigger it.
    pub(super) triggered: bool,
    /// Some active failure edge handled this run's failure.
    pub(super) absorbed: bool,
    pub(crate) decision: Option<String>,
    /// An AWP switch's route: the `order` of the edge it takes (`switch`).
    pub(crate) route: Option<u32>,
    pub(crate) escalated: bool,
    pub(crate) degraded: bool,
    pub(crate) human_events: Vec<HumanEvent>,
    pub(crate) iterations: Option<u64>,
    pub(crate) items: Option<u64>,
    pub(crate) usage: Usage,
    pub(crate) container: Option<Box<Container>>,
    /// How many times a back edge re-armed this node in its scope before this run (0 first).
    pub(crate) pass: u32,
    /// A call is prepared but waits in the ready set for a slot (see `ladder::send`).
    pub(crate) parked: bool,
    /// The last attempt failed on an evaluation limit before its call (its `when`, inputs,
    /// decision branches or switch cases: `launch::limit_failed`): its retry starts over from
    /// `launch`, which evaluates them again.
    pub(crate) relaunch: bool,
    /// The run's own `when` met an evaluation limit: `launch` evaluates it again first.
    pub(crate) guard_pending: bool,
    /// Human checkpoints asked or awaited (boxed: most runs have none).
    pub(crate) human: Option<Box<Asks>>,
    /// Failure-ladder and output-review bookkeeping (boxed: most runs never need it).
    pub(crate) ladder: Option<Box<Ladder>>,
}

impl Run {
    /// A pending run of plan node `node` in scope instance `scope`.
    pub(crate) fn pending(node: usize, scope: usize, path: String) -> Run {
        Run {
            node,
            scope,
            path,
            status: NodeStatus::Pending,
            skip_reason: None,
            started_at: None,
            finished_at: None,
            inputs: None,
            outputs: None,
            attempts: Vec::new(),
            attempt: 0,
            attempt_started: None,
            dispatched: false,
            resolved: 0,
            active: 0,
            triggered: false,
            absorbed: false,
            decision: None,
            route: None,
            escalated: false,
            degraded: false,
            human_events: Vec::new(),
            iterations: None,
            items: None,
            usage: Usage::default(),
            container: None,
            pass: 0,
            parked: false,
            relaunch: false,
            guard_pending: false,
            human: None,
            ladder: None,
        }
    }
}

/// A scope instance: the root graph, one loop iteration, one map item, one subgraph.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    /// Index into `PlanIndex::scope_nodes` (0 = root, `r + 1` = region `r`).
    pub(crate) kind: usize,
    /// The container run that owns this instance.
    pub(crate) owner: Option<RunId>,
    /// Scope-path prefix of the nodes inside (`fix_loop[2].`).
    pub(crate) prefix: String,
    /// First run of this instance; runs of an instance are contiguous, in scope-node order.
    pub(crate) first_run: RunId,
    /// Runs not yet terminal.
    pub(crate) open: usize,
    /// Extra roots: `params` (bodies), `loop`, the map item names.
    pub(crate) vars: Map<String, Value>,
    pub(crate) item: Option<u64>,
    pub(crate) iteration: Option<u64>,
    /// A run failed and nothing absorbed it.
    pub(crate) failed: bool,
    /// A node ended `succeed_degraded`.
    pub(crate) degraded: bool,
    /// Back-edge passes (plans with back edges only).
    pub(crate) passes: Option<Box<Passes>>,
}

impl Scope {
    /// The run of plan node `node` in this instance (when the node belongs to its region):
    /// its latest pass.
    pub(crate) fn run_of(&self, pos: &[usize], node: usize) -> Option<RunId> {
        if let Some(p) = &self.passes
            && let Some(&r) = p.latest.get(&node)
        {
            return Some(r);
        }
        Some(self.first_run.plus(pos[node]))
    }
}
