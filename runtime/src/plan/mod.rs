//! The `agc.plan/v5` plan as serde types: the contract between the compiler and everything
//! that runs a plan (the scheduler in this crate, `agc run`, generated runners, other hosts).
//!
//! The compiler writes plans with a streaming writer (`compiler/src/back/plan/`); these types
//! read them back and write them again byte for byte (the line layout of [`layout`], trailing
//! newline, see [`Plan::to_pretty_string`]). A test deserialises every golden plan and
//! compares, so the writer and these types cannot drift. The JSON Schema of the format is
//! `schemas/agc-plan-v1.schema.json` (it covers every format).
//!
//! Formats: `agc.plan/v5` is what the compiler writes (docs/plan-format.md): core expressions
//! in the compact encoding of [`crate::expr::wire`], locations as `"line:column"` strings
//! (`"path:line:column"` outside the plan's own source document), fields at their default
//! left out (`local_id` equal to the id, `origin_kind` equal to the kind, `required: true`,
//! `join` all, one attempt, empty estimates, attributes, inputs and outputs, edge `outcomes`
//! `["succeeded"]`, `implicit: false`), and what runs differently per dialect as typed fields
//! decided by the compiler ([`Semantics`], [`Backoff`], [`OnItemFailure`],
//! [`SubgraphSource`]: `semantics`), so that nothing that runs a plan reads its dialect, and
//! what the runtime runs of a node's dialect fields as typed fields too ([`Failure`],
//! [`HumanCheckpoint`], [`Success`], [`Decision`], [`Gate`], [`Wait`], [`Body`],
//! [`Generations`], [`Routes`]: a node's `failure`, `human`, `success`, `decision`, `gate`,
//! `wait`, `body`, `generations` and `routes`, with their expressions in place, and its
//! `side_effects`), and of the graph's ([`HumanTimeouts`], [`OnNodeFailure`],
//! [`Attachment`], the state schema), so that it reads no attribute JSON and no
//! string-keyed expression. A v5 plan written before the last of these fields (the format
//! was not released between them) is read into them too. `agc.plan/v4` plans (the
//! gate and the wait in `attributes`), `agc.plan/v3` plans (also the others in
//! `attributes` and `exprs`), `agc.plan/v2` plans (no typed semantics) and `agc.plan/v1`
//! plans (also the object forms, every field written) still load: the reader accepts both
//! forms of every changed field, derives the typed semantics from the dialect and reads the
//! attributes into their typed fields (`read`), giving the plan the current format. Any
//! other format tag is refused with an error naming it.
//!
//! Stability: within a format, fields are only ever added (optional, skipped when absent),
//! never renamed or removed. Unknown fields are ignored on read.
//!
//! Ids: nodes are referred to by their scoped id (`repair_loop/run_tests`); [`Plan::index`]
//! builds the lookup tables the scheduler needs.

mod body;
mod calls;
mod criteria;
mod de;
pub(crate) mod decl;
mod failure;
mod features;
mod generations;
mod human;
mod index;
pub mod layout;
mod lists;
mod model;
mod policy;
mod read;
mod semantics;
mod waiting;
pub use body::{Body, OnMaxIterations, OnOverLimit};
pub use calls::HandlerCall;
pub use criteria::{Branch, CriteriaMode, Criterion, CriterionKind, Decision, Evaluator, Success};
pub use failure::{
    DEFAULT_INCLUDE, EscalateTo, Escalation, Failure, FailureClass, Fallback, OnExhausted, RetryOn,
    Strategy, TimeoutAction,
};
pub use generations::{Generations, Route, RouteAction, Routes, Verdict};
pub use human::{CheckpointStage, HumanCheckpoint, HumanMode, HumanTimeouts, OnTimeout};
pub use index::PlanIndex;
pub use model::{
    Bounds, Declared, Edge, EdgeKind, Estimate, Expr, ExprLang, Exprs, FORMAT, FORMATS_READ,
    GraphInfo, GraphOutput, Input, InputSource, Join, Link, Location, LoopMode, Node, NodeKind,
    Outcome, Output, Param, Plan, PlanError, Region, RegionKind, Retry, Source,
};
pub use policy::{
    Attachment, OnNodeFailure, SIDE_EFFECT_PERMISSIONS, has_side_effects, may_have_side_effects,
};
pub use semantics::{
    Backoff, Curve, Decisions, EvalLimits, ExpressionErrors, JqOutputs, LoopRules, Namespace,
    OnItemFailure, Produces, Reducer, Semantics, StateModel, StateUpdates, SubgraphSource, awp_ms,
};
pub use waiting::{Gate, OnReject, Wait};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_v5;
