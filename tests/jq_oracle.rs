//! Differential test: `run_jq` (jaq) against the real `jq` binary on the filters in
//! `tests/oracle/jq_cases.txt`.
//!
//! Case format, one case per block of lines:
//! ```text
//! # comment
//! jq <filter>
//! in <input JSON>
//! differs <id>          (optional: a documented difference, see docs/jq-differences.md)
//! jaq <JSON array of outputs> | jaq error   (required with `differs`: what run_jq gives)
//! ```
//! Outputs are compared as JSON values, numbers by value (`1` = `1.0`). When jq fails, the
//! case expects `run_jq` to fail too (outputs jq printed before its error are not compared,
//! since `run_jq` returns an error, not partial outputs). A `differs` case asserts both that
//! `run_jq` gives the recorded result and, when jq is installed, that jq really disagrees; so
//! a difference that disappears (a jq or jaq upgrade) fails the test and gets re-examined.
//! Without a `jq` binary the comparison is skipped with a notice; `differs` cases still check
//! jaq's side.

use agc_runtime::jq::run_jq;
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

struct Case {
    line: usize,
    filter: String,
    input: String,
    differs: Option<String>,
    jaq: Option<String>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("oracle/jq_cases.txt");
    let mut out: Vec<Case> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(f) = line.strip_prefix("jq ") {
            out.push(Case {
                line: i + 1,
                filter: f.to_string(),
                input: String::new(),
                differs: None,
                jaq: None,
            });
        } else if let Some(v) = line.strip_prefix("in ") {
            out.last_mut().expect("`in` before `jq`").input = v.to_string();
        } else if let Some(v) = line.strip_prefix("differs ") {
            out.last_mut().expect("`differs` before `jq`").differs = Some(v.to_string());
        } else if let Some(v) = line.strip_prefix("jaq ") {
            out.last_mut().expect("`jaq` before `jq`").jaq = Some(v.to_string());
        } else {
            assert!(
                line.is_empty() || line.starts_with('#'),
                "line {}: {line}",
                i + 1
            );
        }
    }
    out
}

/// `None` = error.
type Outcome = Option<Vec<Value>>;

fn jaq(c: &Case) -> Outcome {
    let input: Value = serde_json::from_str(&c.input)
        .unwrap_or_else(|e| panic!("line {}: bad input: {e}", c.line));
    run_jq(&c.filter, input).ok()
}

fn real_jq(c: &Case) -> Option<Outcome> {
    let mut child = Command::new("jq")
        .arg("-c")
        .arg(&c.filter)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    // jq may exit (a compile error) before reading its input: a broken pipe is not a failure
    // to run it; its status says what happened.
    let _ = child.stdin.take()?.write_all(c.input.as_bytes());
    let out = child.wait_with_output().ok()?;
    if !out.status.success() {
        return Some(None);
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Some(Some(
        text.lines()
            .map(|l| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("line {}: jq printed {l}: {e}", c.line))
            })
            .collect(),
    ))
}

fn norm(v: &Value) -> Value {
    match v {
        Value::Number(n) => n.as_f64().map_or(Value::Null, |f| serde_json::json!(f)),
        Value::Array(a) => Value::Array(a.iter().map(norm).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), norm(v))).collect()),
        other => other.clone(),
    }
}

fn same(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| norm(x) == norm(y))
        }
        _ => false,
    }
}

fn show(o: &Outcome) -> String {
    match o {
        None => "error".into(),
        Some(v) => serde_json::to_string(v).unwrap(),
    }
}

fn recorded(c: &Case) -> Outcome {
    let j = c
        .jaq
        .as_deref()
        .unwrap_or_else(|| panic!("line {}: `differs` needs a `jaq` line", c.line));
    if j == "error" {
        None
    } else {
        Some(
            serde_json::from_str(j)
                .unwrap_or_else(|e| panic!("line {}: bad jaq line: {e}", c.line)),
        )
    }
}

#[test]
fn jaq_agrees_with_jq() {
    let cases = cases();
    assert!(cases.len() >= 100, "only {} cases", cases.len());
    let have_jq = Command::new("jq")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_jq {
        // CI installs Debian's jq (.ci/run); there, its absence is a failure, not a skip.
        assert!(std::env::var_os("CI").is_none(), "CI must install jq");
        eprintln!("notice: `jq` is not installed; skipping the comparison with real jq");
    }
    let mut failures = Vec::new();
    for c in &cases {
        let ours = jaq(c);
        if c.differs.is_some() {
            let want = recorded(c);
            if !same(&ours, &want) {
                failures.push(format!(
                    "line {}: `{}`: run_jq gave {}, recorded {}",
                    c.line,
                    c.filter,
                    show(&ours),
                    show(&want)
                ));
            }
        }
        if !have_jq {
            continue;
        }
        let theirs = real_jq(c).unwrap_or_else(|| panic!("line {}: could not run jq", c.line));
        match (&c.differs, same(&ours, &theirs)) {
            (None, false) => failures.push(format!(
                "line {}: `{}` on {}: run_jq {} but jq {}",
                c.line,
                c.filter,
                c.input,
                show(&ours),
                show(&theirs)
            )),
            (Some(id), true) => failures.push(format!(
                "line {}: `{}` is recorded as difference `{id}` but jq agrees now",
                c.line, c.filter
            )),
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
