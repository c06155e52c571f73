//! AGX semantics (AGS 1.0 `docs/expressions.md` §4–5 and agc's documented decisions).

use serde_json::json;

use super::*;
use crate::expr::BinaryOp as B;

const L: Lang = Lang::Agx;

fn agx(x: &Expr) -> Value {
    ok(L, x)
}

#[test]
fn logical_operators_need_booleans_no_truthiness() {
    same(
        agx(&bin(B::And, boolean(true), boolean(false))),
        Value::Bool(false),
    );
    same(
        agx(&bin(B::Or, boolean(false), boolean(true))),
        Value::Bool(true),
    );
    same(agx(&not(boolean(false))), Value::Bool(true));
    assert!(fails(L, &bin(B::And, int(1), boolean(true))).contains("needs a boolean"));
    assert!(fails(L, &bin(B::Or, boolean(false), s("x"))).contains("needs a boolean"));
    assert!(fails(L, &not(s(""))).contains("needs a boolean"));
    assert!(fails(L, &cond(int(1), int(2), int(3))).contains("needs a boolean"));
}

#[test]
fn and_or_short_circuit_skips_errors_on_the_right() {
    let boom = bin(B::Div, int(1), int(0));
    same(
        agx(&bin(B::And, boolean(false), boom.clone())),
        Value::Bool(false),
    );
    same(
        agx(&bin(B::Or, boolean(true), boom.clone())),
        Value::Bool(true),
    );
    // Left to right: an error on the left is not rescued by the right (unlike CEL).
    assert_eq!(
        fails(L, &bin(B::And, boom.clone(), boolean(false))),
        "division by zero"
    );
    assert_eq!(
        fails(L, &bin(B::And, boolean(true), boom)),
        "division by zero"
    );
}

#[test]
fn equality_across_types_is_false_not_an_error() {
    same(agx(&bin(B::Eq, int(1), s("1"))), Value::Bool(false));
    same(agx(&bin(B::Ne, int(1), s("1"))), Value::Bool(true));
    same(agx(&bin(B::Eq, null(), boolean(false))), Value::Bool(false));
    same(agx(&bin(B::Eq, int(1), dbl(1.0))), Value::Bool(true));
    let deep = bin(
        B::Eq,
        list(vec![int(1), map(vec![(s("a"), s("b"))])]),
        list(vec![dbl(1.0), map(vec![(s("a"), s("b"))])]),
    );
    same(agx(&deep), Value::Bool(true));
}

#[test]
fn ordering_numbers_and_strings_only() {
    same(agx(&bin(B::Lt, int(1), dbl(1.5))), Value::Bool(true));
    same(agx(&bin(B::Ge, int(2), int(2))), Value::Bool(true));
    same(agx(&bin(B::Gt, s("b"), s("abc"))), Value::Bool(true));
    same(agx(&bin(B::Le, s("a"), s("a"))), Value::Bool(true));
    assert_eq!(
        fails(L, &bin(B::Lt, int(1), s("2"))),
        "`<` cannot take integer and string"
    );
    assert!(fails(L, &bin(B::Gt, boolean(true), boolean(false))).contains("cannot take boolean"));
    assert!(fails(L, &bin(B::Lt, null(), int(1))).contains("cannot take null"));
    // A comparison chain compares a boolean with a number: an error.
    assert!(fails(L, &bin(B::Lt, bin(B::Lt, int(1), int(2)), int(3))).contains("boolean"));
}

#[test]
fn arithmetic_int_and_float_rules() {
    same(agx(&bin(B::Add, int(2), int(3))), Value::Int(5));
    same(agx(&bin(B::Add, int(2), dbl(0.5))), Value::Double(2.5));
    same(agx(&bin(B::Sub, int(2), int(5))), Value::Int(-3));
    same(agx(&bin(B::Mul, int(4), int(5))), Value::Int(20));
    same(agx(&bin(B::Mul, dbl(1.5), int(2))), Value::Double(3.0));
    // True division, always a float.
    same(agx(&bin(B::Div, int(7), int(2))), Value::Double(3.5));
    same(agx(&bin(B::Div, int(6), int(3))), Value::Double(2.0));
    // Floored modulo, as Python.
    same(agx(&bin(B::Rem, int(7), int(3))), Value::Int(1));
    same(agx(&bin(B::Rem, int(-7), int(3))), Value::Int(2));
    same(agx(&bin(B::Rem, int(7), int(-3))), Value::Int(-2));
    same(agx(&bin(B::Rem, dbl(-7.5), int(2))), Value::Double(0.5));
    same(agx(&neg(int(4))), Value::Int(-4));
    same(agx(&neg(dbl(0.5))), Value::Double(-0.5));
}

#[test]
fn arithmetic_errors() {
    assert_eq!(fails(L, &bin(B::Div, int(1), int(0))), "division by zero");
    assert_eq!(
        fails(L, &bin(B::Div, dbl(1.0), dbl(0.0))),
        "division by zero"
    );
    assert_eq!(fails(L, &bin(B::Rem, int(1), int(0))), "modulo by zero");
    assert_eq!(
        fails(L, &bin(B::Add, int(i64::MAX), int(1))),
        "integer overflow"
    );
    assert_eq!(fails(L, &neg(int(i64::MIN))), "integer overflow");
    assert!(fails(L, &bin(B::Add, int(1), s("1"))).contains("cannot take integer and string"));
    assert!(fails(L, &bin(B::Sub, s("a"), s("b"))).contains("cannot take string and string"));
    assert!(fails(L, &neg(s("a"))).contains("needs a number"));
}

#[test]
fn plus_concatenates_strings_and_arrays() {
    same(agx(&bin(B::Add, s("ab"), s("cd"))), Value::str("abcd"));
    let joined = agx(&bin(B::Add, list(vec![int(1)]), list(vec![s("x")])));
    same(joined, Value::List(vec![Value::Int(1), Value::str("x")]));
    assert!(fails(L, &bin(B::Add, s("a"), list(vec![]))).contains("cannot take"));
}

#[test]
fn in_operator_arrays_strings_objects() {
    same(
        agx(&bin(B::In, int(2), list(vec![int(1), dbl(2.0)]))),
        Value::Bool(true),
    );
    same(agx(&bin(B::In, s("ell"), s("hello"))), Value::Bool(true));
    same(
        agx(&bin(B::In, s("a"), map(vec![(s("a"), null())]))),
        Value::Bool(true),
    );
    same(
        agx(&bin(B::In, s("b"), map(vec![(s("a"), null())]))),
        Value::Bool(false),
    );
    assert!(fails(L, &bin(B::In, int(1), s("1"))).contains("needs a string on the left"));
    assert!(fails(L, &bin(B::In, int(1), int(1))).contains("needs an array, string or object"));
}

#[test]
fn references_missing_values_read_as_null() {
    let vars = json!({"nodes": {"a": {"outputs": {"x": "v"}, "status": "succeeded"}}, "n": null});
    let got = |x: &Expr| run(L, x, vars.clone()).unwrap();
    same(got(&path("nodes.a.outputs.x")), Value::str("v"));
    same(got(&path("nodes.a.outputs.missing")), Value::Null);
    same(got(&path("nodes.b.outputs.x")), Value::Null);
    same(got(&path("n.deeper")), Value::Null);
    same(got(&index(list(vec![int(1)]), int(5))), Value::Null);
    // A member of a non-object is an error; an undeclared root too.
    let err = run(L, &path("nodes.a.status.x"), vars.clone()).unwrap_err();
    assert_eq!(err.message, "cannot read field `x` of type string");
    let err = run(L, &path("params.x"), vars).unwrap_err();
    assert_eq!(err.message, "unknown name `params`");
}

#[test]
fn len_count_contains() {
    same(agx(&call("len", vec![s("héllo")])), Value::Int(5));
    same(
        agx(&call("len", vec![list(vec![int(1), int(2)])])),
        Value::Int(2),
    );
    same(
        agx(&call("len", vec![map(vec![(s("a"), int(1))])])),
        Value::Int(1),
    );
    same(agx(&call("count", vec![list(vec![null()])])), Value::Int(1));
    assert!(
        fails(L, &call("count", vec![s("ab")])).contains("no overload of `count` takes (string)")
    );
    assert!(fails(L, &call("len", vec![int(3)])).contains("no overload of `len` takes (integer)"));
    same(
        agx(&call("contains", vec![s("abc"), s("bc")])),
        Value::Bool(true),
    );
    same(
        agx(&call("contains", vec![list(vec![int(1)]), dbl(1.0)])),
        Value::Bool(true),
    );
    same(
        agx(&call("contains", vec![map(vec![(s("k"), int(1))]), s("k")])),
        Value::Bool(true),
    );
    assert!(fails(L, &call("contains", vec![s("abc"), int(1)])).contains("no overload"));
}

#[test]
fn string_functions() {
    same(
        agx(&call("startswith", vec![s("hello"), s("he")])),
        Value::Bool(true),
    );
    same(
        agx(&call("endswith", vec![s("hello"), s("he")])),
        Value::Bool(false),
    );
    same(agx(&call("lower", vec![s("ÀB")])), Value::str("àb"));
    same(agx(&call("upper", vec![s("ab")])), Value::str("AB"));
    same(agx(&call("trim", vec![s("  a b \n")])), Value::str("a b"));
    let parts = agx(&call("split", vec![s("a,b,,c"), s(",")]));
    same(
        parts,
        Value::List(["a", "b", "", "c"].map(Value::str).to_vec()),
    );
    assert_eq!(
        fails(L, &call("split", vec![s("a"), s("")])),
        "split: empty separator"
    );
    let joined = agx(&call(
        "join",
        vec![list(vec![s("a"), int(1), null(), boolean(true)]), s("-")],
    ));
    same(joined, Value::str("a-1--true"));
}

#[test]
fn matches_is_an_unanchored_search() {
    same(
        agx(&call("matches", vec![s("release-1.2"), s(r"\d+\.\d+")])),
        Value::Bool(true),
    );
    same(
        agx(&call("matches", vec![s("abc"), s("^b")])),
        Value::Bool(false),
    );
    same(
        agx(&call("matches", vec![s("abc"), s("b")])),
        Value::Bool(true),
    );
    assert!(
        fails(L, &call("matches", vec![s("a"), s("(")])).starts_with("invalid regular expression")
    );
}

#[test]
fn conversions() {
    same(agx(&call("int", vec![s(" 42 ")])), Value::Int(42));
    same(agx(&call("int", vec![dbl(-2.9)])), Value::Int(-2));
    same(agx(&call("int", vec![boolean(true)])), Value::Int(1));
    assert_eq!(
        fails(L, &call("int", vec![s("3.5")])),
        "cannot convert string \"3.5\" to integer"
    );
    assert!(fails(L, &call("int", vec![dbl(f64::NAN)])).contains("overflow"));
    assert!(fails(L, &call("int", vec![null()])).contains("cannot convert null"));
    same(agx(&call("float", vec![s("2.5")])), Value::Double(2.5));
    same(agx(&call("float", vec![int(2)])), Value::Double(2.0));
    assert!(fails(L, &call("float", vec![s("x")])).contains("to number"));
    same(agx(&call("bool", vec![s("TRUE")])), Value::Bool(true));
    same(agx(&call("bool", vec![s("false")])), Value::Bool(false));
    assert!(fails(L, &call("bool", vec![int(0)])).contains("to boolean"));
    assert!(fails(L, &call("bool", vec![s("")])).contains("to boolean"));
    same(agx(&call("str", vec![int(5)])), Value::str("5"));
    same(agx(&call("str", vec![dbl(1.5)])), Value::str("1.5"));
    same(agx(&call("str", vec![null()])), Value::str(""));
    same(
        agx(&call("str", vec![list(vec![int(1), s("a")])])),
        Value::str(r#"[1,"a"]"#),
    );
}

#[test]
fn json_get_default() {
    let parsed = agx(&call("json", vec![s(r#"{"a": [1, {"b": true}]}"#)]));
    same(
        parsed.clone(),
        Value::from_json(&json!({"a": [1, {"b": true}]})),
    );
    assert!(fails(L, &call("json", vec![s("{")])).starts_with("json: invalid JSON"));
    let obj = call("json", vec![s(r#"{"a": [1, {"b": true}]}"#)]);
    same(
        agx(&call("get", vec![obj.clone(), s("a.1.b")])),
        Value::Bool(true),
    );
    same(
        agx(&call("get", vec![obj.clone(), s("a.9.b")])),
        Value::Null,
    );
    same(
        agx(&call("get", vec![obj.clone(), s("x"), s("dflt")])),
        Value::str("dflt"),
    );
    assert_eq!(agx(&call("get", vec![obj, s("")])).kind(), Kind::Map);
    same(agx(&call("default", vec![null(), int(3)])), Value::Int(3));
    same(agx(&call("default", vec![int(0), int(3)])), Value::Int(0));
    let absent = call("default", vec![path("inputs.missing"), s("fb")]);
    same(
        run(L, &absent, json!({"inputs": {}})).unwrap(),
        Value::str("fb"),
    );
}

#[test]
fn any_all() {
    let bools = |v: &[bool]| list(v.iter().map(|b| boolean(*b)).collect());
    same(agx(&call("any", vec![bools(&[])])), Value::Bool(false));
    same(agx(&call("all", vec![bools(&[])])), Value::Bool(true));
    same(
        agx(&call("any", vec![bools(&[false, true])])),
        Value::Bool(true),
    );
    same(
        agx(&call("all", vec![bools(&[true, false])])),
        Value::Bool(false),
    );
    assert!(fails(L, &call("all", vec![list(vec![int(1)])])).contains("elements must be booleans"));
}

#[test]
fn node_state_functions_read_nodes() {
    let vars = json!({"nodes": {
        "a": {"status": "succeeded", "outputs": {"x": 1}},
        "b": {"status": "blocked"},
        "c": {"status": "skipped"},
    }});
    let t = |x: Expr| run(L, &x, vars.clone()).unwrap();
    same(t(call("succeeded", vec![s("a")])), Value::Bool(true));
    same(t(call("failed", vec![s("a")])), Value::Bool(false));
    same(t(call("failed", vec![s("b")])), Value::Bool(true));
    same(t(call("skipped", vec![s("c")])), Value::Bool(true));
    same(t(call("succeeded", vec![s("zzz")])), Value::Bool(false));
    same(t(call("output", vec![s("a"), s("x")])), Value::Int(1));
    same(t(call("output", vec![s("a"), s("y")])), Value::Null);
}

#[test]
fn unknown_functions_and_arity_come_from_the_table() {
    assert_eq!(fails(L, &call("now", vec![])), "unknown function `now`");
    assert_eq!(
        fails(L, &call("len", vec![])),
        "`len` takes 1 argument, got 0"
    );
    assert_eq!(
        fails(L, &call("get", vec![s("a")])),
        "`get` takes 2 to 3 arguments, got 1"
    );
    assert_eq!(
        fails(L, &method(s("a"), "lower", vec![])),
        "unknown method `.lower()`"
    );
}

#[test]
fn templates_render_per_ags_rules() {
    let vars =
        json!({"params": {"n": 3, "f": 1.5, "t": true, "o": {"b": 1, "a": [1, "x"]}, "z": null}});
    let t = template(vec![
        text("n="),
        part(path("params.n")),
        text(" f="),
        part(path("params.f")),
        text(" t="),
        part(path("params.t")),
        text(" o="),
        part(path("params.o")),
        text(" z=["),
        part(path("params.z")),
        text("]"),
    ]);
    same(
        run(L, &t, vars).unwrap(),
        Value::str(r#"n=3 f=1.5 t=true o={"b":1,"a":[1,"x"]} z=[]"#),
    );
}
