//! `gen-dialect agent-graph|agh|ags-composite|ags-wide|agh-wide|awp-wide|ags-chain|ags-chain-script|
//! ags-map|ags-map-script|ags-map-params N [--seed S]`: writes a layered Agent Graph v1 graph,
//! agh.loop/v1 Loop, AGS graph of composite nodes, a wide AGS, agh or AWP document, a chain of
//! AGS tasks and its run script, of N nodes, or a map over a params array of N items with its
//! script and params, to stdout as YAML (the params as JSON; see `agc_bench::dialects`,
//! `agc_bench::composite` and `agc_bench::shapes`).

use std::io::Write as _;
use std::process::ExitCode;

const USAGE: &str = "usage: gen-dialect agent-graph|agh|ags-composite|ags-wide|agh-wide|awp-wide|ags-chain|ags-chain-script|ags-map|ags-map-script|ags-map-params N [--seed S]\n\
    Writes a valid, layered Agent Graph v1 graph, agh.loop/v1 Loop or AGS graph of loops, maps\n\
    and subgraphs, or a wide AGS graph (one node's outputs read by all, one node reading all),\n\
    agh Loop (one node fed and read by all) or AWP workflow (a parallel whose branches share a\n\
    tail), or a chain of AGS tasks (ags-chain) and its run script (ags-chain-script), of N\n\
    nodes, to stdout (YAML); or an AGS map over a params array of N items (ags-map), its run\n\
    script (ags-map-script) and params (ags-map-params, JSON).";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dialect, n) = match (
        args.first(),
        args.get(1).and_then(|a| a.parse::<usize>().ok()),
    ) {
        (Some(d), Some(n)) if n > 0 => (d.as_str(), n),
        _ => return usage(),
    };
    let seed = match args.get(2..).unwrap_or_default() {
        [] => 1,
        [flag, s] if flag == "--seed" => match s.parse() {
            Ok(s) => s,
            Err(_) => return usage(),
        },
        _ => return usage(),
    };
    let doc = match dialect {
        "agent-graph" => agc_bench::dialects::agent_graph(n, seed),
        "agh" => agc_bench::dialects::agh(n, seed),
        "ags-composite" => agc_bench::composite::ags_composite(n, seed),
        "ags-wide" => agc_bench::composite::ags_wide(n),
        "agh-wide" => agc_bench::shapes::agh_wide(n),
        "awp-wide" => agc_bench::shapes::awp_wide(n),
        "ags-chain" => agc_bench::shapes::ags_chain(n),
        "ags-chain-script" => agc_bench::shapes::ags_chain_script(n),
        "ags-map" => agc_bench::shapes::ags_map(n),
        "ags-map-script" => agc_bench::shapes::ags_map_script(),
        "ags-map-params" => {
            // JSON, for `agc run --params`.
            let text = format!("{}\n", agc_bench::shapes::ags_map_params(n));
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            return ExitCode::SUCCESS;
        }
        _ => return usage(),
    };
    let text = agc_bench::yaml::to_yaml(&doc);
    if std::io::stdout().lock().write_all(text.as_bytes()).is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(2)
}
