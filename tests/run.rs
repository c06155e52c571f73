//! `agc run`: every AGS example and third-party graph runs under a script of ours to its
//! expected status; each run record matches its golden file in `tests/golden/runs/` and
//! validates against the upstream run-record schema. Set `AGC_BLESS=1` to rewrite the goldens
//! (then review the diff). Scripts and params live in `tests/golden/runs/scripts/`.

use std::path::{Path, PathBuf};

const CORPUS: &str = "../shared/corpus/ags";
const SCRIPTS: &str = "tests/golden/runs/scripts";

mod common;
#[path = "run_cases/mod.rs"]
mod run_cases;

use common::TempDir;
use run_cases::{Case, OK, case, cases};

fn resolve(p: &str) -> PathBuf {
    match p.strip_prefix("corpus:") {
        Some(rest) => Path::new(CORPUS).join(rest),
        None => PathBuf::from(p),
    }
}

fn script_path(s: &str) -> PathBuf {
    if s.contains('/') {
        PathBuf::from(s)
    } else {
        Path::new(SCRIPTS).join(format!("{s}.script.yaml"))
    }
}

fn params_path(s: &str) -> PathBuf {
    if s.contains('/') {
        PathBuf::from(s)
    } else {
        Path::new(SCRIPTS).join(format!("{s}.params.json"))
    }
}

fn tmp(name: &str) -> TempDir {
    TempDir::new(&format!("agc-run-{name}-"))
}

fn agc(args: &[String]) -> i32 {
    let mut all = vec!["agc".to_string()];
    all.extend(args.iter().cloned());
    agc::cli::run(all)
}

fn run_schema() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(include_str!(
        "../schemas/ags/agentic-graph-run-1.0.schema.json"
    ))
    .unwrap();
    jsonschema::validator_for(&schema).expect("the run schema compiles")
}

/// Runs a case; returns the final record's text.
fn run_case(c: &Case) -> String {
    let dir = tmp(c.name);
    let record = dir.join("record.json");
    let mut args: Vec<String> = vec!["run".into(), resolve(c.graph).display().to_string()];
    args.extend([
        "--script".into(),
        script_path(c.script).display().to_string(),
    ]);
    if let Some(p) = c.params {
        args.extend(["--params".into(), params_path(p).display().to_string()]);
    }
    if let Some(r) = c.root {
        args.extend(["--root".into(), resolve(r).display().to_string()]);
    }
    let run_dir = dir.join("run");
    args.extend([
        "--fixed-clock".into(),
        "--threads".into(),
        "1".into(),
        "-q".into(),
        "--run-dir".into(),
        run_dir.display().to_string(),
        "--record".into(),
        record.display().to_string(),
    ]);
    let code = agc(&args);
    let text = std::fs::read_to_string(&record).unwrap_or_default();
    assert_eq!(code, c.first.0, "{}: exit status", c.name);
    let status = serde_json::from_str::<serde_json::Value>(&text).unwrap()["status"].clone();
    assert_eq!(status, c.first.1, "{}: first status", c.name);
    let Some((decide, exit, want)) = c.resume else {
        return text;
    };
    let mut args: Vec<String> = vec![
        "run".into(),
        "--resume".into(),
        run_dir.display().to_string(),
    ];
    for d in decide {
        args.extend(["--decide".into(), d.to_string()]);
    }
    args.extend(["-q".into(), "--record".into(), record.display().to_string()]);
    assert_eq!(agc(&args), exit, "{}: exit status after resume", c.name);
    let text = std::fs::read_to_string(&record).unwrap();
    let status = serde_json::from_str::<serde_json::Value>(&text).unwrap()["status"].clone();
    assert_eq!(status, want, "{}: status after resume", c.name);
    text
}

#[test]
fn every_case_runs_to_its_golden_record() {
    let bless = std::env::var_os("AGC_BLESS").is_some();
    let schema = run_schema();
    let corpus = Path::new(CORPUS).is_dir();
    if !corpus {
        println!("note: {CORPUS} is absent; corpus runs skipped");
    }
    let mut failures = Vec::new();
    for c in cases() {
        if c.graph.starts_with("corpus:") && !corpus {
            continue;
        }
        let text = run_case(&c);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let errors: Vec<String> = schema
            .iter_errors(&value)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{}: the record breaks the run schema: {errors:?}",
            c.name
        );
        let golden = Path::new("tests/golden/runs").join(format!("{}.record.json", c.name));
        if bless {
            std::fs::write(&golden, &text).unwrap();
        } else {
            match std::fs::read_to_string(&golden) {
                Ok(old) if old == text => {}
                Ok(_) => failures.push(format!("{}: differs from {}", c.name, golden.display())),
                Err(_) => failures.push(format!("{}: {} is missing", c.name, golden.display())),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{failures:#?}\n(AGC_BLESS=1 rewrites the goldens)"
    );
}

#[test]
fn the_same_run_gives_the_same_bytes() {
    let c = Case {
        params: Some("examples/ags/changelog-release.params.json"),
        ..case(
            "changelog-twice",
            "examples/ags/changelog-release.agraph.yaml",
            "examples/ags/changelog-release.script.yaml",
            OK,
        )
    };
    assert_eq!(run_case(&c), run_case(&c));
}
