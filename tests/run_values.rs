//! Values in a run: input `default`s fill absent values before they are checked, and values
//! marked `redact: true` never appear in the run record or on stderr. AWP's state: `null` is
//! a value, jq results follow AWP's rules (no output is `null`, several are an array), the
//! reducers combine as upstream's do.

mod common;

use common::TempDir;
use std::process::{Command, Output};

const GRAPH: &str = "tests/golden/runs/graphs/redact-default.agraph.yaml";
const TOKEN: &str = "tok-3f9a-very-secret";
const SIGNATURE: &str = "sig-77c1-also-secret";

fn tmp(name: &str) -> TempDir {
    TempDir::new(&format!("agc-runvalues-{name}-"))
}

fn run(dir: &std::path::Path, params: &str) -> (Output, String) {
    let p = dir.join("params.json");
    std::fs::write(&p, params).unwrap();
    let s = dir.join("script.yaml");
    std::fs::write(
        &s,
        format!(
            "nodes:\n  sign:\n    outputs:\n      note: \"for ${{{{ inputs.audience }}}}\"\n      signature: {SIGNATURE}\n"
        ),
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(["run", GRAPH, "--fixed-clock", "--params"])
        .arg(&p)
        .arg("--script")
        .arg(&s)
        .env("NO_COLOR", "1")
        .output()
        .expect("agc runs");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o, err)
}

#[test]
fn an_absent_input_takes_its_default_before_the_check() {
    let dir = tmp("default");
    let (o, err) = run(&dir, &format!("{{\"api_token\": \"{TOKEN}\"}}"));
    assert_eq!(o.status.code(), Some(0), "{err}");
    let record: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sign = &record["nodes"][0];
    assert_eq!(sign["scope_path"], "sign");
    assert_eq!(sign["inputs"]["audience"], "maintainers");
    assert_eq!(sign["outputs"]["note"], "for maintainers");
    // A given value wins over the default.
    let (o, err) = run(
        &dir,
        &format!("{{\"api_token\": \"{TOKEN}\", \"audience\": \"users\"}}"),
    );
    assert_eq!(o.status.code(), Some(0), "{err}");
    let record: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(record["nodes"][0]["outputs"]["note"], "for users");
}

#[test]
fn redacted_values_never_reach_the_record_or_stderr() {
    let dir = tmp("redact");
    let (o, err) = run(&dir, &format!("{{\"api_token\": \"{TOKEN}\"}}"));
    assert_eq!(o.status.code(), Some(0), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    for secret in [TOKEN, SIGNATURE] {
        assert!(!out.contains(secret), "the record holds `{secret}`:\n{out}");
        assert!(!err.contains(secret), "stderr holds `{secret}`:\n{err}");
    }
    let record: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sign = &record["nodes"][0];
    assert_eq!(sign["inputs"]["token"], "[redacted]");
    assert_eq!(sign["outputs"]["signature"], "[redacted]");
    // Redaction is for the record only: the consumer got the real value (it ran and the
    // record of its input is redacted too).
    let publish = &record["nodes"][1];
    assert_eq!(publish["status"], "succeeded");
    assert_eq!(publish["inputs"]["signature"], "[redacted]");
    // Values not marked stay.
    assert_eq!(sign["outputs"]["note"], "for maintainers");
}

#[test]
fn a_param_default_is_checked_like_a_given_value() {
    let dir = tmp("param-default");
    let plan = dir.join("plan.json");
    let o = Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(["build", GRAPH, "-o"])
        .arg(&plan)
        .output()
        .expect("agc builds");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A hand-edited plan whose `audience` default is a number, where a string is declared.
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    let audience = v["params"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["name"] == "audience")
        .expect("the audience param");
    audience["default"] = serde_json::json!(42);
    std::fs::write(&plan, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let p = dir.join("params.json");
    std::fs::write(&p, format!("{{\"api_token\": \"{TOKEN}\"}}")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_agc"))
        .arg("run")
        .arg(&plan)
        .arg("--params")
        .arg(&p)
        .env("NO_COLOR", "1")
        .output()
        .expect("agc runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("AG302") && err.contains("default does not fit"),
        "{err}"
    );
}

/// Runs the AWP workflow `doc` (YAML) with no script, in process; returns (exit status,
/// record).
fn run_awp(name: &str, doc: &str) -> (i32, serde_json::Value) {
    let dir = tmp(name);
    let w = dir.join("t.workflow.yaml");
    std::fs::write(&w, doc).unwrap();
    let record = dir.join("record.json");
    let args: Vec<String> = [
        "agc",
        "run",
        &w.display().to_string(),
        "--fixed-clock",
        "-q",
        "--record",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([record.display().to_string()])
    .collect();
    let code = agc::cli::run(args);
    let text = std::fs::read_to_string(&record)
        .unwrap_or_else(|e| panic!("no record ({e}), exit status {code}"));
    (code, serde_json::from_str(&text).unwrap())
}

/// The record's run of node `path`.
fn node<'r>(record: &'r serde_json::Value, path: &str) -> &'r serde_json::Value {
    record["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["scope_path"] == path)
        .unwrap_or_else(|| panic!("no run of `{path}`"))
}

const AWP_HEAD: &str = "document: {schema: s, name: t, version: \"1\"}\n";

#[test]
fn awp_null_is_a_value_and_jq_results_follow_awp_rules() {
    let doc = format!(
        "{AWP_HEAD}{}",
        r#"state_schema:
  type: object
  properties:
    x: {type: string}
    unset: {}
    nothing: {}
    both: {type: array, items: {type: number}}
    route: {type: string}
nodes:
  - {id: start, type: start}
  - id: s1
    type: set_state
    config:
      assignments:
        unset: {jq: '.x'}
        nothing: {jq: 'empty'}
        both: {jq: '1, 2'}
  - id: ask
    type: agent_delegate
    config: {agent_id: a, protocol: mcp, input_mapping: {task: '${ .x }', n: {jq: '.both[]'}}}
  - {id: sw, type: switch, config: {cases: [{when: 'false, false', target: a}], default: b}}
  - {id: a, type: set_state, config: {assignments: {route: {literal: case}}}}
  - {id: b, type: set_state, config: {assignments: {route: {literal: default}}}}
  - {id: end, type: end, config: {output_mapping: '.x'}}
edges:
  - {source: __start__, target: start}
  - {source: start, target: s1}
  - {source: s1, target: ask}
  - {source: ask, target: sw}
  - {source: a, target: end}
  - {source: b, target: end}
"#
    );
    let (code, record) = run_awp("awp-null", &doc);
    assert_eq!(code, 0, "{record:#}");
    assert_eq!(
        node(&record, "s1")["outputs"],
        serde_json::json!({"unset": null, "nothing": null, "both": [1, 2]})
    );
    assert_eq!(
        node(&record, "ask")["inputs"],
        serde_json::json!({"task": null, "n": [1, 2]})
    );
    // `false, false` is `[false, false]`, which is true: the case is taken.
    assert_eq!(node(&record, "a")["status"], "succeeded");
    assert_eq!(node(&record, "b")["status"], "skipped");
    assert_eq!(
        node(&record, "end")["outputs"]["output"],
        serde_json::Value::Null
    );
}

#[test]
fn awp_append_and_merge_combine_as_upstream() {
    let doc = format!(
        "{AWP_HEAD}{}",
        r#"state_schema:
  type: object
  additionalProperties: false
  properties:
    notes: {reducer: append}
    tags: {reducer: append}
    ctx: {type: object, reducer: merge}
nodes:
  - {id: start, type: start}
  - id: s1
    type: set_state
    config: {assignments: {notes: {literal: one}, tags: {literal: [a]}, ctx: {literal: {x: {p: 1}, l: [1]}}}}
  - id: s2
    type: set_state
    config: {assignments: {notes: {literal: two}, tags: {literal: [b, c]}, ctx: {literal: {x: {q: 2}, l: [2]}}}}
  - {id: end, type: end, config: {output_mapping: '.'}}
edges:
  - {source: __start__, target: start}
  - {source: start, target: s1}
  - {source: s1, target: s2}
  - {source: s2, target: end}
"#
    );
    let (code, record) = run_awp("awp-reducers", &doc);
    assert_eq!(code, 0, "{record:#}");
    assert_eq!(
        record["outputs"],
        serde_json::json!({
            "notes": ["one", "two"],
            "tags": ["a", "b", "c"],
            "ctx": {"x": {"p": 1, "q": 2}, "l": [2]}
        })
    );
}

/// A switch whose cases read `.i` (`i` from a `set_state`); `default_line` adds a default.
fn switch_doc(i: &str, when: &str, default_line: &str) -> String {
    let body = format!(
        r#"state_schema: {{type: object, properties: {{i: {{}}}}}}
nodes:
  - {{id: start, type: start}}
  - {{id: set, type: set_state, config: {{assignments: {{i: {{jq: '{i}'}}}}}}}}
  - {{id: sw, type: switch, config: {{cases: [{{when: '{when}', target: one}}]{default_line}}}}}
  - {{id: one, type: set_state, config: {{assignments: {{i: {{literal: 1}}}}}}}}
  - {{id: other, type: set_state, config: {{assignments: {{i: {{literal: 0}}}}}}}}
  - {{id: end, type: end}}
edges:
  - {{source: __start__, target: start}}
  - {{source: start, target: set}}
  - {{source: set, target: sw}}
  - {{source: one, target: end}}
  - {{source: other, target: end}}
"#
    );
    format!("{AWP_HEAD}{body}")
}

fn diagnostics(record: &serde_json::Value) -> Vec<(String, String)> {
    record["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn awp_switch_without_a_match_or_a_default_fails_the_run() {
    let (code, record) = run_awp("awp-switch-nomatch", &switch_doc("2", ".i == 1", ""));
    assert_eq!(code, 1, "{record:#}");
    assert_eq!(record["status"], "failed");
    assert_eq!(node(&record, "sw")["status"], "failed");
    assert_eq!(node(&record, "end")["status"], "skipped");
    let d = diagnostics(&record);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "AGC327");
    assert!(d[0].1.contains("no case matched"), "{}", d[0].1);
    // With a default, the same switch routes there.
    let (code, record) = run_awp(
        "awp-switch-default",
        &switch_doc("2", ".i == 1", ", default: other"),
    );
    assert_eq!(code, 0, "{record:#}");
    assert_eq!(node(&record, "other")["status"], "succeeded");
    assert_eq!(node(&record, "one")["status"], "skipped");
}

#[test]
fn awp_switch_case_that_fails_to_evaluate_fails_the_run() {
    // Upstream fails the switch (`switch_routing_failed`) rather than trying the next case.
    let (code, record) = run_awp(
        "awp-switch-error",
        &switch_doc("\"text\"", ".i - 1 > 0", ", default: other"),
    );
    assert_eq!(code, 1, "{record:#}");
    assert_eq!(node(&record, "sw")["status"], "failed");
    assert_eq!(node(&record, "other")["status"], "skipped");
    let d = diagnostics(&record);
    assert_eq!(d[0].0, "AGC327", "{d:?}");
}

#[test]
fn awp_switch_looping_back_past_the_bound_fails_the_run() {
    // `i` counts up; upstream loops until `.i >= 20` (no cap); agc follows the cycle 10
    // times and then cannot take the case AWP would take.
    let doc = format!(
        "{AWP_HEAD}{}",
        r#"state_schema: {type: object, properties: {i: {type: number}}}
nodes:
  - {id: start, type: start}
  - {id: inc, type: set_state, config: {assignments: {i: {jq: '(.i // 0) + 1'}}}}
  - {id: check, type: switch, config: {cases: [{when: '.i < 20', target: inc}], default: end}}
  - {id: end, type: end}
edges:
  - {source: __start__, target: start}
  - {source: start, target: inc}
  - {source: inc, target: check}
"#
    );
    let (code, record) = run_awp("awp-switch-bound", &doc);
    assert_eq!(code, 1, "{record:#}");
    assert_eq!(node(&record, "check#10")["status"], "failed");
    assert_eq!(node(&record, "end")["status"], "skipped");
    let d = diagnostics(&record);
    let codes: Vec<&str> = d.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(codes, ["AGC305", "AGC327"], "{d:?}");
    assert!(d[1].1.contains("bound (10)"), "{}", d[1].1);
}

#[test]
fn awp_a_node_that_leaves_the_state_invalid_fails() {
    let doc = format!(
        "{AWP_HEAD}{}",
        r#"state_schema:
  type: object
  properties:
    n: {type: number}
    tags: {type: array, items: {type: string}, reducer: append}
nodes:
  - {id: start, type: start}
  - {id: ok, type: set_state, config: {assignments: {n: {jq: '1 + 1'}, tags: {literal: a}}}}
  - {id: bad, type: set_state, config: {assignments: {tags: {jq: '.n'}}}}
  - {id: end, type: end}
edges:
  - {source: __start__, target: start}
  - {source: start, target: ok}
  - {source: ok, target: bad}
  - {source: bad, target: end}
"#
    );
    let (code, record) = run_awp("awp-state-invalid", &doc);
    assert_eq!(code, 1, "{record:#}");
    assert_eq!(node(&record, "ok")["status"], "succeeded");
    assert_eq!(node(&record, "bad")["status"], "failed");
    assert_eq!(node(&record, "end")["status"], "skipped");
    let d = diagnostics(&record);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "AGC328");
    assert!(
        d[0].1.contains("`bad`") && d[0].1.contains("/tags/1"),
        "{}",
        d[0].1
    );
}
