//! Target `jq_eval`: see `harness::jq_eval` (fuzz/src/harness.rs) for what it feeds and checks.
//!
//! Run: `fuzz/run.sh SECONDS jq_eval`, or `cargo +nightly fuzz run jq_eval` from `fuzz/`'s
//! parent folder. Findings are saved under `fuzz/regressions/jq_eval/` and replayed by
//! `tests/fuzz_replay.rs` on stable.
#![no_main]

#[allow(dead_code)] // each target uses one function of the shared harness
#[path = "../src/harness.rs"]
mod harness;

/// Counts the bytes each thread holds, as agc's binary does, so the memory limit applies.
#[global_allocator]
static GLOBAL: agc_runtime::held::Counting<std::alloc::System> =
    agc_runtime::held::Counting(std::alloc::System);

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::jq_eval(data));
