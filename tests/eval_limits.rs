//! Issue 47 item 4: an expression can never kill the process. Hostile jq filters end with
//! AGC043 under `agc eval` (exit 2) and fail their node in `agc run`, whose journal stays
//! resumable; the limits are raised with `--eval-…` flags.

use std::path::Path;
use std::process::{Command, Output};

fn agc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(args)
        .output()
        .expect("agc runs")
}

/// `agc run` of workflow `doc` in `dir` with params `{"s": <34,000,000 x>}` (twice that is over
/// the 64 MiB a concatenation may build), a run dir and a fixed clock: the output and the run
/// dir.
fn run_with_long_params(dir: &std::path::Path, doc: &str) -> (Output, std::path::PathBuf) {
    let wf = dir.join("wf.yaml");
    std::fs::write(&wf, doc).unwrap();
    let params = dir.join("p.json");
    let text = serde_json::json!({ "s": "x".repeat(34_000_000) }).to_string();
    std::fs::write(&params, text).unwrap();
    let rd = dir.join("rd");
    let out = agc(&[
        "run",
        wf.to_str().unwrap(),
        "--params",
        params.to_str().unwrap(),
        "--run-dir",
        rd.to_str().unwrap(),
        "--fixed-clock",
    ]);
    (out, rd)
}

fn eval_jq(filter: &str, extra: &[&str]) -> Output {
    let mut args = vec!["eval", "--lang", "jq"];
    args.extend_from_slice(extra);
    args.push(filter);
    agc(&args)
}

#[test]
fn every_limit_is_agc043_and_exit_2() {
    let cases = [
        ("def f: [f]; f", "recursion too deep", "--eval-stack"),
        ("def f: 1 + f; f", "recursion too deep", "--eval-stack"),
        ("[range(1e9)] | length", "memory", "--eval-memory"),
        ("\"x\" * 1e10", "memory", "--eval-memory"),
        (
            "reduce range(1e9) as $i (null; [.]) | length",
            "nested",
            "--eval-depth",
        ),
        ("\"[\" * 100000 | fromjson", "nested", "--eval-depth"),
        ("def f: f; f", "ran longer", "--eval-timeout"),
        ("last(range(1e18))", "ran longer", "--eval-timeout"),
    ];
    for (filter, what, flag) in cases {
        // Time is short only where time is the limit meant (debug builds are slow).
        let time = if flag == "--eval-timeout" { "1" } else { "60" };
        let out = eval_jq(filter, &["--eval-memory", "8", "--eval-timeout", time]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "`{filter}`: {err}");
        assert!(err.contains("error[AGC043]"), "`{filter}`: {err}");
        assert!(
            err.contains(what) && err.contains(flag),
            "`{filter}`: {err}"
        );
        assert!(out.stdout.is_empty(), "`{filter}`");
    }
}

#[test]
fn raising_a_limit_lets_the_filter_finish() {
    let f = "reduce range(20000) as $i (null; [.]) | tojson | length";
    let out = eval_jq(f, &[]);
    assert_eq!(out.status.code(), Some(2));
    let out = eval_jq(f, &["--eval-depth", "30000"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "40004\n");
    // `--timeout` is still accepted (the older name of `--eval-timeout`).
    let out = eval_jq("1 + 1", &["--timeout", "3"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "2\n");
}

const HOSTILE: &str = r#"document: {schema: https://agent-workflow.dev/schemas/workflow-definition.json, name: hostile, version: 1.0.0}
state_schema:
  type: object
  properties:
    x: {}
nodes:
  - {id: start, type: start}
  - id: blow
    type: set_state
    config: {assignments: {x: {jq: 'FILTER'}}}
  - {id: end, type: end, config: {output_mapping: .x}}
edges:
  - {source: __start__, target: start}
  - {source: start, target: blow}
  - {source: blow, target: end}
"#;

fn record(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("record.json")).expect("a record");
    serde_json::from_str(&text).expect("record JSON")
}

#[test]
fn a_run_fails_the_node_and_stays_resumable() {
    for filter in ["def f: [f]; f", "[range(1e9)] | length", "def f: f; f"] {
        let tmp = tempfile::tempdir().unwrap();
        let wf = tmp.path().join("wf.yaml");
        std::fs::write(&wf, HOSTILE.replace("FILTER", filter)).unwrap();
        let rd = tmp.path().join("rd");
        let (wf, rd_s) = (wf.to_str().unwrap(), rd.to_str().unwrap());
        let limits = ["--eval-memory", "8", "--eval-timeout", "1"];
        let mut args = vec!["run", wf, "--run-dir", rd_s];
        args.extend_from_slice(&limits);
        let out = agc(&args);
        // The run fails (exit 1), the process does not abort (a signal has no exit code).
        assert_eq!(out.status.code(), Some(1), "`{filter}`: {out:?}");
        let r = record(&rd);
        assert_eq!(r["status"], "failed", "`{filter}`");
        let diags = r["diagnostics"].to_string();
        assert!(
            diags.contains("AGC043") && diags.contains("blow"),
            "{diags}"
        );
        // Resuming reads the journal and answers; it does not crash again.
        let mut args = vec!["run", "--resume", rd_s];
        args.extend_from_slice(&limits);
        let out = agc(&args);
        assert!(
            out.status.code().is_some(),
            "`{filter}`: resume aborted: {out:?}"
        );
        assert_eq!(record(&rd)["status"], "failed");
    }
}

/// The plan carries limits (`agc build --eval-…` writes `eval_limits`), which a run of the
/// plan uses; `agc run`'s own flags replace them.
#[test]
fn the_plan_carries_limits_and_run_flags_override_them() {
    let tmp = tempfile::tempdir().unwrap();
    let wf = tmp.path().join("wf.yaml");
    let deep = "reduce range(200) as $i (null; [.]) | tojson | length";
    std::fs::write(&wf, HOSTILE.replace("FILTER", deep)).unwrap();
    let plan = tmp.path().join("plan.json");
    let (wf, plan) = (wf.to_str().unwrap(), plan.to_str().unwrap());
    let out = agc(&["build", wf, "-o", plan, "--eval-depth", "50"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = std::fs::read_to_string(plan).unwrap();
    assert!(
        text.contains("\"eval_limits\": {\n    \"depth\": 50\n  }"),
        "{text}"
    );
    // Under the plan's limit the node fails with AGC043.
    let out = agc(&["run", plan, "--fixed-clock"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("AGC043"));
    // A flag replaces the plan's limit: the filter finishes.
    let out = agc(&["run", plan, "--fixed-clock", "--eval-depth", "500"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Without limits in the plan, the default depth (10,000) lets it finish too.
    let out = agc(&["run", wf, "--fixed-clock"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// An AGS node whose input concatenates past the evaluation limits (67,108,864 bytes built),
/// with a retry policy that retries `budget_exceeded` and a failure edge to a gate.
const RETRIED: &str = r#"ags_version: "1.0"
kind: AgenticGraph
id: limits/retried
title: An input over the evaluation limits
objective: Fail an attempt on a limit, retry it, then take the failure edge.
params:
  s:
    type: string
    description: A long text.
entrypoints: [double]
nodes:
  double:
    title: Double
    description: Reads the text twice.
    inputs:
      twice:
        type: string
        description: The text, twice.
        from: params.s + params.s
    outputs:
      result:
        type: string
        description: The result.
    failure:
      retry:
        max_attempts: 2
        retry_on: [budget_exceeded]
  recover:
    type: gate
    title: Recover
    description: A human looks at what failed.
    gate:
      mode: approve
      prompt: Go on without the doubled text?
edges:
  - from: double
    to: recover
    kind: on_failure
"#;

/// An exceeded limit in a node's inputs is a failed attempt of class `budget_exceeded`
/// (issue 47): the retry policy retries it (the inputs evaluated again), the failure edge
/// takes the exhausted node, and the run, paused at the gate after it, resumes.
#[test]
fn a_limit_in_the_inputs_fails_the_attempt_for_retries_and_failure_edges() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, rd) = run_with_long_params(tmp.path(), RETRIED);
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    let check = |r: &serde_json::Value, recover: &str| {
        let node = |id: &str| {
            r["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n["node_id"] == id)
                .cloned()
                .unwrap_or_else(|| panic!("no `{id}` in {r}"))
        };
        let double = node("double");
        assert_eq!(double["status"], "failed", "{double}");
        let attempts = double["attempts"].as_array().unwrap();
        assert_eq!(attempts.len(), 2, "{double}");
        for a in attempts {
            assert_eq!(a["status"], "budget_exceeded", "{a}");
            let error = a["error"].as_str().unwrap();
            assert!(
                error.starts_with("budget_exceeded: input `twice`") && error.contains("AGC043"),
                "{error}"
            );
        }
        assert_eq!(node("recover")["status"], recover);
    };
    check(&record(&rd), "awaiting_human");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("finished double: failed (budget_exceeded: "),
        "{stderr}"
    );
    // The journal replays (the limit met again, the same attempts) and the run goes on.
    let out = agc(&[
        "run",
        "--resume",
        rd.to_str().unwrap(),
        "--decide",
        "recover=approved",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let r = record(&rd);
    assert_eq!(r["status"], "succeeded");
    check(&r, "succeeded");
}

/// RETRIED with the concatenation moved from an input to where GUARD says, and no input.
const GUARDED: &str = r#"ags_version: "1.0"
kind: AgenticGraph
id: limits/guarded
title: A condition over the evaluation limits
objective: Fail an attempt on a limit met by a condition, retry it, then take the failure edge.
params:
  s:
    type: string
    description: A long text.
entrypoints: [double]
nodes:
  double:
GUARD
    failure:
      retry:
        max_attempts: 2
        retry_on: [budget_exceeded]
  recover:
    type: gate
    title: Recover
    description: A human looks at what failed.
    gate:
      mode: approve
      prompt: Go on without it?
edges:
  - from: double
    to: recover
    kind: on_failure
"#;

/// A limit met by the node's own `when` or by a decision's branch condition is a failed
/// attempt of class `budget_exceeded`, like one met by its inputs (issue 47): retried (the
/// condition evaluated again), then the failure edge. It was a run failure without an
/// attempt (RT062) for the `when`, and a branch counted as false for the decision.
#[test]
fn a_limit_in_a_guard_or_a_decision_fails_the_attempt_like_the_inputs() {
    let concat = "len(params.s + params.s) > 0";
    let guard = format!(
        "    title: Double\n    description: Runs when the text, twice, is not empty.\n    \
         when: {concat}\n    outputs:\n      result: {{type: string, description: The result.}}"
    );
    let decision = format!(
        "    type: decision\n    title: Double\n    description: Picks by the text, twice.\n    \
         decision:\n      evaluator: expression\n      branches:\n        \
         - {{label: long, description: Long., when: \"{concat}\"}}\n        \
         - {{label: short, description: Short., when: \"true\"}}"
    );
    let cases = [
        (guard, "budget_exceeded: the node's `when` failed: "),
        (
            decision,
            "budget_exceeded: branch `long`'s condition failed: ",
        ),
    ];
    for (node, error_start) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let doc = GUARDED.replace("GUARD", &node);
        let wf = tmp.path().join("checked.yaml");
        std::fs::write(&wf, &doc).unwrap();
        let check = agc(&["check", wf.to_str().unwrap()]);
        assert_eq!(check.status.code(), Some(0), "{check:?}");
        let (out, rd) = run_with_long_params(tmp.path(), &doc);
        assert_eq!(out.status.code(), Some(4), "{error_start}: {out:?}");
        let r = record(&rd);
        let node = |id: &str| {
            r["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n["node_id"] == id)
                .cloned()
                .unwrap_or_else(|| panic!("no `{id}` in {r}"))
        };
        let double = node("double");
        assert_eq!(double["status"], "failed", "{double}");
        let attempts = double["attempts"].as_array().unwrap();
        assert_eq!(attempts.len(), 2, "{double}");
        for a in attempts {
            assert_eq!(a["status"], "budget_exceeded", "{a}");
            let error = a["error"].as_str().unwrap();
            assert!(
                error.starts_with(error_start) && error.ends_with("(AGC043)"),
                "{error}"
            );
        }
        assert_eq!(node("recover")["status"], "awaiting_human");
        // The journal replays to the same attempts, and the run goes on past the gate.
        let out = agc(&[
            "run",
            "--resume",
            rd.to_str().unwrap(),
            "--decide",
            "recover=approved",
        ]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let r = record(&rd);
        assert_eq!(r["nodes"][0]["attempts"].as_array().unwrap().len(), 2);
    }
}

/// An AWP switch whose case meets a limit fails its attempt with `budget_exceeded` (it was
/// AGC327, a routing failure without an attempt).
#[test]
fn a_limit_in_a_switch_case_fails_the_switch_attempt() {
    let wf = r#"document: {schema: https://agent-workflow.dev/schemas/workflow-definition.json, name: limits-switch, version: 1.0.0}
state_schema:
  type: object
  properties:
    x: {}
nodes:
  - {id: start, type: start}
  - id: route
    type: switch
    config:
      cases:
        - {when: '[range(1e9)] | length > 0', target: done}
      default: done
  - {id: done, type: end, config: {output_mapping: .x}}
edges:
  - {source: __start__, target: start}
  - {source: start, target: route}
"#;
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("wf.yaml");
    std::fs::write(&path, wf).unwrap();
    let rd = tmp.path().join("rd");
    let out = agc(&[
        "run",
        path.to_str().unwrap(),
        "--run-dir",
        rd.to_str().unwrap(),
        "--fixed-clock",
        "--eval-memory",
        "8",
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let r = record(&rd);
    let route = r["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node_id"] == "route")
        .cloned()
        .unwrap();
    assert_eq!(route["status"], "failed", "{route}");
    let attempts = route["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 1, "{route}");
    assert_eq!(attempts[0]["status"], "budget_exceeded", "{route}");
    let error = attempts[0]["error"].as_str().unwrap();
    assert!(
        error.starts_with("budget_exceeded: switch `route`: a case failed: jq")
            && error.contains("memory"),
        "{error}"
    );
}
