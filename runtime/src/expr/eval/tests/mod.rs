//! Evaluator tests, per language. Trees are built by hand with the helpers below; ids are
//! renumbered in pre-order by [`run`] unless a test sets them to point at a failing node.

mod agx;
mod cel;
mod gotmpl;
mod time;

use serde_json::json;

use super::{Entries, Env, EvalError, Field, eval, eval_with};
use crate::expr::{BinaryOp, Expr, ExprKind, Lang, Literal, Macro, TemplatePart, UnaryOp};
use crate::value::{Kind, Value};

pub fn e(kind: ExprKind) -> Expr {
    Expr { id: 0, kind }
}
fn lit(value: Literal) -> Expr {
    e(ExprKind::Literal { value })
}
pub fn int(i: i64) -> Expr {
    lit(Literal::Int(i))
}
pub fn uint(u: u64) -> Expr {
    lit(Literal::Uint(u))
}
pub fn dbl(d: f64) -> Expr {
    lit(Literal::Double(d))
}
pub fn s(text: &str) -> Expr {
    lit(Literal::String(text.into()))
}
pub fn bytes(b: &[u8]) -> Expr {
    lit(Literal::Bytes(b.to_vec()))
}
pub fn boolean(b: bool) -> Expr {
    lit(Literal::Bool(b))
}
pub fn null() -> Expr {
    lit(Literal::Null)
}
pub fn ident(name: &str) -> Expr {
    e(ExprKind::Ident { name: name.into() })
}
/// `a.b.c` as a member chain.
pub fn path(dotted: &str) -> Expr {
    let mut parts = dotted.split('.');
    let mut out = ident(parts.next().unwrap_or_default());
    for p in parts {
        out = member(out, p);
    }
    out
}
pub fn member(target: Expr, field: &str) -> Expr {
    e(ExprKind::Member {
        target: Box::new(target),
        field: field.into(),
    })
}
pub fn index(target: Expr, i: Expr) -> Expr {
    e(ExprKind::Index {
        target: Box::new(target),
        index: Box::new(i),
    })
}
pub fn not(x: Expr) -> Expr {
    e(ExprKind::Unary {
        op: UnaryOp::Not,
        operand: Box::new(x),
    })
}
pub fn neg(x: Expr) -> Expr {
    e(ExprKind::Unary {
        op: UnaryOp::Neg,
        operand: Box::new(x),
    })
}
pub fn bin(op: BinaryOp, l: Expr, r: Expr) -> Expr {
    e(ExprKind::Binary {
        op,
        left: Box::new(l),
        right: Box::new(r),
    })
}
pub fn call(name: &str, args: Vec<Expr>) -> Expr {
    e(ExprKind::Call {
        function: name.into(),
        target: None,
        args,
    })
}
pub fn method(target: Expr, name: &str, args: Vec<Expr>) -> Expr {
    e(ExprKind::Call {
        function: name.into(),
        target: Some(Box::new(target)),
        args,
    })
}
pub fn list(items: Vec<Expr>) -> Expr {
    e(ExprKind::List { items })
}
pub fn map(entries: Vec<(Expr, Expr)>) -> Expr {
    e(ExprKind::Map { entries })
}
pub fn has(target: Expr, field: &str) -> Expr {
    e(ExprKind::Has {
        target: Box::new(target),
        field: field.into(),
    })
}
pub fn cond(c: Expr, t: Expr, o: Expr) -> Expr {
    e(ExprKind::Conditional {
        cond: Box::new(c),
        then: Box::new(t),
        otherwise: Box::new(o),
    })
}
pub fn comp(mac: Macro, range: Expr, var: &str, filter: Option<Expr>, body: Expr) -> Expr {
    e(ExprKind::Comprehension {
        mac,
        range: Box::new(range),
        var: var.into(),
        filter: filter.map(Box::new),
        body: Box::new(body),
    })
}
pub fn text(t: &str) -> TemplatePart {
    TemplatePart::Text { text: t.into() }
}
pub fn part(expr: Expr) -> TemplatePart {
    TemplatePart::Expr { expr }
}
pub fn template(parts: Vec<TemplatePart>) -> Expr {
    e(ExprKind::Template { parts })
}

/// Sets a node's id (to name the node an error must point at).
pub fn with_id(id: u32, mut x: Expr) -> Expr {
    x.id = id;
    x
}

/// Evaluates with `vars` (a JSON object).
pub fn run(lang: Lang, x: &Expr, vars: serde_json::Value) -> Result<Value, EvalError> {
    let serde_json::Value::Object(vars) = vars else {
        panic!("vars must be a JSON object");
    };
    eval(x, lang, &vars)
}

/// Evaluates with no variables and expects success.
pub fn ok(lang: Lang, x: &Expr) -> Value {
    run(lang, x, json!({})).unwrap_or_else(|e| panic!("{x:?} failed: {e}"))
}

/// Evaluates with no variables and expects an error; returns its message.
pub fn fails(lang: Lang, x: &Expr) -> String {
    match run(lang, x, json!({})) {
        Ok(v) => panic!("{x:?} gave {v:?}, expected an error"),
        Err(e) => e.message,
    }
}

/// Asserts kind and value (plain `==` treats `1 == 1.0` as equal).
#[track_caller]
pub fn same(got: Value, want: Value) {
    assert_eq!(
        got.kind(),
        want.kind(),
        "kind of {got:?}, expected {want:?}"
    );
    assert_eq!(got, want);
}

#[test]
fn env_values_shadow_json_roots_and_locals_shadow_both() {
    let vars = json!({"x": 1});
    let serde_json::Value::Object(vars) = vars else {
        unreachable!()
    };
    let env = Env::from_json(&vars).with("x", Value::Int(2));
    same(
        eval_with(&path("x"), Lang::Cel, &env).unwrap(),
        Value::Int(2),
    );
    let body = bin(BinaryOp::Eq, ident("x"), int(7));
    let x = comp(Macro::All, list(vec![int(7)]), "x", None, body);
    same(eval_with(&x, Lang::Cel, &env).unwrap(), Value::Bool(true));
}

#[test]
fn step_limit_stops_large_comprehensions() {
    let items: Vec<Expr> = (0..50).map(int).collect();
    let inner = comp(Macro::Map, list(items.clone()), "y", None, ident("y"));
    let x = comp(Macro::Map, list(items), "x", None, inner);
    let env = Env::new().with_max_steps(500);
    let err = eval_with(&x, Lang::Cel, &env).unwrap_err();
    assert!(err.message.contains("step limit"), "{err}");
    assert!(eval_with(&x, Lang::Cel, &Env::new()).is_ok());
}

#[test]
fn concatenation_is_bounded_by_what_it_builds() {
    // `x.map(a, big + big)`: few steps, each copying a large list (issue 47).
    let big: serde_json::Map<String, serde_json::Value> = serde_json::from_value(
        serde_json::json!({"big": (0..1000).collect::<Vec<_>>(), "xs": (0..1000).collect::<Vec<_>>()}),
    )
    .unwrap();
    let body = bin(BinaryOp::Add, ident("big"), ident("big"));
    let x = comp(Macro::Map, ident("xs"), "a", None, body);
    for lang in [Lang::Cel, Lang::Agx] {
        let env = Env::from_json(&big).with_max_built(100_000);
        let err = eval_with(&x, lang, &env).unwrap_err();
        assert!(err.message.contains("built more than 100000"), "{err}");
        let env = Env::from_json(&big).with_max_built(10_000_000);
        assert!(eval_with(&x, lang, &env).is_ok());
    }
}

#[test]
fn depth_guard_reports_instead_of_overflowing() {
    let mut x = int(1);
    for _ in 0..(super::MAX_DEPTH + 10) {
        x = neg(x);
    }
    let msg = fails(Lang::Cel, &x);
    assert!(msg.contains("nested too deeply"), "{msg}");
}

#[test]
fn errors_name_the_failing_node() {
    let x = bin(
        BinaryOp::Add,
        int(1),
        with_id(7, bin(BinaryOp::Div, int(1), int(0))),
    );
    let x = with_id(0, x);
    let err = run(Lang::Cel, &x, json!({})).unwrap_err();
    assert_eq!(err.node, 7);
    assert_eq!(err.message, "division by zero");
}

#[test]
fn literals_evaluate_to_their_kinds() {
    for lang in [Lang::Agx, Lang::Cel] {
        same(ok(lang, &null()), Value::Null);
        same(ok(lang, &uint(3)), Value::Uint(3));
        same(ok(lang, &bytes(b"ab")), Value::Bytes(b"ab".to_vec()));
    }
    assert_eq!(ok(Lang::Cel, &ident("int")).kind(), Kind::Type);
}

#[test]
fn max_depth_fits_in_a_small_thread_stack() {
    // A chain just under the limit must evaluate on a 1 MiB stack (debug build).
    let mut x = int(1);
    for _ in 0..(super::MAX_DEPTH - 1) {
        x = neg(x);
    }
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || ok(Lang::Cel, &x))
        .unwrap();
    let depth = super::MAX_DEPTH as i64;
    same(
        handle.join().unwrap(),
        Value::Int(if depth % 2 == 0 { -1 } else { 1 }),
    );
}

/// A root of objects read entry by entry ([`Env::with_entries`]), over the same JSON it
/// would be built from.
struct Table(serde_json::Map<String, serde_json::Value>);

impl Entries for Table {
    fn field(&self, name: &str, field: &str) -> Field<'_> {
        match self.0.get(name).map(|entry| entry.get(field)) {
            None => Field::NoEntry,
            Some(None) => Field::NoField,
            Some(Some(serde_json::Value::Object(m))) => Field::Map(m),
            Some(Some(v)) => Field::Value(v.clone()),
        }
    }
}

/// Numbers the nodes of `x` in pre-order (so that errors name distinct nodes).
fn numbered(mut x: Expr) -> Expr {
    fn number(x: &mut Expr, next: &mut u32) {
        x.id = *next;
        *next += 1;
        match &mut x.kind {
            ExprKind::Member { target, .. } | ExprKind::Has { target, .. } => number(target, next),
            ExprKind::Index { target, index } => {
                number(target, next);
                number(index, next);
            }
            ExprKind::Binary { left, right, .. } => {
                number(left, next);
                number(right, next);
            }
            ExprKind::Template { parts } => {
                for p in parts {
                    if let TemplatePart::Expr { expr } = p {
                        number(expr, next);
                    }
                }
            }
            _ => {}
        }
    }
    number(&mut x, &mut 0);
    x
}

#[test]
fn a_root_read_entry_by_entry_answers_as_the_built_root() {
    let serde_json::Value::Object(nodes) = json!({
        "a": {"status": "succeeded", "outputs": {"x": 1, "f": 2.5, "list": [1, 2], "o": {"k": "v"}}, "attempts": 1},
        "b": {"status": "failed", "outputs": {}, "attempts": 2, "decision": "no"},
    }) else {
        unreachable!()
    };
    let mut built = serde_json::Map::new();
    built.insert("nodes".into(), serde_json::Value::Object(nodes.clone()));
    let table = Table(nodes);
    let none = serde_json::Map::new();
    let exprs = [
        path("nodes.a.outputs.x"),
        path("nodes.a.outputs.f"),
        path("nodes.a.outputs"),
        path("nodes.a.outputs.o"),
        path("nodes.a.outputs.o.k"),
        path("nodes.a.outputs.o.k.deeper"),
        path("nodes.a.outputs.missing"),
        path("nodes.a.outputs.missing.deeper"),
        path("nodes.a.status"),
        path("nodes.a.status.deeper"),
        path("nodes.a.attempts"),
        path("nodes.a.decision"),
        path("nodes.b.decision"),
        path("nodes.b.outputs.x"),
        path("nodes.z.outputs.x"),
        path("nodes.z.status"),
        index(path("nodes.a.outputs.list"), int(1)),
        index(path("nodes.a.outputs.list"), int(5)),
        index(path("nodes.a.outputs"), s("x")),
        index(path("nodes.a.outputs"), s("y")),
        index(path("nodes.a.outputs"), int(0)),
        index(
            path("nodes.a.outputs.list"),
            bin(BinaryOp::Add, int(0), int(1)),
        ),
        has(path("nodes.a.outputs"), "x"),
        has(path("nodes.a.outputs"), "y"),
        bin(
            BinaryOp::Add,
            path("nodes.a.outputs.x"),
            path("nodes.b.attempts"),
        ),
        template(vec![text("got "), part(path("nodes.a.outputs.o.k"))]),
    ];
    for lang in [Lang::Agx, Lang::Cel, Lang::Gotmpl] {
        for x in exprs.iter().cloned().map(numbered) {
            let by_entry = eval_with(
                &x,
                lang,
                &Env::from_json(&none).with_entries("nodes", &table),
            );
            let whole = eval_with(&x, lang, &Env::from_json(&built));
            match (by_entry, whole) {
                (Ok(a), Ok(b)) => same(a, b),
                (a, b) => assert_eq!(a, b, "{lang:?} {x:?}"),
            }
        }
    }
}
