//! Agent Graph v1: the inputs `evaluate`, `route` and `test` read besides the Provider, checked
//! against their schemas as upstream (`@c4a/agent-graph` 0.2.6) checks them: `--resource-receipts`
//! (`resource-read-receipts.schema.json`), `--state` Run files (`run.schema.json`) and route test
//! files (`test-case.schema.json`). A file that does not match is refused with `schema-invalid`
//! and upstream's per-rule diagnostics (the expected envelopes below are upstream's output);
//! and the CLI's own argument errors (`json-invalid`, `json-object-required`, `outcome-invalid`,
//! `file-read-failed`, `test-path-missing`, `test-cases-empty`, and `unexpected-error` for an
//! operating-system failure).

mod common;

use common::TempDir;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn agc_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("agc runs")
}

/// A Provider with one action reading a dynamic (context-view) resource and a static one.
fn provider(name: &str) -> TempDir {
    let d = TempDir::new(&format!("agc-ag-in-{name}-")).canonical();
    let w = |rel: &str, text: &str| {
        let p = d.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    w(
        "provider.yaml",
        "schema: agent-graph.provider.v1\nid: demo\nversion: 1.0.0\ngraphs: [graphs/main.yaml]\n",
    );
    w(
        "graphs/main.yaml",
        "schema: agent-graph.graph.v1\nid: main\nentrypoints: {default: work}\nnodes:\n\
         - {id: work, kind: action, action: actions/work.yaml, reasonCode: route.main.work,\n   \
            resources: {required: [resources/context.yaml, resources/guide.md]}}\n\
         - {id: done, kind: terminal, terminalOutcome: completed}\n\
         edges:\n- {from: work, to: done}\n",
    );
    w(
        "actions/work.yaml",
        "schema: agent-graph.action.v1\nid: work\nrunner: command\neffect: write\ncommand: make\n",
    );
    w(
        "actions/view.yaml",
        "schema: agent-graph.action.v1\nid: view\nrunner: command\neffect: read\ncommand: cat x\n",
    );
    w(
        "resources/context.yaml",
        "schema: agent-graph.resource.v1\nid: context.current\nkind: context-view\n\
         mediaType: application/json\nmaterializer: actions/view.yaml\n",
    );
    w(
        "resources/guide.md",
        "---\nid: guide\nkind: procedure\n---\n# Guide\n",
    );
    d
}

fn envelope(o: &Output) -> Value {
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    serde_json::from_slice(&o.stderr).unwrap_or_default()
}

fn route(p: &Path, receipts: &str) -> Output {
    let dir = p.to_string_lossy().into_owned();
    agc_in(
        p,
        &[
            "route",
            &dir,
            "main",
            "--resource-receipts",
            receipts,
            "--format",
            "json",
        ],
    )
}

fn revision(p: &Path) -> String {
    let dir = p.to_string_lossy().into_owned();
    let o = agc_in(p, &["evaluate", &dir, "main", "--format", "json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v["revision"].as_str().unwrap().to_string()
}

#[test]
fn receipts_that_do_not_match_their_schema_are_refused_with_upstreams_diagnostics() {
    let p = provider("receipts");
    let rev = revision(&p);
    // Without a digest a receipt is invalid, even one whose revision matches the dynamic
    // resource (agc used to take it and report the resource as read: `readState: current`).
    let doc = json!({"schema": "agent-graph.resource-read-receipts.v1", "provider": "demo",
        "receipts": [{"id": "context.current", "revision": rev}]});
    let v = envelope(&route(&p, &doc.to_string()));
    assert_eq!(
        v,
        json!({"schema": "agent-graph.error.v1", "state": "error", "error": {
            "code": "schema-invalid",
            "message": "resourceReceipts does not match resource-read-receipts.schema.json",
            "diagnostics": [{"code": "schema.required", "severity": "error",
                "message": "/receipts/0 must have required property 'digest'",
                "path": "resourceReceipts",
                "detail": {"schemaPath": "#/properties/receipts/items/required",
                    "params": {"missingProperty": "digest"}}}]}})
    );
    // Upstream's output for this document, byte for byte.
    let bad = r#"{"schema":"agent-graph.resource-read-receipts.v1","provider":"demo","receipts":[{"id":"","digest":"nothex","revision":"bad","extra":1}]}"#;
    let o = route(&p, bad);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim_end(),
        r##"{"schema":"agent-graph.error.v1","state":"error","error":{"code":"schema-invalid","message":"resourceReceipts does not match resource-read-receipts.schema.json","diagnostics":[{"code":"schema.additionalProperties","severity":"error","message":"/receipts/0 must NOT have additional properties","path":"resourceReceipts","detail":{"schemaPath":"#/properties/receipts/items/additionalProperties","params":{"additionalProperty":"extra"}}},{"code":"schema.pattern","severity":"error","message":"/receipts/0/id must match pattern \"^[a-z0-9](?:[a-z0-9._/-]*[a-z0-9])?$\"","path":"resourceReceipts","detail":{"schemaPath":"#/properties/receipts/items/properties/id/pattern","params":{"pattern":"^[a-z0-9](?:[a-z0-9._/-]*[a-z0-9])?$"}}},{"code":"schema.pattern","severity":"error","message":"/receipts/0/digest must match pattern \"^sha256:[a-f0-9]{64}$\"","path":"resourceReceipts","detail":{"schemaPath":"#/properties/receipts/items/properties/digest/pattern","params":{"pattern":"^sha256:[a-f0-9]{64}$"}}},{"code":"schema.pattern","severity":"error","message":"/receipts/0/revision must match pattern \"^sha256:[a-f0-9]{64}$\"","path":"resourceReceipts","detail":{"schemaPath":"#/properties/receipts/items/properties/revision/pattern","params":{"pattern":"^sha256:[a-f0-9]{64}$"}}}]}}"##
    );
    // A wrong `schema` constant: the per-field findings, in upstream's order.
    let v = envelope(&route(&p, r#"{"schema":"x","receipts":[1]}"#));
    let codes: Vec<&str> = v["error"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            "/ must have required property 'provider'",
            "/schema must be equal to constant",
            "/receipts/0 must be object"
        ]
    );
    // Human output lists the findings under the error, as upstream does.
    let dir = p.to_string_lossy().into_owned();
    let o = agc_in(&p, &["route", &dir, "main", "--resource-receipts", "[1]"]);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "ERROR schema-invalid: resourceReceipts does not match resource-read-receipts.schema.json\n\
         ERROR schema.type: / must be object\n"
    );
    // A valid receipt still marks its resource as read.
    let digest = format!("sha256:{}", "0".repeat(64));
    let doc = json!({"schema": "agent-graph.resource-read-receipts.v1", "provider": "demo",
        "receipts": [{"id": "context.current", "digest": digest, "revision": rev}]});
    let o = route(&p, &doc.to_string());
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["resources"]["required"][0]["readState"], "current", "{r}");
    assert_eq!(r["resources"]["required"][1]["readState"], "read-required");
}

/// A Run edit, the finding's message, its `schemaPath` and `params`.
type RunCase = (
    &'static str,
    Box<dyn FnOnce(&mut Value)>,
    &'static str,
    &'static str,
    Value,
);

fn run_file(p: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut run = json!({"schema": "agent-graph.run.v1", "id": "r1", "provider": "demo",
        "graph": "main", "entry": "default",
        "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z",
        "facts": {}, "outcomes": {}, "authorities": [], "events": []});
    edit(&mut run);
    let path = p.join(name);
    std::fs::write(&path, run.to_string()).unwrap();
    path
}

#[test]
fn run_files_that_do_not_match_their_schema_are_refused_with_upstreams_diagnostics() {
    let p = provider("runs");
    let dir = p.to_string_lossy().into_owned();
    let record = |o: &str| json!({"outcome": o, "recordedAt": "2026-01-01T00:00:00Z"});
    let cases: Vec<RunCase> = vec![
        (
            "badoutcome",
            Box::new(move |r| r["outcomes"]["main/work"] = record("done")),
            "/outcomes/main~1work/outcome must be equal to one of the allowed values",
            "#/$defs/outcome/enum",
            json!({"allowedValues": ["completed", "partial", "failed", "unverified", "skipped",
                "pending", "blocked", "waiting-user"]}),
        ),
        (
            "strout",
            Box::new(|r| r["outcomes"]["main/work"] = json!("completed")),
            "/outcomes/main~1work must be object",
            "#/type",
            json!({"type": "object"}),
        ),
        (
            "baddate",
            Box::new(|r| r["createdAt"] = json!("yesterday")),
            "/createdAt must match format \"date-time\"",
            "#/properties/createdAt/format",
            json!({"format": "date-time"}),
        ),
        (
            "extra",
            Box::new(|r| r["extra"] = json!(1)),
            "/ must NOT have additional properties",
            "#/additionalProperties",
            json!({"additionalProperty": "extra"}),
        ),
        (
            "noevents",
            Box::new(|r| {
                r.as_object_mut().unwrap().remove("events");
            }),
            "/ must have required property 'events'",
            "#/required",
            json!({"missingProperty": "events"}),
        ),
        (
            "dupauth",
            Box::new(|r| r["authorities"] = json!(["a", "a"])),
            "/authorities must NOT have duplicate items (items ## 1 and 0 are identical)",
            "#/properties/authorities/uniqueItems",
            json!({"i": 0, "j": 1}),
        ),
    ];
    for (name, edit, message, schema_path, params) in cases {
        let run = run_file(&p, &format!("run-{name}.json"), edit);
        let run = run.to_string_lossy().into_owned();
        let o = agc_in(
            &p,
            &[
                "evaluate", &dir, "main", "--state", &run, "--format", "json",
            ],
        );
        let v = envelope(&o);
        assert_eq!(
            v["error"],
            json!({"code": "schema-invalid", "message": format!("{run} does not match run.schema.json"),
                "diagnostics": [{"code": v["error"]["diagnostics"][0]["code"], "severity": "error",
                    "message": message, "path": run,
                    "detail": {"schemaPath": schema_path, "params": params}}]}),
            "{name}"
        );
    }
    // A valid Run is used; a recorded outcome counts.
    let ok = run_file(&p, "run-ok.json", |r| {
        r["outcomes"]["main/work"] = record("completed")
    });
    let o = agc_in(
        &p,
        &[
            "evaluate",
            &dir,
            "main",
            "--state",
            &ok.to_string_lossy(),
            "--format",
            "json",
        ],
    );
    let e: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(e["statusCode"], "complete", "{e}");
}

#[test]
fn test_files_that_do_not_match_their_schema_are_refused() {
    let p = provider("tests");
    let dir = p.to_string_lossy().into_owned();
    std::fs::create_dir_all(p.join("tests")).unwrap();
    // `entry` is required by the schema; the outcome `done` is not an Outcome.
    std::fs::write(
        p.join("tests/bad.yaml"),
        "schema: agent-graph.test.v1\nname: bad\ngraph: main\nexpect: {statusCode: actionable}\n",
    )
    .unwrap();
    let v = envelope(&agc_in(&p, &["test", &dir, "--format", "json"]));
    let file = p.join("tests/bad.yaml").to_string_lossy().into_owned();
    assert_eq!(v["error"]["code"], "schema-invalid");
    assert_eq!(
        v["error"]["message"],
        format!("{file} does not match test-case.schema.json")
    );
    assert_eq!(
        v["error"]["diagnostics"][0]["message"],
        "/ must have required property 'entry'"
    );
}

#[test]
fn argument_errors_have_upstreams_codes() {
    let p = provider("args");
    let dir = p.to_string_lossy().into_owned();
    let code = |args: &[&str]| {
        let mut all = vec!["evaluate", dir.as_str(), "main", "--format", "json"];
        all.extend_from_slice(args);
        envelope(&agc_in(&p, &all))["error"]["code"].clone()
    };
    assert_eq!(code(&["--facts", "{"]), "json-invalid");
    assert_eq!(code(&["--facts", "[1]"]), "json-object-required");
    assert_eq!(
        code(&["--outcomes", r#"{"main/work":"done"}"#]),
        "outcome-invalid"
    );
    assert_eq!(code(&["--facts", "@missing.json"]), "file-read-failed");
    assert_eq!(code(&["--state", "missing.json"]), "file-read-failed");
    let test = |args: &[&str]| {
        let mut all = vec!["test", dir.as_str()];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--format", "json"]);
        envelope(&agc_in(&p, &all))["error"]["code"].clone()
    };
    assert_eq!(test(&["nowhere"]), "test-path-missing");
    std::fs::create_dir_all(p.join("empty")).unwrap();
    assert_eq!(test(&["empty"]), "test-cases-empty");
    // An operating-system failure while building a bundle: the output lies below a file.
    std::fs::write(p.join("afile"), "").unwrap();
    let out = agc_in(
        &p,
        &[
            "agent-graph",
            "bundle",
            &dir,
            "-o",
            "afile/out",
            "--format",
            "json",
        ],
    );
    assert_eq!(envelope(&out)["error"]["code"], "unexpected-error");
}

#[test]
fn checking_a_provider_folder_checks_its_route_tests() {
    let p = provider("check-tests");
    std::fs::create_dir_all(p.join("tests")).unwrap();
    std::fs::write(
        p.join("tests/bad.yaml"),
        "schema: agent-graph.test.v1\nname: x\ngraph: main\nentry: default\n\
         expect: {statusCode: nope, bogus: 1}\n",
    )
    .unwrap();
    std::fs::write(
        p.join("tests/good.yaml"),
        "schema: agent-graph.test.v1\nname: y\ngraph: main\nentry: default\n\
         expect: {statusCode: actionable}\n",
    )
    .unwrap();
    let out = agc_in(&p, &["check", ".", "--format", "json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("tests/bad.yaml"), "{text}");
    assert!(!text.contains("tests/good.yaml\""), "{text}");
    assert_eq!(text.matches("schema-invalid").count(), 2, "{text}");
}

#[test]
fn a_run_with_many_faults_lists_them_in_upstreams_order() {
    let p = provider("many");
    let dir = p.to_string_lossy().into_owned();
    let run = run_file(&p, "run-many.json", |r| {
        r["id"] = json!("");
        r["createdAt"] = json!("x");
        r["facts"] = json!([]);
        r["outcomes"] = json!({"a": {"outcome": "done"}});
        r["authorities"] = json!(["a", "a"]);
        r["events"] =
            json!([{"sequence": 0, "at": "2026-01-01T00:00:00Z", "type": "", "outcome": "x"}]);
        r["extra"] = json!(1);
    });
    let run = run.to_string_lossy().into_owned();
    let o = agc_in(&p, &["evaluate", &dir, "main", "--state", &run]);
    assert_eq!(o.status.code(), Some(1));
    // Upstream's (`@c4a/agent-graph` 0.2.6) lines for this Run, in its order.
    let want = format!(
        "ERROR schema-invalid: {run} does not match run.schema.json\n\
         ERROR schema.additionalProperties: / must NOT have additional properties\n\
         ERROR schema.minLength: /id must NOT have fewer than 1 characters\n\
         ERROR schema.format: /createdAt must match format \"date-time\"\n\
         ERROR schema.type: /facts must be object\n\
         ERROR schema.required: /outcomes/a must have required property 'recordedAt'\n\
         ERROR schema.enum: /outcomes/a/outcome must be equal to one of the allowed values\n\
         ERROR schema.uniqueItems: /authorities must NOT have duplicate items (items ## 1 and 0 are identical)\n\
         ERROR schema.minimum: /events/0/sequence must be >= 1\n\
         ERROR schema.minLength: /events/0/type must NOT have fewer than 1 characters\n\
         ERROR schema.enum: /events/0/outcome must be equal to one of the allowed values\n"
    );
    assert_eq!(String::from_utf8_lossy(&o.stderr), want);
}
