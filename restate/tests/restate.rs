//! agc on Restate, against a real server started from the npm package (see `common`):
//! - every golden run scenario of `tests/run.rs` (the AGS corpus examples under their
//!   scripts) gives the same status and the same run record as the local runtime, modulo
//!   timestamps and ids;
//! - `kill -9` of the worker mid-map, and while paused on a gate: the runs finish and the
//!   scripted handler's invocation log shows no completed node ran twice;
//! - a loop of 1,000 turns (a journal well over 3,000 entries) replays after a worker restart
//!   (the h2 trap);
//! - a second decision of a gate is refused (409);
//! - a generated runner's typed handlers are served on Restate unchanged.

mod common;

use common::*;
use serde_json::{Value, json};
use std::path::Path;

const SCRIPTS: &str = "tests/golden/runs/scripts";

#[path = "../../tests/run_cases/mod.rs"]
mod run_cases;

use run_cases::{Case, cases};

fn resolve(p: &str) -> String {
    let repo = repo();
    match p.strip_prefix("corpus:") {
        Some(rest) => repo.join("../shared/corpus/ags").join(rest),
        None => repo.join(p),
    }
    .display()
    .to_string()
}

fn script_path(s: &str) -> String {
    if s.contains('/') {
        resolve(s)
    } else {
        resolve(&format!("{SCRIPTS}/{s}.script.yaml"))
    }
}

fn params_path(s: &str) -> String {
    if s.contains('/') {
        resolve(s)
    } else {
        resolve(&format!("{SCRIPTS}/{s}.params.json"))
    }
}

/// Runs one scenario on Restate (pausing and deciding like the local test); returns the
/// final record's text.
fn run_case(server: &Server, case: &Case, out: &Path) -> String {
    let (name, graph, script, params, root) =
        (case.name, case.graph, case.script, case.params, case.root);
    let decide: &[&str] = case.resume.map_or(&[], |r| r.0);
    let record = out.join(format!("{name}.json"));
    let record_s = record.display().to_string();
    let (graph, script) = (resolve(graph), script_path(script));
    let mut args = vec![
        "run",
        &graph,
        "--script",
        &script,
        "--engine",
        "restate",
        "--ingress",
        &server.ingress,
        "--fixed-clock",
        "-q",
        "--record",
        &record_s,
    ];
    let params = params.map(params_path);
    if let Some(p) = &params {
        args.extend(["--params", p]);
    }
    let root = root.map(resolve);
    if let Some(r) = &root {
        args.extend(["--root", r]);
    }
    let code = agc(&args);
    let text = std::fs::read_to_string(&record).unwrap_or_default();
    if decide.is_empty() {
        assert!(code == 0 || code == 1, "{name}: exit status {code}");
        return text;
    }
    assert_eq!(code, 4, "{name}: pauses at its gate");
    let run_id = normalized_id(&text);
    let mut args = vec![
        "run",
        "--resume",
        &run_id,
        "--engine",
        "restate",
        "--ingress",
        &server.ingress,
        "-q",
        "--record",
        &record_s,
    ];
    for d in decide {
        args.extend(["--decide", d]);
    }
    let exit = case.resume.map_or(0, |r| r.1);
    assert_eq!(agc(&args), exit, "{name}: finishes after the decision");
    std::fs::read_to_string(&record).unwrap()
}

fn normalized_id(record: &str) -> String {
    serde_json::from_str::<Value>(record).unwrap()["run_id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn corpus_scenarios_give_the_local_records() {
    let Some(server) = Server::start("corpus") else {
        return;
    };
    let logs = temp_dir("corpus-logs");
    let worker = Worker::start(0, &logs);
    server.register(&worker.url());
    let corpus = repo().join("../shared/corpus/ags").is_dir();
    if !corpus {
        println!("note: ../shared/corpus/ags is absent; corpus scenarios skipped");
    }
    let out = temp_dir("corpus-records");
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in &cases() {
        if case.graph.starts_with("corpus:") && !corpus {
            continue;
        }
        let text = run_case(&server, case, &out);
        let golden = repo().join(format!("tests/golden/runs/{}.record.json", case.name));
        let want = std::fs::read_to_string(&golden).unwrap();
        let (got, want) = (normalized(&text), normalized(&want));
        if got["status"] != want["status"] {
            failures.push(format!(
                "{}: status {} (local: {})",
                case.name, got["status"], want["status"]
            ));
        } else if got != want {
            failures.push(format!(
                "{}: the record differs from {} (modulo timestamps and ids):\n{}",
                case.name,
                golden.display(),
                serde_json::to_string_pretty(&got).unwrap()
            ));
        }
        ran += 1;
    }
    println!("ran {ran} scenarios on Restate");
    assert!(ran >= 1);
    assert!(failures.is_empty(), "{failures:#?}");
}

fn fixture(name: &str) -> String {
    repo()
        .join("restate/tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// Counts of each (idempotency key, attempt) in the invocation log.
fn counts(log: &[Value]) -> std::collections::BTreeMap<(String, u64), usize> {
    let mut m = std::collections::BTreeMap::new();
    for inv in log {
        let k = (
            inv["key"].as_str().unwrap_or_default().to_string(),
            inv["attempt"].as_u64().unwrap_or(0),
        );
        *m.entry(k).or_insert(0) += 1;
    }
    m
}

#[test]
fn a_worker_killed_mid_map_finishes_without_rerunning_completed_items() {
    let Some(mut live) = Live::start("kill-map") else {
        return;
    };
    let (graph, script, params) = (
        fixture("fan-out.agraph.yaml"),
        fixture("fan-out.script.yaml"),
        fixture("fan-out.params.json"),
    );
    let run = agc_async(&live.run_args(&graph, &script, &["--params", &params]));
    // Six items of 400 ms, two at a time: kill once the third item has started (two done,
    // one or two in flight).
    wait_until("the third map item to start", 60, || {
        invocations(&live.logs)
            .iter()
            .filter(|i| i["path"].as_str().is_some_and(|p| p.starts_with("each[")))
            .count()
            >= 3
    });
    let before = invocations(&live.logs);
    live.restart_worker();
    assert_eq!(run.wait(), 0, "the run finishes after the restart");
    assert_eq!(live.record()["status"], "succeeded");
    let after = invocations(&live.logs);
    let c = counts(&after);
    // Every item and the summary ran; a call ran at most twice, and only a call that was
    // in flight at the kill (one of the last two started before it) ran again.
    assert_eq!(c.len(), 7, "six items and the summary: {c:?}");
    let in_flight: Vec<(String, u64)> = before
        .iter()
        .rev()
        .take(2)
        .map(|i| {
            (
                i["key"].as_str().unwrap().to_string(),
                i["attempt"].as_u64().unwrap(),
            )
        })
        .collect();
    for (k, n) in &c {
        assert!(*n <= 2, "{k:?} ran {n} times");
        if *n == 2 {
            assert!(
                in_flight.contains(k),
                "{k:?} completed before the kill yet ran again"
            );
        }
    }
}

#[test]
fn a_long_journal_replays_after_a_kill_at_a_gate_and_a_second_decision_is_refused() {
    let Some(mut live) = Live::start("long-loop") else {
        return;
    };
    let (graph, script) = (
        fixture("long-loop.agraph.yaml"),
        fixture("long-loop.script.yaml"),
    );
    let code = agc(&live.run_args(&graph, &script, &[]));
    assert_eq!(code, 4, "the run pauses at the gate after the loop");
    let run_id = live.run_id();
    let entries = live.server.journal_len(&run_id);
    assert!(entries > 3000, "the journal has {entries} entries");

    // Killed while paused on the gate; the decision after the restart replays the whole
    // journal on the new worker.
    live.restart_worker();
    let body = json!({"gate": "approve", "outcome": "approved"});
    let (status, text) = live.decide(&run_id, &body);
    assert_eq!(status, 200, "{text}");
    let (status, text) = live.decide(&run_id, &body);
    assert_eq!(status, 409, "a second decision is refused: {text}");
    // The replay takes a moment: follow once the run reports the gate decided.
    live.wait_left_human(&run_id, "the run to leave the gate");
    assert_eq!(
        live.resume(&run_id, &[]),
        0,
        "the run finishes after the replay"
    );
    assert_eq!(live.record()["status"], "succeeded");
    let c = counts(&invocations(&live.logs));
    assert_eq!(c.len(), 1001, "1,000 turns and the gate");
    assert!(c.values().all(|&n| n == 1), "a completed call ran again");
}

mod typed {
    //! A generated runner (`examples/generated/changelog-release`, unchanged) served on
    //! Restate: its typed `Handlers` adapt into a `dyn Handler` (`Typed(Graph(..))`), which the worker
    //! library serves as the task service.

    use super::*;
    use agc_restate::handlers::Fixed;
    use agc_runtime::run::{FixedClock, FixedIds, MemoryJournal, RunOptions};
    use changelog_release_runner as runner;
    use runner::*;
    use std::sync::Arc;

    struct Mine;

    impl Hooks for Mine {}

    impl Handlers for Mine {
        async fn collect_changes(
            &self,
            _ctx: &Context,
            inputs: CollectChangesInputs,
        ) -> Result<CollectChangesOutputs, Failure> {
            Ok(CollectChangesOutputs {
                entries: vec![CollectChangesOutputsEntriesItem {
                    title: format!("Scaling out since {}", inputs.since),
                    kind: CollectChangesOutputsEntriesItemKind::Feature,
                }],
                entry_count: 1,
            })
        }

        async fn draft_notes(
            &self,
            _ctx: &Context,
            inputs: DraftNotesInputs,
        ) -> Result<DraftNotesOutputs, Failure> {
            Ok(DraftNotesOutputs {
                notes: format!("# {}\n\n- Restate", inputs.heading),
            })
        }

        async fn trim_notes(
            &self,
            _ctx: &Context,
            _inputs: TrimNotesInputs,
        ) -> Result<TrimNotesOutputs, Failure> {
            Err(Failure::tool("not reached"))
        }

        async fn approve(
            &self,
            _ctx: &Context,
            _inputs: ApproveInputs,
        ) -> Result<Option<Answer<ApproveOutputs>>, Failure> {
            Ok(Some(Answer {
                outputs: ApproveOutputs {
                    decision: ApproveDecision::Approved,
                },
                actor: Some("typed".into()),
                note: None,
            }))
        }
    }

    fn params() -> Params {
        Params {
            since_tag: "v1.0.0".into(),
            max_entries: Some(50),
        }
    }

    #[test]
    fn a_generated_runner_serves_its_typed_handlers_on_restate() {
        let Some(server) = Server::start("typed") else {
            return;
        };
        // The worker: the library's endpoint with the runner's typed handlers, in-process.
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (listener, addr) = rt
            .block_on(agc_restate::serve::bind("127.0.0.1:0".parse().unwrap()))
            .unwrap();
        let endpoint = agc_restate::endpoint(Arc::new(Fixed(Arc::new(Typed(Graph(Mine))))));
        std::thread::spawn(move || rt.block_on(agc_restate::serve::serve(listener, endpoint)));
        server.register(&format!("http://{addr}"));

        let run_id = format!("typed-{}", std::process::id());
        let input = json!({
            "run_id": run_id,
            "plan": serde_json::to_value(runner::plan()).unwrap(),
            "params": serde_json::to_value(params()).unwrap(),
            "fixed_clock": true,
        });
        let url = format!("{}/restate/send/AgcRun/{run_id}/run", server.ingress);
        let (status, text) = http("POST", &url, Some(&input.to_string())).unwrap();
        assert!((200..300).contains(&status), "{status} {text}");
        let status_url = format!("{}/restate/call/AgcRun/{run_id}/status", server.ingress);
        let mut record = Value::Null;
        wait_until("the typed run to end", 120, || {
            let Ok((_, t)) = http("POST", &status_url, None) else {
                return false;
            };
            let v: Value = serde_json::from_str(&t).unwrap_or(Value::Null);
            record = v["record"].clone();
            v["status"] == "succeeded" || v["status"] == "failed"
        });

        let opts = RunOptions {
            clock: Arc::new(FixedClock::new()),
            ids: Arc::new(FixedIds::new("run")),
            ..RunOptions::default()
        };
        let local = agc_runtime::run::tokio_runtime(1)
            .unwrap()
            .block_on(runner::run(
                &params(),
                Mine,
                &mut MemoryJournal::default(),
                &opts,
            ))
            .unwrap();
        assert_eq!(local.status, RunStatus::Succeeded);
        let on_restate: runner::RunRecord = serde_json::from_value(record.clone()).unwrap();
        assert_eq!(
            runner::outputs(&on_restate).unwrap().release_notes,
            runner::outputs(&local).unwrap().release_notes
        );
        assert_eq!(
            normalized(&record.to_string()),
            normalized(&local.to_pretty_string())
        );
    }
}

#[test]
fn cli_errors_have_their_codes() {
    let graph = repo()
        .join("examples/ags/changelog-release.agraph.yaml")
        .display()
        .to_string();
    // AGC365: options that do not fit together.
    assert_eq!(agc(&["run", &graph, "--engine", "restate"]), 2);
    assert_eq!(
        agc(&[
            "run",
            &graph,
            "--engine",
            "cloud",
            "--ingress",
            "http://127.0.0.1:1"
        ]),
        2
    );
    // AGC360: nothing listens there.
    let closed = format!("http://127.0.0.1:{}", free_port());
    let params = repo()
        .join("examples/ags/changelog-release.params.json")
        .display()
        .to_string();
    assert_eq!(
        agc(&[
            "run",
            &graph,
            "--params",
            &params,
            "--engine",
            "restate",
            "--ingress",
            &closed
        ]),
        2
    );
    let Some(server) = Server::start("cli-errors") else {
        return;
    };
    // AGC361: no worker registered yet (checked with --admin, and refused by the ingress).
    let base = [
        "run", &graph, "--params", &params, "--engine", "restate", "-q",
    ];
    let mut args = base.to_vec();
    args.extend(["--ingress", &server.ingress, "--admin", &server.admin]);
    assert_eq!(agc(&args), 2);
    let mut args = base.to_vec();
    args.extend(["--ingress", &server.ingress]);
    assert_eq!(agc(&args), 2);
    // AGC364: registering a URL where no worker listens.
    assert_eq!(
        agc(&["restate", "register", &closed, "--admin", &server.admin]),
        1
    );
    // AGC363: a plan the worker refuses (an edge to a node that does not exist).
    let logs = temp_dir("cli-errors-logs");
    let worker = Worker::start(0, &logs);
    server.register(&worker.url());
    let mut plan = serde_json::to_value(changelog_release_runner::plan()).unwrap();
    plan["edges"][0]["to"] = json!("no_such_node");
    let bad = logs.join("bad.plan.json");
    std::fs::write(&bad, plan.to_string()).unwrap();
    let bad = bad.display().to_string();
    let mut args = vec![
        "run",
        bad.as_str(),
        "--params",
        &params,
        "--engine",
        "restate",
        "-q",
    ];
    args.extend(["--ingress", &server.ingress]);
    assert_eq!(agc(&args), 2);
    // AGC362: deciding a gate of a run that awaits none.
    assert_eq!(
        agc(&[
            "run",
            "--resume",
            "no-such-run",
            "--decide",
            "approve=approved",
            "--engine",
            "restate",
            "--ingress",
            &server.ingress,
        ]),
        2
    );
    drop(worker);
}

#[test]
fn a_checkpoint_pause_is_decided_once() {
    let Some(live) = Live::start("checkpoint") else {
        return;
    };
    let graph = resolve("tests/golden/runs/graphs/checkpoints.agraph.yaml");
    let script = script_path("checkpoints");
    let code = agc(&live.run_args(&graph, &script, &[]));
    assert_eq!(code, 4, "the run pauses at the unanswered checkpoint");
    let run_id = live.run_id();
    let view = live.status(&run_id);
    assert!(
        view.contains("plan_work.go"),
        "status lists the checkpoint: {view}"
    );
    let body = json!({"gate": "plan_work.go", "outcome": "approved", "actor": "ops"});
    let (status, text) = live.decide(&run_id, &body);
    assert_eq!(status, 200, "{text}");
    let (status, text) = live.decide(&run_id, &body);
    assert_eq!(status, 409, "a second decision is refused: {text}");
    live.wait_left_human(&run_id, "the run to leave the checkpoint");
    assert_eq!(
        live.resume(&run_id, &[]),
        0,
        "the run finishes after the decision"
    );
    let rec = normalized(&live.record().to_string());
    assert_eq!(rec["status"], "succeeded");
    let go = &rec["nodes"][0]["human_events"][1];
    assert_eq!(
        (go["checkpoint_id"].as_str(), go["actor"].as_str()),
        (Some("go"), Some("ops"))
    );
}

#[test]
fn decide_with_outputs_passes_them_to_the_run() {
    let Some(live) = Live::start("decide-outputs") else {
        return;
    };
    let fixtures = repo().join("restate/tests/fixtures");
    let graph = fixtures.join("review.agraph.yaml").display().to_string();
    let script = fixtures.join("review.script.yaml").display().to_string();
    let code = agc(&live.run_args(&graph, &script, &[]));
    assert_eq!(code, 4, "the run pauses at the review");
    let run_id = live.run_id();
    let decision = [
        "--decide",
        "draft.check=approved",
        "--outputs",
        r#"draft.check={"summary": "edited on restate"}"#,
    ];
    let code = live.resume(&run_id, &decision);
    assert_eq!(code, 0, "the run finishes after the decision");
    let rec = live.record();
    assert_eq!(rec["status"], "succeeded");
    assert_eq!(
        rec["nodes"][0]["outputs"],
        json!({"summary": "edited on restate", "count": 1})
    );
    assert_eq!(rec["nodes"][0]["human_events"][0]["outcome"], "edited");
    assert_eq!(rec["nodes"][1]["inputs"]["summary"], "edited on restate");
}

/// An AWP signal wait pauses on its durable promise; `decide` delivers the signal with its
/// payload (`outputs`), merged into the workflow state through the reducers; a decision
/// naming the signal rather than the wait is refused (404).
#[test]
fn a_signal_is_delivered_with_its_payload_through_decide() {
    let Some(live) = Live::start("signal") else {
        return;
    };
    let graph = resolve("tests/golden/runs/graphs/awp-signals.workflow.yaml");
    let script = script_path("awp-signals-paused");
    let params = params_path("awp-signals");
    let code = agc(&live.run_args(&graph, &script, &["--params", &params]));
    assert_eq!(code, 4, "the run pauses on the signal wait");
    assert_eq!(live.record()["nodes"][1]["x-signal"], "payment");
    let run_id = live.run_id();
    let by_name = json!({"gate": "payment", "outcome": "approved"});
    let (status, text) = live.decide(&run_id, &by_name);
    assert_eq!(status, 404, "the wait is named by its scope path: {text}");
    let body = json!({"gate": "await_payment", "outcome": "approved", "actor": "bank",
        "outputs": {"paid_by": "bob", "amount": 10, "notes": ["paid late"]}});
    let (status, text) = live.decide(&run_id, &body);
    assert_eq!(status, 200, "{text}");
    live.wait_left_human(&run_id, "the run to leave the wait");
    assert_eq!(
        live.resume(&run_id, &[]),
        0,
        "the run finishes after the signal"
    );
    let rec = live.record();
    assert_eq!(rec["status"], "succeeded");
    // `notes` appended (reducer), the rest overwritten; the review's `intent` on top.
    assert_eq!(
        rec["outputs"],
        json!({"order_id": "A-1", "notes": ["opened", "paid late"], "paid_by": "bob",
               "amount": 10, "intent": "refund"})
    );
    let event = &rec["nodes"][1]["human_events"][0];
    assert_eq!(
        (
            event["at_stage"].as_str(),
            event["outcome"].as_str(),
            event["actor"].as_str()
        ),
        (Some("signal"), Some("provided"), Some("bank"))
    );
}
