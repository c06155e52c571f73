//! The JSON Lines journal: a torn tail is dropped and cut away before the next append, at
//! every byte it can be cut at; a damaged complete line is refused and changes nothing.

use super::*;
use crate::run::event::CallResult;
use crate::run::handler::{FailureClass, HandlerError};

fn dir(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(prefix).tempdir().unwrap()
}

fn resumed(at: &str) -> Event {
    Event::Resumed { at: at.into() }
}

/// A last event with several fields, one of them nested.
fn finished() -> Event {
    Event::CallFinished {
        path: "draft_notes".into(),
        attempt: 2,
        result: CallResult::Failed(HandlerError::new(FailureClass::ToolError, "rate limited")),
        at: "2026-01-01T00:00:05Z".into(),
    }
}

#[test]
fn a_torn_last_line_is_dropped_and_appends_stay_readable() {
    let dir = dir("agc-jsonl-");
    let path = dir.path().join("journal.jsonl");
    let ev = resumed("2026-01-01T00:00:00Z");
    let mut j = JsonlJournal::open(&path).unwrap();
    j.append(&ev).unwrap();
    drop(j);
    // A crash in the middle of the second line.
    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"{\"event\":\"resu").unwrap();
    drop(f);
    let mut j = JsonlJournal::open(&path).unwrap();
    assert_eq!(j.torn_tail(), Some(14));
    assert_eq!(j.load().unwrap(), vec![ev.clone()]);
    j.append(&ev).unwrap();
    assert_eq!(j.load().unwrap(), vec![ev.clone(), ev]);
    drop(j);
    // A damaged line in the middle is an error, not silently skipped.
    std::fs::write(&path, "garbage\n{\"event\":\"resumed\",\"at\":\"x\"}\n").unwrap();
    let mut j = JsonlJournal::open(&path).unwrap();
    assert!(j.load().unwrap_err().0.contains("line 1"));
}

/// Issue 41 item 6: the last event cut at every byte offset (a crash inside the batch's
/// write) loads as the events before it, leaves the file as it was until something is
/// appended, and is cut away by the first append, whose event then reads back whole.
#[test]
fn a_last_event_cut_at_every_byte_is_dropped_then_cut_away() {
    let dir = dir("agc-jsonl-torn-");
    let path = dir.path().join("journal.jsonl");
    let first = resumed("2026-01-01T00:00:00Z");
    let last = finished();
    let after = resumed("2026-01-01T00:01:00Z");
    {
        let mut j = JsonlJournal::open(&path).unwrap();
        j.append(&first).unwrap();
        j.append(&last).unwrap();
    }
    let full = std::fs::read(&path).unwrap();
    let start = full.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut after_line = serde_json::to_vec(&after).unwrap();
    after_line.push(b'\n');
    for cut in start..full.len() {
        std::fs::write(&path, &full[..cut]).unwrap();
        let mut j = JsonlJournal::open(&path).unwrap();
        let torn = (cut - start) as u64;
        assert_eq!(j.torn_tail(), (torn > 0).then_some(torn), "cut at {cut}");
        assert_eq!(j.load().unwrap(), vec![first.clone()], "cut at {cut}");
        // Reading changed nothing.
        assert_eq!(std::fs::read(&path).unwrap(), &full[..cut], "cut at {cut}");
        j.append(&after).unwrap();
        j.flush().unwrap();
        assert_eq!(
            j.load().unwrap(),
            vec![first.clone(), after.clone()],
            "cut at {cut}"
        );
        drop(j);
        let mut expected = full[..start].to_vec();
        expected.extend_from_slice(&after_line);
        assert_eq!(std::fs::read(&path).unwrap(), expected, "cut at {cut}");
    }
    // Not cut: everything is there, nothing to drop.
    std::fs::write(&path, &full).unwrap();
    let mut j = JsonlJournal::open(&path).unwrap();
    assert_eq!(j.torn_tail(), None);
    assert_eq!(j.load().unwrap(), vec![first, last]);
}

/// A finished call with outputs and usage (nested fields of every kind).
fn completed() -> Event {
    let mut outputs = serde_json::Map::new();
    outputs.insert("notes".into(), "draft".into());
    Event::CallFinished {
        path: "draft_notes".into(),
        attempt: 1,
        result: CallResult::Completed(crate::run::handler::Completion {
            outputs,
            usage: crate::run::handler::Usage {
                cost_usd: Some(0.5),
                ..Default::default()
            },
        }),
        at: "2026-01-01T00:00:05Z".into(),
    }
}

/// Every key of `v`, as paths of keys, except inside `outputs` (free-form values).
fn field_paths(v: &serde_json::Value, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let Some(obj) = v.as_object() else { return };
    for (k, child) in obj {
        let mut path = prefix.to_vec();
        path.push(k.clone());
        out.push(path.clone());
        if k != "outputs" {
            field_paths(child, &path, out);
        }
    }
}

/// Issue 47 item 7: a complete last line (it has its newline) that does not parse is damage:
/// every field name of the last event changed in turn (nested ones too), `load` refuses it,
/// naming the line, twice in a row, and the file is left byte for byte as it was.
#[test]
fn a_damaged_complete_last_line_is_refused_and_nothing_changes() {
    let dir = dir("agc-jsonl-damaged-");
    let path = dir.path().join("journal.jsonl");
    let first = resumed("2026-01-01T00:00:00Z");
    let mut text = serde_json::to_string(&first).unwrap();
    text.push('\n');
    let mut tried = 0;
    for last in [finished(), completed()] {
        let last = serde_json::to_value(last).unwrap();
        let mut fields = Vec::new();
        field_paths(&last, &[], &mut fields);
        for field in &fields {
            let mut damaged = last.clone();
            let (key, outer) = field.split_last().unwrap();
            let mut obj = &mut damaged;
            for k in outer {
                obj = &mut obj[k];
            }
            let obj = obj.as_object_mut().unwrap();
            let v = obj.shift_remove(key).unwrap();
            obj.insert(format!("{key}x"), v);
            let bytes = format!("{text}{damaged}\n");
            std::fs::write(&path, &bytes).unwrap();
            for round in 0..2 {
                let mut j = JsonlJournal::open(&path).unwrap();
                assert_eq!(j.torn_tail(), None);
                let e = j.load().unwrap_err().0;
                assert!(
                    e.contains("line 2") && e.contains("damaged"),
                    "{field:?}: {e}"
                );
                drop(j);
                assert_eq!(
                    std::fs::read_to_string(&path).unwrap(),
                    bytes,
                    "{field:?}, round {round}"
                );
            }
            tried += 1;
        }
    }
    // Twice event, path, attempt, result, result.result, at; then class and message of the
    // failure; outputs, usage and usage.cost_usd of the completion.
    assert_eq!(tried, 17);
}

/// Appends reach the file at `flush`, all of the batch at once.
#[test]
fn appends_reach_the_file_when_flushed() {
    let dir = dir("agc-jsonl-batch-");
    let path = dir.path().join("journal.jsonl");
    let ev = resumed("2026-01-01T00:00:00Z");
    let mut j = JsonlJournal::open(&path).unwrap();
    j.append(&ev).unwrap();
    j.append(&ev).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    j.flush().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 2);
    j.append(&ev).unwrap();
    // What is loaded includes what was appended, flushed or not.
    assert_eq!(j.load().unwrap().len(), 3);
}

/// The file is held by one journal at a time; the lock goes with the journal.
#[test]
fn a_second_open_is_refused_while_the_first_holds_the_file() {
    let dir = dir("agc-jsonl-lock-");
    let path = dir.path().join("journal.jsonl");
    let j = JsonlJournal::open(&path).unwrap();
    let e = JsonlJournal::open(&path).unwrap_err().0;
    assert!(e.contains("in use by another process"), "{e}");
    drop(j);
    JsonlJournal::open(&path).unwrap();
}
