//! Agent Graph fact paths: parsing with spans, warnings, and evaluation.

use agc::diag::Diagnostic;
use agc::expr::facts::{FactPath, FactTest, check_fact, parse_fact_path};
use agc::source::scalar::ScalarMap;
use agc::source::{FileId, Span};
use serde_json::json;

fn parse(src: &str) -> (Option<FactPath>, Vec<Diagnostic>) {
    // The path sits at byte 20 of the file.
    parse_fact_path(src, &ScalarMap::contiguous(FileId(0), 20, src.len()))
}

fn codes(d: &[Diagnostic]) -> Vec<(&'static str, u32, u32)> {
    d.iter()
        .map(|d| (d.code, d.span.unwrap().start, d.span.unwrap().end))
        .collect()
}

#[test]
fn segments_carry_spans_and_indices() {
    let (path, diags) = parse("targets.0.id");
    assert!(diags.is_empty());
    let path = path.unwrap();
    let segs: Vec<_> = path
        .segments
        .iter()
        .map(|s| (s.text.as_str(), s.span, s.index))
        .collect();
    assert_eq!(
        segs,
        vec![
            ("targets", Span::new(FileId(0), 20, 27), None),
            ("0", Span::new(FileId(0), 28, 29), Some(0)),
            ("id", Span::new(FileId(0), 30, 32), None),
        ]
    );
}

#[test]
fn bad_characters_are_errors_at_each_character() {
    let (path, diags) = parse("a b.c/d");
    assert!(path.is_none());
    assert_eq!(codes(&diags), vec![("AGC070", 21, 22), ("AGC070", 25, 26)]);
    let (path, diags) = parse("");
    assert!(path.is_none());
    assert_eq!(codes(&diags), vec![("AGC070", 20, 20)]);
    // Quoting does not exist: a quote is just a bad character.
    let (_, diags) = parse("\"a.b\"");
    assert_eq!(codes(&diags), vec![("AGC070", 20, 21), ("AGC070", 24, 25)]);
}

#[test]
fn empty_segments_and_odd_numbers_warn() {
    let (path, diags) = parse("a..b");
    assert!(path.is_some(), "warnings do not reject the path");
    assert_eq!(codes(&diags), vec![("AGC071", 21, 22)]);
    let (_, diags) = parse(".a");
    assert_eq!(codes(&diags), vec![("AGC071", 20, 21)]);
    let (_, diags) = parse("a.");
    assert_eq!(codes(&diags), vec![("AGC071", 21, 22)]);
    let (_, diags) = parse("items.01.x.-1");
    assert_eq!(codes(&diags), vec![("AGC072", 26, 28), ("AGC072", 31, 33)]);
    let (_, diags) = parse("release-1.a-b.1-2");
    assert!(diags.is_empty(), "{diags:?}");
    assert!(diags.iter().all(|d| !d.is_error()));
}

#[test]
fn evaluation_follows_the_reference() {
    let facts = json!({"review": {"approved": true, "items": [{"id": "x"}], "n": null}});
    let (path, _) = parse("review.items.0.id");
    assert_eq!(path.unwrap().eval(&facts), Some(&json!("x")));
    assert!(check_fact(
        "review.approved",
        &FactTest::Equals(json!(true)),
        &facts
    ));
    assert!(!check_fact(
        "review.approved",
        &FactTest::Equals(json!("true")),
        &facts
    ));
    assert!(check_fact("review.n", &FactTest::Exists(true), &facts));
    assert!(!check_fact(
        "review.n",
        &FactTest::Equals(json!(false)),
        &facts
    ));
    assert!(check_fact(
        "review.items.1",
        &FactTest::Exists(false),
        &facts
    ));
    assert!(!check_fact(
        "review.items.01.id",
        &FactTest::Exists(true),
        &facts
    ));
    assert!(!check_fact(
        "review.hasOwnProperty",
        &FactTest::Exists(true),
        &facts
    ));
}

#[test]
fn corpus_fact_paths_parse() {
    let dir = std::path::Path::new("../shared/corpus/agent-graph");
    if !dir.exists() {
        eprintln!(
            "notice: {} is absent; skipping the Agent Graph fact path check",
            dir.display()
        );
        return;
    }
    let mut found = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            // Fact checks are written `- path: a.b.c` in the YAML graphs.
            for line in text.lines() {
                let t = line.trim_start().trim_start_matches("- ");
                if let Some(v) = t.strip_prefix("path: ") {
                    let v = v.trim();
                    if v.contains('/') || v.ends_with(".md") || v.ends_with(".yaml") {
                        continue; // a file path, not a fact
                    }
                    let (path, diags) = parse(v);
                    assert!(
                        path.is_some() && diags.is_empty(),
                        "{}: `{v}`: {diags:?}",
                        p.display()
                    );
                    found += 1;
                }
            }
        }
    }
    assert!(found > 0, "no fact paths found in the corpus");
}
