//! A node run's human questions ([`Asks`], [`Ask`], the [`Stage`] they are asked at) and the
//! names of a node's checkpoints: the data of `human.rs`, whose `impl State` asks, waits and
//! records. Kept apart so that the state's definition needs no file that implements the state
//! (issue 44: arrows only down).

use crate::run::handler::Checkpoint;
use serde_json::{Map, Value};

/// Where in a node's execution a checkpoint is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    BeforeStart,
    BeforeSideEffects,
    AfterOutputs,
    OnCriteriaFailure,
    OnFailure,
    OnEscalation,
    /// A fallback `human_takeover` step (not a checkpoint stage of AGS; recorded under this
    /// name).
    Takeover,
}

impl Stage {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Stage::BeforeStart => "before_start",
            Stage::BeforeSideEffects => "before_side_effects",
            Stage::AfterOutputs => "after_outputs",
            Stage::OnCriteriaFailure => "on_criteria_failure",
            Stage::OnFailure => "on_failure",
            Stage::OnEscalation => "on_escalation",
            Stage::Takeover => "human_takeover",
        }
    }

    /// Stages whose checkpoints see the outputs under review as `self.outputs`.
    pub(super) fn sees_candidate(self) -> bool {
        matches!(self, Stage::AfterOutputs | Stage::OnCriteriaFailure)
    }
}

/// A question outstanding (or awaited) for one node run.
#[derive(Clone, Debug)]
pub(crate) struct Ask {
    /// What the handler is asked (and what the decision names).
    pub(crate) cp: Checkpoint,
    pub(crate) stage: Stage,
    /// Index in the node's `human` list; `None` for a hand-off.
    pub(crate) index: Option<usize>,
    /// A takeover's fallback step.
    pub(crate) step: usize,
    /// The attempt the question belongs to (the call carries it).
    pub(crate) attempt: u32,
}

/// A node run's checkpoint bookkeeping.
#[derive(Clone, Debug, Default)]
pub(crate) struct Asks {
    pub(crate) ask: Option<Ask>,
    /// Times each id was asked in this run (later names get `#n`; see [`Asks::count`]).
    asked: Vec<(String, u32)>,
    /// `before_start` is behind the run.
    pub(crate) started: bool,
    /// The attempt number whose `before_side_effects` checkpoints were passed.
    pub(crate) cleared: u32,
}

impl Asks {
    /// Counts one more asking of checkpoint `id` in this run: how many times it was asked
    /// before (0 the first time).
    pub(crate) fn count(&mut self, id: &str) -> u32 {
        match self.asked.iter_mut().find(|(k, _)| k == id) {
            Some((_, n)) => {
                *n += 1;
                *n - 1
            }
            None => {
                self.asked.push((id.to_string(), 1));
                0
            }
        }
    }
}

/// The parts of a hand-off question that are not a declared checkpoint's.
#[derive(Default)]
pub(crate) struct HandOff {
    pub(crate) prompt: Option<String>,
    pub(crate) escalate_to: Option<String>,
    pub(crate) roles: Vec<String>,
    pub(crate) include: Map<String, Value>,
}

/// The ids of a node's declared checkpoints, in order: each one's `id`, else its stage
/// (`at`); `_<index>` appended when an earlier one has the same. The ladder's hand-offs are
/// `escalation` and `takeover`.
pub fn checkpoint_ids(node: &crate::plan::Node) -> Vec<String> {
    let list = node.human.as_deref().unwrap_or_default();
    list.iter()
        .enumerate()
        .map(|(i, h)| {
            let id = h.written_id();
            if list[..i].iter().any(|e| e.written_id() == id) {
                format!("{id}_{i}")
            } else {
                id.to_string()
            }
        })
        .collect()
}
