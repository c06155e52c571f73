//! The AGS runtime codes `agc run` writes into the run record (`RT025`, `RT026`, `RT041`,
//! `RT062`) on small graphs of our own, with the run status each leads to; and
//! `policy.on_expression_error`, which decides whether an expression error stops the run.
//! (The other RT codes are triggered by the tests named in tests/registry.rs.)

mod common;

use common::TempDir;
use serde_json::Value;
use std::process::Command;

/// A map over the param `items` (typed `any`, so a string gets past the checks), truncating
/// above two items unless `ON_OVER_LIMIT` says otherwise.
const MAP: &str = r#"ags_version: "1.0"
kind: AgenticGraph
id: agc-tests/run-codes-map
title: Fan out over a param
version: 0.1.0
objective: Exercise the map's run codes.
constraints:
  max_cost_usd: 1.0
params:
  items:
    type: any
    description: What to fan out over.
entrypoints: [each]
nodes:
  each:
    type: map
    title: Handle each item
    description: One task per item.
    map:
      over: params.items
      as: item
      max_items: 2
      on_over_limit: ON_OVER_LIMIT
      collect:
        done: nodes.handle.outputs.done
      body:
        title: Handle one
        entrypoints: [handle]
        nodes:
          handle:
            type: task
            title: Handle one item
            description: Handle it.
            inputs:
              item:
                type: any
                description: The item.
                from: item
            outputs:
              done:
                type: boolean
                description: Whether it was handled.
"#;

/// A producer skipped by its guard (so the graph output it feeds stays unbound) and an edge
/// guard that reads a field the `limits` param lacks (null > integer: an evaluation error).
const FLOW: &str = r#"ags_version: "1.0"
kind: AgenticGraph
id: agc-tests/run-codes-flow
title: A skipped producer and a guard that cannot be evaluated
version: 0.1.0
objective: Exercise the run codes of outputs and guards.
constraints:
  max_cost_usd: 1.0
POLICY
params:
  go:
    type: boolean
    description: Whether to produce.
  limits:
    type: object
    description: Limits, possibly without the one the guard reads.
entrypoints: [produce, start]
nodes:
  produce:
    type: task
    title: Produce a value
    description: Runs only when asked.
    when: params.go
    outputs:
      x:
        type: string
        description: The value.
  start:
    type: task
    title: Start
    description: Always runs.
    outputs:
      n:
        type: integer
        description: A count.
  next:
    type: task
    title: Next
    description: Runs when the guard holds.
    outputs:
      ok:
        type: boolean
        description: Done.
edges:
  - from: start
    to: next
    kind: conditional
    when: nodes.start.outputs.n > params.limits.max
outputs:
  x:
    type: string
    description: The produced value.
    from: nodes.produce.outputs.x
  ok:
    type: boolean
    description: Whether next ran.
    required: false
    from: nodes.next.outputs.ok
"#;

const SCRIPT: &str = "nodes:\n  handle:\n    outputs:\n      done: true\n  produce:\n    outputs:\n      x: made\n  start:\n    outputs:\n      n: 3\n  next:\n    outputs:\n      ok: true\n";

/// Runs `graph` with `params` under [`SCRIPT`]; the run record.
fn run(graph: &str, params: &str) -> Value {
    let dir = TempDir::new("agc-run-codes-");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let g = write("g.agraph.yaml", graph);
    let p = write("p.json", params);
    let s = write("s.script.yaml", SCRIPT);
    let check = Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(["check", "--strict"])
        .arg(&g)
        .output()
        .unwrap();
    assert_eq!(
        check.status.code(),
        Some(0),
        "the test graph itself is clean: {}",
        String::from_utf8_lossy(&check.stdout)
    );
    let o = Command::new(env!("CARGO_BIN_EXE_agc"))
        .arg("run")
        .arg(&g)
        .arg("--params")
        .arg(&p)
        .arg("--script")
        .arg(&s)
        .args(["--fixed-clock", "-q"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "no run record ({e}): {}",
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// `(code, severity, message)` of each record diagnostic.
fn diags(record: &Value) -> Vec<(String, String, String)> {
    let text = |d: &Value, k: &str| d[k].as_str().unwrap_or_default().to_string();
    record["diagnostics"]
        .as_array()
        .map(|ds| {
            ds.iter()
                .map(|d| (text(d, "code"), text(d, "severity"), text(d, "message")))
                .collect()
        })
        .unwrap_or_default()
}

fn status_of(record: &Value, node: &str) -> String {
    record["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node_id"] == node)
        .map(|n| n["status"].as_str().unwrap().to_string())
        .unwrap_or_else(|| "absent".into())
}

#[test]
fn rt025_a_map_over_a_string_fails() {
    let r = run(
        &MAP.replace("ON_OVER_LIMIT", "truncate"),
        r#"{"items": "oops"}"#,
    );
    assert_eq!(r["status"], "failed");
    let d = diags(&r);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].0.as_str(), d[0].1.as_str()), ("RT025", "error"));
    assert!(d[0].2.contains("a string, not an array"), "{d:?}");
}

#[test]
fn rt026_over_max_items_truncates_or_fails() {
    let r = run(
        &MAP.replace("ON_OVER_LIMIT", "truncate"),
        r#"{"items": [1, 2, 3]}"#,
    );
    assert_eq!(r["status"], "succeeded");
    let d = diags(&r);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].0.as_str(), d[0].1.as_str()), ("RT026", "warning"));
    assert!(d[0].2.contains("3 items, over max_items (2)"), "{d:?}");
    let r = run(
        &MAP.replace("ON_OVER_LIMIT", "fail"),
        r#"{"items": [1, 2, 3]}"#,
    );
    assert_eq!(r["status"], "failed");
    let d = diags(&r);
    assert_eq!(
        (d[0].0.as_str(), d[0].1.as_str()),
        ("RT026", "error"),
        "{d:?}"
    );
}

#[test]
fn rt041_and_rt062_under_on_expression_error_false() {
    let graph = FLOW.replace("POLICY", "policy:\n  on_expression_error: \"false\"");
    let r = run(&graph, r#"{"go": false, "limits": {}}"#);
    // The guard counts as false (`next` is skipped) and the unbound required output `x`
    // makes the run partial.
    assert_eq!(r["status"], "partial");
    assert_eq!(status_of(&r, "next"), "skipped");
    let d = diags(&r);
    let codes: Vec<_> = d.iter().map(|x| (x.0.as_str(), x.1.as_str())).collect();
    assert_eq!(codes, [("RT062", "warning"), ("RT041", "warning")], "{d:?}");
    assert!(
        d[0].2
            .starts_with("an edge guard failed and counts as false: "),
        "{d:?}"
    );
    assert!(d[1].2.contains("required output `x` is unbound"), "{d:?}");
}

#[test]
fn rt062_stops_the_run_under_the_default_policy() {
    // No `policy`: `on_expression_error` is `fail`, the spec's default, so the guard's error
    // is run-fatal; `next` never runs.
    for policy in ["", "policy:\n  on_expression_error: fail"] {
        let r = run(
            &FLOW.replace("POLICY", policy),
            r#"{"go": true, "limits": {}}"#,
        );
        assert_eq!(r["status"], "failed", "{policy:?}");
        assert_ne!(status_of(&r, "next"), "succeeded");
        let d = diags(&r);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!((d[0].0.as_str(), d[0].1.as_str()), ("RT062", "error"));
        assert!(
            d[0].2.contains("policy.on_expression_error is `fail`"),
            "{d:?}"
        );
    }
    // Without the error, the same graph runs through.
    let r = run(
        &FLOW.replace("POLICY", ""),
        r#"{"go": true, "limits": {"max": 1}}"#,
    );
    assert_eq!(r["status"], "succeeded");
    assert_eq!(status_of(&r, "next"), "succeeded");
    assert!(diags(&r).is_empty());
}
