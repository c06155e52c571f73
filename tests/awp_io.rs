//! An AWP run's input and schemas end to end: the `start` node's `input_schema` declares
//! params (typed, required as declared), the input is the initial state (validated against
//! `state_schema`, read by jq as `.key`), and every schema the plan carries is
//! self-contained (`$defs` carried beside the properties that reference them). The corpus
//! example is read in place (`../shared/corpus/awp/`, skipped with a notice when absent); the
//! other workflows are written here.

mod common;

use agc_runtime::plan::Plan;
use agc_runtime::run::bind_params;
use common::TempDir;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const LIGHTHOUSE: &str = "../shared/corpus/awp/examples/lighthouse-customer-routing.workflow.json";

fn lighthouse() -> Option<PathBuf> {
    let p = PathBuf::from(LIGHTHOUSE);
    if p.is_file() {
        Some(p)
    } else {
        println!("note: {LIGHTHOUSE} is absent; skipped");
        None
    }
}

fn agc(args: &[&str]) -> i32 {
    let mut all = vec!["agc".to_string()];
    all.extend(args.iter().map(|a| a.to_string()));
    agc::cli::run(all)
}

/// Builds `workflow` into a plan (read back as the runtime reads it).
fn plan(dir: &Path, workflow: &Path) -> (Plan, Value) {
    let out = dir.join("w.plan.json");
    let code = agc(&[
        "build",
        &workflow.display().to_string(),
        "-o",
        &out.display().to_string(),
    ]);
    assert_eq!(code, 0, "{} builds", workflow.display());
    let text = std::fs::read_to_string(&out).unwrap();
    (
        Plan::from_json(&text).unwrap(),
        serde_json::from_str(&text).unwrap(),
    )
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p
}

/// `agc run` of `workflow` with `params` and the script's `nodes`: (exit status, record).
fn run(dir: &Path, workflow: &Path, params: &Value, nodes: Value) -> (i32, Option<Value>) {
    let p = write(dir, "params.json", params);
    let s = write(
        dir,
        "script.json",
        &json!({"format": "agc.script/v1", "nodes": nodes}),
    );
    let record = dir.join("record.json");
    let _ = std::fs::remove_file(&record);
    let code = agc(&[
        "run",
        &workflow.display().to_string(),
        "--params",
        &p.display().to_string(),
        "--script",
        &s.display().to_string(),
        "--fixed-clock",
        "-q",
        "--record",
        &record.display().to_string(),
    ]);
    let rec = std::fs::read_to_string(&record)
        .ok()
        .map(|t| serde_json::from_str(&t).unwrap());
    (code, rec)
}

/// The errors `bind_params` gives for `given`, as (code, message).
fn refused(plan: &Plan, given: Value) -> Vec<(String, String)> {
    let Value::Object(m) = given else {
        panic!("params are an object")
    };
    match bind_params(plan, m) {
        Ok(_) => Vec::new(),
        Err(agc_runtime::run::RunError::Params(errs)) => errs,
        Err(e) => panic!("{e}"),
    }
}

fn param<'p>(plan: &'p Value, name: &str) -> &'p Value {
    plan["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no param `{name}` in {:#}", plan["params"]))
}

/// The upstream walker test's run: the lighthouse example started with a ticket's text.
#[test]
fn the_lighthouse_example_runs_with_its_input() {
    let Some(w) = lighthouse() else { return };
    let dir = TempDir::new("agc-awp-io-lighthouse-");
    let (plan, json) = plan(&dir, &w);
    assert_eq!(
        param(&json, "ticket_text"),
        &json!({"name": "ticket_text", "type": "string", "required": false,
                "schema": {"type": "string"}})
    );
    let nodes = json!({
        "classify": {"outputs": {"intent": "technical", "confidence": 0.9}},
        "search_kb": {"outputs": {"snippets": []}}
    });
    let input = json!({"ticket_text": "My API returns 500"});
    let (code, rec) = run(&dir, &w, &input, nodes.clone());
    let rec = rec.unwrap();
    assert_eq!(code, 0, "{rec:#}");
    assert_eq!(rec["params"], input);
    // The declared type holds: a number is refused before anything runs.
    let (code, rec) = run(&dir, &w, &json!({"ticket_text": 5}), nodes);
    assert_eq!((code, rec), (2, None));
    assert_eq!(
        refused(&plan, json!({"ticket_text": 5})),
        [(
            "AG302".to_string(),
            "param `ticket_text`: expected string, got an integer".to_string()
        )]
    );
}

/// A workflow whose start node declares its input: `priority` required and read by the
/// switch, `note` optional with a default, `count` declared by both schemas.
fn routed() -> Value {
    json!({
        "document": {"schema": "https://agent-workflow.dev/schemas/workflow-definition.json",
                     "name": "routed", "version": "1"},
        "state_schema": {"type": "object", "properties": {
            "count": {"type": "integer", "minimum": 0},
            "lane": {"type": "string"}
        }},
        "nodes": [
            {"id": "begin", "type": "start", "config": {"input_schema": {
                "type": "object",
                "required": ["priority", "count"],
                "properties": {
                    "priority": {"type": "string", "enum": ["high", "low"]},
                    "note": {"type": "string", "default": "none"},
                    "count": {"type": "integer", "maximum": 10}
                }}}},
            {"id": "route", "type": "switch", "config": {
                "cases": [{"when": ".priority == \"high\" and .count > 0", "target": "fast"}],
                "default": "slow"}},
            {"id": "fast", "type": "set_state", "config": {"assignments": {"lane": {"literal": "fast"}}}},
            {"id": "slow", "type": "set_state", "config": {"assignments": {"lane": {"jq": ".note"}}}},
            {"id": "finish", "type": "end", "config": {"output_mapping": "{lane: .lane}"}}
        ],
        "edges": [
            {"source": "__start__", "target": "begin"},
            {"source": "begin", "target": "route"},
            {"source": "fast", "target": "finish"},
            {"source": "slow", "target": "finish"}
        ]
    })
}

#[test]
fn the_input_schema_declares_typed_required_params() {
    let dir = TempDir::new("agc-awp-io-params-");
    let w = write(&dir, "routed.workflow.json", &routed());
    let (plan, json) = plan(&dir, &w);
    let names: Vec<&str> = json["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    // The state's properties first, then the input's others.
    assert_eq!(names, ["count", "lane", "priority", "note"]);
    // Required (the plan writes `required` only when false).
    assert_eq!(param(&json, "priority").get("required"), None);
    assert_eq!(param(&json, "note")["required"], false);
    assert_eq!(param(&json, "priority")["enum"], json!(["high", "low"]));
    assert_eq!(param(&json, "note")["default"], "none");
    // Declared by both: required by the input, both schemas hold.
    let count = param(&json, "count");
    assert_eq!(count.get("required"), None);
    assert_eq!(
        count["schema"],
        json!({"allOf": [{"type": "integer", "minimum": 0}, {"type": "integer", "maximum": 10}]})
    );
    assert_eq!(
        refused(&plan, json!({"count": 1})),
        [(
            "AG301".to_string(),
            "required param `priority` is missing".to_string()
        )]
    );
    let errs = refused(&plan, json!({"priority": "urgent", "count": 11}));
    let codes: Vec<&str> = errs.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(codes, ["AG302", "AG302"], "{errs:?}");
    assert!(
        refused(&plan, json!({"priority": "low", "count": -1}))[0]
            .1
            .contains("count")
    );
    // A key neither schema declares is refused (agc differs: the engine takes it).
    assert_eq!(
        refused(
            &plan,
            json!({"priority": "low", "count": 1, "colour": "red"})
        ),
        [(
            "AG302".to_string(),
            "`colour` is not a param of this graph".to_string()
        )]
    );
}

/// The input is the initial state: jq reads it as `.priority`, the default fills `.note`.
#[test]
fn jq_reads_the_input_as_state_keys() {
    let dir = TempDir::new("agc-awp-io-jq-");
    let w = write(&dir, "routed.workflow.json", &routed());
    let (code, rec) = run(
        &dir,
        &w,
        &json!({"priority": "high", "count": 2}),
        json!({}),
    );
    let rec = rec.unwrap();
    assert_eq!(code, 0, "{rec:#}");
    assert_eq!(rec["outputs"], json!({"lane": "fast"}));
    let (code, rec) = run(
        &dir,
        &w,
        &json!({"priority": "high", "count": 0}),
        json!({}),
    );
    assert_eq!(code, 0);
    assert_eq!(rec.unwrap()["outputs"], json!({"lane": "none"}));
}

/// The whole initial state is validated against `state_schema` at run start, as upstream
/// ("Initial state invalid vs state_schema"): here a keyword about the whole state, which no
/// param's own declaration holds (`count` needs `lane`).
#[test]
fn the_initial_state_must_fit_the_state_schema() {
    let dir = TempDir::new("agc-awp-io-initial-");
    let mut doc = routed();
    doc["state_schema"]["dependentRequired"] = json!({"count": ["lane"]});
    let w = write(&dir, "closed.workflow.json", &doc);
    let (plan, _) = plan(&dir, &w);
    let errs = refused(&plan, json!({"priority": "high", "count": 2}));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0, "AG302");
    assert!(
        errs[0]
            .1
            .starts_with("the initial state (the params) does not fit the state schema: at /:"),
        "{}",
        errs[0].1
    );
    assert_eq!(
        refused(&plan, json!({"priority": "high", "count": 2, "lane": "x"})),
        []
    );
    let (code, _) = run(
        &dir,
        &w,
        &json!({"priority": "high", "count": 2}),
        json!({}),
    );
    assert_eq!(code, 2);
}

/// The checker types a path into the input by the input schema: `.priority` is declared (no
/// AGC243), `.priority.level` cannot exist (a string has no fields: AGC242).
fn codes(doc: &Value) -> Vec<&'static str> {
    let mut sources = agc::source::SourceMap::new();
    let diags = agc::check::check_text(
        &mut sources,
        "t.workflow.json",
        serde_json::to_string_pretty(doc).unwrap(),
        &agc::check::CheckOptions::default(),
    );
    diags.iter().map(|d| d.code).collect()
}

#[test]
fn the_checker_types_input_paths_by_the_input_schema() {
    assert_eq!(codes(&routed()), Vec::<&str>::new());
    let mut doc = routed();
    doc["nodes"][1]["config"]["cases"][0]["when"] = json!(".priority.level == 1");
    // `count` is no longer read.
    assert_eq!(codes(&doc), ["AGC241", "AGC242"]);
}

/// `$defs` in `state_schema`, a resume schema and an input schema: a chain (`ticket` →
/// `customer`) and a recursive definition (`tree`); every schema of the plan compiles alone.
fn with_defs() -> Value {
    json!({
        "document": {"schema": "https://agent-workflow.dev/schemas/workflow-definition.json",
                     "name": "defs", "version": "1"},
        "state_schema": {
            "type": "object",
            "properties": {
                "ticket": {"$ref": "#/$defs/ticket"},
                "tree": {"$ref": "#/$defs/tree"},
                "verdict": {"type": "string"}
            },
            "$defs": {
                "customer": {"type": "object", "required": ["id"],
                             "properties": {"id": {"type": "integer"}}},
                "ticket": {"type": "object", "required": ["who"],
                           "properties": {"who": {"$ref": "#/$defs/customer"}}},
                "tree": {"type": "object", "properties": {
                    "v": {"type": "integer"},
                    "kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}}
            }
        },
        "nodes": [
            {"id": "begin", "type": "start", "config": {"input_schema": {
                "type": "object",
                "properties": {"lang": {"$ref": "#/$defs/lang"}},
                "$defs": {"lang": {"enum": ["en", "fr"]}}}}},
            {"id": "review", "type": "interrupt", "config": {
                "prompt": "Verdict?",
                "resume_schema": {"type": "object", "required": ["verdict"],
                    "properties": {"verdict": {"$ref": "#/$defs/verdict"}},
                    "$defs": {"verdict": {"enum": ["ok", "no"]}}}}},
            {"id": "finish", "type": "end", "config": {"output_mapping": "{verdict: .verdict, lang: .lang, who: .ticket.who.id, depth: (.tree.kids[0].kids[0].v)}"}}
        ],
        "edges": [
            {"source": "__start__", "target": "begin"},
            {"source": "begin", "target": "review"},
            {"source": "review", "target": "finish"}
        ]
    })
}

/// Every `schema` in the plan (params, node inputs and outputs) and the attributes' schemas.
fn schemas(v: &Value, out: &mut Vec<Value>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    if matches!(k.as_str(), "schema" | "state_schema" | "resume_schema")
                        && x.is_object()
                    {
                        out.push(x.clone());
                    } else {
                        stack.push(x);
                    }
                }
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
}

#[test]
fn every_schema_the_plan_carries_is_self_contained() {
    let dir = TempDir::new("agc-awp-io-defs-");
    let w = write(&dir, "defs.workflow.json", &with_defs());
    let (plan, json) = plan(&dir, &w);
    let mut all = Vec::new();
    schemas(&json, &mut all);
    assert!(all.len() >= 6, "{all:#?}");
    for s in &all {
        jsonschema::validator_for(s).unwrap_or_else(|e| panic!("{e}: {s:#}"));
    }
    // The chain is carried whole (`customer` through `ticket`), `tree` left behind.
    let ticket = &param(&json, "ticket")["schema"];
    assert_eq!(
        ticket["$defs"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["customer", "ticket"]
    );
    let ok = json!({"ticket": {"who": {"id": 7}}, "lang": "fr",
                    "tree": {"v": 1, "kids": [{"v": 2, "kids": [{"v": 3}]}]}});
    assert_eq!(refused(&plan, ok.clone()), []);
    let errs = refused(&plan, json!({"ticket": {"who": {"id": "seven"}}}));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].1.contains("/who/id"), "{}", errs[0].1);
    let errs = refused(
        &plan,
        json!({"tree": {"kids": [{"kids": [{"v": "deep"}]}]}}),
    );
    assert!(errs[0].1.contains("/kids/0/kids/0/v"), "{}", errs[0].1);
    assert!(refused(&plan, json!({"lang": "de"}))[0].1.contains("lang"));

    // The run: the resume payload is checked against its own `$defs`, and the result
    // reads through the carried definitions.
    let (code, rec) = run(
        &dir,
        &w,
        &ok,
        json!({"review": {"decision": "approved", "outputs": {"verdict": "ok"}}}),
    );
    let rec = rec.unwrap();
    assert_eq!(code, 0, "{rec:#}");
    assert_eq!(
        rec["outputs"],
        json!({"verdict": "ok", "lang": "fr", "who": 7, "depth": 3})
    );
    let (code, rec) = run(
        &dir,
        &w,
        &ok,
        json!({"review": {"decision": "approved", "outputs": {"verdict": "maybe"}}}),
    );
    assert_eq!(code, 1);
    let diags = rec.unwrap()["diagnostics"].to_string();
    assert!(diags.contains("AGC326"), "{diags}");
}
