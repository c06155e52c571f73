//! Events: the scheduler's inputs, and the journal's lines.
//!
//! Everything that changes a run's state from outside the pure core is an [`Event`]: the run
//! starting (with its params and the clock's time), a call being issued, a call's result, a
//! human's decision, a resume, a timer falling due. The core is deterministic, so replaying the journal's events
//! through [`super::core::State::step`] rebuilds the state exactly.

use super::handler::{Completion, GateOutcome, GateResponse, HandlerError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One state change, stamped with the injected clock's time (`at`, RFC 3339 UTC).
///
/// A field the event does not have is refused when read (`deny_unknown_fields`): in a
/// journal it means a damaged line (a field name changed), which must not be read as an
/// event with that field absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// The run begins. Always the journal's first line.
    Started {
        run_id: String,
        graph_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        graph_digest: Option<String>,
        params: Map<String, Value>,
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        context: Map<String, Value>,
        at: String,
    },
    /// The driver handed a call to a worker.
    CallStarted {
        path: String,
        attempt: u32,
        at: String,
    },
    /// A call returned (or timed out).
    CallFinished {
        path: String,
        attempt: u32,
        result: CallResult,
        at: String,
    },
    /// A human decided a gate that was awaiting one.
    Decided {
        path: String,
        response: GateResponse,
        at: String,
    },
    /// The run was resumed from its journal; calls in flight are issued again (and timers
    /// still pending are handed to the driver again).
    Resumed { at: String },
    /// A timer the core asked for ([`super::core::Command::Timer`]) fell due. A timer the
    /// core no longer waits on (cancelled, or already fired) is ignored, so a driver that
    /// cannot cancel a timer may still deliver it.
    TimerFired { id: u64, path: String, at: String },
    /// Handling the event before met an evaluation limit (AGC043) in the run's `seq`-th jq
    /// evaluation (counted from its start; `time`: the time limit). A replay reads the
    /// outcome here instead of evaluating again, which could decide otherwise: on another
    /// machine's speed, or under the limits given at resume (`run::core` `limits`). The
    /// core changes nothing when it steps this event.
    LimitMet {
        seq: u64,
        message: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        time: bool,
        at: String,
    },
}

impl Event {
    /// The event's timestamp.
    pub fn at(&self) -> &str {
        match self {
            Event::Started { at, .. }
            | Event::CallStarted { at, .. }
            | Event::CallFinished { at, .. }
            | Event::Decided { at, .. }
            | Event::Resumed { at }
            | Event::TimerFired { at, .. }
            | Event::LimitMet { at, .. } => at,
        }
    }
}

/// A call's result as journaled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case", deny_unknown_fields)]
pub enum CallResult {
    /// A task or decision succeeded (outputs not yet checked; the core checks them).
    Completed(Completion),
    /// A gate answered (or asked to wait).
    Gate(GateResponse),
    /// The handler failed.
    Failed(HandlerError),
    /// The deadline passed before the handler returned.
    TimedOut { seconds: f64 },
}

/// A gate decision supplied from outside (`agc run --resume D --decide GATE=approved`).
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The gate's scope path (`approve_release`, `pages[1].review`) or plan id.
    pub gate: String,
    pub outcome: GateOutcome,
}

/// A human's answer supplied from outside, with what a [`Decision`] cannot carry: the values
/// of a `review`/`input` checkpoint, a hand-off (`takeover`, `escalation`) or a gate's
/// `collect`, and who answered and why. Build one with [`HumanAnswer::new`] (fields may be
/// added, so it is not built literally) and resume with [`super::resume_answering`].
///
/// The answer goes through the same checks as a handler's: an approved `input` checkpoint's
/// values against its `collect`, then (merged over the outputs under review, or the last
/// call's at a hand-off) against the node's declared outputs. A local resume refuses an answer
/// that would not fit before anything is journaled (the run stays paused); see `docs/run.md`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HumanAnswer {
    /// What the answer names: a gate's scope path (or plan id, or local id when one
    /// instance awaits), or a checkpoint's name (`NODE.CHECKPOINT`).
    pub name: String,
    pub outcome: GateOutcome,
    /// Values merged into the outputs (empty: none).
    pub outputs: Map<String, Value>,
    pub actor: Option<String>,
    pub note: Option<String>,
}

impl HumanAnswer {
    /// An answer with an outcome only, like a [`Decision`].
    pub fn new(name: impl Into<String>, outcome: GateOutcome) -> HumanAnswer {
        HumanAnswer {
            name: name.into(),
            outcome,
            outputs: Map::new(),
            actor: None,
            note: None,
        }
    }

    /// With values for the outputs (replacing any given before).
    pub fn with_outputs(mut self, outputs: Map<String, Value>) -> HumanAnswer {
        self.outputs = outputs;
        self
    }

    /// Who answered (the record's `actor`).
    pub fn by(mut self, actor: impl Into<String>) -> HumanAnswer {
        self.actor = Some(actor.into());
        self
    }

    /// Why (the record's `note`).
    pub fn with_note(mut self, note: impl Into<String>) -> HumanAnswer {
        self.note = Some(note.into());
        self
    }

    /// What the core is given ([`Event::Decided`]).
    pub fn response(&self) -> GateResponse {
        GateResponse {
            outcome: Some(self.outcome),
            outputs: self.outputs.clone(),
            actor: self.actor.clone(),
            note: self.note.clone(),
        }
    }
}

impl From<&Decision> for HumanAnswer {
    fn from(d: &Decision) -> HumanAnswer {
        HumanAnswer::new(d.gate.clone(), d.outcome)
    }
}
