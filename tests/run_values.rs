//! Values in a run: input `default`s fill absent values before they are checked, and values
//! marked `redact: true` never appear in the run record or on stderr.

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
