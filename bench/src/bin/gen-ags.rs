//! `gen-ags N [--seed S]`: writes a layered AGS 1.0 graph of N nodes to stdout as YAML.

use std::io::Write as _;
use std::process::ExitCode;

const USAGE: &str = "usage: gen-ags N [--seed S] [--json]\n\
    Writes a valid, layered AGS 1.0 graph of N nodes to stdout (YAML, or JSON with --json).";

fn main() -> ExitCode {
    let mut n: Option<usize> = None;
    let mut seed = 1u64;
    let mut json = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seed" => match args.next().and_then(|s| s.parse().ok()) {
                Some(s) => seed = s,
                None => return usage("--seed needs an unsigned integer"),
            },
            "--json" => json = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ => match a.parse::<usize>() {
                Ok(v) if v > 0 && n.is_none() => n = Some(v),
                _ => return usage(&format!("unexpected argument `{a}`")),
            },
        }
    }
    let Some(n) = n else {
        return usage("missing N");
    };
    let doc = agc_bench::generate(n, seed);
    let text = if json {
        serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
    } else {
        agc_bench::yaml::to_yaml(&doc)
    };
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen-ags: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("gen-ags: {msg}\n{USAGE}");
    ExitCode::from(2)
}
