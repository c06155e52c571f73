//! A journal is never appended after damage, and a torn tail is said and cut away (issue 47
//! item 7, issue 41 item 6). Each field name of a paused run's last event damaged in turn:
//! `agc run --resume` refuses (exit 2, AGC303), twice in a row, and the run directory is byte
//! for byte as it was. A last line cut mid-write: the resume says so (AGC310), cuts it away
//! and goes on. With the JSON Lines journal, and with the SQLite journal when built with
//! `--features sqlite`. (Every byte offset of a cut, and nested fields, are tested on the
//! journals themselves: `runtime/src/run/journal_tests.rs`, `journal_sqlite_tests.rs`.)

mod common;

use common::TempDir;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const GRAPH: &str = r#"ags_version: "1.0"
kind: AgenticGraph
id: agc-tests/journal-damage
title: A call, then a gate
version: 0.1.0
objective: Exercise damaged journals.
constraints:
  max_cost_usd: 1.0
entrypoints: [draft]
nodes:
  draft:
    type: task
    title: Draft
    description: Writes a draft.
    outputs:
      text:
        type: string
        description: The draft.
  approve:
    type: gate
    title: Approve
    description: A human approves the draft.
    depends_on: [draft]
    gate:
      mode: approve
      prompt: Ship it?
      on_reject: fail
"#;

fn agc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agc"))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A run of GRAPH paused at its gate, in `tmp/<name>`.
fn paused(tmp: &TempDir, name: &str, journal: &str) -> PathBuf {
    let g = tmp.join("g.agraph.yaml");
    if !g.exists() {
        std::fs::write(&g, GRAPH).unwrap();
    }
    let dir = tmp.join(name);
    let out = agc()
        .arg("run")
        .arg(&g)
        .args(["--journal", journal, "--fixed-clock", "-q", "--run-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    dir
}

fn resume(dir: &Path) -> Output {
    agc()
        .args(["run", "-q", "--resume"])
        .arg(dir)
        .args(["--decide", "approve=approved"])
        .output()
        .unwrap()
}

/// The journal file and the text of its last event (as the journal stores it).
fn last_event(dir: &Path, journal: &str) -> (PathBuf, String) {
    match journal {
        "jsonl" => {
            let f = dir.join("journal.jsonl");
            let text = std::fs::read_to_string(&f).unwrap();
            (f, text.lines().last().unwrap().to_string())
        }
        #[cfg(feature = "sqlite")]
        "sqlite" => {
            use agc_runtime::run::Journal;
            let f = dir.join("journal.sqlite");
            let events = agc_runtime::run::SqliteJournal::open(&f)
                .unwrap()
                .load()
                .unwrap();
            (f, serde_json::to_string(events.last().unwrap()).unwrap())
        }
        other => panic!("no journal {other}"),
    }
}

/// Replaces the last occurrence of `from` in `file` by `to` (same length: the SQLite page
/// keeps its layout; SQLite pages carry no checksum once the log is checkpointed).
fn patch(file: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let mut bytes = std::fs::read(file).unwrap();
    let at = bytes
        .windows(from.len())
        .rposition(|w| w == from.as_bytes())
        .unwrap_or_else(|| panic!("`{from}` is not in {}", file.display()));
    bytes[at..at + to.len()].copy_from_slice(to.as_bytes());
    std::fs::write(file, bytes).unwrap();
}

fn damaged_last_events_are_refused(journal: &str) {
    let tmp = TempDir::new(&format!("agc-damage-{journal}-"));
    let probe = paused(&tmp, "probe", journal);
    let (_, last) = last_event(&probe, journal);
    let value: serde_json::Value = serde_json::from_str(&last).unwrap();
    let keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
    assert!(keys.len() >= 4, "{last}");
    for (i, key) in keys.iter().enumerate() {
        let dir = paused(&tmp, &format!("run{i}"), journal);
        let (file, last) = last_event(&dir, journal);
        // The key renamed, same length: `"at":` becomes `"ax":`.
        let mut renamed = key.clone();
        renamed.pop();
        renamed.push(if key.ends_with('x') { 'y' } else { 'x' });
        let damaged = last.replacen(&format!("\"{key}\":"), &format!("\"{renamed}\":"), 1);
        assert_ne!(damaged, last);
        patch(&file, &last, &damaged);
        let before = common::snapshot(&dir);
        for round in 0..2 {
            let out = resume(&dir);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{key}, round {round}: {err}");
            assert!(
                err.contains("AGC303") && err.contains("damaged"),
                "{key}: {err}"
            );
            assert_eq!(
                common::snapshot(&dir),
                before,
                "{key}, round {round}: nothing written"
            );
        }
    }
}

#[test]
fn jsonl_damaged_last_events_are_refused() {
    damaged_last_events_are_refused("jsonl");
}

#[cfg(feature = "sqlite")]
#[test]
fn sqlite_damaged_last_events_are_refused() {
    damaged_last_events_are_refused("sqlite");
}

/// A last event cut mid-write: the resume says so (AGC310), cuts it away and appends after the
/// whole lines; the journal then reads whole, and the run goes on to its end.
#[test]
fn a_torn_tail_is_said_cut_away_and_appended_after() {
    let tmp = TempDir::new("agc-torn-");
    let probe = paused(&tmp, "probe", "jsonl");
    let text = std::fs::read_to_string(probe.join("journal.jsonl")).unwrap();
    let last = text.lines().last().unwrap().len() + 1;
    for (i, keep) in [1, last / 2, last - 1].into_iter().enumerate() {
        let dir = paused(&tmp, &format!("run{i}"), "jsonl");
        let file = dir.join("journal.jsonl");
        let whole = std::fs::read(&file).unwrap();
        let cut = whole.len() - last + keep;
        std::fs::write(&file, &whole[..cut]).unwrap();
        // Crash recovery (no decision): the torn event was the gate's answer, so the gate is
        // asked again and the run pauses there again.
        let out = agc()
            .args(["run", "-q", "--resume"])
            .arg(&dir)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(4), "cut at {cut}: {err}");
        assert!(
            err.contains("AGC310") && err.contains(&format!("({keep} bytes")),
            "{err}"
        );
        let after = std::fs::read_to_string(&file).unwrap();
        assert!(after.as_bytes().starts_with(&whole[..whole.len() - last]));
        for line in after.lines() {
            serde_json::from_str::<agc_runtime::run::Event>(line)
                .unwrap_or_else(|e| panic!("cut at {cut}: {line}: {e}"));
        }
        // Nothing torn any more, and the decision ends the run.
        let out = resume(&dir);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "cut at {cut}: {err}");
        assert!(!err.contains("AGC310"), "{err}");
    }
}
