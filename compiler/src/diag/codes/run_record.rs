//! AGS runtime codes (`RTnnn`, ags.md "Runtime RT codes") that `agc run` writes into the run
//! record's `diagnostics`, so that `agc explain RT033` answers what a run reported. RT051 and
//! RT052 are in `ags.rs`, as are AG301 and AG302 (a run's params): agc reports those when
//! compiling too.
//!
//! The severity given is the usual one; where a code is a warning in one case and an error in
//! another, the explanation says which. Codes of the spec that agc's runtime never emits
//! (RT011–RT014, RT022) are not registered: a harness that reports them explains them.

use super::CodeInfo;
use super::ags::ags as rt;
use crate::diag::Severity::{Error, Warning};

pub(super) static CODES: &[CodeInfo] = &[
    rt(
        "RT015",
        Warning,
        "a human checkpoint could not be presented",
        "The handler asked to present a human checkpoint failed to answer it (an error, a \
timeout, or an answer of the wrong kind). The checkpoint counts as unanswered: a required one \
keeps the node `awaiting_human`, so the run pauses (exit 4) and waits for a decision on resume \
(`agc run --resume DIR --decide ...`); a broken channel never skips a human check. Fix the \
handler (with `agc run --script`, the script's `checkpoints` answers).",
    ),
    rt(
        "RT021",
        Error,
        "a loop reached `max_iterations`",
        "The loop's `until`/`while` did not end it within `max_iterations`. What happens is the \
loop's `on_max_iterations`: `fail` (the default; an error, the loop node fails), `succeed` (a \
warning; the loop succeeds with what it collected) or `escalate` (its escalation decides). A \
`repeat` loop, which runs a fixed number of times, never reports it. Raise the bound, or make \
the condition reachable: `agc check` cannot tell whether it ever holds.",
    ),
    rt(
        "RT025",
        Error,
        "`map.over` is not an array",
        "The map's `over` gave a value that is not an array (the message names its kind), or \
could not be evaluated; the map node fails and no item runs. `agc check` reports a statically \
known non-array `over`; this one came from a value typed `any`/`json`, or a param or output \
whose value did not match what was declared. Declare the source as an `array` so both the \
check and the run-time input check catch it earlier.",
    ),
    rt(
        "RT026",
        Error,
        "a map got more items than `max_items`",
        "`map.over` gave more items than the map's `max_items`. With `on_over_limit: fail` (the \
default) this is an error and the map fails before any item runs; with `truncate` it is a \
warning and only the first `max_items` items run, in order. The message gives both counts.",
    ),
    rt(
        "RT031",
        Error,
        "a value does not have its declared type",
        "A node's output (or an input, a human's edited outputs, a signal's payload) does not \
have the `type` declared for it: the message says which type was expected and what came. The \
attempt fails (and may be retried under the node's `failure.retry`). With `agc run --script`, \
fix the script's `outputs`; with a real handler, what it returns.",
    ),
    rt(
        "RT032",
        Error,
        "a value does not match its declared `enum` or `schema`",
        "The value has the right type but is not one of the declared `enum` values, or does not \
validate against the declared JSON `schema` (the message gives the first failing location). \
The attempt fails, as for RT031. A declared schema that cannot be compiled is reported the \
same way; `agc check` validates declared schemas, so that only happens with plans edited by \
hand.",
    ),
    rt(
        "RT033",
        Error,
        "a required input or output has no value",
        "A required input could not be resolved when the node started (its source was skipped, \
failed or produced nothing), or the node finished without a required output (also a \
`collect` of a human checkpoint). A missing input fails the node before it starts; a missing output fails the \
attempt. Mark the port `required: false` (optionally with a `default`) when its absence is \
expected, or fix what should have produced it.",
    ),
    rt(
        "RT041",
        Warning,
        "a required graph output is unbound",
        "At the end of the run a required graph output had no value: the node its `from` names \
did not run (skipped by a guard, an inactive branch) or did not produce that output. The run \
ends `partial` instead of `succeeded`, and the output is left out of the record's `outputs`. \
Mark the graph output `required: false` when a branch legitimately skips its producer.",
    ),
    rt(
        "RT042",
        Warning,
        "a node succeeded degraded",
        "The node failed, and a failure ladder step (`fallback` with `degrade_outputs`, or \
`on_exhausted: succeed_degraded`) let it succeed with the outputs the message lists. Its \
successors run on those values. Look at the node's attempts in the record for the failure \
itself.",
    ),
    rt(
        "RT053",
        Error,
        "the journal to resume belongs to another graph",
        "`agc run --resume DIR` found a journal written for a graph whose `graph_digest` differs \
from the plan's: the document changed since the run paused or crashed. A changed graph cannot \
continue a run (node ids, edges and bounds may no longer mean what the journal recorded). Start \
a new run, or restore the document the run was started with. agc reports it as AGC303.",
    ),
    rt(
        "RT061",
        Error,
        "a global constraint was exceeded",
        "The run went over one of the graph's `constraints`: `max_node_executions`, \
`max_cost_usd` (from the usage handlers report) or `max_wall_clock_seconds`. The run stops as \
failed: nothing more starts and every open node run is cancelled (the message says which bound \
and by how much). `agc check` projects worst cases statically (AGC09x); raise the bound or \
tighten the loops and maps that drive it.",
    ),
    rt(
        "RT062",
        Warning,
        "an expression failed at run time",
        "A condition, guard, template or `collect` expression raised an error while the run \
evaluated it (a null where a number was needed, a missing field of a value typed `object`, a \
division by zero). The spec's `on_expression_error: false` applies: an edge guard or branch \
condition counts as false, a checkpoint's `when` counts as true (a human check is never \
dropped by an error), a `collect` is null; each is a warning. It is an error that fails the \
node where no safe reading exists: a loop condition, or a decision with no branch holding and \
no `default_branch`. The message quotes the expression and the error.",
    ),
];
