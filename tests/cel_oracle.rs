//! The CEL oracle: `tests/oracle/cel_expected.jsonl`, written by `tests/oracle/gen_cel.py`
//! from cel-python's answers for `tests/oracle/cel_cases.txt`.
//!
//! Both checks run: agc parses what cel-python parses, and agc's evaluator gives cel-python's
//! value (or an error where it errs) on every case not marked as a cel-python divergence from
//! the CEL spec.

use agc::expr::parse_cel;
use agc::source::FileId;
use agc::source::scalar::ScalarMap;
use serde_json::Value as Json;

fn cases() -> Vec<Json> {
    let text = include_str!("oracle/cel_expected.jsonl");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

fn parses(src: &str) -> bool {
    parse_cel(src, &ScalarMap::contiguous(FileId(0), 0, src.len())).is_ok()
}

/// Rejected by agc's parser, as by cel-go's, but only at evaluation by cel-python.
const AGC_REJECTS_AT_PARSE: &[&str] = &["if", "a.while", "has(1)", "Msg{a: 1}", "[1].all(1, true)"];
/// Accepted by agc, as by cel-go (trailing commas), though cel-python cannot parse them.
const AGC_ACCEPTS: &[&str] = &["[1, 2, 3,]", r#"{"a": 1, "b": [true, null],}"#];

#[test]
fn oracle_has_enough_cases() {
    assert!(cases().len() >= 120);
}

#[test]
fn agc_parses_what_cel_parses() {
    for case in cases() {
        let src = case["expr"].as_str().unwrap();
        let cel_parse_error = case["phase"] == "parse";
        let want = if AGC_REJECTS_AT_PARSE.contains(&src) {
            false
        } else if AGC_ACCEPTS.contains(&src) {
            true
        } else {
            !cel_parse_error
        };
        assert_eq!(parses(src), want, "{src}");
    }
}

mod eval {
    use super::*;
    use agc_runtime::expr::Lang;
    use agc_runtime::expr::eval::eval;

    /// The oracle writes bytes as a list of byte values; everything else as JSON.
    fn to_json(v: &agc_runtime::value::Value) -> Json {
        match v {
            agc_runtime::value::Value::Bytes(b) => Json::from(b.clone()),
            other => other.to_json(),
        }
    }

    #[test]
    fn agc_evaluates_like_cel_python() {
        let vars = serde_json::Map::new();
        let mut failures = Vec::new();
        let mut compared = 0;
        for case in cases() {
            let src = case["expr"].as_str().unwrap();
            if !case["divergence"].is_null() || case["phase"] == "parse" {
                continue;
            }
            let Ok((expr, _)) = parse_cel(src, &ScalarMap::contiguous(FileId(0), 0, src.len()))
            else {
                continue; // covered by agc_parses_what_cel_parses
            };
            compared += 1;
            let got = eval(&expr, Lang::Cel, &vars);
            let ok = match (&got, case["error"].as_bool().unwrap()) {
                (Err(_), true) => true,
                (Ok(v), false) => to_json(v) == case["value"],
                _ => false,
            };
            if !ok {
                failures.push(format!("{src}: got {got:?}, cel-python {case}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(compared >= 150, "only {compared} cases compared");
    }
}
