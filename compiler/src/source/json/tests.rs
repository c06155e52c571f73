//! The JSON fast path against the YAML loader on the same documents: the same value, span
//! tree and diagnostics, or a hand-over to the YAML loader.

use super::*;
use crate::source::yaml;

/// Every node in pre-order: its span, key span, style and child count.
fn shape(doc: &Document) -> Vec<(Span, Option<Span>, ScalarStyle, usize)> {
    let mut out = Vec::new();
    let mut stack = vec![doc.spans];
    while let Some(n) = stack.pop() {
        out.push((n.span, n.key(), n.style, n.child_count()));
        stack.extend(doc.children(&n).rev());
    }
    out
}

fn diags(l: &Loaded) -> Vec<String> {
    l.diags.iter().map(|d| format!("{d:?}")).collect()
}

/// Both paths on `text`: the JSON reader must take it and agree with the YAML loader.
fn same(text: &str) -> Loaded {
    let f = FileId(0);
    let j =
        load(f, text, 0, Limits::default()).unwrap_or_else(|| panic!("JSON path refused {text}"));
    let y = yaml::load(f, text, 0, Limits::default());
    assert_eq!(diags(&j), diags(&y), "{text}");
    match (&j.doc, &y.doc) {
        (Some(a), Some(b)) => {
            assert_eq!(a.value, b.value, "{text}");
            assert_eq!(shape(a), shape(b), "{text}");
        }
        (None, None) => {}
        _ => panic!("one path built a document: {text}"),
    }
    j
}

#[test]
fn values_and_spans_agree_with_the_yaml_loader() {
    for text in [
        r#"{"a": 1, "b": [true, false, null], "c": {"d": "e"}}"#,
        "{\n  \"nodes\": {\n    \"n1\": {\"title\": \"T\", \"inputs\": {}},\n    \"n2\": []\n  },\n  \"x\": [ ]\n}\n",
        r#"[1, -2, 0, 3.5, -0.25, 1e3, 2E-2, 1.5e+2, 9223372036854775807, 18446744073709551615]"#,
        r#"{"esc": "a\"b\\c\/d\b\f\n\r\t", "u": "\u00e9\u4e2d", "k\u0041": "é 中 😀"}"#,
        "{\"multi\u{e9}byte \u{1f600}\": {\"after\": [\"x\", {\"y\": 1}]}}",
        "[[[[]]], {}, [{}], \"\"]",
        "\t{\"lead\": \"blank\"}\r\n",
    ] {
        let l = same(text);
        assert!(l.diags.is_empty(), "{text}: {:?}", diags(&l));
    }
}

/// A deliberate difference: JSON writes characters outside the Basic Multilingual Plane as a
/// surrogate pair of `\u` escapes, which saphyr refuses (AGC003); the JSON path decodes them.
#[test]
fn surrogate_pairs_decode_where_the_yaml_loader_refuses() {
    let text = r#"{"u": "\ud83d\ude00"}"#;
    let l = load(FileId(0), text, 0, Limits::default()).expect("JSON path");
    assert!(l.diags.is_empty());
    assert_eq!(l.doc.expect("doc").value["u"], "\u{1f600}");
    let y = yaml::load(FileId(0), text, 0, Limits::default());
    assert_eq!(y.diags[0].code, "AGC003");
}

#[test]
fn duplicate_keys_and_big_numbers_are_reported_alike() {
    let l = same(r#"{"a": 1, "b": {"x": 1, "x": 2}, "a": [3]}"#);
    let codes: Vec<&str> = l.diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["AGC004", "AGC004"]);
    let l = same(r#"{"big": 18446744073709551616, "neg": -9223372036854775809, "f": 1e400}"#);
    let codes: Vec<&str> = l.diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["AGC011", "AGC011", "AGC011"]);
    // Many keys (past the linear duplicate scan) take the hashed path alike.
    let mut big = String::from("{");
    for i in 0..40 {
        big.push_str(&format!("\"k{i}\": {i}, "));
    }
    big.push_str("\"k7\": 0}");
    let l = same(&big);
    assert_eq!(l.diags.len(), 1);
    assert_eq!(l.diags[0].code, "AGC004");
}

#[test]
fn what_is_not_strict_json_goes_to_the_yaml_loader() {
    for text in [
        "{a: 1}",
        "{'a': 1}",
        r#"{"a": 1,}"#,
        "[1, 2,]",
        r#"{"a": 1} # comment"#,
        "{\"a\": 1}\n---\n{}",
        "{\"a\": \"tab\there\"}",
        r#"{"a": "\ud800"}"#,
        r#"{"a": "\x"}"#,
        r#"{"a": 01}"#,
        r#"{"a": 1.}"#,
        r#"{"a": .5}"#,
        r#"{"a": +1}"#,
        r#"{"a": truex}"#,
        r#"{"a": True}"#,
        r#"{"a" 1}"#,
        r#"{"a": 1"#,
        "[",
        "[1 2]",
        r#"{"a": [1}"#,
    ] {
        assert!(
            load(FileId(0), text, 0, Limits::default()).is_none(),
            "{text} should go to the YAML loader"
        );
    }
}

#[test]
fn too_deep_goes_to_the_yaml_loader_which_reports_agc013() {
    let limits = Limits {
        max_depth: 8,
        ..Limits::default()
    };
    let text = format!("{}{}", "[".repeat(9), "]".repeat(9));
    assert!(load(FileId(0), &text, 0, limits).is_none());
    let text = format!("{}{}", "[".repeat(8), "]".repeat(8));
    assert!(load(FileId(0), &text, 0, limits).is_some());
    // Through the public entry point the deep document is AGC013, as before.
    let mut sources = crate::source::SourceMap::new();
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let (_, l) = crate::source::load::load_str(&mut sources, "d.json", deep, Limits::default());
    assert_eq!(l.diags[0].code, "AGC013");
}

#[test]
fn only_documents_opening_a_collection_apply() {
    assert!(applies("{}"));
    assert!(applies(" \n\t[1]"));
    assert!(!applies("a: 1"));
    assert!(!applies("# c\n{}"));
    assert!(!applies(""));
}
