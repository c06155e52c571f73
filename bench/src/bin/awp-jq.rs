//! `awp-jq [PROGRAMS]`: the jq-checking figure. Generates an AWP workflow with PROGRAMS jq
//! programs (default 10,000), checks it the way `agc check` does, and prints the time per
//! phase and the programs checked per second; then checks a sample of the programs one by one
//! (`parse_jq`, one jq thread each) for comparison. Prints figures; asserts nothing.

use agc::check::{CheckOptions, check_text};
use agc::source::SourceMap;
use agc::source::scalar::ScalarMap;
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let n: usize = match std::env::args().nth(1) {
        None => 10_000,
        Some(a) => match a.parse() {
            Ok(n) if n >= 2 => n,
            _ => {
                eprintln!(
                    "usage: awp-jq [PROGRAMS]   (PROGRAMS: a whole number, at least 2; default 10000)"
                );
                std::process::exit(2);
            }
        },
    };
    let doc = agc_bench::awp::generate(n, 1);
    let text = serde_json::to_string_pretty(&doc).expect("JSON");
    let mut sources = SourceMap::new();
    let t = Instant::now();
    let diags = check_text(
        &mut sources,
        "jq-scale.workflow.json",
        text.clone(),
        &CheckOptions::default(),
    );
    let total = t.elapsed().as_secs_f64();
    let errors = diags.iter().filter(|d| d.is_error()).count();
    println!(
        "check of a workflow with {n} jq programs ({} KiB): {total:.3} s, {:.0} programs/s, \
{errors} errors, {} warnings",
        text.len() / 1024,
        n as f64 / total,
        diags.len() - errors
    );
    // One by one, as a caller without the batch API would: one jq thread per program.
    let programs: Vec<String> = doc["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|node| {
            let c = &node["config"];
            c.pointer("/assignments/out/jq")
                .or_else(|| c.pointer("/cases/0/when"))
                .and_then(|v| v.as_str())
                .map(str::to_string)
        })
        .take(1000)
        .collect();
    let t = Instant::now();
    for p in &programs {
        let map = ScalarMap::contiguous(agc::source::FileId(0), 0, p.len());
        let _ = agc::expr::jq::parse_jq(p, &map);
    }
    let one = t.elapsed().as_secs_f64();
    println!(
        "parse_jq one by one: {} programs in {one:.3} s, {:.0} programs/s",
        programs.len(),
        programs.len() as f64 / one
    );
    // For scale: running one program compiles it with jaq's whole library (parsed once per
    // process, compiled each time).
    let runs = &programs[..programs.len().min(200)];
    let t = Instant::now();
    for p in runs {
        let _ = agc_runtime::jq::run_jq(p, serde_json::json!({}));
    }
    let run = t.elapsed().as_secs_f64();
    println!(
        "run_jq (compiles the library each time): {} programs in {run:.3} s, {:.0} programs/s",
        runs.len(),
        runs.len() as f64 / run
    );
}
