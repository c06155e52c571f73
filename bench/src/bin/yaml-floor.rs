//! `yaml-floor FILE [--serde-json]`: the floor under agc's load time — read the file and pull
//! every event out of the YAML parser agc uses (saphyr-parser, with spans), building nothing.
//! With `--serde-json`, instead build a `serde_json::Value` from the file (what a JSON fast
//! path could at best cost, without spans). `bench/scale.sh` times the whole process, as it
//! times agc. Prints a count and the in-process seconds; asserts nothing.

use std::time::Instant;

/// The allocator the `agc` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // The same process settings as the agc binary, so the figures compare.
    agc::memory::tune();
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: yaml-floor FILE [--serde-json]");
        std::process::exit(2);
    };
    let json = args.next().as_deref() == Some("--serde-json");
    let t = Instant::now();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(2);
    });
    if json {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| {
            eprintln!("not JSON: {e}");
            std::process::exit(1);
        });
        let json_s = t.elapsed().as_secs_f64();
        println!(
            "serde_json value ({} top-level keys) in {json_s:.3} s",
            v.as_object().map_or(0, |o| o.len())
        );
        return;
    }
    let mut parser = saphyr_parser::Parser::new_from_str(&text);
    let mut events = 0u64;
    let mut last = 0usize;
    while let Some(ev) = parser.next_event() {
        match ev {
            Ok((_, span)) => {
                events += 1;
                last = last.max(span.end.index());
            }
            Err(e) => {
                eprintln!("syntax error: {e}");
                std::process::exit(1);
            }
        }
    }
    let events_s = t.elapsed().as_secs_f64();
    println!("events {events} (last offset {last}) in {events_s:.3} s");
}
