//! Target `expr_eval`: see `harness::expr_eval` (fuzz/src/harness.rs) for what it feeds and
//! checks.
//!
//! Run: `fuzz/run.sh SECONDS expr_eval`, or `cargo +nightly fuzz run expr_eval` from `fuzz/`'s
//! parent folder. Findings are saved under `fuzz/regressions/expr_eval/` and replayed by
//! `tests/fuzz_replay.rs` on stable.
#![no_main]

#[allow(dead_code)] // each target uses one function of the shared harness
#[path = "../src/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::expr_eval(data));
