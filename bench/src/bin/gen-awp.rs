//! `gen-awp PROGRAMS [SEED]`: prints an AWP workflow definition (JSON) with that many jq
//! programs (see `agc_bench::awp::generate`).

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(n) = args.next().and_then(|a| a.parse::<usize>().ok()) else {
        eprintln!("usage: gen-awp PROGRAMS [SEED]");
        std::process::exit(2);
    };
    let seed = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let doc = agc_bench::awp::generate(n, seed);
    println!("{}", serde_json::to_string_pretty(&doc).expect("JSON"));
}
