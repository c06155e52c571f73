//! AGS `policy.on_expression_error` (ags.md §2.6): what an expression error at run time does.
//!
//! - `fail`, the spec's default: the error is run-fatal. It is recorded as RT062 (an error)
//!   and the run stops as failed before anything else starts ([`State::pump`] checks the flag
//!   this sets first thing), so the rest of the step that met the error finishes with the
//!   error's reading below, but nothing it made ready runs.
//! - `false`: the expression yields its safe reading and RT062 is a warning. The reading
//!   depends on the site: an edge guard or a branch condition counts as false, a checkpoint's
//!   `when` as true (a human check is never dropped by an error), a `collect` is null, a
//!   fallback step is skipped, a prompt is left unrendered.
//!
//! The other dialects define no such policy: their expression errors keep the `false`
//! reading (their own codes and statuses are unchanged).

use super::RunId;
use super::State;
use crate::plan::ExpressionErrors;
use std::fmt::Display;

impl State {
    /// Whether an expression error stops the run (AGS, unless `policy.on_expression_error`
    /// is `false`).
    fn expression_errors_stop_the_run(&self) -> bool {
        self.plan.semantics.expression_errors == ExpressionErrors::Stop
    }

    /// Records that `what` failed with `err` at run `r` (RT062): a warning that says the
    /// caller's `reading` (empty: none to say), or, where the policy says so, an error that
    /// stops the run at the end of this step. The caller goes on with its reading either way.
    pub(super) fn expression_failed(
        &mut self,
        r: Option<RunId>,
        what: &str,
        reading: &str,
        err: &dyn Display,
    ) {
        if self.expression_errors_stop_the_run() {
            self.diag(
                "RT062",
                "error",
                format!(
                    "{what}: {err}; policy.on_expression_error is `fail` (the default), so the run stops"
                ),
                r,
            );
            self.expression_error_stops = true;
        } else if reading.is_empty() {
            self.diag("RT062", "warning", format!("{what}: {err}"), r);
        } else {
            self.diag(
                "RT062",
                "warning",
                format!("{what} and {reading}: {err}"),
                r,
            );
        }
    }
}

impl State {
    /// A loop's `while`/`until` failed: RT062, an error in every case (no reading is safe:
    /// false would end a `while` loop and run an `until` loop to its cap); the loop fails, and
    /// under `fail` the run stops too.
    pub(super) fn loop_condition_failed(&mut self, r: RunId, err: &dyn Display) {
        self.diag(
            "RT062",
            "error",
            format!("the loop condition failed: {err}"),
            Some(r),
        );
        if self.expression_errors_stop_the_run() {
            self.expression_error_stops = true;
        }
    }
}
