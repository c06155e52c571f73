//! One process per run directory (issue 41 item 1, AGC309): a run paused at a gate is resumed
//! with a decision while a second `agc run --resume` starts; the second is refused at once
//! (exit 2, naming the first's pid), reads and writes nothing, and the call in flight in the
//! first is made once. Started at the same moment, one of two resumes runs and the other is
//! refused. A holder killed with SIGKILL leaves nothing to clean up. With the JSON Lines
//! journal, and with the SQLite journal when built with `--features sqlite`.
//!
//! A new run's files (`plan.json`, `script.json`, `options.json`, written on a second thread
//! while the run starts) are there before its first event: a run dir whose `plan.json` cannot
//! be written gets AGC001 and no event and no call.

mod common;

use common::TempDir;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A gate, then a call the script makes slow.
const GRAPH: &str = r#"ags_version: "1.0"
kind: AgenticGraph
id: agc-tests/run-dir-lock
title: A gate, then a slow call
version: 0.1.0
objective: Exercise one process per run directory.
constraints:
  max_cost_usd: 1.0
entrypoints: [approve]
nodes:
  approve:
    type: gate
    title: Approve
    description: A human approves the shipping.
    gate:
      mode: approve
      prompt: Ship it?
      on_reject: fail
  ship:
    type: task
    title: Ship
    description: The slow call after the gate, with a side effect.
    depends_on: [approve]
    outputs:
      url:
        type: string
        description: Where it shipped.
"#;

const SCRIPT: &str = "format: agc.script/v1
nodes:
  ship:
    delay_ms: 2500
    outputs: { url: \"https://example.invalid/1\" }
";

fn agc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agc"))
}

/// A run of GRAPH paused at its gate in `tmp/run`.
fn paused(tmp: &TempDir, journal: &str) -> std::path::PathBuf {
    std::fs::write(tmp.join("g.agraph.yaml"), GRAPH).unwrap();
    std::fs::write(tmp.join("s.yaml"), SCRIPT).unwrap();
    let dir = tmp.join("run");
    let out = agc()
        .arg("run")
        .arg(tmp.join("g.agraph.yaml"))
        .arg("--script")
        .arg(tmp.join("s.yaml"))
        .args(["--journal", journal, "-q", "--run-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn resume(dir: &Path, decide: bool) -> Command {
    let mut c = agc();
    c.args(["run", "-q", "--resume"]).arg(dir);
    if decide {
        c.args(["--decide", "approve=approved"]);
    }
    c.stdout(Stdio::null()).stderr(Stdio::piped());
    c
}

/// The calls the scripted handler made to `path`.
fn calls(dir: &Path, path: &str) -> usize {
    std::fs::read_to_string(dir.join("invocations.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|i| i["path"] == path)
        .count()
}

/// Waits until the slow call of the resumed run is being made.
fn wait_for_ship(dir: &Path, child: &mut std::process::Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while calls(dir, "ship") == 0 {
        assert!(Instant::now() < deadline, "the slow call never started");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the resume ended early"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The issue's race: a resume with a decision, then a crash-recovery resume while the first
/// makes its slow call. The second is refused (exit 2, AGC309 with the first's pid) and
/// changes nothing in the directory; the call is made once; the first succeeds.
fn a_second_process_is_refused(journal: &str) {
    let tmp = TempDir::new(&format!("agc-lock-{journal}-"));
    let dir = paused(&tmp, journal);
    let mut first = resume(&dir, true).spawn().unwrap();
    wait_for_ship(&dir, &mut first);
    let before = common::snapshot(&dir);
    let second = resume(&dir, false).output().unwrap();
    let err = stderr(&second);
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert!(err.contains("AGC309") && err.contains("in use"), "{err}");
    if cfg!(target_os = "linux") {
        assert!(
            err.contains(&format!("process {}", first.id())),
            "the holder's pid: {err}"
        );
    }
    // The slow call is still in flight: the directory is as the first process has it.
    assert_eq!(
        common::snapshot(&dir),
        before,
        "the refused process wrote nothing"
    );
    let out = first.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(calls(&dir, "ship"), 1, "the call in flight was made once");
    // Free again once the holder ended: the run has ended, the resume says so and exits 0.
    let again = resume(&dir, false).output().unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(calls(&dir, "ship"), 1);
}

/// Two resumes at the same moment: one runs, the other is refused; one `resumed` and one
/// decision reach the journal.
fn two_at_once(journal: &str) {
    let tmp = TempDir::new(&format!("agc-lock-once-{journal}-"));
    let dir = paused(&tmp, journal);
    let a = resume(&dir, true).spawn().unwrap();
    let b = resume(&dir, true).spawn().unwrap();
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let mut codes = [a.status.code(), b.status.code()];
    codes.sort();
    assert_eq!(codes, [Some(0), Some(2)], "{}\n{}", stderr(&a), stderr(&b));
    let refused = if a.status.code() == Some(2) { &a } else { &b };
    assert!(stderr(refused).contains("AGC309"), "{}", stderr(refused));
    assert_eq!(calls(&dir, "ship"), 1);
    let events: Vec<serde_json::Value> = common::journal_events(&dir, journal)
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    let count = |kind: &str| events.iter().filter(|e| e["event"] == kind).count();
    assert_eq!((count("resumed"), count("decided")), (1, 1), "{events:?}");
}

/// A holder killed with SIGKILL mid-call: the next resume takes the directory without any
/// cleanup, and makes the call in flight again (it was never answered).
fn a_killed_holder_leaves_nothing_to_clean(journal: &str) {
    let tmp = TempDir::new(&format!("agc-lock-kill-{journal}-"));
    let dir = paused(&tmp, journal);
    let mut first = resume(&dir, true).spawn().unwrap();
    wait_for_ship(&dir, &mut first);
    first.kill().unwrap();
    first.wait().unwrap();
    let out = resume(&dir, false).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(calls(&dir, "ship"), 2, "issued again after the crash");
}

#[test]
fn jsonl_a_second_process_is_refused() {
    a_second_process_is_refused("jsonl");
}

#[test]
fn jsonl_two_at_once() {
    two_at_once("jsonl");
}

#[test]
fn jsonl_a_killed_holder_leaves_nothing_to_clean() {
    a_killed_holder_leaves_nothing_to_clean("jsonl");
}

#[cfg(feature = "sqlite")]
#[test]
fn sqlite_a_second_process_is_refused() {
    a_second_process_is_refused("sqlite");
}

#[cfg(feature = "sqlite")]
#[test]
fn sqlite_two_at_once() {
    two_at_once("sqlite");
}

#[cfg(feature = "sqlite")]
#[test]
fn sqlite_a_killed_holder_leaves_nothing_to_clean() {
    a_killed_holder_leaves_nothing_to_clean("sqlite");
}

#[test]
fn a_run_whose_plan_json_cannot_be_written_journals_nothing_and_calls_nothing() {
    let tmp = TempDir::new("agc-run-dir-files");
    std::fs::write(tmp.join("g.agraph.yaml"), GRAPH).unwrap();
    let script = "nodes:\n  approve: { decision: approved }\n  ship: { outputs: { url: u } }\n";
    std::fs::write(tmp.join("s.yaml"), script).unwrap();
    let dir = tmp.join("run");
    // A folder where the plan goes: the atomic write refuses to replace it.
    std::fs::create_dir_all(dir.join("plan.json")).unwrap();
    let out = agc()
        .args([
            "run",
            "g.agraph.yaml",
            "--script",
            "s.yaml",
            "--run-dir",
            "run",
            "-q",
        ])
        .current_dir(&*tmp)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("AGC001") && err.contains("plan.json"), "{err}");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    assert_eq!(
        read("journal.jsonl"),
        "",
        "no event before the plan is written"
    );
    assert_eq!(
        read("invocations.jsonl"),
        "",
        "no call before the plan is written"
    );
    assert!(!dir.join("record.json").exists());
    // Nothing half-written is left behind.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".agc-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
