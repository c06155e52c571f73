//! What a run is given and reports, below the driver and its executor: the options
//! ([`RunOptions`]), progress reports ([`Progress`], [`Observer`]) and why a run could not start
//! ([`RunError`]).

use super::clock::{Clock, IdSource, SystemClock, SystemIds};
use super::journal::JournalError;
use super::record::{Harness, NodeStatus, RunStatus};
use crate::plan::PlanError;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// What the driver reports while running (progress lines, a progress bar).
#[derive(Clone, Debug, PartialEq)]
pub enum Progress {
    /// A call was made (`path` is a checkpoint's name when the call asks one).
    Started {
        path: String,
        attempt: u32,
        resumed: bool,
    },
    /// A node run reached a terminal status (or started waiting for a human). A failed one
    /// says why: its last attempt's error, the failure class and message (`tool_error:
    /// rate limited`), when it has one.
    Finished {
        path: String,
        status: NodeStatus,
        error: Option<String>,
    },
    /// A node run waits for a timer (a retry's backoff, a timed wait, a human's timeout).
    Waiting {
        path: String,
        until: String,
        kind: super::core::TimerKind,
    },
    /// The run ended or paused.
    Run { status: RunStatus },
}

/// Receives [`Progress`] reports (from the driver's task only, one at a time).
pub trait Observer: Send + Sync {
    fn report(&self, progress: &Progress);
}

/// How to run.
#[derive(Clone)]
pub struct RunOptions {
    /// The run id; `None` asks `ids`.
    pub run_id: Option<String>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdSource>,
    /// Deadline for every call whose node sets no `timeout_seconds`.
    pub call_timeout: Option<Duration>,
    /// The graph's `context` values.
    pub context: Map<String, Value>,
    pub harness: Harness,
    pub observer: Option<Arc<dyn Observer>>,
    /// Evaluation limits over the plan's `eval_limits` (each one given replaces the plan's,
    /// which replaces the runtime's default): `agc run --eval-…`. They are this run's alone.
    pub eval_limits: crate::plan::EvalLimits,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            run_id: None,
            clock: Arc::new(SystemClock),
            ids: Arc::new(SystemIds),
            call_timeout: None,
            context: Map::new(),
            harness: Harness::default(),
            observer: None,
            eval_limits: Default::default(),
        }
    }
}

/// Why a run could not be started or resumed (a run that fails is not an error: its record
/// says `failed`).
#[derive(Debug)]
pub enum RunError {
    /// The plan is inconsistent.
    Plan(PlanError),
    /// Params do not fit the plan's declarations (AGS AG301 missing, AG302 wrong).
    Params(Vec<(String, String)>),
    /// The journal could not be read or written.
    Journal(JournalError),
    /// The journal was written for a different graph (AGS RT053).
    DigestMismatch {
        journal: Option<String>,
        plan: Option<String>,
    },
    /// Resuming something that cannot be resumed (empty journal, unknown gate, ...).
    Resume(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Plan(e) => write!(f, "invalid plan: {e}"),
            RunError::Params(errs) => {
                let parts: Vec<String> = errs
                    .iter()
                    .map(|(code, m)| format!("{code}: {m}"))
                    .collect();
                write!(f, "{}", parts.join("; "))
            }
            RunError::Journal(e) => write!(f, "{e}"),
            RunError::DigestMismatch { journal, plan } => write!(
                f,
                "RT053: the journal was written for graph digest {} but the plan has {}; a changed graph cannot be resumed",
                journal.as_deref().unwrap_or("(none)"),
                plan.as_deref().unwrap_or("(none)")
            ),
            RunError::Resume(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for RunError {}

impl From<JournalError> for RunError {
    fn from(e: JournalError) -> Self {
        RunError::Journal(e)
    }
}

impl From<PlanError> for RunError {
    fn from(e: PlanError) -> Self {
        RunError::Plan(e)
    }
}
