//! Agent Graph v1: `agc evaluate`, `agc route` and `agc test` against the upstream CLI's own
//! output (`shared/corpus/agent-graph/_derived/oracle-*.jsonl`, produced by `@c4a/agent-graph`
//! 0.2.6 on the corpus Providers), byte for byte; the corpus route tests; and the errors of
//! `route` and `evaluate` with their upstream codes. Corpus tests skip with a notice when the
//! corpus is absent.

mod common;

use common::TempDir;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `p` with `.` and `x/..` removed lexically (symlinks kept), as agc and Node's `path.resolve`
/// print paths.
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c.as_os_str()),
        }
    }
    out
}

fn corpus() -> Option<PathBuf> {
    let c = lexical(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/agent-graph"));
    if c.is_dir() {
        Some(c)
    } else {
        eprintln!("skipped: {} is absent", c.display());
        None
    }
}

fn agc_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("agc runs")
}

fn workspace(name: &str) -> TempDir {
    TempDir::new(&format!("agc-ag-{name}-")).canonical()
}

/// Runs each oracle line's command; returns the mismatches.
fn oracle(kind: &str) -> Option<Vec<String>> {
    let c = corpus()?;
    let ws = workspace(kind);
    let text = std::fs::read_to_string(c.join(format!("_derived/oracle-{kind}.jsonl"))).ok()?;
    let mut bad = Vec::new();
    let mut n = 0;
    for line in text.lines() {
        let o: serde_json::Value = serde_json::from_str(line).unwrap();
        n += 1;
        let a = &o["args"];
        let provider = c.join(o["provider"].as_str().unwrap());
        let root = provider.parent().unwrap().to_string_lossy().into_owned();
        let key = if kind == "evaluations" {
            "evaluation"
        } else {
            "route"
        };
        let facts = a["facts"].to_string();
        let outcomes = a["outcomes"].to_string();
        let mut args: Vec<String> = vec![
            if kind == "evaluations" {
                "evaluate"
            } else {
                "route"
            }
            .into(),
            provider.to_string_lossy().into_owned(),
            a["graph"].as_str().unwrap().into(),
            "--entry".into(),
            a["entry"].as_str().unwrap().into(),
            "--facts".into(),
            facts,
            "--outcomes".into(),
            outcomes,
            "--format".into(),
            "json".into(),
        ];
        if kind == "routes" {
            args.push("--revision".into());
            args.push(o["route"]["revision"].as_str().unwrap().into());
        }
        let auth: Vec<String> = a["authorities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect();
        if !auth.is_empty() {
            args.push("--authority".into());
            args.extend(auth);
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = agc_in(&ws, &refs);
        let want = serde_json::to_string(&o[key])
            .unwrap()
            .replace("<providerRoot>", &root)
            .replace("<workspace>", &ws.to_string_lossy());
        let got = String::from_utf8_lossy(&out.stdout).trim_end().to_string();
        if got != want {
            bad.push(format!(
                "{} ({kind}):\n  got  {got}\n  want {want}\n  {}",
                o["test"],
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(n >= 60, "oracle {kind} holds {n} lines");
    Some(bad)
}

#[test]
fn evaluate_matches_the_upstream_cli_byte_for_byte() {
    if let Some(bad) = oracle("evaluations") {
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}

#[test]
fn route_matches_the_upstream_cli_byte_for_byte() {
    if let Some(bad) = oracle("routes") {
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}

fn providers(c: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(c.join("examples"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("provider.yaml").is_file())
        .collect();
    v.sort();
    v.push(c.join("external/context4ai-context/packages/context-cli/context-workflow"));
    v
}

#[test]
fn every_corpus_route_test_passes() {
    let Some(c) = corpus() else { return };
    let mut total = 0;
    for p in providers(&c) {
        let out = agc_in(&c, &["test", &p.to_string_lossy()]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{}:\n{text}", p.display());
        let summary = text.lines().last().unwrap_or_default();
        let (passed, all) = summary
            .split_once(' ')
            .and_then(|(n, _)| n.split_once('/'))
            .expect("summary line");
        assert_eq!(passed, all, "{summary}");
        total += all.parse::<usize>().unwrap();
    }
    // 27 example cases and the Context Provider's 38.
    assert_eq!(total, 65);
}

/// A small Provider written here: one action, one gate, a terminal.
fn small_provider(name: &str) -> TempDir {
    let d = workspace(name);
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
        "schema: agent-graph.graph.v1\nid: main\nentrypoints: {default: build}\nnodes:\n\
         - {id: build, kind: action, action: actions/build.yaml, reasonCode: route.main.build}\n\
         - {id: ship, kind: action, action: actions/build.yaml, reasonCode: route.main.ship,\n   \
            requiresFacts: [{path: release.ready, equals: true}]}\n\
         - {id: done, kind: terminal, terminalOutcome: completed}\n\
         - {id: broken, kind: terminal, terminalOutcome: failed}\n\
         - {id: odd, kind: terminal, terminalOutcome: completed}\n\
         edges:\n\
         - {from: build, to: ship}\n\
         - {from: build, to: broken, outcomes: [failed, skipped]}\n\
         - {from: build, to: odd, outcomes: [skipped]}\n\
         - {from: ship, to: done}\n",
    );
    w(
        "actions/build.yaml",
        "schema: agent-graph.action.v1\nid: build\nrunner: script\neffect: write\n\
         entry: scripts/build.sh\nruntime: shell\nargs: [\"it's\", two words]\ncwd: provider\n",
    );
    w("scripts/build.sh", "echo build\n");
    d
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or(serde_json::Value::Null)
}

fn error_code(o: &Output) -> String {
    let v: serde_json::Value = serde_json::from_slice(&o.stderr).unwrap_or_default();
    assert_eq!(v["schema"], "agent-graph.error.v1", "{v}");
    v["error"]["code"].as_str().unwrap_or_default().to_string()
}

#[test]
fn route_refuses_stale_revisions_and_ids() {
    let p = small_provider("stale");
    let dir = p.to_string_lossy().into_owned();
    let e = json(&agc_in(&p, &["evaluate", &dir, "main", "--format", "json"]));
    let rev = e["revision"].as_str().unwrap().to_string();
    let id = e["primaryRoute"]["routeId"].as_str().unwrap().to_string();
    let fresh = agc_in(
        &p,
        &[
            "route",
            &dir,
            "main",
            &id,
            "--revision",
            &rev,
            "--format",
            "json",
        ],
    );
    assert!(fresh.status.success());
    let r = json(&fresh);
    // Script runner: quoted absolute entry and arguments, run in the provider root.
    let root = p.to_string_lossy();
    assert_eq!(
        r["commandPlan"][0]["command"],
        format!("sh '{root}/scripts/build.sh' 'it'\"'\"'s' 'two words'")
    );
    assert_eq!(r["commandPlan"][0]["workingDirectory"], *root);
    let facts = r#"{"release":{"ready":false}}"#;
    let stale = agc_in(
        &p,
        &[
            "route",
            &dir,
            "main",
            &id,
            "--revision",
            &rev,
            "--facts",
            facts,
            "--format",
            "json",
        ],
    );
    assert_eq!(stale.status.code(), Some(1));
    assert_eq!(error_code(&stale), "route-revision-stale");
    let gone = agc_in(
        &p,
        &[
            "route", &dir, "main", &id, "--facts", facts, "--format", "json",
        ],
    );
    assert_eq!(error_code(&gone), "route-stale");
    let missing = agc_in(&p, &["evaluate", &dir, "nope", "--format", "json"]);
    assert_eq!(error_code(&missing), "graph-missing");
}

#[test]
fn blocked_ambiguous_and_missing_entries_are_reported_as_upstream_does() {
    let p = small_provider("states");
    let dir = p.to_string_lossy().into_owned();
    let eval = |extra: &[&str]| {
        let mut args = vec!["evaluate", dir.as_str(), "main", "--format", "json"];
        args.extend_from_slice(extra);
        json(&agc_in(&p, &args))
    };
    // `ship` requires a fact: blocked, with required-fact-missing and no `no-route`.
    let e = eval(&["--outcomes", r#"{"main/build":"completed"}"#]);
    assert_eq!(e["statusCode"], "blocked");
    let codes: Vec<&str> = e["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["required-fact-missing"]);
    // A recorded outcome no edge accepts: blocked with no-route.
    let e = eval(&["--outcomes", r#"{"main/build":"partial"}"#]);
    assert_eq!(e["statusCode"], "blocked");
    assert_eq!(e["diagnostics"][0]["code"], "no-route");
    // Both terminals reached with different outcomes: error, outcomes sorted.
    let e = eval(&["--outcomes", r#"{"main/build":"skipped"}"#]);
    assert_eq!(e["statusCode"], "error", "{e}");
    assert_eq!(e["diagnostics"][0]["code"], "terminal-outcome-ambiguous");
    assert_eq!(
        e["diagnostics"][0]["detail"]["outcomes"],
        serde_json::json!(["completed", "failed"])
    );
    // Facts prove the path: the terminal wins, the outcome is reported.
    let e = eval(&[
        "--outcomes",
        r#"{"main/build":"completed","main/ship":"completed"}"#,
        "--facts",
        r#"{"release":{"ready":true}}"#,
    ]);
    assert_eq!(e["statusCode"], "complete", "{e}");
    assert_eq!(e["outcome"], "completed");
    let e = eval(&["--entry", "other"]);
    assert_eq!(e["statusCode"], "error");
    assert_eq!(e["diagnostics"][0]["code"], "entry-missing");
}

#[test]
fn loader_errors_refuse_evaluation_with_their_code() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agent-graph/providers/graph-recursion/provider.yml");
    let out = agc_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "evaluate",
            &dir.to_string_lossy(),
            "main",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(error_code(&out), "graph-recursion");
}

#[test]
fn checking_a_folder_checks_its_provider_once_as_a_unit() {
    let p = small_provider("unit");
    // A flow cycle in the graph: reported once (through the manifest), not a second time for
    // `graphs/main.yaml` on its own.
    let g = p.join("graphs/main.yaml");
    let text = std::fs::read_to_string(&g).unwrap();
    std::fs::write(
        &g,
        text.replace(
            "- {from: ship, to: done}",
            "- {from: ship, to: build}\n- {from: ship, to: done}",
        ),
    )
    .unwrap();
    let out = agc_in(&p, &["check", ".", "--format", "json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("graph-flow-cycle").count(), 1, "{text}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn route_without_a_primary_route_and_foreign_receipts_fail_with_their_codes() {
    let p = small_provider("receipts");
    let dir = p.to_string_lossy().into_owned();
    let done = r#"{"main/build":"completed","main/ship":"completed"}"#;
    let facts = r#"{"release":{"ready":true}}"#;
    let out = agc_in(
        &p,
        &[
            "route",
            &dir,
            "main",
            "--outcomes",
            done,
            "--facts",
            facts,
            "--format",
            "json",
        ],
    );
    assert_eq!(error_code(&out), "route-unavailable");
    let receipts =
        r#"{"schema":"agent-graph.resource-read-receipts.v1","provider":"other","receipts":[]}"#;
    let out = agc_in(
        &p,
        &[
            "route",
            &dir,
            "main",
            "--resource-receipts",
            receipts,
            "--format",
            "json",
        ],
    );
    assert_eq!(error_code(&out), "resource-receipts-provider-mismatch");
}

#[test]
fn a_run_file_supplies_state_and_flags_merge_over_it() {
    let p = small_provider("run");
    let dir = p.to_string_lossy().into_owned();
    std::fs::write(
        p.join("run.json"),
        r#"{"schema":"agent-graph.run.v1","id":"r1","provider":"demo","graph":"main","entry":"default",
           "createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z",
           "facts":{"release":{"ready":false}},
           "outcomes":{"main/build":{"outcome":"completed","recordedAt":"2026-01-01T00:00:00Z"}},
           "authorities":[],"events":[]}"#,
    )
    .unwrap();
    let run = p.join("run.json").to_string_lossy().into_owned();
    let eval = |extra: &[&str]| {
        let mut args = vec![
            "evaluate",
            dir.as_str(),
            "main",
            "--state",
            run.as_str(),
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        json(&agc_in(&p, &args))
    };
    // The Run's record (reduced to its outcome) and facts: `ship` is blocked by its fact.
    assert_eq!(eval(&[])["statusCode"], "blocked");
    // `--facts` replaces the top-level `release` key: `ship` becomes the next step, and the
    // revision equals the one of the same state given without a Run (timestamps do not count).
    let merged = eval(&["--facts", r#"{"release":{"ready":true}}"#]);
    assert_eq!(merged["primaryRoute"]["node"], "ship");
    let direct = json(&agc_in(
        &p,
        &[
            "evaluate",
            &dir,
            "main",
            "--format",
            "json",
            "--facts",
            r#"{"release":{"ready":true}}"#,
            "--outcomes",
            r#"{"main/build":"completed"}"#,
        ],
    ));
    assert_eq!(merged["revision"], direct["revision"]);
}
