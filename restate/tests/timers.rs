//! Live timers on Restate (durable sleeps, no fixed clock), against a real server:
//! - a worker killed with `kill -9` while a retry waits out its backoff: after the restart the
//!   sleep ends where it would have, the retry runs once, and the first attempt never again;
//! - a gate's timeout races its promise: nobody decides, the run shows `awaiting_human`, then
//!   the timeout approves the gate and the run succeeds;
//! - so does a human checkpoint's (`on_timeout: approve`): the node makes its call, and a
//!   decision that comes after the timeout is refused.
//!
//! (The fixed-clock scenarios of `tests/run_cases`, timers and compensation included, run on
//! Restate in `restate.rs`.)

mod common;

use common::*;
use serde_json::Value;

fn path(p: &str) -> String {
    repo().join(p).display().to_string()
}

/// Seconds from `a` to `b` (RFC 3339), through the runtime's timer arithmetic.
fn seconds_between(a: &Value, b: &Value) -> f64 {
    let t = agc_runtime::run::core::Timer {
        id: 0,
        path: String::new(),
        fire_at: b.as_str().unwrap().to_string(),
        kind: agc_runtime::run::core::TimerKind::Backoff,
    };
    agc_runtime::run::timer_queue::until(&t, a.as_str().unwrap()).as_secs_f64()
}

#[test]
fn a_worker_killed_during_a_backoff_retries_once_after_it() {
    let Some(mut live) = Live::start("timer-kill") else {
        return;
    };
    let (graph, script) = (
        path("tests/golden/runs/graphs/flaky-fetch.agraph.yaml"),
        path("tests/golden/runs/scripts/flaky-fetch.script.yaml"),
    );
    let run = agc_async(&live.run_args(&graph, &script, &[]));
    // The first attempt fails at once; its result reaches the workflow within moments, and
    // the workflow then sleeps 2 s (durably) before the retry: kill the worker in the sleep.
    wait_until("the first fetch", 60, || {
        !invocations(&live.logs).is_empty()
    });
    std::thread::sleep(std::time::Duration::from_millis(800));
    live.restart_worker();
    assert_eq!(run.wait(), 0, "the run finishes after the restart");
    let rec = live.record();
    assert_eq!(rec["status"], "succeeded");
    let attempts = &rec["nodes"][0]["attempts"];
    assert_eq!(attempts[0]["status"], "failed");
    assert_eq!(attempts[1]["status"], "succeeded");
    let waited = seconds_between(&attempts[0]["finished_at"], &attempts[1]["started_at"]);
    assert!(waited >= 1.9, "the retry came {waited} s after the failure");
    let calls: Vec<(String, u64)> = invocations(&live.logs)
        .iter()
        .map(|i| {
            (
                i["path"].as_str().unwrap().to_string(),
                i["attempt"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("fetch".to_string(), 1),
            ("fetch".to_string(), 2),
            ("publish".to_string(), 1)
        ],
        "each call ran once"
    );
}

#[test]
fn a_gate_timeout_races_its_promise_and_approves() {
    let Some(live) = Live::start("gate-timeout") else {
        return;
    };
    let (graph, script) = (
        path("tests/golden/runs/graphs/gate-timeout.agraph.yaml"),
        path("tests/golden/runs/scripts/gate-timeout.script.yaml"),
    );
    let code = agc(&live.run_args(&graph, &script, &[]));
    assert_eq!(code, 4, "the run shows the pause while the timeout runs");
    let run_id = live.run_id();
    live.wait_succeeded(&run_id, "the timeout to end the pause");
    assert_eq!(live.resume(&run_id, &[]), 0);
    let rec = live.record();
    let gate = &rec["nodes"][1];
    assert_eq!(gate["node_id"], "sign_off");
    assert_eq!(gate["decision"], "approved");
    assert_eq!(gate["human_events"][0]["outcome"], "timed_out");
    let waited = seconds_between(&gate["started_at"], &gate["finished_at"]);
    assert!(waited >= 2.9, "the gate timed out after {waited} s");
    assert_eq!(rec["outputs"]["url"], "https://example.org/app-1.0");
}

const CHECKPOINT_GRAPH: &str = r#"ags_version: "1.0"
kind: AgenticGraph
id: agc-tests/checkpoint-timeout
title: An upload nobody objects to within three seconds
version: 0.1.0
requires_conformance: 3
objective: A checkpoint whose timeout approves the upload when nobody answers in time.
constraints: { max_cost_usd: 1.0 }
entrypoints: [publish]
nodes:
  publish:
    type: task
    title: Publish
    description: Uploads the release.
    outputs:
      url: { type: string, description: Where it is. }
    human:
      - id: pre_upload
        at: before_side_effects
        mode: approve
        timeout_seconds: 3
        on_timeout: approve
"#;

#[test]
fn a_checkpoint_timeout_races_its_promise_and_approves() {
    let Some(live) = Live::start("checkpoint-timeout") else {
        return;
    };
    let graph = live.out.join("g.agraph.yaml");
    std::fs::write(&graph, CHECKPOINT_GRAPH).unwrap();
    let script = live.out.join("s.yaml");
    std::fs::write(
        &script,
        "format: agc.script/v1\nnodes:\n  publish:\n    outputs: { url: \"https://example.org/r\" }\n",
    )
    .unwrap();
    let (graph, script) = (graph.display().to_string(), script.display().to_string());
    let code = agc(&live.run_args(&graph, &script, &[]));
    assert_eq!(code, 4, "the run shows the pause while the timeout runs");
    let run_id = live.run_id();
    live.wait_succeeded(&run_id, "the timeout to end the pause");
    // Too late: the checkpoint no longer awaits anyone.
    let body = serde_json::json!({"gate": "publish.pre_upload", "outcome": "rejected"});
    let (status, text) = live.decide(&run_id, &body);
    assert_eq!(status, 404, "{text}");
    assert_eq!(live.resume(&run_id, &[]), 0);
    let rec = live.record();
    let node = &rec["nodes"][0];
    let ev = &node["human_events"][0];
    assert_eq!(ev["checkpoint_id"], "pre_upload");
    assert_eq!(ev["at_stage"], "before_side_effects");
    assert_eq!(ev["outcome"], "timed_out");
    let waited = seconds_between(&node["started_at"], &ev["at"]);
    assert!(waited >= 2.9, "the checkpoint timed out after {waited} s");
    assert_eq!(node["attempts"][0]["status"], "succeeded", "the upload ran");
    assert_eq!(node["outputs"]["url"], "https://example.org/r");
}
