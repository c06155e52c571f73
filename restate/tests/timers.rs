//! Live timers on Restate (durable sleeps, no fixed clock), against a real server:
//! - a worker killed with `kill -9` while a retry waits out its backoff: after the restart the
//!   sleep ends where it would have, the retry runs once, and the first attempt never again;
//! - a gate's timeout races its promise: nobody decides, the run shows `awaiting_human`, then
//!   the timeout approves the gate and the run succeeds.
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
    let Some(server) = Server::start("timer-kill") else {
        return;
    };
    let logs = temp_dir("timer-kill-logs");
    let worker = Worker::start(0, &logs);
    let port = worker.port;
    server.register(&worker.url());
    let out = temp_dir("timer-kill-out");
    let record = out.join("record.json").display().to_string();
    let (graph, script) = (
        path("tests/golden/runs/graphs/flaky-fetch.agraph.yaml"),
        path("tests/golden/runs/scripts/flaky-fetch.script.yaml"),
    );
    let run = agc_async(&[
        "run",
        &graph,
        "--script",
        &script,
        "--engine",
        "restate",
        "--ingress",
        &server.ingress,
        "-q",
        "--record",
        &record,
    ]);
    // The first attempt fails at once; its result reaches the workflow within moments, and
    // the workflow then sleeps 2 s (durably) before the retry: kill the worker in the sleep.
    wait_until("the first fetch", 60, || !invocations(&logs).is_empty());
    std::thread::sleep(std::time::Duration::from_millis(800));
    worker.kill9();
    let worker = Worker::start(port, &logs);
    assert_eq!(run.wait(), 0, "the run finishes after the restart");
    let rec: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(rec["status"], "succeeded");
    let attempts = &rec["nodes"][0]["attempts"];
    assert_eq!(attempts[0]["status"], "failed");
    assert_eq!(attempts[1]["status"], "succeeded");
    let waited = seconds_between(&attempts[0]["finished_at"], &attempts[1]["started_at"]);
    assert!(waited >= 1.9, "the retry came {waited} s after the failure");
    let calls: Vec<(String, u64)> = invocations(&logs)
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
    drop(worker);
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&logs);
}

#[test]
fn a_gate_timeout_races_its_promise_and_approves() {
    let Some(server) = Server::start("gate-timeout") else {
        return;
    };
    let logs = temp_dir("gate-timeout-logs");
    let worker = Worker::start(0, &logs);
    server.register(&worker.url());
    let out = temp_dir("gate-timeout-out");
    let record = out.join("record.json").display().to_string();
    let (graph, script) = (
        path("tests/golden/runs/graphs/gate-timeout.agraph.yaml"),
        path("tests/golden/runs/scripts/gate-timeout.script.yaml"),
    );
    let code = agc(&[
        "run",
        &graph,
        "--script",
        &script,
        "--engine",
        "restate",
        "--ingress",
        &server.ingress,
        "-q",
        "--record",
        &record,
    ]);
    assert_eq!(code, 4, "the run shows the pause while the timeout runs");
    let paused: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let run_id = paused["run_id"].as_str().unwrap().to_string();
    let status_url = format!("{}/restate/call/AgcRun/{run_id}/status", server.ingress);
    wait_until("the timeout to end the pause", 60, || {
        http("POST", &status_url, None).is_ok_and(|(_, t)| {
            serde_json::from_str::<Value>(&t).is_ok_and(|v| v["status"] == "succeeded")
        })
    });
    let code = agc(&[
        "run",
        "--resume",
        &run_id,
        "--engine",
        "restate",
        "--ingress",
        &server.ingress,
        "-q",
        "--record",
        &record,
    ]);
    assert_eq!(code, 0);
    let rec: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let gate = &rec["nodes"][1];
    assert_eq!(gate["node_id"], "sign_off");
    assert_eq!(gate["decision"], "approved");
    assert_eq!(gate["human_events"][0]["outcome"], "timed_out");
    let waited = seconds_between(&gate["started_at"], &gate["finished_at"]);
    assert!(waited >= 2.9, "the gate timed out after {waited} s");
    assert_eq!(rec["outputs"]["url"], "https://example.org/app-1.0");
    drop(worker);
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&logs);
}
