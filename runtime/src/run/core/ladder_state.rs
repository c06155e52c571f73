//! A node run's failure-ladder bookkeeping ([`Ladder`]): the data of `ladder.rs`, whose
//! `impl State` climbs it. Kept apart so that the state's definition needs no file that
//! implements the state (issue 44: arrows only down).

use crate::run::handler::{HandlerError, Usage};
use crate::run::record::CriteriaResults;
use serde_json::{Map, Value};

/// Outputs of a completed call on their way through review and criteria.
#[derive(Clone, Debug)]
pub(crate) struct Candidate {
    pub(crate) outputs: Map<String, Value>,
    pub(crate) usage: Usage,
}

/// Where a node run is on its ladder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Its own attempts.
    #[default]
    Attempts,
    /// Fallback step `n` is being carried out.
    Fallback(usize),
    /// The escalation's node makes its call.
    EscalationNode,
}

/// A node run's ladder bookkeeping.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ladder {
    pub(crate) candidate: Option<Candidate>,
    /// The last completed call's outputs, and whether they fit the declarations.
    pub(crate) last_outputs: Option<Map<String, Value>>,
    pub(crate) last_fit: bool,
    /// The failure being handled.
    pub(crate) failure: Option<HandlerError>,
    pub(crate) phase: Phase,
    /// Another node's call made as this run's attempt: (plan node, its inputs).
    pub(crate) call: Option<(usize, Map<String, Value>)>,
    pub(crate) escalation_done: bool,
    /// A declared `on_escalation` checkpoint was asked.
    pub(crate) escalation_asked: bool,
    pub(crate) fallback_used: Option<String>,
    /// The current attempt's criteria results (recorded when it closes).
    pub(crate) success: Option<CriteriaResults>,
    /// When the current attempt's call returned (its `finished_at`).
    pub(crate) returned_at: Option<String>,
    /// Why the last criteria evaluation failed (escalation `include`).
    pub(crate) failed_criteria: Vec<String>,
}
