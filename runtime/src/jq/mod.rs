//! jq evaluation through jaq (`jaq-core` + `jaq-std` + `jaq-json`).
//!
//! AWP documents carry jq programs (switch `when`, `set_state` assignments, input and output
//! mappings); runners evaluate them here and the compiler checks them with the same crates,
//! so both agree on what a program means.
//!
//! [`run_jq`] compiles a filter with jaq's core, standard and JSON definitions, runs it on one
//! input and returns **all** outputs, in order. Errors are values ([`JqError`]), never panics.
//!
//! [`check_filter`] answers "would this compile?" without building a runnable filter: it
//! compiles the program against the *signatures* of the library (collected once per process),
//! which costs microseconds where compiling the library itself costs milliseconds. The
//! compiler checks programs with it.
//!
//! Bounds:
//! - **Nesting**: the filter text is pre-scanned ([`nesting`]) and rejected above
//!   [`nesting::MAX_NESTING`], because jaq's parser and compiler recurse.
//! - **Recursion, memory, time**: every evaluation runs under [`Limits`] (stack used by
//!   recursion, bytes held, wall-clock time), checked by ticks that `instrument` puts into
//!   the program and the library ([`meter`] says where and why that covers every loop). An
//!   exceeded limit is [`JqError::Limit`], never a stack overflow or an out-of-memory abort:
//!   `def f: [f]; f`, `[range(1e9)]`, `last(range(1e18))` and `"x" * 1e10` all end so.
//! - **Outputs**: at most [`MAX_OUTPUTS`] (10,000) outputs are collected; one more is
//!   [`JqError::TooManyOutputs`]. This stops top-level generators that never end, such as
//!   `repeat(1)`, `range(1e18)` or `recurse(. + 1)`.
//! - **Values**: inputs and outputs nested deeper than [`value::MAX_VALUE_DEPTH`] are errors.
//! - `halt`/`halt_error` become [`JqError::Halt`] (jaq's own helper would exit the process).
//! - `input`, `inputs` and `$ENV` are not defined (no input stream, no environment);
//!   `env` and `now` exist but make results depend on the host. `debug` and `stderr` are
//!   silent (jaq routes them to the `log` crate).

/// jaq's core crate, re-exported so the compiler parses with exactly the version runners run.
pub use jaq_core;

mod check;
mod depth;
mod error;
mod instrument;
mod library;
pub mod meter;
mod natives;
pub mod nesting;
mod run;
pub mod value;

pub use check::check_filter;
pub use error::{CompileError, CompileErrorKind, JqError};
pub use library::{definitions, known_filters};
pub use meter::{Exceeded, Limits, MAX_OUTPUTS};
pub use run::{JQ_STACK, JqFilter, on_jq_stack, on_stack, run_jq, run_jq_limited};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod limits_tests;
