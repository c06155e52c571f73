//! Upstream AWP parity vectors for input from outside, run in place from the corpus
//! (`../shared/corpus/awp/conformance/vectors/parity/`): `r2-interrupt-resume` (an interrupt
//! on the lighthouse workflow), `r2-linear-complete` (its technical path) and `r4-signal-wait`,
//! each started with the vector's input. Each vector starts a run that stops at a
//! node (`interrupted` / `awaiting_signal` upstream: `awaiting_human` here, exit 4), then
//! resumes it with a payload and expects a result. agc's scripts stand in for the vector's
//! stubs; the payload is the script's answer for the waiting node, so the second run goes
//! through (`--decide` carries no payload yet).

mod common;

use common::TempDir;
use serde_json::{Map, Value, json};
use std::path::Path;

const AWP: &str = "../shared/corpus/awp";

fn tmp(name: &str) -> TempDir {
    TempDir::new(&format!("agc-awp-parity-{name}-"))
}

fn vector(name: &str) -> Option<Value> {
    let path = Path::new(AWP).join("conformance/vectors/parity").join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(serde_json::from_str(&text).unwrap()),
        Err(_) => {
            println!("note: {} is absent; skipped", path.display());
            None
        }
    }
}

/// Runs the vector's workflow with `nodes` as the script and the `start` step's `input` as
/// the params (the run's input: upstream's initial state); returns (exit status, record).
fn run(v: &Value, dir: &Path, nodes: Map<String, Value>) -> (i32, Value) {
    let workflow = Path::new(AWP).join(v["definition"].as_str().unwrap());
    let script = dir.join("script.json");
    let script_doc = json!({"format": "agc.script/v1", "nodes": nodes});
    std::fs::write(&script, script_doc.to_string()).unwrap();
    let record = dir.join("record.json");
    let mut args = vec![
        "agc".to_string(),
        "run".into(),
        workflow.display().to_string(),
        "--script".into(),
        script.display().to_string(),
        "--fixed-clock".into(),
        "-q".into(),
        "--record".into(),
        record.display().to_string(),
    ];
    if let Some(input) = step(v, "start").get("input") {
        let params = dir.join("params.json");
        std::fs::write(&params, input.to_string()).unwrap();
        args.extend(["--params".into(), params.display().to_string()]);
    }
    let code = agc::cli::run(args);
    let text = std::fs::read_to_string(&record).unwrap();
    (code, serde_json::from_str(&text).unwrap())
}

/// The vector's stubbed activity outputs as script entries.
fn stubs(v: &Value) -> Map<String, Value> {
    v.get("stubActivityOutputs")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, o)| (k.clone(), json!({"outputs": o})))
        .collect()
}

fn step<'v>(v: &'v Value, op: &str) -> &'v Value {
    v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["op"] == op)
        .unwrap()
}

fn node<'r>(record: &'r Value, id: &str) -> &'r Value {
    record["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node_id"] == id)
        .unwrap()
}

#[test]
fn an_interrupt_stops_the_run_and_its_resume_payload_overwrites_the_state() {
    let Some(v) = vector("r2-interrupt-resume.vector.json") else {
        return;
    };
    let dir = tmp("interrupt");
    let start = &step(&v, "start")["expect"];
    assert_eq!(start["status"], "interrupted");
    let waiting = start["node_id"].as_str().unwrap();
    let (code, rec) = run(&v, &dir, stubs(&v));
    assert_eq!(code, 4, "the run stops at the interrupt");
    assert_eq!(rec["status"], "awaiting_human");
    assert_eq!(node(&rec, waiting)["status"], "awaiting_human");

    let resume = step(&v, "resume");
    let mut nodes = stubs(&v);
    nodes.insert(
        waiting.into(),
        json!({"decision": "approved", "outputs": resume["resumePayload"]}),
    );
    let (code, rec) = run(&v, &dir, nodes);
    assert_eq!(resume["expect"]["status"], "completed");
    assert_eq!(code, 0, "{rec:#}");
    assert_eq!(rec["status"], "succeeded");
    // `intent` overwritten by the payload, `confidence` kept from the classification.
    assert_eq!(rec["outputs"], resume["expect"]["result"]);
    assert_eq!(node(&rec, waiting)["outputs"], resume["resumePayload"]);
}

/// The technical path completes in one start, with the ticket's text as input.
#[test]
fn the_linear_path_completes_with_its_input() {
    let Some(v) = vector("r2-linear-complete.vector.json") else {
        return;
    };
    let dir = tmp("linear");
    assert!(step(&v, "start")["input"].is_object());
    let (code, rec) = run(&v, &dir, stubs(&v));
    assert_eq!(step(&v, "start")["expect"]["status"], "completed");
    assert_eq!(code, 0, "{rec:#}");
    assert_eq!(rec["status"], "succeeded");
    assert_eq!(&rec["params"], &step(&v, "start")["input"]);
}

#[test]
fn a_signal_wait_stops_the_run_and_its_payload_reaches_the_state() {
    let Some(v) = vector("r4-signal-wait.vector.json") else {
        return;
    };
    let dir = tmp("signal");
    let start = &step(&v, "start")["expect"];
    assert_eq!(start["status"], "awaiting_signal");
    let waiting = start["node_id"].as_str().unwrap();
    let (code, rec) = run(&v, &dir, stubs(&v));
    assert_eq!(code, 4, "the run stops at the signal wait");
    let wait = node(&rec, waiting);
    assert_eq!(wait["status"], "awaiting_human");
    assert_eq!(wait["x-signal"], start["signal_name"]);

    let signal = step(&v, "signal");
    assert_eq!(signal["signalName"], start["signal_name"]);
    let mut nodes = stubs(&v);
    nodes.insert(waiting.into(), json!({"outputs": signal["payload"]}));
    let (code, rec) = run(&v, &dir, nodes);
    assert_eq!(code, 0, "{rec:#}");
    assert_eq!(rec["status"], "succeeded");
    // The result is a string (`output_mapping: .approved_by`): the run's `outputs` are an
    // object, so a result that is not one is its `result` (and the `end` node's `output`).
    assert_eq!(
        rec["outputs"],
        json!({"result": signal["expect"]["result"]})
    );
    assert_eq!(
        node(&rec, "end")["outputs"]["output"],
        signal["expect"]["result"]
    );
}
