//! `agc run` as a command: exit statuses, progress, and each of its diagnostics
//! (AGC300–AGC304) on bad input.

mod common;

use common::TempDir;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXAMPLE: &str = "examples/ags/changelog-release.agraph.yaml";
const PARAMS: &str = "examples/ags/changelog-release.params.json";
const SCRIPT: &str = "examples/ags/changelog-release.script.yaml";

fn agc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("agc runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn tmp(name: &str) -> TempDir {
    TempDir::new(&format!("agc-runcli-{name}-"))
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn the_example_runs_and_reports_progress() {
    let o = agc(&[
        "run",
        EXAMPLE,
        "--params",
        PARAMS,
        "--script",
        SCRIPT,
        "--fixed-clock",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("started  collect_changes"), "{err}");
    assert!(err.contains("finished approve: succeeded"), "{err}");
    assert!(err.contains("run succeeded"), "{err}");
    let record: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(record["status"], "succeeded");
    assert_eq!(record["run_id"], "run-1");
}

/// Issue 47 item 8: a failed run says why: the failure class and message on the node's
/// progress line, and after the run a summary of the failed nodes with their errors (also
/// with `--quiet`, which drops only the progress lines).
#[test]
fn a_failed_run_says_why() {
    let dir = tmp("failed");
    let script = write(
        &dir,
        "fail.yaml",
        "nodes:\n  collect_changes:\n    outputs: { entries: [{ title: x, kind: fix }], entry_count: 1 }\n  draft_notes:\n    fail: { class: tool_error, message: \"the model provider refused: rate limited\" }\n",
    );
    let o = agc(&[
        "run",
        EXAMPLE,
        "--params",
        PARAMS,
        "--script",
        &script,
        "--fixed-clock",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "finished draft_notes: failed (tool_error: the model provider refused: rate limited)"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "1 node run failed:\n  draft_notes: tool_error: the model provider refused: rate limited"
        ),
        "{err}"
    );
    let quiet = agc(&[
        "run",
        EXAMPLE,
        "--params",
        PARAMS,
        "--script",
        &script,
        "--fixed-clock",
        "-q",
    ]);
    assert_eq!(
        stderr(&quiet),
        "1 node run failed:\n  draft_notes: tool_error: the model provider refused: rate limited\n"
    );
}

#[test]
fn a_plan_file_runs_like_its_document() {
    let dir = tmp("plan");
    let plan = dir.join("plan.json");
    assert_eq!(
        agc(&["build", EXAMPLE, "-o", plan.to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );
    let from_doc = agc(&[
        "run",
        EXAMPLE,
        "--params",
        PARAMS,
        "--script",
        SCRIPT,
        "--fixed-clock",
        "-q",
    ]);
    let from_plan = agc(&[
        "run",
        plan.to_str().unwrap(),
        "--params",
        PARAMS,
        "--script",
        SCRIPT,
        "--fixed-clock",
        "-q",
    ]);
    assert_eq!(from_plan.status.code(), Some(0), "{}", stderr(&from_plan));
    assert_eq!(from_doc.stdout, from_plan.stdout);
}

#[test]
fn agc300_a_bad_script_entry_is_pointed_at() {
    let dir = tmp("agc300");
    let s = write(
        &dir,
        "s.yaml",
        "nodes:\n  collect_changes:\n    outptus: {}\n",
    );
    let o = agc(&["run", EXAMPLE, "--params", PARAMS, "--script", &s]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("AGC300") && err.contains("outptus"), "{err}");
    assert!(err.contains("s.yaml:3:"), "the span names the entry: {err}");
    let s = write(&dir, "t.yaml", "steps: {}\n");
    let err = stderr(&agc(&["run", EXAMPLE, "--params", PARAMS, "--script", &s]));
    assert!(
        err.contains("AGC300") && err.contains("unknown script key `steps`"),
        "{err}"
    );
    assert!(err.contains("t.yaml:1:1"), "{err}");
}

#[test]
fn agc301_params_are_checked_before_anything_runs() {
    let dir = tmp("agc301");
    let p = write(&dir, "p.json", "[1, 2]");
    let o = agc(&["run", EXAMPLE, "--params", &p]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("AGC301"), "{}", stderr(&o));
    // since_tag is required (AGS params are required unless they say otherwise).
    let o = agc(&["run", EXAMPLE, "--script", SCRIPT]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("AGC301") && err.contains("AG301") && err.contains("since_tag"),
        "{err}"
    );
    let p = write(&dir, "q.json", r#"{"since_tag": 3, "sincetag": "v1"}"#);
    let err = stderr(&agc(&["run", EXAMPLE, "--params", &p, "--script", SCRIPT]));
    assert!(
        err.contains("AG302") && err.contains("param `since_tag`"),
        "{err}"
    );
    assert!(err.contains("`sincetag` is not a param"), "{err}");
}

#[test]
fn agc302_a_broken_plan_is_refused() {
    let dir = tmp("agc302");
    let p = write(
        &dir,
        "plan.json",
        r#"{"format": "agc.plan/v1", "nodes": 3}"#,
    );
    let o = agc(&["run", &p]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("AGC302"), "{}", stderr(&o));
}

/// The script is read while a plan file is (issue 41): the plan's errors still come first and
/// alone, and the script's are reported as before once the plan reads, resumed runs included.
#[test]
fn a_plan_file_and_its_script_are_read_together_and_reported_in_order() {
    let dir = tmp("together");
    let bad_script = write(&dir, "s.yaml", "nodes:\n  x:\n    outptus: {}\n");
    let broken = write(
        &dir,
        "broken.json",
        r#"{"format": "agc.plan/v5", "nodes": 3}"#,
    );
    let o = agc(&["run", &broken, "--script", &bad_script]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("AGC302") && !err.contains("AGC300"), "{err}");
    let plan = dir.join("plan.json");
    let plan = plan.to_str().unwrap();
    assert_eq!(agc(&["build", EXAMPLE, "-o", plan]).status.code(), Some(0));
    let o = agc(&["run", plan, "--params", PARAMS, "--script", &bad_script]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("AGC300") && err.contains("s.yaml:3:"), "{err}");
    let run = dir.join("run");
    let run = run.to_str().unwrap();
    let args = ["--params", PARAMS, "--script", SCRIPT, "--run-dir", run];
    let o = agc(&[&["run", plan][..], &args, &["-q", "--fixed-clock"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = agc(&["run", "--resume", run, "--script", &bad_script]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("AGC300") && err.contains("s.yaml:3:"), "{err}");
}

#[test]
fn agc303_pause_then_resume_with_a_decision() {
    let dir = tmp("agc303");
    let run = dir.join("run");
    let run = run.to_str().unwrap();
    // The shipped script without the gate's decision: the gate pauses the run. (The tasks
    // keep their scripted outputs: placeholders would fail their success criteria.)
    let shipped = std::fs::read_to_string(SCRIPT).unwrap();
    let without_gate = shipped.replace("  approve:\n    decision: approved\n", "");
    assert_ne!(without_gate, shipped, "the shipped script decides the gate");
    let s = write(&dir, "s.yaml", &without_gate);
    let o = agc(&[
        "run",
        EXAMPLE,
        "--params",
        PARAMS,
        "--script",
        &s,
        "--run-dir",
        run,
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(4),
        "paused awaiting a human: {}",
        stderr(&o)
    );
    // The wrong gate name is refused, with the gates that do wait.
    let o = agc(&["run", "--resume", run, "--decide", "publish=approved", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("AGC303") && err.contains("awaiting: approve"),
        "{err}"
    );
    let o = agc(&["run", "--resume", run, "--decide", "approve=maybe"]);
    assert_eq!(o.status.code(), Some(2));
    // A journal from another graph is refused (RT053).
    let journal = Path::new(run).join("journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let digest = text
        .split("\"graph_digest\":\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let other = text.replacen(digest, "sha256-AAAA", 1);
    std::fs::write(&journal, &other).unwrap();
    let err = stderr(&agc(&["run", "--resume", run, "-q"]));
    assert!(err.contains("AGC303") && err.contains("RT053"), "{err}");
    std::fs::write(&journal, &text).unwrap();
    // Rejected: the gate fails (on_reject: fail) and so does the run.
    let o = agc(&["run", "--resume", run, "--decide", "approve=rejected", "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(Path::new(run).join("record.json")).unwrap())
            .unwrap();
    assert_eq!(record["status"], "failed");
    let gate = record["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node_id"] == "approve")
        .unwrap();
    assert_eq!(gate["human_events"][0]["outcome"], "rejected");
    // A run directory that holds a run is not reused.
    let o = agc(&["run", EXAMPLE, "--params", PARAMS, "--run-dir", run]);
    assert_eq!(o.status.code(), Some(2));
}

/// Checkpoints are decided by name (`NODE.CHECKPOINT`), once: a decision for one that no
/// longer waits is refused with the names that do.
#[test]
fn agc303_checkpoints_are_decided_by_name_once() {
    let dir = tmp("agc303-checkpoints");
    let run = dir.join("run");
    let run = run.to_str().unwrap();
    let graph = "tests/golden/runs/graphs/checkpoints.agraph.yaml";
    // Without the `confirm` answer, ship's `before_side_effects` checkpoint waits too.
    let shipped =
        std::fs::read_to_string("tests/golden/runs/scripts/checkpoints.script.yaml").unwrap();
    let unconfirmed = shipped.replace("      confirm: { decision: approved }\n", "");
    assert_ne!(unconfirmed, shipped);
    let s = write(&dir, "s.yaml", &unconfirmed);
    let args = [
        "run",
        graph,
        "--script",
        &s,
        "--run-dir",
        run,
        "--fixed-clock",
    ];
    let o = agc(&args);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("awaits a human at plan_work.go")
            && err.contains("--decide plan_work.go=approved"),
        "{err}"
    );
    let record = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(Path::new(run).join("record.json")).unwrap())
            .unwrap()
    };
    assert_eq!(record()["nodes"][0]["x-awaiting"], "plan_work.go");
    let o = agc(&[
        "run",
        "--resume",
        run,
        "--decide",
        "plan_work.go=approved",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    // Decided already: refused, naming what waits now.
    let o = agc(&[
        "run",
        "--resume",
        run,
        "--decide",
        "plan_work.go=approved",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("AGC303")
            && err.contains("no gate, checkpoint or signal wait named `plan_work.go`")
            && err.contains("awaiting: ship.confirm"),
        "{err}"
    );
    // The second time `confirm` is asked (before the retry) it is `ship.confirm#1`; its
    // plain name decides it too.
    let o = agc(&[
        "run",
        "--resume",
        run,
        "--decide",
        "ship.confirm=approved",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(record()["nodes"][2]["x-awaiting"], "ship.confirm#1");
    let o = agc(&[
        "run",
        "--resume",
        run,
        "--decide",
        "ship.confirm=approved",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ship = &record()["nodes"][2];
    let outcomes: Vec<&str> = ship["human_events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["checkpoint_id"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["confirm", "retry_ok", "confirm"]);
    let o = agc(&[
        "run",
        "--resume",
        run,
        "--decide",
        "ship.confirm=approved",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nothing to decide"), "{}", stderr(&o));
}

#[test]
fn agc304_a_script_key_that_names_no_node_warns() {
    let dir = tmp("agc304");
    let shipped = std::fs::read_to_string(SCRIPT).unwrap();
    let s = write(
        &dir,
        "s.yaml",
        &format!("{shipped}  colect_changes: {{ outputs: {{}} }}\n"),
    );
    let o = agc(&["run", EXAMPLE, "--params", PARAMS, "--script", &s, "-q"]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(
        err.contains("AGC304") && err.contains("colect_changes"),
        "{err}"
    );
    // A checkpoint answer whose id the node does not have.
    let shipped =
        std::fs::read_to_string("tests/golden/runs/scripts/checkpoints.script.yaml").unwrap();
    let typo = shipped.replace("      retry_ok:", "      retry_okay:");
    assert_ne!(typo, shipped);
    let s = write(&dir, "c.yaml", &typo);
    let graph = "tests/golden/runs/graphs/checkpoints.agraph.yaml";
    let o = agc(&["run", graph, "--script", &s, "-q"]);
    let err = stderr(&o);
    assert!(
        err.contains("AGC304")
            && err.contains("answers checkpoint `retry_okay`")
            && err.contains("confirm, retry_ok"),
        "{err}"
    );
}

/// Every script we ship or test with fits the published script schema.
#[test]
fn scripts_fit_the_script_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../schemas/agc-run-script-v1.schema.json")).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let mut files = vec![PathBuf::from(SCRIPT)];
    for e in std::fs::read_dir("tests/golden/runs/scripts").unwrap() {
        let p = e.unwrap().path();
        if p.to_string_lossy().ends_with(".script.yaml") {
            files.push(p);
        }
    }
    assert!(files.len() > 10);
    for f in files {
        let mut sources = agc::source::SourceMap::new();
        let display = f.display().to_string();
        let (_, loaded) =
            agc::source::load::load_path(&mut sources, &f, &display, Default::default()).unwrap();
        let value = loaded.doc.expect("the script parses").value.to_json();
        let errors: Vec<String> = v.iter_errors(&value).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{display}: {errors:?}");
    }
    // And the schema is not vacuous: a misspelt field breaks it.
    let bad = serde_json::json!({"nodes": {"a": {"outptus": {}}}});
    assert!(!v.is_valid(&bad));
}

/// A task whose `after_outputs` review checkpoint waits for a person (the script leaves it
/// unanswered), and a node that reads the reviewed output.
const REVIEWED: &str = r#"ags_version: "1.0"
kind: AgenticGraph
id: agc-tests/decide-outputs
title: A review checkpoint answered from the command line
version: 0.1.0
requires_conformance: 3
objective: Draft a summary and have a person review it.
constraints:
  max_cost_usd: 1.0
entrypoints: [draft]
nodes:
  draft:
    type: task
    title: Draft the summary
    description: Write a summary.
    outputs:
      summary:
        type: string
        description: The summary.
      count:
        type: integer
        description: Points made.
    human:
      - id: check
        at: after_outputs
        mode: review
        prompt: Review the summary.
  file:
    type: task
    title: File it
    description: File the summary.
    depends_on: [draft]
    inputs:
      summary:
        type: string
        description: The summary.
        from: nodes.draft.outputs.summary
      count:
        type: integer
        description: Points made.
        from: nodes.draft.outputs.count
"#;

const REVIEWED_SCRIPT: &str =
    "format: agc.script/v1\nnodes:\n  draft:\n    outputs: { summary: first draft, count: 1 }\n";

fn paused_review(name: &str) -> (TempDir, String) {
    let dir = tmp(name);
    let graph = write(&dir, "g.agraph.yaml", REVIEWED);
    let script = write(&dir, "s.yaml", REVIEWED_SCRIPT);
    let run_dir = dir.join("run").display().to_string();
    let o = agc(&[
        "run",
        &graph,
        "--script",
        &script,
        "--run-dir",
        &run_dir,
        "--fixed-clock",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    (dir, run_dir)
}

fn record_of(run_dir: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(Path::new(run_dir).join("record.json")).unwrap())
        .unwrap()
}

#[test]
fn decide_with_outputs_approves_a_review_with_edits() {
    let (dir, run_dir) = paused_review("decide-outputs");
    // Inline JSON for one output; the other keeps the call's value.
    let o = agc(&[
        "run",
        "--resume",
        &run_dir,
        "--decide",
        "draft.check=approved",
        "--outputs",
        r#"draft.check={"summary": "edited by hand"}"#,
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let record = record_of(&run_dir);
    let nodes = record["nodes"].as_array().unwrap();
    assert_eq!(
        nodes[0]["outputs"],
        serde_json::json!({"summary": "edited by hand", "count": 1})
    );
    assert_eq!(nodes[0]["human_events"][0]["outcome"], "edited");
    assert_eq!(nodes[1]["inputs"]["summary"], "edited by hand");

    // From a file (`@out.json`), on a fresh pause.
    let (dir2, run_dir2) = paused_review("decide-outputs-file");
    let out = write(
        &dir2,
        "out.json",
        r#"{"summary": "from a file", "count": 7}"#,
    );
    let o = agc(&[
        "run",
        "--resume",
        &run_dir2,
        "--decide",
        "draft.check=approved",
        "--outputs",
        &format!("draft.check=@{out}"),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let record = record_of(&run_dir2);
    assert_eq!(record["nodes"][1]["inputs"]["count"], 7);
    let _ = (dir, dir2);
}

#[test]
fn decide_with_outputs_that_do_not_fit_is_refused_and_the_run_stays_paused() {
    let (_dir, run_dir) = paused_review("decide-misfit");
    let journal = Path::new(&run_dir).join("journal.jsonl");
    let before = std::fs::read_to_string(&journal).unwrap();
    let refused = |outputs: &str, decide: &str, want: &[&str]| {
        let o = agc(&[
            "run",
            "--resume",
            &run_dir,
            "--decide",
            decide,
            "--outputs",
            outputs,
            "-q",
        ]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{outputs}: {err}");
        for w in want {
            assert!(err.contains(w), "{outputs}: want `{w}` in {err}");
        }
        // Nothing was journaled: the run still awaits the same checkpoint.
        assert_eq!(std::fs::read_to_string(&journal).unwrap(), before);
    };
    // A value of the wrong type, checked against the node's declared outputs.
    refused(
        r#"draft.check={"count": "three"}"#,
        "draft.check=approved",
        &[
            "AGC303",
            "the answer for `draft.check` is refused",
            "output `count`: expected integer, got a string (RT031)",
        ],
    );
    // Not a JSON object; not JSON; a name no --decide names; outputs with a rejection.
    refused(
        r#"draft.check=[1]"#,
        "draft.check=approved",
        &[
            "AGC303",
            "must be a JSON object of outputs by name, not an array",
        ],
    );
    refused(
        r#"draft.check={"count": }"#,
        "draft.check=approved",
        &[
            "AGC303",
            "--outputs for `draft.check`: the value is not JSON",
        ],
    );
    refused(
        r#"draft.other={"count": 2}"#,
        "draft.check=approved",
        &[
            "AGC303",
            "--outputs names `draft.other`, which no --decide names",
        ],
    );
    refused(
        r#"draft.check={"count": 2}"#,
        "draft.check=rejected",
        &["AGC303", "outputs go with an approval"],
    );
    // The run is still paused and takes a fitting answer.
    let o = agc(&[
        "run",
        "--resume",
        &run_dir,
        "--decide",
        "draft.check=approved",
        "--outputs",
        r#"draft.check={"count": 3}"#,
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(record_of(&run_dir)["nodes"][1]["inputs"]["count"], 3);
}

/// An AWP workflow's result is the run's outputs (a value that is not an object as
/// `result`), printed at the end when the record goes to a file.
#[test]
fn the_awp_result_is_the_runs_outputs_and_is_printed() {
    let dir = tmp("awp-result");
    let wf = write(
        &dir,
        "double.workflow.yaml",
        r#"document: {schema: "https://agent-workflow.dev/schemas/workflow-definition.json", name: double, version: "1"}
state_schema: {type: object, properties: {n: {type: integer}}}
nodes:
  - {id: begin, type: start}
  - {id: set, type: set_state, config: {assignments: {n: {literal: 3}}}}
  - {id: finish, type: end, config: {output_mapping: ".n * 2"}}
edges:
  - {source: __start__, target: begin}
  - {source: begin, target: set}
  - {source: set, target: finish}
"#,
    );
    let script = write(
        &dir,
        "s.json",
        r#"{"format": "agc.script/v1", "nodes": {}}"#,
    );
    let record = dir.join("r.json").display().to_string();
    let o = agc(&[
        "run",
        &wf,
        "--script",
        &script,
        "--fixed-clock",
        "--record",
        &record,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("outputs: {\"result\":6}"), "{err}");
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(rec["outputs"], serde_json::json!({"result": 6}));
    // `-q` prints nothing but the diagnostics.
    let o = agc(&[
        "run",
        &wf,
        "--script",
        &script,
        "--fixed-clock",
        "-q",
        "--record",
        &record,
    ]);
    assert_eq!(stderr(&o), "");
}

/// The runtime decides nothing by the plan's dialect (only the compiler's lowering does, into
/// the plan's typed `semantics`): an example of every dialect runs to the same record from
/// its plan, from that plan with `source.dialect` changed to a name no dialect has, and from
/// the plan an older agc wrote for it (`agc.plan/v2`, whose reader derives the semantics).
#[test]
fn runs_follow_the_plan_semantics_not_the_dialect_name() {
    let cases = [
        (
            "examples/awp/support-triage.workflow.yaml",
            "examples/awp/support-triage",
            Some("support-triage.workflow.yaml"),
        ),
        (
            "examples/agh/delivery.loop.yaml",
            "examples/agh/delivery",
            Some("delivery.loop.yaml"),
        ),
        (
            "examples/agent-graph/release/provider.yaml",
            "examples/agent-graph/release",
            Some("release-provider.yaml"),
        ),
        (EXAMPLE, "examples/ags/changelog-release", None),
    ];
    for (doc, stem, v2) in cases {
        let dir = tmp("semantics");
        let plan_path = dir.join("plan.json");
        let built = agc(&["build", doc, "-o", plan_path.to_str().unwrap()]);
        assert_eq!(built.status.code(), Some(0), "{doc}: {}", stderr(&built));
        let text = std::fs::read_to_string(&plan_path).unwrap();
        let mut plan: serde_json::Value = serde_json::from_str(&text).unwrap();
        plan["source"]["dialect"] = "no-such-dialect".into();
        let renamed = write(&dir, "renamed.json", &plan.to_string());
        let mut plans = vec![plan_path.display().to_string(), renamed];
        if let Some(v2) = v2 {
            plans.push(format!("tests/fixtures/plans/v2/{v2}.plan.json"));
        }
        let records: Vec<(Option<i32>, String)> = plans
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let record = dir.join(format!("record-{i}.json"));
                let params = format!("{stem}.params.json");
                let script = format!("{stem}.script.yaml");
                let out = agc(&[
                    "run",
                    p,
                    "--params",
                    &params,
                    "--script",
                    &script,
                    "--fixed-clock",
                    "-q",
                    "--record",
                    record.to_str().unwrap(),
                ]);
                let text = std::fs::read_to_string(&record)
                    .unwrap_or_else(|_| panic!("{p}: no record: {}", stderr(&out)));
                (out.status.code(), text)
            })
            .collect();
        assert!(records[0].0.is_some(), "{doc}");
        for (p, r) in plans.iter().zip(&records).skip(1) {
            assert!(*r == records[0], "{p} runs differently from {doc}'s plan");
        }
    }
}
