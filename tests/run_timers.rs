//! `agc run` and timers on the local engine. A gate's timeout (`gate-timeout`:
//! `timeout_seconds: 3`, `on_timeout: approve`, nobody answers):
//! - under `--fixed-clock` nobody can answer in virtual time: the timeout fires at once, three
//!   virtual seconds later, and the progress lines say what the gate waits for;
//! - with the system clock the run pauses (exit 4) and is not watched: a resume before the
//!   timeout pauses again and may still decide; after it, a `--decide` is refused and a plain
//!   resume applies the timeout;
//! - the same for a human checkpoint's timeout (`on_timeout: fail`), decided by its name;
//! - with the system clock a retry's backoff that ends while another call runs starts the
//!   retry then;
//! - compensation nodes check clean (they read what they undo and need no incoming edge).

mod common;

use common::TempDir;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const GRAPH: &str = "tests/golden/runs/graphs/gate-timeout.agraph.yaml";
const SCRIPT: &str = "tests/golden/runs/scripts/gate-timeout.script.yaml";

fn agc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("agc runs")
}

/// A run folder that does not exist yet: `agc run` creates it.
fn tmp(name: &str) -> TempDir {
    TempDir::new(&format!("agc-timers-{name}-")).not_created("run")
}

fn record(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("record.json")).unwrap()).unwrap()
}

fn gate(rec: &Value) -> &Value {
    rec["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node_id"] == "sign_off")
        .expect("the gate's run")
}

#[test]
fn a_fixed_clock_lets_the_timeout_fire_at_once() {
    let dir = tmp("fixed");
    let d = dir.display().to_string();
    let started = Instant::now();
    let o = agc(&[
        "run",
        GRAPH,
        "--script",
        SCRIPT,
        "--fixed-clock",
        "--run-dir",
        &d,
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(started.elapsed() < Duration::from_secs(3), "nothing slept");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("waiting  sign_off until 2026-01-01T00:00:07Z (the human's timeout)"),
        "{err}"
    );
    let rec = record(&dir);
    let g = gate(&rec);
    assert_eq!(g["decision"], "approved");
    assert_eq!(g["human_events"][0]["outcome"], "timed_out");
    assert_eq!(g["finished_at"], "2026-01-01T00:00:07Z");
    assert_eq!(rec["status"], "succeeded");
}

#[test]
fn a_paused_run_applies_its_timeout_when_resumed_after_it() {
    let dir = tmp("late");
    let d = dir.display().to_string();
    let o = agc(&["run", GRAPH, "--script", SCRIPT, "-q", "--run-dir", &d]);
    // The gate's three seconds started before this.
    let paused_at = Instant::now();
    assert_eq!(o.status.code(), Some(4), "the run pauses at the gate");
    assert_eq!(gate(&record(&dir))["status"], "awaiting_human");
    // Too early: the timeout is not due, so the run pauses again.
    if paused_at.elapsed() < Duration::from_secs(2) {
        let o = agc(&["run", "--resume", &d, "-q"]);
        assert_eq!(o.status.code(), Some(4), "still paused before the timeout");
    }
    std::thread::sleep(Duration::from_secs(3).saturating_sub(paused_at.elapsed()));
    // Too late: the timeout fell due while nobody watched; a decision is refused.
    let o = agc(&["run", "--resume", &d, "--decide", "sign_off=rejected", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("gate `sign_off` timed out at"), "{err}");
    let o = agc(&["run", "--resume", &d, "-q"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rec = record(&dir);
    let g = gate(&rec);
    assert_eq!(g["decision"], "approved");
    assert_eq!(g["human_events"][0]["outcome"], "timed_out");
    assert_eq!(rec["status"], "succeeded");
}

#[test]
fn a_decision_before_the_timeout_wins() {
    let dir = tmp("early");
    let d = dir.display().to_string();
    let o = agc(&["run", GRAPH, "--script", SCRIPT, "-q", "--run-dir", &d]);
    assert_eq!(o.status.code(), Some(4));
    let o = agc(&["run", "--resume", &d, "--decide", "sign_off=rejected", "-q"]);
    assert_eq!(o.status.code(), Some(1), "the human rejected it in time");
    let rec = record(&dir);
    let g = gate(&rec);
    assert_eq!(g["human_events"].as_array().unwrap().len(), 1);
    assert_eq!(g["human_events"][0]["outcome"], "rejected");
}

const CHECKPOINT_GRAPH: &str = r#"ags_version: "1.0"
kind: AgenticGraph
id: agc-tests/checkpoint-timeout
title: An upload that needs a confirmation within three seconds
version: 0.1.0
requires_conformance: 3
objective: A checkpoint whose timeout fails the node when nobody confirms in time.
constraints: { max_cost_usd: 1.0 }
entrypoints: [publish]
nodes:
  publish:
    type: task
    title: Publish
    description: Uploads the release.
    human:
      - id: pre_upload
        at: before_side_effects
        mode: approve
        timeout_seconds: 3
        on_timeout: fail
"#;

/// A checkpoint's timeout on a paused run, with the system clock: a decision in time wins; a
/// decision after it is refused, and a plain resume applies `on_timeout: fail` (the node
/// fails without making its call).
#[test]
fn a_checkpoint_timeout_applies_on_resume_and_refuses_a_late_decision() {
    let dir = tmp("checkpoint");
    std::fs::create_dir_all(&dir).unwrap();
    let graph = dir.join("g.agraph.yaml");
    std::fs::write(&graph, CHECKPOINT_GRAPH).unwrap();
    let script = dir.join("s.yaml");
    std::fs::write(&script, "format: agc.script/v1\nnodes: {}\n").unwrap();
    let (graph, script) = (graph.display().to_string(), script.display().to_string());
    let publish = |rec: &Value| {
        rec["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["node_id"] == "publish")
            .expect("the node's run")
            .clone()
    };
    // In time: the decision wins.
    let early = dir.join("early").display().to_string();
    let o = agc(&[
        "run",
        &graph,
        "--script",
        &script,
        "-q",
        "--run-dir",
        &early,
    ]);
    assert_eq!(o.status.code(), Some(4), "the run pauses at the checkpoint");
    let o = agc(&[
        "run",
        "--resume",
        &early,
        "--decide",
        "publish.pre_upload=approved",
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let p = publish(&record(Path::new(&early)));
    assert_eq!(p["status"], "succeeded");
    assert_eq!(p["human_events"].as_array().unwrap().len(), 1);
    assert_eq!(p["human_events"][0]["outcome"], "approved");
    // Too late: refused by name, then the timeout applies.
    let late = dir.join("late").display().to_string();
    let o = agc(&["run", &graph, "--script", &script, "-q", "--run-dir", &late]);
    let paused_at = Instant::now();
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(
        publish(&record(Path::new(&late)))["status"],
        "awaiting_human"
    );
    std::thread::sleep(Duration::from_secs(3).saturating_sub(paused_at.elapsed()));
    let o = agc(&[
        "run",
        "--resume",
        &late,
        "--decide",
        "publish.pre_upload=approved",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("checkpoint `publish.pre_upload` timed out at"),
        "{err}"
    );
    let o = agc(&["run", "--resume", &late, "-q"]);
    assert_eq!(o.status.code(), Some(1), "on_timeout: fail");
    let rec = record(Path::new(&late));
    let p = publish(&rec);
    assert_eq!(p["status"], "failed");
    assert!(p.get("attempts").is_none(), "the upload was never made");
    let ev = &p["human_events"][0];
    assert_eq!(ev["checkpoint_id"], "pre_upload");
    assert_eq!(ev["at_stage"], "before_side_effects");
    assert_eq!(ev["outcome"], "timed_out");
    assert_eq!(rec["status"], "failed");
}

/// With the system clock, a backoff that ends while another call runs starts its retry then
/// (the driver waits for calls and timers together), not after the slow call.
#[test]
fn a_backoff_ends_while_another_call_runs() {
    let dir = tmp("overlap");
    std::fs::create_dir_all(&dir).unwrap();
    let graph = dir.join("g.agraph.yaml");
    std::fs::write(
        &graph,
        r#"ags_version: "1.0"
kind: AgenticGraph
id: agc-tests/overlap
title: A retry beside a slow call
version: 0.1.0
requires_conformance: 3
objective: A backoff ends while another call is still running.
constraints: { max_parallel_nodes: 2, max_cost_usd: 1.0 }
entrypoints: [flaky, slow]
nodes:
  flaky:
    type: task
    title: Flaky
    description: Fails once.
    failure:
      retry: { max_attempts: 2, backoff: fixed, initial_delay_seconds: 0.5, jitter: false, retry_on: [transient] }
  slow:
    type: task
    title: Slow
    description: Takes its time.
"#,
    )
    .unwrap();
    let script = dir.join("s.yaml");
    std::fs::write(
        &script,
        "format: agc.script/v1\nnodes:\n  flaky:\n    results:\n      - fail: { class: transient, message: down }\n      - {}\n  slow: { delay_ms: 2500 }\n",
    )
    .unwrap();
    let run_dir = dir.join("run");
    let o = agc(&[
        "run",
        &graph.display().to_string(),
        "--script",
        &script.display().to_string(),
        "-q",
        "--run-dir",
        &run_dir.display().to_string(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rec = record(&run_dir);
    let node = |id: &str| {
        rec["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["node_id"] == id)
            .unwrap()
            .clone()
    };
    let (flaky, slow) = (node("flaky"), node("slow"));
    let retried = flaky["attempts"][1]["started_at"]
        .as_str()
        .unwrap()
        .to_string();
    let slow_done = slow["finished_at"].as_str().unwrap().to_string();
    // Same-precision UTC times (the system clock's): text order is time order.
    assert!(
        retried < slow_done,
        "the retry ({retried}) waited for the slow call ({slow_done})"
    );
}

/// Compensation nodes pass `agc check --strict`: one may read the node it compensates and
/// that node's predecessors (AG201), and nothing needs to reach it (no AG903).
#[test]
fn compensation_nodes_read_what_they_undo_and_need_no_edge() {
    let o = agc(&[
        "check",
        "--strict",
        "tests/golden/runs/graphs/deploy-compensated.agraph.yaml",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("AG201") && !err.contains("AG903"), "{err}");
}
