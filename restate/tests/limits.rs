//! Evaluation limits on Restate (issue 47), against a real server: the worker evaluates a
//! run's jq under the plan's `eval_limits` (not the worker process's defaults), and
//! `agc run --engine restate --eval-…` replaces them for that run only.

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
