//! The lines a run writes once per call, written directly: the journal's `call_started` and
//! `call_finished` events and the scripted handler's invocation-log line. Through serde, a
//! line of a few fields cost 1.5-3k instructions (each key and each string scanned for
//! escapes, each piece through the serializer's state); a 10k-node run writes 30k of them.
//!
//! A line is written here only when none of its strings (paths, keys, times, entry names)
//! holds a byte JSON escapes; the text is then exactly what [`crate::json::write_compact`]
//! writes (serde_json's compact form: the fields in their declared order, an internally
//! tagged event's tag first, a string copied as it is). Any other line, and every other
//! event, goes through [`crate::json::write_compact`]. A call's result inside
//! `call_finished` always does. The tests compare both writers on every shape, with and
//! without escapes.

use super::event::Event;
use crate::json::{Error, decimal, plain, write_compact};

/// Appends `event` as compact JSON to `out` (no newline), as
/// [`crate::json::write_compact`] writes it.
pub(super) fn event(out: &mut String, event: &Event) -> Result<(), Error> {
    match event {
        Event::CallStarted { path, attempt, at } if plain(path) && plain(at) => {
            out.push_str("{\"event\":\"call_started\",\"path\":\"");
            out.push_str(path);
            out.push_str("\",\"attempt\":");
            decimal(out, u64::from(*attempt));
            out.push_str(",\"at\":\"");
            out.push_str(at);
            out.push_str("\"}");
            Ok(())
        }
        Event::CallFinished {
            path,
            attempt,
            result,
            at,
        } if plain(path) && plain(at) => {
            let start = out.len();
            out.push_str("{\"event\":\"call_finished\",\"path\":\"");
            out.push_str(path);
            out.push_str("\",\"attempt\":");
            decimal(out, u64::from(*attempt));
            out.push_str(",\"result\":");
            if let Err(e) = write_compact(out, result) {
                out.truncate(start);
                return Err(e);
            }
            out.push_str(",\"at\":\"");
            out.push_str(at);
            out.push_str("\"}");
            Ok(())
        }
        other => write_compact(out, other),
    }
}

/// One line of the invocation log: `script::Invocation`'s fields, borrowed from the call.
#[derive(serde::Serialize)]
pub(super) struct Invocation<'a> {
    pub(super) key: &'a str,
    pub(super) attempt: u32,
    pub(super) path: &'a str,
    /// The script entry matched (or `null`).
    pub(super) entry: Option<&'a str>,
    pub(super) ordinal: usize,
    pub(super) resumed: bool,
}

/// Appends `inv` as compact JSON to `out` (no newline), as
/// [`crate::json::write_compact`] writes it.
pub(super) fn invocation(out: &mut String, inv: &Invocation<'_>) -> Result<(), Error> {
    if !(plain(inv.key) && plain(inv.path) && inv.entry.is_none_or(plain)) {
        return write_compact(out, inv);
    }
    out.push_str("{\"key\":\"");
    out.push_str(inv.key);
    out.push_str("\",\"attempt\":");
    decimal(out, u64::from(inv.attempt));
    out.push_str(",\"path\":\"");
    out.push_str(inv.path);
    out.push_str("\",\"entry\":");
    match inv.entry {
        Some(e) => {
            out.push('"');
            out.push_str(e);
            out.push('"');
        }
        None => out.push_str("null"),
    }
    out.push_str(",\"ordinal\":");
    decimal(out, inv.ordinal as u64);
    out.push_str(",\"resumed\":");
    out.push_str(if inv.resumed { "true" } else { "false" });
    out.push('}');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::event::CallResult;
    use crate::run::handler::{Completion, FailureClass, GateOutcome, GateResponse, HandlerError};
    use serde_json::json;

    /// Strings with nothing to escape, and with each kind of escaped byte.
    const STRINGS: &[&str] = &[
        "",
        "c0",
        "map[2].body#1.t",
        "2026-01-01T00:00:00.25Z",
        "é ü → 😀",
        "a\"b",
        "back\\slash",
        "new\nline",
        "tab\t",
        "\u{1}\u{1f}",
        "del \u{7f} is plain",
    ];

    fn serde(ev: &impl serde::Serialize) -> String {
        let mut s = String::new();
        write_compact(&mut s, ev).unwrap();
        // The journal's reference, serde_json, agrees.
        assert_eq!(s, serde_json::to_string(ev).unwrap());
        s
    }

    #[test]
    fn events_are_written_as_serde_writes_them() {
        let outputs = json!({"result": "r\"1", "n": 1.5, "list": [1, null, {"a": true}]});
        let results = [
            CallResult::Completed(Completion {
                outputs: outputs.as_object().unwrap().clone(),
                usage: Default::default(),
            }),
            CallResult::Completed(Completion::default()),
            CallResult::Gate(GateResponse {
                outcome: Some(GateOutcome::Approved),
                outputs: Default::default(),
                actor: Some("script".into()),
                note: None,
            }),
            CallResult::Failed(HandlerError::new(FailureClass::ToolError, "rate\nlimited")),
            CallResult::TimedOut { seconds: 0.25 },
        ];
        for (i, path) in STRINGS.iter().enumerate() {
            let at = STRINGS[(i + 3) % STRINGS.len()];
            let attempt = [0, 1, 9, 10, 4_294_967_295][i % 5];
            let mut events = vec![
                Event::CallStarted {
                    path: path.to_string(),
                    attempt,
                    at: at.into(),
                },
                Event::CallStarted {
                    path: path.to_string(),
                    attempt,
                    at: path.to_string(),
                },
                Event::Resumed { at: at.into() },
            ];
            for result in &results {
                events.push(Event::CallFinished {
                    path: path.to_string(),
                    attempt,
                    result: result.clone(),
                    at: at.into(),
                });
            }
            for ev in &events {
                let mut out = String::from("before\n");
                event(&mut out, ev).unwrap();
                assert_eq!(out, format!("before\n{}", serde(ev)), "{ev:?}");
            }
        }
    }

    #[test]
    fn invocations_are_written_as_serde_writes_them() {
        for (i, key) in STRINGS.iter().enumerate() {
            let path = STRINGS[(i + 1) % STRINGS.len()];
            for entry in [None, Some(STRINGS[(i + 2) % STRINGS.len()]), Some(*key)] {
                let inv = Invocation {
                    key,
                    attempt: [1, 12, 4_294_967_295][i % 3],
                    path,
                    entry,
                    ordinal: [0, 7, 100, usize::MAX][i % 4],
                    resumed: i % 2 == 0,
                };
                let mut out = String::new();
                invocation(&mut out, &inv).unwrap();
                assert_eq!(out, serde(&inv), "{key:?} {path:?} {entry:?}");
            }
        }
    }
}
