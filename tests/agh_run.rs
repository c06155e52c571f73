//! `agc run` on agh Loops: how generations end (`done`, `exhausted`), where gate verdicts
//! route (`revise` starts the next generation, `halt` ends the Loop, `max_revisions`
//! exhausts it) and how a fan-out splits its collection (`batch_size`, `max_fan_out`), per
//! the research notes on agh §3.2, §3.4 and §7. The Loop's ending is the record's
//! `x-terminal`.

mod common;

use common::TempDir;
use serde_json::{Value, json};
use std::process::{Command, Output};

/// Runs `doc` with `script` (fixed clock, quiet): the exit status and the record.
fn run(name: &str, doc: &str, script: &str) -> (Output, Value) {
    let dir = TempDir::new(&format!("agc-aghrun-{name}-"));
    let file = dir.join("t.loop.yaml");
    std::fs::write(&file, doc).unwrap();
    let s = dir.join("t.script.yaml");
    std::fs::write(&s, format!("format: agc.script/v1\n{script}")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_agc"))
        .arg("run")
        .arg(&file)
        .arg("--script")
        .arg(&s)
        .args(["--fixed-clock", "-q"])
        .env("NO_COLOR", "1")
        .output()
        .expect("agc runs");
    let record = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    (o, record)
}

/// The scope paths of the record's runs of node `id`, in record order.
fn runs_of(record: &Value, id: &str) -> Vec<String> {
    record["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|n| n["node_id"] == id)
        .map(|n| n["scope_path"].as_str().unwrap_or("").to_string())
        .collect()
}

fn node<'r>(record: &'r Value, path: &str) -> &'r Value {
    record["nodes"]
        .as_array()
        .and_then(|ns| ns.iter().find(|n| n["scope_path"] == path))
        .unwrap_or_else(|| panic!("no node run `{path}` in {record:#}"))
}

fn codes(record: &Value) -> Vec<String> {
    record["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

/// A Loop: `work`, then the gate `review` (a human criterion) with `gate` extra fields,
/// then `ship`.
fn gated(cap: u32, gate: &str) -> String {
    format!(
        r#"apiVersion: agh.loop/v1
kind: Loop
meta: {{name: gated}}
contract:
  goal: Ship it.
  iteration_cap: {cap}
  terminal_states: [done, failed, blocked, exhausted]
graph:
  nodes:
    - id: work
      class: action
      kind: run-agent
      params: {{agent: worker, prompt: "Do it"}}
    - id: review
      class: control
      kind: gate
      criteria:
        - {{id: ok, type: human, prompt: "Is it good?"}}
      verdict_policy: revise_until_clean
{gate}
    - id: ship
      class: action
      kind: run-agent
      params: {{agent: shipper, prompt: "Ship"}}
  edges:
    - {{from: work, to: review}}
    - {{from: review, to: ship}}
"#
    )
}

#[test]
fn a_failed_verdict_revises_in_new_generations_until_max_revisions_exhausts_the_loop() {
    let doc = gated(6, "      max_revisions: 2");
    let (o, rec) = run("revise", &doc, "nodes:\n  review: {decision: rejected}\n");
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(rec["status"], "failed");
    // Revisions 0 and 1 revise (a new generation each); revision 2 reaches max_revisions.
    assert_eq!(
        runs_of(&rec, "work"),
        [
            "generations[0].work",
            "generations[1].work",
            "generations[2].work"
        ]
    );
    assert_eq!(node(&rec, "generations[0].review")["status"], "failed");
    assert_eq!(node(&rec, "generations[0].ship")["status"], "skipped");
    assert_eq!(
        rec["x-terminal"],
        json!({"status": "exhausted", "reason_code": "gate_max_revisions_exhausted",
               "generation": 3, "node": "generations[2].review"})
    );
    assert_eq!(codes(&rec), ["AGC329"]);
}

#[test]
fn without_max_revisions_the_iteration_cap_exhausts_a_revising_loop() {
    let (o, rec) = run(
        "cap",
        &gated(2, ""),
        "nodes:\n  review: {decision: rejected}\n",
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(runs_of(&rec, "review").len(), 2);
    assert_eq!(
        rec["x-terminal"],
        json!({"status": "exhausted", "reason_code": "iteration_cap_exceeded",
               "generation": 2, "node": "generations"})
    );
}

#[test]
fn a_halt_route_ends_the_loop_with_its_terminal_status() {
    let gate = "      on_result:\n        fail: {route: halt, terminal_status: blocked, reason_code: nope}";
    let (o, rec) = run(
        "halt",
        &gated(6, gate),
        "nodes:\n  review: {decision: rejected}\n",
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(runs_of(&rec, "work"), ["generations[0].work"]);
    assert_eq!(node(&rec, "generations[0].review")["status"], "succeeded");
    assert_eq!(node(&rec, "generations[0].ship")["status"], "cancelled");
    assert_eq!(
        rec["x-terminal"],
        json!({"status": "blocked", "reason_code": "nope", "generation": 1,
               "node": "generations[0].review"})
    );
}

#[test]
fn a_fail_routed_to_continue_takes_the_gate_edges() {
    let gate = "      on_result: {fail: continue}";
    let (o, rec) = run(
        "cont",
        &gated(6, gate),
        "nodes:\n  review: {decision: rejected}\n",
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(node(&rec, "generations[0].ship")["status"], "succeeded");
    assert_eq!(rec["x-terminal"]["status"], "done");
}

#[test]
fn an_approved_gate_continues_and_the_clean_generation_is_done() {
    let (o, rec) = run(
        "pass",
        &gated(6, ""),
        "nodes:\n  review: {decision: approved}\n",
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(rec["status"], "succeeded");
    assert_eq!(runs_of(&rec, "ship"), ["generations[0].ship"]);
    assert_eq!(
        rec["x-terminal"],
        json!({"status": "done", "generation": 1})
    );
    assert!(codes(&rec).is_empty());
}

/// A Loop of one run-agent node, with `contract` extra fields.
fn single(contract: &str) -> String {
    format!(
        r#"apiVersion: agh.loop/v1
kind: Loop
meta: {{name: single}}
inputs:
  n: {{type: number, default: 1}}
contract:
  goal: Do it.
{contract}
graph:
  nodes:
    - id: work
      class: action
      kind: run-agent
      params: {{agent: worker, prompt: "Do it"}}
  edges: []
"#
    )
}

#[test]
fn a_clean_generation_without_stop_when_is_done() {
    // The default cap (50) is no reason to run 50 generations.
    let (o, rec) = run("clean", &single(""), "nodes: {}\n");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(runs_of(&rec, "work"), ["generations[0].work"]);
    assert_eq!(
        rec["x-terminal"],
        json!({"status": "done", "generation": 1})
    );
}

#[test]
fn stop_when_true_is_done_and_false_runs_on_until_the_cap_exhausts_the_loop() {
    let (o, rec) = run(
        "stoptrue",
        &single("  stop_when: \"inputs.n == 1\""),
        "nodes: {}\n",
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        rec["x-terminal"],
        json!({"status": "done", "generation": 1})
    );

    let doc = single("  stop_when: \"inputs.n == 2\"\n  iteration_cap: 3");
    let (o, rec) = run("stopfalse", &doc, "nodes: {}\n");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(rec["status"], "failed");
    assert_eq!(runs_of(&rec, "work").len(), 3);
    assert_eq!(node(&rec, "generations[2].work")["status"], "succeeded");
    assert_eq!(
        rec["x-terminal"],
        json!({"status": "exhausted", "reason_code": "iteration_cap_exceeded",
               "generation": 3, "node": "generations"})
    );
    assert_eq!(codes(&rec), ["AGC329"]);
}

#[test]
fn a_failed_node_fails_its_generation_and_the_next_one_runs() {
    let script = "nodes:\n  work:\n    results:\n      - fail: {class: tool_error, message: broke}\n      - outputs: {}\n";
    let (o, rec) = run("retrygen", &single("  iteration_cap: 4"), script);
    assert_eq!(o.status.code(), Some(0), "{rec:#}");
    assert_eq!(node(&rec, "generations[0].work")["status"], "failed");
    assert_eq!(node(&rec, "generations[1].work")["status"], "succeeded");
    assert_eq!(
        rec["x-terminal"],
        json!({"status": "done", "generation": 2})
    );
}

/// A Loop that fans `plan`'s tasks out to `each` with the fan-out's `fan` fields.
fn fan(fields: &str) -> String {
    format!(
        r#"apiVersion: agh.loop/v1
kind: Loop
meta: {{name: fan}}
contract:
  goal: Do every task.
  iteration_cap: 1
graph:
  nodes:
    - id: plan
      class: action
      kind: run-agent
      params:
        agent: planner
        prompt: Plan
        output_schema: {{type: object, properties: {{tasks: {{type: array, items: {{type: string}}}}}}}}
    - id: fan
      class: control
      kind: fan-out
      collection: "{{{{ .nodes.plan.output.tasks }}}}"
{fields}
    - id: each
      class: action
      kind: run-agent
      params: {{agent: worker, prompt: "do {{{{ json .item }}}} #{{{{ .index }}}}"}}
    - id: gather
      class: control
      kind: collect
  edges:
    - {{from: plan, to: fan}}
    - {{from: fan, to: each}}
    - {{from: each, to: gather}}
"#
    )
}

fn tasks(list: &str) -> String {
    format!("nodes:\n  plan: {{outputs: {{output: {{tasks: {list}}}}}}}\n")
}

fn prompts(record: &Value) -> Vec<String> {
    record["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|n| n["node_id"] == "each")
        .map(|n| n["inputs"]["prompt"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn batch_size_makes_one_branch_per_chunk_whose_item_is_the_chunk() {
    let doc = fan("      batch_size: 2\n      max_fan_out: 10");
    let (o, rec) = run("batch", &doc, &tasks("[a, b, c, d, e]"));
    assert_eq!(o.status.code(), Some(0), "{rec:#}");
    assert_eq!(
        prompts(&rec),
        [r#"do ["a","b"] #0"#, r#"do ["c","d"] #1"#, r#"do ["e"] #2"#]
    );
    // batch_size 1 (the default): the item is the element.
    let (_, rec) = run("batch1", &fan("      max_fan_out: 10"), &tasks("[a, b]"));
    assert_eq!(prompts(&rec), [r#"do "a" #0"#, r#"do "b" #1"#]);
}

#[test]
fn max_fan_out_bounds_branches_and_more_exhaust_the_loop() {
    let doc = fan("      batch_size: 2\n      max_fan_out: 2");
    // 4 items in chunks of 2: 2 branches, within max_fan_out.
    let (o, rec) = run("within", &doc, &tasks("[a, b, c, d]"));
    assert_eq!(o.status.code(), Some(0), "{rec:#}");
    assert_eq!(prompts(&rec).len(), 2);
    // 5 items: 3 branches, over it: no branch runs, the Loop is exhausted.
    let (o, rec) = run("over", &doc, &tasks("[a, b, c, d, e]"));
    assert_eq!(o.status.code(), Some(1));
    assert!(prompts(&rec).is_empty());
    assert_eq!(node(&rec, "generations[0].fan")["status"], "failed");
    assert_eq!(
        rec["x-terminal"],
        json!({"status": "exhausted", "reason_code": "fan_out_width_exceeded",
               "generation": 1, "node": "generations[0].fan"})
    );
    assert_eq!(codes(&rec), ["AGC329"]);
}

#[test]
fn generation_counts_from_one() {
    // Upstream's `generation` is never below 1: the second generation is `generation == 2`.
    let doc = single("  stop_when: \"generation == 2\"\n  iteration_cap: 5");
    let (o, rec) = run("genone", &doc, "nodes: {}\n");
    assert_eq!(o.status.code(), Some(0), "{rec:#}");
    assert_eq!(runs_of(&rec, "work").len(), 2);
    assert_eq!(
        rec["x-terminal"],
        json!({"status": "done", "generation": 2})
    );
}
