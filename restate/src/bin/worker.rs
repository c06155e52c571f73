//! `agc-restate-worker`: serves agc's Restate services (`AgcRun`, `AgcTask`) with the
//! scripted handler of `agc run --script`, for dry runs and tests on Restate.
//!
//! ```text
//! agc-restate-worker [--listen 127.0.0.1:9080] [--script S.json] [--log-dir DIR]
//! ```
//! A run submitted with its own script (`agc run --engine restate --script S.yaml`) uses
//! that script; otherwise `--script` (JSON, `agc.script/v1`) or no script (placeholders).
//! With `--log-dir`, each run's invocations are appended to `DIR/<run id>.jsonl`.
//! Prints `listening on ADDR` once it accepts connections (port 0 picks a free port).

use agc_restate::handlers::Scripted;
use agc_runtime::run::script::Script;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

struct Args {
    listen: SocketAddr,
    script: Option<PathBuf>,
    log_dir: Option<PathBuf>,
}

const USAGE: &str = "usage: agc-restate-worker [--listen ADDR] [--script S.json] [--log-dir DIR]";

fn parse() -> Result<Args, String> {
    let mut args = Args {
        listen: SocketAddr::from(([127, 0, 0, 1], 9080)),
        script: None,
        log_dir: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value\n{USAGE}"));
        match a.as_str() {
            "--listen" => {
                let v = value("--listen")?;
                args.listen = v
                    .parse()
                    .map_err(|e| format!("--listen `{v}`: {e} (want HOST:PORT)"))?;
            }
            "--script" => args.script = Some(value("--script")?.into()),
            "--log-dir" => args.log_dir = Some(value("--log-dir")?.into()),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(args)
}

fn main() {
    let args = match parse() {
        Ok(a) => a,
        Err(m) => {
            eprintln!("{m}");
            std::process::exit(2);
        }
    };
    let script = match &args.script {
        None => Script::default(),
        Some(p) => match std::fs::read_to_string(p)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Script>(&t).map_err(|e| e.to_string()))
        {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: cannot read the script `{}`: {e}", p.display());
                std::process::exit(2);
            }
        },
    };
    if let Some(d) = &args.log_dir
        && let Err(e) = std::fs::create_dir_all(d)
    {
        eprintln!("error: cannot create `{}`: {e}", d.display());
        std::process::exit(2);
    }
    let handlers = Arc::new(Scripted::new(script, args.log_dir.clone()));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            std::process::exit(1);
        }
    };
    let code = runtime.block_on(async move {
        let (listener, addr) = match agc_restate::serve::bind(args.listen).await {
            Ok(x) => x,
            Err(e) => {
                eprintln!("error: cannot listen on {}: {e}", args.listen);
                return 1;
            }
        };
        println!("listening on {addr}");
        use std::io::Write;
        let _ = std::io::stdout().flush();
        match agc_restate::serve::serve(listener, agc_restate::endpoint(handlers)).await {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        }
    });
    std::process::exit(code);
}
