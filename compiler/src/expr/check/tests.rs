//! Type checker tests: one group per error kind, per language, plus inferred types.

use agc_runtime::expr::{BinaryOp as B, Expr, ExprKind, Lang, Literal, Macro, UnaryOp};

use super::*;

/// Builds trees with pre-order ids assigned by [`number`].
fn e(kind: ExprKind) -> Expr {
    Expr { id: 0, kind }
}
fn lit(value: Literal) -> Expr {
    e(ExprKind::Literal { value })
}
fn int(i: i64) -> Expr {
    lit(Literal::Int(i))
}
fn dbl(d: f64) -> Expr {
    lit(Literal::Double(d))
}
fn s(t: &str) -> Expr {
    lit(Literal::String(t.into()))
}
fn boolean(b: bool) -> Expr {
    lit(Literal::Bool(b))
}
fn null() -> Expr {
    lit(Literal::Null)
}
fn ident(name: &str) -> Expr {
    e(ExprKind::Ident { name: name.into() })
}
fn path(dotted: &str) -> Expr {
    let mut parts = dotted.split('.');
    let mut out = ident(parts.next().unwrap_or_default());
    for p in parts {
        out = e(ExprKind::Member {
            target: Box::new(out),
            field: p.into(),
        });
    }
    out
}
fn bin(op: B, l: Expr, r: Expr) -> Expr {
    e(ExprKind::Binary {
        op,
        left: Box::new(l),
        right: Box::new(r),
    })
}
fn not(x: Expr) -> Expr {
    e(ExprKind::Unary {
        op: UnaryOp::Not,
        operand: Box::new(x),
    })
}
fn neg(x: Expr) -> Expr {
    e(ExprKind::Unary {
        op: UnaryOp::Neg,
        operand: Box::new(x),
    })
}
fn call(name: &str, args: Vec<Expr>) -> Expr {
    e(ExprKind::Call {
        function: name.into(),
        target: None,
        args,
    })
}
fn method(target: Expr, name: &str, args: Vec<Expr>) -> Expr {
    e(ExprKind::Call {
        function: name.into(),
        target: Some(Box::new(target)),
        args,
    })
}
fn list(items: Vec<Expr>) -> Expr {
    e(ExprKind::List { items })
}
fn index(target: Expr, i: Expr) -> Expr {
    e(ExprKind::Index {
        target: Box::new(target),
        index: Box::new(i),
    })
}
fn cond(c: Expr, t: Expr, o: Expr) -> Expr {
    e(ExprKind::Conditional {
        cond: Box::new(c),
        then: Box::new(t),
        otherwise: Box::new(o),
    })
}
fn comp(mac: Macro, range: Expr, var: &str, body: Expr) -> Expr {
    e(ExprKind::Comprehension {
        mac,
        range: Box::new(range),
        var: var.into(),
        filter: None,
        body: Box::new(body),
    })
}
fn has(target: Expr, field: &str) -> Expr {
    e(ExprKind::Has {
        target: Box::new(target),
        field: field.into(),
    })
}

/// Assigns ids in pre-order from 0 (children in field order).
fn number(x: &mut Expr, next: &mut u32) {
    x.id = *next;
    *next += 1;
    match &mut x.kind {
        ExprKind::Literal { .. } | ExprKind::Ident { .. } => {}
        ExprKind::Member { target, .. } | ExprKind::Has { target, .. } => number(target, next),
        ExprKind::Index { target, index } => {
            number(target, next);
            number(index, next);
        }
        ExprKind::Unary { operand, .. } => number(operand, next),
        ExprKind::Binary { left, right, .. } => {
            number(left, next);
            number(right, next);
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            number(cond, next);
            number(then, next);
            number(otherwise, next);
        }
        ExprKind::Call { target, args, .. } => {
            if let Some(t) = target {
                number(t, next);
            }
            args.iter_mut().for_each(|a| number(a, next));
        }
        ExprKind::List { items } => items.iter_mut().for_each(|a| number(a, next)),
        ExprKind::Map { entries } => entries.iter_mut().for_each(|(k, v)| {
            number(k, next);
            number(v, next);
        }),
        ExprKind::Comprehension {
            range,
            filter,
            body,
            ..
        } => {
            number(range, next);
            if let Some(f) = filter {
                number(f, next);
            }
            number(body, next);
        }
        ExprKind::Template { parts } => {
            for p in parts {
                if let agc_runtime::expr::TemplatePart::Expr { expr } = p {
                    number(expr, next);
                }
            }
        }
    }
}

fn env() -> TypeEnv {
    TypeEnv::new()
        .with(
            "params",
            Type::closed([
                ("n", Type::Int),
                ("name", Type::String),
                ("flag", Type::Bool),
                ("tags", Type::list(Type::String)),
                ("any", Type::Dyn),
            ]),
        )
        .with("inputs", Type::map(Type::String, Type::Dyn))
        .with("ctx", Type::open([("x", Type::Int)]))
        .with("when", Type::Timestamp)
}

fn run(lang: Lang, mut x: Expr) -> (Type, Vec<TypeError>) {
    number(&mut x, &mut 0);
    check(&x, lang, &env())
}

/// The single error an expression must produce.
#[track_caller]
fn one_error(lang: Lang, x: Expr) -> TypeError {
    let (_, errors) = run(lang, x);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    errors.into_iter().next().unwrap_or_else(|| unreachable!())
}

#[track_caller]
fn clean(lang: Lang, x: Expr) -> Type {
    let (t, errors) = run(lang, x);
    assert!(errors.is_empty(), "{errors:#?}");
    t
}

#[test]
fn unknown_function_per_language() {
    let err = one_error(Lang::Agx, call("now", vec![]));
    assert_eq!((err.kind, err.node), (TypeErrorKind::UnknownFunction, 0));
    assert_eq!(err.message, "unknown function `now`");
    // A CEL method called as a function gets a hint.
    let err = one_error(Lang::Cel, call("startsWith", vec![s("a"), s("b")]));
    assert_eq!(err.kind, TypeErrorKind::UnknownFunction);
    assert!(err.message.contains("it is a method"), "{}", err.message);
    let err = one_error(Lang::Gotmpl, call("printf", vec![s("%s")]));
    assert_eq!(err.kind, TypeErrorKind::UnknownFunction);
    // AGX has no `size`, CEL has no `len`.
    assert_eq!(
        one_error(Lang::Agx, call("size", vec![s("a")])).kind,
        TypeErrorKind::UnknownFunction
    );
    assert_eq!(
        one_error(Lang::Cel, call("len", vec![s("a")])).kind,
        TypeErrorKind::UnknownFunction
    );
}

#[test]
fn wrong_arity() {
    let err = one_error(Lang::Agx, call("get", vec![path("params")]));
    assert_eq!(err.kind, TypeErrorKind::WrongArity);
    assert_eq!(err.message, "`get` takes 2 to 3 arguments, got 1");
    clean(Lang::Agx, call("get", vec![path("params"), s("n")]));
    clean(Lang::Agx, call("get", vec![path("params"), s("n"), int(0)]));
    let err = one_error(Lang::Cel, method(s("a"), "contains", vec![]));
    assert_eq!(err.kind, TypeErrorKind::WrongArity);
    let err = one_error(Lang::Gotmpl, call("default", vec![s("x")]));
    assert_eq!(err.kind, TypeErrorKind::WrongArity);
}

#[test]
fn unknown_root() {
    let err = one_error(Lang::Agx, path("secrets.token"));
    assert_eq!((err.kind, err.node), (TypeErrorKind::UnknownRoot, 1));
    assert_eq!(err.message, "unknown name `secrets`");
    // CEL type names are not roots but are known.
    clean(
        Lang::Cel,
        bin(B::Eq, call("type", vec![int(1)]), ident("int")),
    );
    assert_eq!(
        one_error(Lang::Agx, ident("int")).kind,
        TypeErrorKind::UnknownRoot
    );
    // Comprehension variables are in scope in the body only.
    clean(
        Lang::Cel,
        comp(
            Macro::All,
            path("params.tags"),
            "t",
            bin(B::Eq, ident("t"), s("x")),
        ),
    );
    let x = list(vec![
        comp(Macro::All, path("params.tags"), "t", boolean(true)),
        ident("t"),
    ]);
    assert_eq!(one_error(Lang::Cel, x).kind, TypeErrorKind::UnknownRoot);
}

#[test]
fn unknown_field_only_on_closed_objects() {
    let err = one_error(Lang::Agx, path("params.nn"));
    assert_eq!((err.kind, err.node), (TypeErrorKind::UnknownField, 0));
    assert_eq!(
        err.message,
        "no field `nn`; known fields: n, name, flag, tags, any"
    );
    assert_eq!(clean(Lang::Agx, path("ctx.other")), Type::Dyn);
    assert_eq!(clean(Lang::Agx, path("inputs.whatever")), Type::Dyn);
    assert_eq!(clean(Lang::Agx, path("params.any.deep.er")), Type::Dyn);
    assert_eq!(
        one_error(Lang::Cel, has(path("params"), "zz")).kind,
        TypeErrorKind::UnknownField
    );
    let err = one_error(Lang::Cel, index(path("params"), s("zz")));
    assert_eq!(err.kind, TypeErrorKind::UnknownField);
}

#[test]
fn bad_operands_ordering() {
    // AG204 in AGS: ordering an integer against a string literal.
    let err = one_error(Lang::Agx, bin(B::Lt, path("params.n"), s("3")));
    assert_eq!((err.kind, err.node), (TypeErrorKind::BadOperands, 0));
    assert_eq!(err.message, "`<` cannot take integer and string");
    let err = one_error(Lang::Cel, bin(B::Lt, path("params.n"), s("3")));
    assert_eq!(err.message, "no such overload: int < string");
    clean(Lang::Agx, bin(B::Lt, path("params.n"), dbl(2.5)));
    clean(Lang::Agx, bin(B::Ge, path("params.name"), s("m")));
    assert_eq!(
        one_error(Lang::Agx, bin(B::Lt, path("params.flag"), boolean(true))).kind,
        TypeErrorKind::BadOperands
    );
    clean(Lang::Cel, bin(B::Lt, path("params.flag"), boolean(true)));
    clean(
        Lang::Cel,
        bin(
            B::Lt,
            path("when"),
            call("timestamp", vec![s("2024-01-01T00:00:00Z")]),
        ),
    );
    // Dyn on one side: only a side that can never be ordered is an error.
    clean(Lang::Agx, bin(B::Lt, path("inputs.x"), int(3)));
    assert_eq!(
        one_error(Lang::Agx, bin(B::Lt, path("inputs.x"), null())).kind,
        TypeErrorKind::BadOperands
    );
    // Equality across types is never an error.
    assert_eq!(
        clean(Lang::Agx, bin(B::Eq, path("params.n"), s("3"))),
        Type::Bool
    );
}

#[test]
fn bad_operands_arithmetic_per_language() {
    assert_eq!(
        clean(Lang::Agx, bin(B::Add, path("params.n"), int(1))),
        Type::Int
    );
    assert_eq!(
        clean(Lang::Agx, bin(B::Add, path("params.n"), dbl(1.0))),
        Type::Double
    );
    assert_eq!(clean(Lang::Agx, bin(B::Div, int(1), int(2))), Type::Double);
    assert_eq!(
        clean(
            Lang::Agx,
            bin(B::Add, path("params.tags"), list(vec![s("x")]))
        ),
        Type::list(Type::String)
    );
    assert_eq!(
        one_error(Lang::Agx, bin(B::Add, path("params.name"), int(1))).kind,
        TypeErrorKind::BadOperands
    );
    assert_eq!(
        one_error(Lang::Agx, bin(B::Mul, s("a"), path("inputs.x"))).kind,
        TypeErrorKind::BadOperands
    );
    assert_eq!(
        one_error(Lang::Agx, neg(s("a"))).kind,
        TypeErrorKind::BadOperands
    );
    // CEL: no mixed arithmetic; timestamps and durations combine.
    let err = one_error(Lang::Cel, bin(B::Add, path("params.n"), dbl(1.0)));
    assert_eq!(err.message, "no such overload: int + double");
    assert_eq!(clean(Lang::Cel, bin(B::Div, int(7), int(2))), Type::Int);
    assert_eq!(
        one_error(Lang::Cel, bin(B::Rem, dbl(1.0), dbl(2.0))).kind,
        TypeErrorKind::BadOperands
    );
    let later = bin(B::Add, path("when"), call("duration", vec![s("1h")]));
    assert_eq!(clean(Lang::Cel, later), Type::Timestamp);
    assert_eq!(
        clean(Lang::Cel, bin(B::Sub, path("when"), path("when"))),
        Type::Duration
    );
    assert_eq!(
        one_error(Lang::Cel, bin(B::Add, path("when"), path("when"))).kind,
        TypeErrorKind::BadOperands
    );
    assert_eq!(
        one_error(Lang::Gotmpl, bin(B::Add, int(1), int(1))).kind,
        TypeErrorKind::BadOperands
    );
}

#[test]
fn bad_operands_in_and_functions() {
    clean(Lang::Agx, bin(B::In, s("a"), path("params.tags")));
    clean(Lang::Agx, bin(B::In, s("a"), path("params.name")));
    assert_eq!(
        one_error(Lang::Agx, bin(B::In, int(1), path("params.name"))).kind,
        TypeErrorKind::BadOperands
    );
    assert_eq!(
        one_error(Lang::Cel, bin(B::In, s("a"), path("params.name"))).kind,
        TypeErrorKind::BadOperands
    );
    assert_eq!(
        one_error(Lang::Agx, bin(B::In, s("a"), path("params.n"))).kind,
        TypeErrorKind::BadOperands
    );
    // len() of an integer (AG204 where statically detectable).
    let err = one_error(Lang::Agx, call("len", vec![path("params.n")]));
    assert_eq!((err.kind, err.node), (TypeErrorKind::BadOperands, 0));
    assert_eq!(err.message, "no overload of `len` takes (integer)");
    assert_eq!(
        clean(Lang::Agx, call("len", vec![path("inputs.x")])),
        Type::Int
    );
    assert_eq!(
        clean(Lang::Agx, call("split", vec![path("params.name"), s(",")])),
        Type::list(Type::String)
    );
    assert_eq!(clean(Lang::Agx, call("json", vec![s("{}")])), Type::Dyn);
    assert_eq!(
        clean(Lang::Agx, call("default", vec![path("params.n"), int(0)])),
        Type::Int
    );
    assert_eq!(
        clean(Lang::Agx, call("default", vec![null(), s("x")])),
        Type::String
    );
    assert_eq!(
        clean(Lang::Cel, method(path("params.name"), "size", vec![])),
        Type::Int
    );
    let err = one_error(
        Lang::Cel,
        method(path("params.n"), "startsWith", vec![s("x")]),
    );
    assert_eq!(
        err.message,
        "no overload of `startsWith` takes (int, string)"
    );
    assert_eq!(
        clean(Lang::Cel, method(path("when"), "getHours", vec![s("UTC")])),
        Type::Int
    );
    assert_eq!(
        one_error(Lang::Cel, method(path("when"), "getHours", vec![int(1)])).kind,
        TypeErrorKind::BadOperands
    );
}

#[test]
fn not_bool_conditions() {
    let err = one_error(Lang::Agx, bin(B::And, path("params.n"), boolean(true)));
    assert_eq!((err.kind, err.node), (TypeErrorKind::NotBool, 1));
    assert_eq!(err.message, "`&&` needs booleans, got integer");
    let err = one_error(Lang::Cel, bin(B::Or, boolean(true), path("params.name")));
    assert_eq!((err.kind, err.node), (TypeErrorKind::NotBool, 2));
    let err = one_error(Lang::Agx, not(path("params.tags")));
    assert_eq!((err.kind, err.node), (TypeErrorKind::NotBool, 1));
    let err = one_error(Lang::Cel, cond(path("params.n"), int(1), int(2)));
    assert_eq!((err.kind, err.node), (TypeErrorKind::NotBool, 1));
    let err = one_error(
        Lang::Cel,
        comp(Macro::Exists, path("params.tags"), "t", ident("t")),
    );
    assert_eq!((err.kind, err.node), (TypeErrorKind::NotBool, 3));
    // Dyn passes; the evaluator checks at run time.
    assert_eq!(
        clean(
            Lang::Agx,
            bin(B::And, path("inputs.ok"), path("params.flag"))
        ),
        Type::Bool
    );
}

#[test]
fn every_error_is_reported_in_one_pass() {
    let x = bin(
        B::And,
        bin(B::Lt, path("params.n"), s("x")),
        bin(B::Eq, call("nope", vec![]), path("params.zz")),
    );
    let (t, errors) = run(Lang::Agx, x);
    assert_eq!(t, Type::Bool);
    let kinds: Vec<TypeErrorKind> = errors.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            TypeErrorKind::BadOperands,
            TypeErrorKind::UnknownFunction,
            TypeErrorKind::UnknownField
        ]
    );
}

#[test]
fn inferred_types_and_node_table() {
    let mut x = comp(
        Macro::Map,
        path("params.tags"),
        "t",
        call("size", vec![ident("t")]),
    );
    number(&mut x, &mut 0);
    let checked = check_typed(&x, Lang::Cel, &env());
    assert!(checked.errors.is_empty());
    assert_eq!(checked.ty, Type::list(Type::Int));
    assert_eq!(checked.types[&1], Type::list(Type::String));
    assert_eq!(checked.types[&4], Type::String);
    assert_eq!(
        clean(Lang::Cel, cond(boolean(true), int(1), dbl(2.0))),
        Type::Dyn
    );
    assert_eq!(
        clean(Lang::Cel, list(vec![int(1), int(2)])),
        Type::list(Type::Int)
    );
    assert_eq!(
        clean(Lang::Agx, index(path("params.tags"), int(0))),
        Type::String
    );
    assert_eq!(
        one_error(Lang::Agx, index(path("params.tags"), s("x"))).kind,
        TypeErrorKind::BadOperands
    );
}

/// The checker never rejects what evaluates fine: for every operator and every pair of
/// sample literals, a static error implies a run-time error.
#[test]
fn checker_agrees_with_the_evaluator_on_literal_operands() {
    let samples = || {
        vec![
            null(),
            boolean(true),
            int(2),
            lit(Literal::Uint(3)),
            dbl(1.5),
            s("a"),
            lit(Literal::Bytes(b"x".to_vec())),
            list(vec![int(1)]),
            e(ExprKind::Map {
                entries: vec![(s("a"), int(1))],
            }),
        ]
    };
    let ops = [
        B::Eq,
        B::Ne,
        B::Lt,
        B::Le,
        B::Gt,
        B::Ge,
        B::In,
        B::Add,
        B::Sub,
        B::Mul,
        B::Div,
        B::Rem,
        B::And,
        B::Or,
    ];
    let vars = serde_json::Map::new();
    let mut checked = 0;
    for lang in [Lang::Agx, Lang::Cel] {
        for op in ops {
            for l in samples() {
                for r in samples() {
                    let non_bool = [&l, &r]
                        .iter()
                        .filter(|o| {
                            !matches!(
                                o.kind,
                                ExprKind::Literal {
                                    value: Literal::Bool(_)
                                }
                            )
                        })
                        .count();
                    let mut x = bin(op, l.clone(), r);
                    number(&mut x, &mut 0);
                    let (_, errors) = check(&x, lang, &TypeEnv::new());
                    checked += 1;
                    if matches!(op, B::And | B::Or) {
                        // Statically, a non-boolean operand is an error even where
                        // short-circuiting would skip it at run time.
                        assert_eq!(errors.len(), non_bool, "{x:?}");
                        assert!(errors.iter().all(|e| e.kind == TypeErrorKind::NotBool));
                        continue;
                    }
                    let result = agc_runtime::expr::eval::eval(&x, lang, &vars);
                    if !errors.is_empty() {
                        assert!(
                            result.is_err(),
                            "{lang:?} {x:?}: checker says {errors:?}, evaluator {result:?}"
                        );
                    }
                    if result.is_ok() {
                        assert!(errors.is_empty(), "{lang:?} {x:?}");
                    }
                }
            }
        }
    }
    assert_eq!(checked, 2 * 14 * 81);
    // And the other way for the type-mismatch cases that matter most: ordering across kinds.
    for lang in [Lang::Agx, Lang::Cel] {
        let (_, errors) = check(&bin(B::Lt, int(1), s("a")), lang, &TypeEnv::new());
        assert_eq!(errors.len(), 1);
    }
}

#[test]
fn checker_agrees_with_the_evaluator_on_unary_operators() {
    let vars = serde_json::Map::new();
    for lang in [Lang::Agx, Lang::Cel] {
        for operand in [
            null(),
            boolean(true),
            int(2),
            lit(Literal::Uint(3)),
            dbl(1.5),
            s("a"),
        ] {
            for mut x in [not(operand.clone()), neg(operand)] {
                number(&mut x, &mut 0);
                let (_, errors) = check(&x, lang, &TypeEnv::new());
                let result = agc_runtime::expr::eval::eval(&x, lang, &vars);
                assert_eq!(
                    errors.is_empty(),
                    result.is_ok(),
                    "{lang:?} {x:?}: {errors:?} vs {result:?}"
                );
            }
        }
    }
}

/// Every built-in of every language, with every combination of sample arguments: a static
/// error implies a run-time error, and a clean run implies a clean check.
#[test]
fn checker_agrees_with_the_evaluator_on_every_builtin() {
    use agc_runtime::expr::functions::{Style, functions};
    let samples = [
        null(),
        boolean(true),
        int(2),
        dbl(1.5),
        s("a"),
        s("2024-01-01T00:00:00Z"),
        list(vec![boolean(true)]),
        e(ExprKind::Map {
            entries: vec![(s("a"), int(1))],
        }),
        call("timestamp", vec![s("2024-01-01T00:00:00Z")]),
        call("duration", vec![s("1h")]),
    ];
    let vars = serde_json::Map::new();
    let mut checked = 0;
    for lang in [Lang::Agx, Lang::Cel, Lang::Gotmpl] {
        for f in functions(lang) {
            let receiver = f.style == Style::Receiver;
            let (min, max) = f.arity();
            for n in min..=max {
                let values = n + usize::from(receiver);
                let mut picks = vec![0usize; values];
                'combos: loop {
                    let mut args: Vec<Expr> = picks.iter().map(|i| samples[*i].clone()).collect();
                    // AGX/Gotmpl have no timestamp()/duration(): those samples only apply to CEL.
                    let usable = lang == Lang::Cel
                        || args
                            .iter()
                            .all(|a| !matches!(a.kind, ExprKind::Call { .. }));
                    if usable {
                        let mut x = if receiver {
                            let target = args.remove(0);
                            method(target, f.name, args)
                        } else {
                            call(f.name, args)
                        };
                        number(&mut x, &mut 0);
                        let (_, errors) = check(&x, lang, &TypeEnv::new());
                        let result = agc_runtime::expr::eval::eval(&x, lang, &vars);
                        if !errors.is_empty() {
                            assert!(result.is_err(), "{lang:?} {x:?}: {errors:?} vs {result:?}");
                        }
                        if result.is_ok() {
                            assert!(errors.is_empty(), "{lang:?} {x:?}: {errors:?}");
                        }
                        checked += 1;
                    }
                    for slot in picks.iter_mut().rev() {
                        *slot += 1;
                        if *slot < samples.len() {
                            continue 'combos;
                        }
                        *slot = 0;
                    }
                    break;
                }
            }
        }
    }
    assert!(checked > 3000, "{checked}");
}
