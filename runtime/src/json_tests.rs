//! The writer against serde_json's, byte for byte: on values built to reach every rule, on
//! the golden run records and on journal events.

use super::*;
use crate::run::RunRecord;
use crate::run::event::{CallResult, Event};
use crate::run::handler::{FailureClass, GateResponse, HandlerError};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// Both forms of `v`, each checked against serde_json's.
fn same<T: Serialize>(v: &T) {
    let theirs = serde_json::to_string_pretty(v).expect("serde_json");
    assert_eq!(to_string_pretty(v).expect("pretty"), theirs);
    let theirs = serde_json::to_string(v).expect("serde_json");
    let mut ours = String::from("prefix ");
    write_compact(&mut ours, v).expect("compact");
    assert_eq!(ours, format!("prefix {theirs}"));
}

#[test]
fn values_are_written_as_serde_json_writes_them() {
    // Every ASCII character (the escapes, 0x7f unescaped), and non-ASCII text.
    let ascii: String = (0u8..=0x7f).map(char::from).collect();
    same(&json!({
        "ascii": ascii,
        "text": "naïve — 日本語 🦀 \u{2028}",
        "esc\"aped\nkey": true,
        "": [],
        "empty": {},
        "nested": [[], {}, [[]], [{}], {"a": []}, {"a": {"b": {}}}],
        "numbers": [0, 1, -1, u64::MAX, i64::MIN, 0.1, 1.5e300, -0.0, 1.0, 2.5e-8, f64::MAX],
        "null": null,
        "list": [null, false, "x", {"k": [1, 2, {"deep": [3]}]}],
    }));
    // Nested deeper than one piece of indentation holds (31 levels).
    let mut deep = json!([1, {"k": "v"}]);
    for _ in 0..40 {
        deep = json!([deep, {}]);
    }
    for v in [
        json!({}),
        json!([]),
        json!("s"),
        json!(1),
        json!(null),
        deep,
    ] {
        same(&v);
    }
}

/// A type that reaches the serializer's other entries: enum variants of every kind, options,
/// tuples, characters, small integers, `f32`, non-finite floats, non-string map keys.
#[derive(Serialize)]
enum Kind {
    Unit,
    Newtype(u8),
    Tuple(i16, String),
    EmptyTuple(),
    Struct { a: u32, b: Option<char> },
    EmptyStruct {},
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize)]
struct Wrapped(i8);

#[derive(Serialize)]
struct Pair(u16, f32);

#[derive(Serialize)]
struct All {
    kinds: Vec<Kind>,
    none: Option<u64>,
    some: Option<i32>,
    tuple: (u128, i128, char),
    unit: Unit,
    unit_value: (),
    wrapped: Wrapped,
    pair: Pair,
    floats: [f64; 4],
    f32s: [f32; 3],
    int_keys: BTreeMap<i64, bool>,
    bool_keys: BTreeMap<bool, u8>,
    char_keys: BTreeMap<char, Kind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
    #[serde(flatten)]
    flat: BTreeMap<String, Value>,
}

#[test]
fn every_kind_of_value_is_written_as_serde_json_writes_it() {
    let all = All {
        kinds: vec![
            Kind::Unit,
            Kind::Newtype(7),
            Kind::Tuple(-3, "t".into()),
            Kind::EmptyTuple(),
            Kind::Struct { a: 1, b: Some('"') },
            Kind::Struct { a: 2, b: None },
            Kind::EmptyStruct {},
        ],
        none: None,
        some: Some(-5),
        tuple: (u128::MAX, i128::MIN, '\u{1}'),
        unit: Unit,
        unit_value: (),
        wrapped: Wrapped(-8),
        pair: Pair(9, 0.1),
        floats: [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 3.25],
        f32s: [f32::NAN, 1e-7, 16_777_216.0],
        int_keys: [(-1, true), (2, false)].into(),
        bool_keys: [(false, 1), (true, 2)].into(),
        char_keys: [('k', Kind::Newtype(1)), ('\n', Kind::Unit)].into(),
        skipped: None,
        flat: [("f".to_string(), json!({"x": [1]}))].into(),
    };
    same(&all);
    same(&Kind::EmptyTuple());
    same(&Kind::Struct { a: 0, b: None });
    same(&vec![Kind::Unit]);
}

#[test]
fn a_map_key_without_a_json_form_is_refused() {
    let m: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into();
    assert!(serde_json::to_string(&m).is_err());
    assert_eq!(
        to_string_pretty(&m).unwrap_err().to_string(),
        "key must be a string"
    );
}

#[test]
fn golden_run_records_are_written_as_serde_json_writes_them() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/runs");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("golden runs") {
        let path = entry.expect("entry").path();
        if !path.to_string_lossy().ends_with(".record.json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read");
        let record: RunRecord =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        same(&record);
        // And the record's own writer gives the golden text back, also on two threads (each
        // record with two node runs or more split in the middle).
        assert_eq!(record.to_pretty_string(), text, "{}", path.display());
        let mut split = record.clone();
        assert_eq!(split.parts_from(0).concat(), text, "{}", path.display());
        assert_eq!(split, record, "the node runs are put back");
        seen += 1;
    }
    assert!(seen >= 20, "expected the golden run records, found {seen}");
}

#[test]
fn journal_events_are_written_as_serde_json_writes_them() {
    let at = || "2026-01-01T00:00:00Z".to_string();
    let completed: CallResult = serde_json::from_value(json!({
        "result": "completed",
        "outputs": {"summary": "line one\nline two", "n": 3, "list": [1.5, {"a": null}]},
    }))
    .expect("completion");
    let gate = GateResponse {
        outcome: None,
        outputs: serde_json::Map::new(),
        actor: Some("ana".into()),
        note: Some("looks \"fine\"".into()),
    };
    let events = [
        Event::Started {
            run_id: "run-1".into(),
            graph_id: "g".into(),
            graph_digest: Some("sha256-x".into()),
            params: json!({"items": ["a", "b"], "empty": {}})
                .as_object()
                .cloned()
                .unwrap(),
            context: json!({"c": 1}).as_object().cloned().unwrap(),
            at: at(),
        },
        Event::Started {
            run_id: "run-2".into(),
            graph_id: "g".into(),
            graph_digest: None,
            params: serde_json::Map::new(),
            context: serde_json::Map::new(),
            at: at(),
        },
        Event::CallStarted {
            path: "loop[2].step".into(),
            attempt: 1,
            at: at(),
        },
        Event::CallFinished {
            path: "a".into(),
            attempt: 1,
            result: completed,
            at: at(),
        },
        Event::CallFinished {
            path: "b".into(),
            attempt: 3,
            result: CallResult::Failed(HandlerError::new(FailureClass::ToolError, "rate limited")),
            at: at(),
        },
        Event::CallFinished {
            path: "c".into(),
            attempt: 1,
            result: CallResult::TimedOut { seconds: 1.5 },
            at: at(),
        },
        Event::CallFinished {
            path: "d".into(),
            attempt: 1,
            result: CallResult::Gate(gate.clone()),
            at: at(),
        },
        Event::Decided {
            path: "gate".into(),
            response: gate,
            at: at(),
        },
        Event::Resumed { at: at() },
        Event::TimerFired {
            id: 7,
            path: "wait".into(),
            at: at(),
        },
    ];
    for e in &events {
        same(e);
    }
}

#[test]
fn an_escape_is_found_at_every_place_in_a_word() {
    // Strings of every length up to three words, with each kind of escaped byte (and bytes
    // next to them that need none) at every place, and more than one: the word scan, its
    // padded last word and the first of several marks in one word.
    for len in 0..=24 {
        let plain: String = (0..len)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        same(&plain);
        for at in 0..len {
            for c in [
                '"', '\\', '\n', '\u{1}', '\u{1f}', ' ', '!', '#', '[', ']', '\u{7f}', 'é',
            ] {
                let mut s = plain.clone();
                s.replace_range(at..=at, c.encode_utf8(&mut [0; 4]));
                same(&s);
                s.push('"');
                same(&s);
                s.insert(0, '\t');
                same(&s);
            }
        }
    }
}
