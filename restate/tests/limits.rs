//! Evaluation on Restate (issue 47), against a real server: the worker evaluates a run's jq
//! under the plan's `eval_limits` (not the worker process's defaults), and
//! `agc run --engine restate --eval-…` replaces them for that run only; a limit met fails the
//! node as in a local run, and neither it nor what jq reads of the clock is decided again
//! when Restate replays the run in another worker.

mod common;

use common::*;

/// An AWP workflow whose `set_state` node builds values 200 levels deep: over a depth limit
/// of 50, well within the default 10,000.
const WORKFLOW: &str = r#"document: {schema: https://agent-workflow.dev/schemas/workflow-definition.json, name: limits, version: 1.0.0}
state_schema:
  type: object
  properties:
    x: {}
nodes:
  - {id: start, type: start}
  - id: blow
    type: set_state
    config: {assignments: {x: {jq: 'reduce range(200) as $i (null; [.]) | tojson | length'}}}
  - {id: end, type: end, config: {output_mapping: .x}}
edges:
  - {source: __start__, target: start}
  - {source: start, target: blow}
  - {source: blow, target: end}
"#;

#[test]
fn the_worker_evaluates_under_the_plans_limits_and_the_runs_over_them() {
    let files = temp_dir("limits-files");
    let Some(live) = Live::start("limits") else {
        return;
    };
    let wf = files.join("wf.yaml");
    std::fs::write(&wf, WORKFLOW).unwrap();
    let script = files.join("script.yaml");
    std::fs::write(&script, "format: agc.script/v1\n").unwrap();
    let plan = files.join("plan.json");
    let (wf, script, plan) = (
        wf.display().to_string(),
        script.display().to_string(),
        plan.display().to_string(),
    );
    let built = agc(&["build", &wf, "-o", &plan, "--eval-depth", "50"]);
    assert_eq!(built, 0, "agc build");
    // The plan's limit: the node fails with AGC043.
    let code = agc(&live.run_args(&plan, &script, &["--fixed-clock"]));
    assert_eq!(code, 1, "the run fails under the plan's depth limit");
    let rec = live.record();
    assert_eq!(rec["status"], "failed", "{rec}");
    let blow = rec["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node_id"] == "blow");
    assert_eq!(blow.map(|n| &n["status"]), Some(&"failed".into()), "{rec}");
    assert!(rec["diagnostics"].to_string().contains("AGC043"), "{rec}");
    // The run's own limit replaces the plan's.
    let code = agc(&live.run_args(&plan, &script, &["--fixed-clock", "--eval-depth", "500"]));
    assert_eq!(code, 0, "the run's limit replaces the plan's");
    assert_eq!(live.record()["status"], "succeeded");
}

/// An AWP workflow whose `spin` node's input is a filter that never ends, and a `recover` step
/// that nothing in AWP reaches: the test's plan adds the failure edge (AWP has none).
const SPIN: &str = r#"document: {schema: https://agent-workflow.dev/schemas/workflow-definition.json, name: spin, version: 1.0.0}
state_schema:
  type: object
  properties:
    x: {}
nodes:
  - {id: start, type: start}
  - id: spin
    type: agent_delegate
    config: {agent_id: a, protocol: a2a, input_mapping: {task: {jq: 'last(range(1e18))'}}}
    retry: {max_attempts: 2, initial_interval: 1s}
  - id: recover
    type: step
    config: {handler: 'urn:test:recover'}
  - {id: end, type: end, config: {output_mapping: .x}}
edges:
  - {source: __start__, target: start}
  - {source: start, target: spin}
  - {source: spin, target: end}
  - {source: recover, target: end}
"#;

/// `recover` takes long enough for the test to kill the worker while it runs.
const SPIN_SCRIPT: &str = "format: agc.script/v1\nnodes:\n  recover:\n    delay_ms: 1500\n";

/// The plan of [`SPIN`] under a time limit of 0.3 s, with `spin` retrying `budget_exceeded`
/// and failing over to `recover` (a failure edge).
fn spin_plan(dir: &std::path::Path) -> String {
    let wf = dir.join("spin.yaml");
    std::fs::write(&wf, SPIN).unwrap();
    let plan = dir.join("spin.plan.json");
    let (wf, out) = (wf.display().to_string(), plan.display().to_string());
    assert_eq!(
        agc(&["build", &wf, "-o", &out, "--eval-timeout", "0.3"]),
        0,
        "agc build"
    );
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    let spin = v["nodes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|n| n["id"] == "spin")
        .unwrap();
    spin["failure"] = serde_json::json!({"retry_on": ["budget_exceeded"]});
    v["edges"].as_array_mut().unwrap().push(serde_json::json!(
        {"from": "spin", "to": "recover", "kind": "failure", "outcomes": ["failed"], "location": "1:1"}
    ));
    std::fs::write(&plan, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    out
}

/// A filter that never ends meets the plan's time limit on Restate: the node's attempts fail
/// with `budget_exceeded` (AGC043), it retries, then its failure edge leads to `recover`, and
/// the record is the local run's. The worker is killed while `recover` runs, so Restate
/// replays the run in a new worker: the replay reads the limits met from Restate's journal
/// instead of evaluating the filter again (which would meet the limit where the journal says
/// nothing of it, or take the replay off the journal's path), and the run finishes.
#[test]
fn a_time_limit_met_fails_the_node_as_locally_and_a_replay_does_not_evaluate_it_again() {
    let files = temp_dir("spin-files");
    let Some(mut live) = Live::start("spin") else {
        return;
    };
    let plan = spin_plan(&files);
    let script = files.join("script.yaml");
    std::fs::write(&script, SPIN_SCRIPT).unwrap();
    let script = script.display().to_string();
    let (want, got) = local_then_restate(&mut live, &files, &plan, &script, "recover");
    let spin = node(&want, "spin");
    assert_eq!(spin["status"], "failed", "{want}");
    let attempts = spin["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{want}");
    for a in attempts {
        assert_eq!(a["status"], "budget_exceeded", "{want}");
        assert!(
            a["error"]
                .to_string()
                .contains("ran longer than 0.3 s (AGC043)"),
            "{want}"
        );
    }
    assert_eq!(node(&want, "recover")["status"], "succeeded", "{want}");
    assert_eq!(got, want, "the Restate record differs from the local one");
}

/// A workflow whose jq reads the host (`now`, `env`) and then runs a slow step.
const HOST: &str = r#"document: {schema: https://agent-workflow.dev/schemas/workflow-definition.json, name: host, version: 1.0.0}
state_schema:
  type: object
  properties:
    seen: {}
nodes:
  - {id: start, type: start}
  - id: look
    type: set_state
    config: {assignments: {seen: {jq: '{now: now, env: env, day: (now | strflocaltime("%F %Z"))}'}}}
  - id: slow
    type: step
    config: {handler: 'urn:test:slow'}
  - {id: end, type: end, config: {output_mapping: .seen}}
edges:
  - {source: __start__, target: start}
  - {source: start, target: look}
  - {source: look, target: slow}
  - {source: slow, target: end}
"#;

/// jq that reads the moment or the machine reads the run's event time instead (AGC064), so
/// the state it writes is the local run's, and a replay in another worker (after a kill
/// while `slow` runs) computes it again the same, not from a later clock.
#[test]
fn jq_reads_the_runs_time_not_the_hosts_on_restate_and_in_its_replays() {
    let files = temp_dir("host-files");
    let Some(mut live) = Live::start("host") else {
        return;
    };
    let wf = files.join("host.yaml");
    std::fs::write(&wf, HOST).unwrap();
    let plan = files.join("host.plan.json").display().to_string();
    assert_eq!(agc(&["build", &wf.display().to_string(), "-o", &plan]), 0);
    let script = files.join("script.yaml");
    std::fs::write(
        &script,
        "format: agc.script/v1\nnodes:\n  slow:\n    delay_ms: 1500\n",
    )
    .unwrap();
    let script = script.display().to_string();
    let (want, got) = local_then_restate(&mut live, &files, &plan, &script, "slow");
    assert_eq!(want["status"], "succeeded", "{want}");
    assert_eq!(got, want, "the Restate record differs from the local one");
}

/// Runs `plan` locally (its own journal), then on Restate, killing the worker once the call
/// of node `kill_at` has started; both records, normalized. The runs end alike.
fn local_then_restate(
    live: &mut Live,
    files: &std::path::Path,
    plan: &str,
    script: &str,
    kill_at: &str,
) -> (serde_json::Value, serde_json::Value) {
    let local = files.join("local.json").display().to_string();
    let run_dir = files.join("runs").display().to_string();
    let code = agc(&[
        "run",
        plan,
        "--script",
        script,
        "--fixed-clock",
        "--run-dir",
        &run_dir,
        "-q",
        "--record",
        &local,
    ]);
    let want = normalized(&std::fs::read_to_string(&local).unwrap());
    let run = agc_async(&live.run_args(plan, script, &["--fixed-clock"]));
    wait_until(&format!("`{kill_at}` to start"), 120, || {
        invocations(&live.logs).iter().any(|i| i["path"] == kill_at)
    });
    live.restart_worker();
    assert_eq!(run.wait(), code, "the run ends as the local run did");
    let got = normalized(&std::fs::read_to_string(&live.record).unwrap());
    (want, got)
}

/// The record entry of node `id`.
fn node<'a>(record: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    record["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node_id"] == id)
        .unwrap_or_else(|| panic!("no node `{id}` in {record}"))
}
