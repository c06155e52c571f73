//! `lsp-latency [--agc PATH] [--runs N] [SIZES...]`: the time from a change to its diagnostics
//! in `agc lsp`, spoken to as an editor does (JSON-RPC with Content-Length framing over the
//! server's standard input and output).
//!
//! For each size (default 1000 and 10000 nodes) it opens a generated AGS graph
//! ([`agc_bench::generate`]), then edits one node's title N times (default 20), each a ranged
//! change of one line, and times each from the write of the change to the arrival of the
//! `publishDiagnostics` of that version. Prints the median and the slowest. Timings only
//! print: nothing here asserts a time (bench/README.md).

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let mut agc = String::from("target/release/agc");
    let mut runs = 20usize;
    let mut sizes = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--agc" => agc = args.next().unwrap_or(agc),
            "--runs" => runs = args.next().and_then(|r| r.parse().ok()).unwrap_or(runs),
            "-h" | "--help" => {
                println!("usage: lsp-latency [--agc PATH] [--runs N] [SIZES...]");
                return;
            }
            n => match n.parse::<usize>() {
                Ok(n) if n > 0 => sizes.push(n),
                _ => {
                    eprintln!("lsp-latency: unexpected argument `{n}`");
                    std::process::exit(2);
                }
            },
        }
    }
    if sizes.is_empty() {
        sizes = vec![1000, 10000];
    }
    for n in sizes {
        let text = agc_bench::yaml::to_yaml(&agc_bench::generate(n, 1));
        let times = measure(&agc, &text, runs);
        let mut sorted = times.clone();
        sorted.sort();
        println!(
            "{n:>6} nodes ({} KB): change -> diagnostics median {:.1} ms, slowest {:.1} ms ({} changes)",
            text.len() / 1024,
            ms(sorted[sorted.len() / 2]),
            ms(sorted[sorted.len() - 1]),
            sorted.len()
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The latencies of `runs` one-line changes to `text`.
fn measure(agc: &str, text: &str, runs: usize) -> Vec<Duration> {
    let dir = std::env::temp_dir().join(format!("agc-lsp-latency-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    std::fs::write(dir.join(".agc-root"), "").expect("a root marker");
    // Started in the temporary folder: a relative path is taken from here first.
    let agc = std::fs::canonicalize(agc).unwrap_or_else(|_| agc.into());
    let mut child = Command::new(&agc)
        .arg("lsp")
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start `{} lsp`: {e}", agc.display()));
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let uri = format!("file://{}/bench.agraph.yaml", dir.display());
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"processId": null, "rootUri": null, "capabilities": {}}}),
    );
    until(&mut output, |m| m["id"] == 1);
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    );
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}}),
    );
    until(&mut output, |m| published(m, 1));
    // The line of the first title: each change rewrites it.
    let line = text
        .lines()
        .position(|l| l.trim_start().starts_with("title:"))
        .unwrap_or(0);
    let indent = text
        .lines()
        .nth(line)
        .map_or(0, |l| l.len() - l.trim_start().len());
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs {
        let version = i as i32 + 2;
        let change = json!({"range": {"start": {"line": line, "character": 0},
                                      "end": {"line": line + 1, "character": 0}},
                            "text": format!("{}title: Edit {i}\n", " ".repeat(indent))});
        let start = Instant::now();
        send(
            &mut input,
            json!({"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": uri, "version": version},
                       "contentChanges": [change]}}),
        );
        until(&mut output, |m| published(m, version));
        times.push(start.elapsed());
    }
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": null}),
    );
    until(&mut output, |m| m["id"] == 2);
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "method": "exit", "params": null}),
    );
    drop(input);
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    times
}

fn published(m: &Value, version: i32) -> bool {
    m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == version
}

fn send(w: &mut ChildStdin, msg: Value) {
    let body = msg.to_string();
    write!(w, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("agc lsp reads");
    w.flush().expect("agc lsp reads");
}

/// Reads messages until one satisfies `done`.
fn until(r: &mut BufReader<ChildStdout>, done: impl Fn(&Value) -> bool) {
    loop {
        let mut len = 0usize;
        loop {
            let mut header = String::new();
            if r.read_line(&mut header).expect("agc lsp writes") == 0 {
                panic!("agc lsp closed its output");
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some(v) = header.strip_prefix("Content-Length: ") {
                len = v.parse().expect("a length");
            }
        }
        let mut body = vec![0; len];
        r.read_exact(&mut body).expect("a whole message");
        let msg: Value = serde_json::from_slice(&body).expect("JSON");
        if done(&msg) {
            return;
        }
    }
}
