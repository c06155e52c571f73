//! agh `transform` nodes run: each `params.map` entry kind (`from` with its native type,
//! `template` rendered to a string, `value` verbatim), the output read downstream as
//! `.nodes.<id>.output`, and a `from` that does not resolve failing the node.

mod common;

use common::TempDir;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const LOOP: &str = r#"apiVersion: agh.loop/v1
kind: Loop
meta:
  name: transform-kinds
inputs:
  topic:
    type: string
    required: true
contract:
  goal: Summarise a fetch.
  definition_of_done: The summary is written.
  iteration_cap: 1
graph:
  nodes:
    - id: fetch
      class: action
      kind: run-agent
      params:
        agent: fetcher
        prompt: "Fetch {{ .inputs.topic }}"
        output_schema:
          type: object
          properties:
            count: { type: integer }
            items: { type: array, items: { type: string } }
            meta: { type: object }
            gone: { type: string }
    - id: summary
      class: action
      kind: transform
      params:
        map:
          count: { from: nodes.fetch.output.count }
          items: { from: nodes.fetch.output.items }
          meta: { from: nodes.fetch.output.meta }
          status: { from: nodes.fetch.status }
          count_text: { template: "{{ .nodes.fetch.output.count }}" }
          line: { template: '{{ .inputs.topic }}: {{ join ", " .nodes.fetch.output.items }}' }
          plain: { template: "no actions here" }
          literal: { value: { keep: "{{ .inputs.topic }}", n: [1, 2] } }
    - id: report
      class: action
      kind: run-agent
      params:
        agent: writer
        prompt: "Report {{ .nodes.summary.output.line }} ({{ .nodes.summary.output.count }})"
  edges:
    - { from: fetch, to: summary }
    - { from: summary, to: report }
"#;

const SCRIPT: &str = r#"format: agc.script/v1
nodes:
  fetch:
    outputs:
      output: { count: 3, items: [a, b, c], meta: { source: web, score: 0.5 } }
  report:
    outputs:
      output: "${{ inputs.prompt }}"
"#;

fn tmp(name: &str) -> TempDir {
    TempDir::new(&format!("agc-aghtransform-{name}-"))
}

fn write(dir: &Path, doc: &str) -> PathBuf {
    std::fs::write(dir.join("t.loop.yaml"), doc).unwrap();
    std::fs::write(dir.join("t.script.yaml"), SCRIPT).unwrap();
    std::fs::write(dir.join("params.json"), r#"{"topic": "rust"}"#).unwrap();
    dir.join("t.loop.yaml")
}

fn run(dir: &Path, doc: &str) -> (Output, Value) {
    let file = write(dir, doc);
    let o = Command::new(env!("CARGO_BIN_EXE_agc"))
        .arg("run")
        .arg(&file)
        .arg("--params")
        .arg(dir.join("params.json"))
        .arg("--script")
        .arg(dir.join("t.script.yaml"))
        .args(["--fixed-clock", "-q"])
        .env("NO_COLOR", "1")
        .output()
        .expect("agc runs");
    let record = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    (o, record)
}

/// The plan's node `id`.
fn plan_node<'p>(plan: &'p Value, id: &str) -> &'p Value {
    plan["nodes"]
        .as_array()
        .and_then(|ns| ns.iter().find(|n| n["id"] == id))
        .unwrap_or_else(|| panic!("no node `{id}` in the plan"))
}

fn node<'r>(record: &'r Value, path: &str) -> &'r Value {
    record["nodes"]
        .as_array()
        .and_then(|ns| ns.iter().find(|n| n["scope_path"] == path))
        .unwrap_or_else(|| panic!("no node run `{path}` in {record:#}"))
}

#[test]
fn every_entry_kind_is_evaluated_and_the_output_is_read_downstream() {
    let dir = tmp("kinds");
    let (o, record) = run(&dir, LOOP);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}\n{record:#}");
    let want = json!({
        // `from`: the value read with its native type.
        "count": 3,
        "items": ["a", "b", "c"],
        "meta": {"source": "web", "score": 0.5},
        "status": "succeeded",
        // `template`: rendered to a string, also when it is exactly one action.
        "count_text": "3",
        "line": "rust: a, b, c",
        "plain": "no actions here",
        // `value`: verbatim, a template-looking string included.
        "literal": {"keep": "{{ .inputs.topic }}", "n": [1, 2]},
    });
    let summary = node(&record, "generations[0].summary");
    assert_eq!(summary["status"], "succeeded");
    assert_eq!(summary["outputs"], json!({ "output": want }));
    assert_eq!(summary["inputs"], want);
    // `.nodes.summary.output.<key>` downstream sees the evaluated map.
    assert_eq!(
        node(&record, "generations[0].report")["outputs"]["output"],
        "Report rust: a, b, c (3)"
    );
    // Carried out: no AGC307.
    assert_eq!(record["diagnostics"], json!([]), "{record:#}");
}

#[test]
fn a_from_that_does_not_resolve_fails_the_node() {
    let dir = tmp("unresolved");
    // `gone` is declared by fetch's schema (so the checker accepts the path) but the call
    // does not return it.
    let doc = LOOP.replace(
        "          plain: { template: \"no actions here\" }\n",
        "          plain: { template: \"no actions here\" }\n          missing: { from: nodes.fetch.output.gone }\n",
    );
    assert_ne!(doc, LOOP);
    let (o, record) = run(&dir, &doc);
    assert_eq!(o.status.code(), Some(1), "{record:#}");
    assert_eq!(record["status"], "failed");
    assert_eq!(node(&record, "generations[0].summary")["status"], "failed");
    assert!(
        record["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["scope_path"] != "generations[0].report" || n["status"] != "succeeded"),
        "report must not run on a failed summary: {record:#}"
    );
    let diags = record["diagnostics"].as_array().unwrap();
    let d = diags
        .iter()
        .find(|d| d["code"] == "RT033")
        .unwrap_or_else(|| panic!("no RT033 in {diags:#?}"));
    let msg = d["message"].as_str().unwrap();
    assert!(
        msg.contains("map entry `missing`: `from` does not resolve")
            && msg.contains("nodes.fetch.output.gone")
            && msg.contains("\"gone\""),
        "{msg}"
    );
}

#[test]
fn the_plan_holds_one_input_per_map_entry() {
    let dir = tmp("plan");
    let file = write(&dir, LOOP);
    let o = Command::new(env!("CARGO_BIN_EXE_agc"))
        .arg("build")
        .arg(&file)
        .output()
        .expect("agc runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let plan: Value = serde_json::from_slice(&o.stdout).unwrap();
    let summary = plan_node(&plan, "summary");
    assert_eq!(summary["produces"], "inputs");
    assert!(
        summary["attributes"].get("transform").is_none(),
        "{summary:#}"
    );
    // `params` are the nodes' inputs and are not repeated in `attributes` (for a transform,
    // only keys other than `map` would be), for an action either.
    assert!(summary["attributes"].get("params").is_none(), "{summary:#}");
    let fetch = plan_node(&plan, "fetch");
    assert!(fetch["attributes"].get("params").is_none(), "{fetch:#}");
    assert_eq!(fetch["attributes"]["class"], "action");
    let names: Vec<&str> = fetch["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["agent", "prompt", "output_schema"]);
    let inputs = summary["inputs"].as_array().unwrap();
    let kinds: Vec<(String, String)> = inputs
        .iter()
        .map(|i| {
            let kind = ["from", "template", "value"]
                .into_iter()
                .find(|k| i.get(*k).is_some())
                .unwrap_or("?");
            (i["name"].as_str().unwrap().to_string(), kind.to_string())
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("count", "from"),
        ("items", "from"),
        ("meta", "from"),
        ("status", "from"),
        ("count_text", "template"),
        ("line", "template"),
        ("plain", "value"),
        ("literal", "value"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(kinds, want);
    // A `from` is a path expression in core form; a `from` read of a node's output is a
    // data link.
    assert_eq!(inputs[0]["from"]["source"], "nodes.fetch.output.count");
    assert!(inputs[0]["from"]["core"].is_array());
    assert!(
        plan["links"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["from"] == "fetch"
                && l["to"] == "summary"
                && l["at"] == "params.map.count.from"),
        "{:#}",
        plan["links"]
    );
}

#[test]
fn a_plan_from_before_transforms_were_evaluated_says_so() {
    let dir = tmp("oldplan");
    let file = write(&dir, LOOP);
    let o = Command::new(env!("CARGO_BIN_EXE_agc"))
        .arg("build")
        .arg(&file)
        .output()
        .expect("agc runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The old lowering: the whole map as one `map` input, no `produces`.
    let mut plan: Value = serde_json::from_slice(&o.stdout).unwrap();
    for n in plan["nodes"].as_array_mut().unwrap() {
        if n["id"] == "summary" {
            // The map as written (plans no longer repeat `params` in `attributes`).
            let map = json!({
                "count": {"from": "nodes.fetch.output.count"},
                "items": {"from": "nodes.fetch.output.items"},
                "meta": {"from": "nodes.fetch.output.meta"},
                "status": {"from": "nodes.fetch.status"},
                "count_text": {"template": "{{ .nodes.fetch.output.count }}"},
                "line": {"template": "{{ .inputs.topic }}: {{ join \", \" .nodes.fetch.output.items }}"},
                "plain": {"template": "no actions here"},
                "literal": {"value": {"keep": "{{ .inputs.topic }}", "n": [1, 2]}}
            });
            n.as_object_mut().unwrap().remove("produces");
            let attrs = n["attributes"].as_object_mut().unwrap();
            attrs.insert("params".into(), json!({ "map": map }));
            n["inputs"] = json!([{"name": "map", "type": "object", "value": map}]);
        }
    }
    let plan_file = dir.join("old.plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_agc"))
        .arg("run")
        .arg(&plan_file)
        .arg("--params")
        .arg(dir.join("params.json"))
        .arg("--script")
        .arg(dir.join("t.script.yaml"))
        .args(["--fixed-clock", "-q"])
        .output()
        .expect("agc runs");
    let record: Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = &record["diagnostics"][0];
    assert_eq!(d["code"], "AGC307", "{record:#}");
    assert!(d["message"].as_str().unwrap().contains("`summary`"), "{d}");
    assert_eq!(
        node(&record, "generations[0].summary")["outputs"],
        json!({}),
        "not evaluated"
    );
}
