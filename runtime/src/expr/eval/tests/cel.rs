//! CEL semantics (the CEL language definition, as cel-go implements it).

use serde_json::json;

use super::*;
use crate::expr::BinaryOp as B;

const L: Lang = Lang::Cel;

fn cel(x: &Expr) -> Value {
    ok(L, x)
}

#[test]
fn int_arithmetic_overflow_and_division_errors() {
    same(cel(&bin(B::Add, int(2), int(3))), Value::Int(5));
    same(cel(&bin(B::Div, int(7), int(2))), Value::Int(3));
    same(cel(&bin(B::Div, int(-7), int(2))), Value::Int(-3));
    same(cel(&bin(B::Rem, int(-7), int(3))), Value::Int(-1));
    assert_eq!(
        fails(L, &bin(B::Add, int(i64::MAX), int(1))),
        "integer overflow"
    );
    assert_eq!(
        fails(L, &bin(B::Sub, int(i64::MIN), int(1))),
        "integer overflow"
    );
    assert_eq!(
        fails(L, &bin(B::Mul, int(i64::MAX), int(2))),
        "integer overflow"
    );
    assert_eq!(
        fails(L, &bin(B::Div, int(i64::MIN), int(-1))),
        "integer overflow"
    );
    assert_eq!(
        fails(L, &bin(B::Rem, int(i64::MIN), int(-1))),
        "integer overflow"
    );
    assert_eq!(fails(L, &neg(int(i64::MIN))), "integer overflow");
    assert_eq!(fails(L, &bin(B::Div, int(1), int(0))), "division by zero");
    assert_eq!(fails(L, &bin(B::Rem, int(1), int(0))), "modulus by zero");
}

#[test]
fn uint_arithmetic() {
    same(cel(&bin(B::Add, uint(2), uint(3))), Value::Uint(5));
    assert_eq!(
        fails(L, &bin(B::Sub, uint(1), uint(2))),
        "unsigned integer overflow"
    );
    assert_eq!(
        fails(L, &bin(B::Add, uint(u64::MAX), uint(1))),
        "unsigned integer overflow"
    );
    assert_eq!(fails(L, &bin(B::Div, uint(1), uint(0))), "division by zero");
    assert!(fails(L, &neg(uint(1))).contains("no such overload"));
}

#[test]
fn double_arithmetic_is_ieee() {
    same(
        cel(&bin(B::Div, dbl(1.0), dbl(0.0))),
        Value::Double(f64::INFINITY),
    );
    same(cel(&bin(B::Mul, dbl(1.5), dbl(2.0))), Value::Double(3.0));
    assert!(fails(L, &bin(B::Rem, dbl(1.0), dbl(2.0))).contains("no such overload"));
}

#[test]
fn no_mixed_kind_arithmetic() {
    assert_eq!(
        fails(L, &bin(B::Add, int(1), dbl(1.0))),
        "no such overload: int + double"
    );
    assert_eq!(
        fails(L, &bin(B::Add, int(1), uint(1))),
        "no such overload: int + uint"
    );
    assert_eq!(
        fails(L, &bin(B::Add, s("a"), int(1))),
        "no such overload: string + int"
    );
}

#[test]
fn concatenation() {
    same(cel(&bin(B::Add, s("a"), s("b"))), Value::str("ab"));
    same(
        cel(&bin(B::Add, bytes(b"a"), bytes(b"b"))),
        Value::Bytes(b"ab".to_vec()),
    );
    let l = cel(&bin(B::Add, list(vec![int(1)]), list(vec![s("a")])));
    same(l, Value::List(vec![Value::Int(1), Value::str("a")]));
}

#[test]
fn heterogeneous_equality_is_false_numbers_by_value() {
    same(cel(&bin(B::Eq, int(1), s("1"))), Value::Bool(false));
    same(cel(&bin(B::Eq, int(1), uint(1))), Value::Bool(true));
    same(cel(&bin(B::Eq, int(1), dbl(1.0))), Value::Bool(true));
    same(cel(&bin(B::Ne, null(), int(0))), Value::Bool(true));
    same(
        cel(&bin(B::Eq, dbl(f64::NAN), dbl(f64::NAN))),
        Value::Bool(false),
    );
    let m1 = map(vec![(s("a"), int(1)), (s("b"), int(2))]);
    let m2 = map(vec![(s("b"), int(2)), (s("a"), int(1))]);
    same(cel(&bin(B::Eq, m1, m2)), Value::Bool(true));
}

#[test]
fn ordering_within_kinds_and_across_numbers() {
    same(cel(&bin(B::Lt, int(1), uint(2))), Value::Bool(true));
    same(cel(&bin(B::Lt, int(-1), uint(0))), Value::Bool(true));
    same(cel(&bin(B::Gt, dbl(2.5), int(2))), Value::Bool(true));
    same(
        cel(&bin(B::Lt, int(i64::MAX), dbl(9.3e18))),
        Value::Bool(true),
    );
    same(
        cel(&bin(B::Lt, boolean(false), boolean(true))),
        Value::Bool(true),
    );
    same(
        cel(&bin(B::Lt, bytes(b"a"), bytes(b"b"))),
        Value::Bool(true),
    );
    same(cel(&bin(B::Lt, s("a"), s("b"))), Value::Bool(true));
    same(cel(&bin(B::Lt, dbl(f64::NAN), int(1))), Value::Bool(false));
    assert_eq!(
        fails(L, &bin(B::Lt, int(1), s("2"))),
        "no such overload: int < string"
    );
    assert!(fails(L, &bin(B::Lt, null(), null())).contains("no such overload"));
}

#[test]
fn logical_operators_absorb_errors_commutatively() {
    let boom = bin(B::Div, int(1), int(0));
    same(
        cel(&bin(B::And, boolean(false), boom.clone())),
        Value::Bool(false),
    );
    same(
        cel(&bin(B::And, boom.clone(), boolean(false))),
        Value::Bool(false),
    );
    same(
        cel(&bin(B::Or, boom.clone(), boolean(true))),
        Value::Bool(true),
    );
    assert_eq!(
        fails(L, &bin(B::And, boom.clone(), boolean(true))),
        "division by zero"
    );
    assert_eq!(
        fails(L, &bin(B::Or, boolean(false), boom)),
        "division by zero"
    );
    assert!(fails(L, &bin(B::And, boolean(true), int(1))).contains("needs a boolean"));
    same(cel(&bin(B::Or, int(1), boolean(true))), Value::Bool(true));
}

#[test]
fn conditional_needs_bool() {
    same(
        cel(&cond(boolean(true), int(1), bin(B::Div, int(1), int(0)))),
        Value::Int(1),
    );
    assert!(fails(L, &cond(int(1), int(1), int(2))).contains("needs a boolean"));
}

#[test]
fn in_lists_and_maps() {
    same(
        cel(&bin(B::In, int(2), list(vec![int(1), int(2)]))),
        Value::Bool(true),
    );
    same(
        cel(&bin(B::In, uint(2), list(vec![dbl(2.0)]))),
        Value::Bool(true),
    );
    same(
        cel(&bin(B::In, s("k"), map(vec![(s("k"), int(1))]))),
        Value::Bool(true),
    );
    same(
        cel(&bin(B::In, uint(1), map(vec![(int(1), int(1))]))),
        Value::Bool(true),
    );
    same(
        cel(&bin(B::In, s("z"), map(vec![(s("k"), int(1))]))),
        Value::Bool(false),
    );
    assert_eq!(
        fails(L, &bin(B::In, s("a"), s("abc"))),
        "no such overload: string in string"
    );
}

#[test]
fn missing_keys_are_errors_has_tests_presence() {
    let vars = json!({"inputs": {"a": {"b": 1}}, "nodes": {"x": {"output": {"items": [10, 20]}}}});
    let r = |x: Expr| run(L, &x, vars.clone());
    same(r(path("inputs.a.b")).unwrap(), Value::Double(1.0));
    assert_eq!(r(path("inputs.a.c")).unwrap_err().message, "no such key: c");
    assert_eq!(
        r(path("inputs.zz.c")).unwrap_err().message,
        "no such key: zz"
    );
    assert_eq!(
        r(index(path("inputs.a"), s("q"))).unwrap_err().message,
        "no such key: q"
    );
    same(
        r(index(path("nodes.x.output.items"), int(1))).unwrap(),
        Value::Double(20.0),
    );
    same(
        r(index(path("nodes.x.output.items"), uint(0))).unwrap(),
        Value::Double(10.0),
    );
    let out = r(index(path("nodes.x.output.items"), int(2))).unwrap_err();
    assert_eq!(out.message, "index out of range: 2");
    assert_eq!(
        r(index(path("nodes.x.output.items"), int(-1)))
            .unwrap_err()
            .message,
        "index out of range: -1"
    );
    same(r(has(path("inputs.a"), "b")).unwrap(), Value::Bool(true));
    same(r(has(path("inputs.a"), "c")).unwrap(), Value::Bool(false));
    assert!(
        r(has(path("inputs.a.b"), "c"))
            .unwrap_err()
            .message
            .contains("has() needs a map")
    );
    assert_eq!(
        r(path("missing")).unwrap_err().message,
        "undeclared reference to `missing`"
    );
    let sel = r(path("inputs.a.b.c")).unwrap_err().message;
    assert_eq!(sel, "cannot read field `c` of type double");
}

#[test]
fn map_literals_reject_bad_and_duplicate_keys() {
    assert!(fails(L, &map(vec![(dbl(1.5), int(1))])).contains("cannot be a map key"));
    assert!(fails(L, &map(vec![(s("a"), int(1)), (s("a"), int(2))])).contains("duplicate map key"));
}

#[test]
fn size_and_string_functions() {
    same(cel(&call("size", vec![s("héllo")])), Value::Int(5));
    same(cel(&method(s("héllo"), "size", vec![])), Value::Int(5));
    same(cel(&call("size", vec![bytes(b"ab")])), Value::Int(2));
    same(cel(&call("size", vec![list(vec![int(1)])])), Value::Int(1));
    same(cel(&call("size", vec![map(vec![])])), Value::Int(0));
    same(
        cel(&method(s("abc"), "contains", vec![s("b")])),
        Value::Bool(true),
    );
    same(
        cel(&method(s("abc"), "startsWith", vec![s("ab")])),
        Value::Bool(true),
    );
    same(
        cel(&method(s("abc"), "endsWith", vec![s("ab")])),
        Value::Bool(false),
    );
    same(
        cel(&method(s("abc123"), "matches", vec![s("[0-9]+")])),
        Value::Bool(true),
    );
    same(
        cel(&call("matches", vec![s("abc"), s("^b")])),
        Value::Bool(false),
    );
    assert_eq!(
        fails(L, &call("size", vec![int(1)])),
        "no overload of `size` takes (int)"
    );
    assert_eq!(
        fails(L, &call("contains", vec![s("a"), s("a")])),
        "unknown function `contains`"
    );
    assert_eq!(
        fails(L, &method(s("a"), "startsWith", vec![])),
        "`startsWith` takes 1 argument, got 0"
    );
}

#[test]
fn conversions() {
    same(cel(&call("int", vec![dbl(-2.7)])), Value::Int(-2));
    same(cel(&call("int", vec![s("-12")])), Value::Int(-12));
    same(cel(&call("int", vec![uint(5)])), Value::Int(5));
    assert_eq!(
        fails(L, &call("int", vec![uint(u64::MAX)])),
        "integer overflow"
    );
    assert!(fails(L, &call("int", vec![dbl(1e19)])).contains("overflow"));
    assert!(fails(L, &call("int", vec![s("1.5")])).contains("cannot convert"));
    same(cel(&call("uint", vec![int(3)])), Value::Uint(3));
    assert!(fails(L, &call("uint", vec![int(-1)])).contains("overflow"));
    same(cel(&call("double", vec![s("1e3")])), Value::Double(1000.0));
    same(cel(&call("double", vec![int(2)])), Value::Double(2.0));
    same(cel(&call("string", vec![int(-3)])), Value::str("-3"));
    same(cel(&call("string", vec![uint(3)])), Value::str("3"));
    same(cel(&call("string", vec![dbl(1.5)])), Value::str("1.5"));
    same(cel(&call("string", vec![dbl(1e6)])), Value::str("1e+06"));
    same(
        cel(&call("string", vec![boolean(true)])),
        Value::str("true"),
    );
    same(cel(&call("string", vec![bytes(b"hi")])), Value::str("hi"));
    assert!(fails(L, &call("string", vec![bytes(&[0xff])])).contains("UTF-8"));
    assert!(fails(L, &call("string", vec![list(vec![])])).contains("no overload"));
    same(
        cel(&call("bytes", vec![s("hi")])),
        Value::Bytes(b"hi".to_vec()),
    );
    same(cel(&call("bool", vec![s("True")])), Value::Bool(true));
    same(cel(&call("bool", vec![s("0")])), Value::Bool(false));
    assert!(fails(L, &call("bool", vec![s("yes")])).contains("cannot convert"));
    same(cel(&call("dyn", vec![int(1)])), Value::Int(1));
}

#[test]
fn type_values() {
    same(cel(&call("type", vec![int(1)])), Value::Type(Kind::Int));
    same(
        cel(&bin(B::Eq, call("type", vec![s("a")]), ident("string"))),
        Value::Bool(true),
    );
    same(
        cel(&bin(B::Eq, call("type", vec![int(1)]), ident("uint"))),
        Value::Bool(false),
    );
    same(
        cel(&call("type", vec![ident("int")])),
        Value::Type(Kind::Type),
    );
    assert!(fails(L, &call("string", vec![ident("bool")])).contains("no overload"));
}

#[test]
fn comprehension_macros() {
    let xs = || list(vec![int(1), int(2), int(3)]);
    let gt = |n: i64| bin(B::Gt, ident("x"), int(n));
    same(
        cel(&comp(Macro::All, xs(), "x", None, gt(0))),
        Value::Bool(true),
    );
    same(
        cel(&comp(Macro::All, xs(), "x", None, gt(1))),
        Value::Bool(false),
    );
    same(
        cel(&comp(Macro::Exists, xs(), "x", None, gt(2))),
        Value::Bool(true),
    );
    same(
        cel(&comp(Macro::Exists, xs(), "x", None, gt(3))),
        Value::Bool(false),
    );
    same(
        cel(&comp(Macro::ExistsOne, xs(), "x", None, gt(2))),
        Value::Bool(true),
    );
    same(
        cel(&comp(Macro::ExistsOne, xs(), "x", None, gt(1))),
        Value::Bool(false),
    );
    let doubled = cel(&comp(
        Macro::Map,
        xs(),
        "x",
        None,
        bin(B::Mul, ident("x"), int(2)),
    ));
    same(
        doubled,
        Value::List(vec![Value::Int(2), Value::Int(4), Value::Int(6)]),
    );
    let filtered_map = cel(&comp(
        Macro::Map,
        xs(),
        "x",
        Some(gt(1)),
        bin(B::Mul, ident("x"), int(10)),
    ));
    same(
        filtered_map,
        Value::List(vec![Value::Int(20), Value::Int(30)]),
    );
    same(
        cel(&comp(Macro::Filter, xs(), "x", None, gt(2))),
        Value::List(vec![Value::Int(3)]),
    );
    // Over a map: the keys.
    let keys = comp(
        Macro::Map,
        map(vec![(s("a"), int(1)), (s("b"), int(2))]),
        "k",
        None,
        ident("k"),
    );
    same(
        cel(&keys),
        Value::List(vec![Value::str("a"), Value::str("b")]),
    );
    assert!(
        fails(L, &comp(Macro::All, int(3), "x", None, boolean(true))).contains("cannot iterate")
    );
    assert!(fails(L, &comp(Macro::All, xs(), "x", None, int(1))).contains("predicate"));
}

#[test]
fn all_and_exists_absorb_errors_like_logical_operators() {
    // [0, 1].all(x, 1 / x > 1): the error for x = 0 is absorbed by the false for x = 1.
    let body = bin(B::Gt, bin(B::Div, int(1), ident("x")), int(1));
    let xs = || list(vec![int(0), int(1)]);
    same(
        cel(&comp(Macro::All, xs(), "x", None, body.clone())),
        Value::Bool(false),
    );
    let body2 = bin(B::Eq, bin(B::Div, int(1), ident("x")), int(1));
    same(
        cel(&comp(Macro::Exists, xs(), "x", None, body2.clone())),
        Value::Bool(true),
    );
    assert_eq!(
        fails(L, &comp(Macro::ExistsOne, xs(), "x", None, body2)),
        "division by zero"
    );
    let body3 = bin(B::Lt, bin(B::Div, int(1), ident("x")), int(5));
    assert_eq!(
        fails(L, &comp(Macro::All, xs(), "x", None, body3)),
        "division by zero"
    );
}

#[test]
fn comprehension_variables_shadow_roots_and_do_not_leak() {
    let vars = json!({"x": "root"});
    let inner = comp(Macro::Map, list(vec![int(1)]), "x", None, ident("x"));
    let x = list(vec![inner, ident("x")]);
    let got = run(L, &x, vars).unwrap();
    same(
        got,
        Value::List(vec![Value::List(vec![Value::Int(1)]), Value::str("root")]),
    );
}

#[test]
fn json_numbers_are_doubles_typed_roots_keep_their_kind() {
    let vars = json!({"inputs": {"n": 2, "xs": [1, 2]}});
    let serde_json::Value::Object(vars) = vars else {
        unreachable!()
    };
    let env = Env::from_json(&vars).with("index", Value::Int(1));
    let r = |x: Expr| eval_with(&x, L, &env);
    assert_eq!(
        r(bin(B::Add, path("inputs.n"), int(1)))
            .unwrap_err()
            .message,
        "no such overload: double + int"
    );
    same(
        r(bin(B::Add, path("inputs.n"), dbl(1.0))).unwrap(),
        Value::Double(3.0),
    );
    same(
        r(bin(B::Add, call("int", vec![path("inputs.n")]), int(1))).unwrap(),
        Value::Int(3),
    );
    same(
        r(bin(B::Eq, path("inputs.n"), int(2))).unwrap(),
        Value::Bool(true),
    );
    same(
        r(index(path("inputs.xs"), ident("index"))).unwrap(),
        Value::Double(2.0),
    );
    same(
        r(bin(B::Add, ident("index"), int(1))).unwrap(),
        Value::Int(2),
    );
}
