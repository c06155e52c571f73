//! Target `lsp_change`: see `harness::lsp_change` (fuzz/src/harness.rs) for what it feeds and
//! checks.
//!
//! Run: `fuzz/run.sh SECONDS` (every target), or `cargo +nightly fuzz run lsp_change` from
//! `fuzz/`'s parent folder. Findings are saved under `fuzz/regressions/lsp_change/` and
//! replayed by `tests/fuzz_replay.rs` on stable.
#![no_main]

#[allow(dead_code)] // each target uses one function of the shared harness
#[path = "../src/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::lsp_change(data));
