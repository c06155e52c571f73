//! agh `{{ }}` template semantics (Go `text/template` with `missingkey=error` and agh's
//! curated functions).

use serde_json::json;

use super::*;

const L: Lang = Lang::Gotmpl;

fn vars() -> serde_json::Value {
    json!({
        "inputs": {"slug": "a<b", "n": 3, "big": 1000000, "f": 2.5, "fl": 1e6, "on": true, "none": null,
                   "tags": ["x", "y"], "obj": {"b": 1, "a": "z"}, "empty": "", "nothing": [], "off": false},
        "item": {"blocks": ["p", 2, null]},
    })
}

fn render(parts: Vec<TemplatePart>) -> Result<Value, EvalError> {
    run(L, &template(parts), vars())
}

#[test]
fn values_render_like_go_fmt() {
    let got = render(vec![
        part(path("inputs.slug")),
        text("|"),
        part(path("inputs.n")),
        text("|"),
        part(path("inputs.big")),
        text("|"),
        part(path("inputs.f")),
        text("|"),
        part(path("inputs.fl")),
        text("|"),
        part(path("inputs.on")),
        text("|"),
        part(path("inputs.none")),
        text("|"),
        part(path("inputs.tags")),
        text("|"),
        part(path("inputs.obj")),
        text("|"),
        part(path("item.blocks")),
    ]);
    same(
        got.unwrap(),
        Value::str("a<b|3|1000000|2.5|1e+06|true|<no value>|[x y]|map[a:z b:1]|[p 2 <nil>]"),
    );
}

#[test]
fn missing_keys_are_errors() {
    let err = render(vec![part(path("inputs.nope"))]).unwrap_err();
    assert_eq!(err.message, "map has no entry for key \"nope\"");
    let err = render(vec![part(path("trigger.payload"))]).unwrap_err();
    assert_eq!(err.message, "map has no entry for key \"trigger\"");
}

#[test]
fn json_matches_go_marshal() {
    let got = render(vec![
        part(call("json", vec![path("inputs.obj")])),
        text(" "),
        part(call("toJson", vec![path("inputs.slug")])),
    ]);
    same(got.unwrap(), Value::str(r#"{"a":"z","b":1} "a\u003cb""#));
    let got = render(vec![part(call("json", vec![path("inputs.fl")]))]);
    same(got.unwrap(), Value::str("1000000"));
}

#[test]
fn join_takes_the_separator_first() {
    let got = render(vec![part(call("join", vec![s(", "), path("inputs.tags")]))]);
    same(got.unwrap(), Value::str("x, y"));
    let got = render(vec![part(call("join", vec![s(", "), path("inputs.slug")]))]);
    same(got.unwrap(), Value::str("a<b"));
    let err = render(vec![part(call("join", vec![path("inputs.tags"), s(",")]))]).unwrap_err();
    assert!(
        err.message.contains("no overload of `join`"),
        "{}",
        err.message
    );
}

#[test]
fn default_replaces_empty_values_fallback_first() {
    let d = |p: &str| render(vec![part(call("default", vec![s("fb"), path(p)]))]).unwrap();
    same(d("inputs.empty"), Value::str("fb"));
    same(d("inputs.none"), Value::str("fb"));
    same(d("inputs.slug"), Value::str("a<b"));
    same(d("inputs.n"), Value::str("3"));
    // Go's zero value only: a decoded empty list or map is a non-nil value, kept.
    same(d("inputs.nothing"), Value::str("[]"));
    same(d("inputs.off"), Value::str("fb"));
}

#[test]
fn shell_quote_quotes_the_text_for_a_shell() {
    let q = |p: TemplatePart| render(vec![p]).unwrap();
    same(
        q(part(call("shellQuote", vec![s("it's")]))),
        Value::str(r#"'it'"'"'s'"#),
    );
    same(
        q(part(call("shellQuote", vec![path("inputs.tags")]))),
        Value::str("'[x y]'"),
    );
    same(
        q(part(call("shellQuote", vec![path("inputs.n")]))),
        Value::str("'3'"),
    );
}

#[test]
fn len_counts_bytes_and_unknown_functions_fail() {
    same(ok(L, &call("len", vec![s("hé")])), Value::Int(3));
    assert_eq!(
        fails(L, &call("printf", vec![s("x")])),
        "unknown function `printf`"
    );
    assert_eq!(fails(L, &call("index", vec![])), "unknown function `index`");
}

#[test]
fn operators_are_not_template_syntax() {
    let x = bin(BinaryOp::Add, int(1), int(1));
    assert!(fails(L, &x).contains("not part of the template language"));
}

#[test]
fn floats_print_in_go_shortest_g_form() {
    use crate::expr::eval::render::go_float;
    let cases = [
        (100.0, "100"),
        (123456.0, "123456"),
        (1234567.0, "1.234567e+06"),
        (1e21, "1e+21"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-2.5, "-2.5"),
        (1.5e-7, "1.5e-07"),
        (0.1 + 0.2, "0.30000000000000004"),
        (f64::INFINITY, "+Inf"),
        (-0.0, "-0"),
    ];
    for (f, want) in cases {
        assert_eq!(go_float(f), want, "{f}");
    }
}
