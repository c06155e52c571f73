//! print → parse round trip: for generated CEL trees, `parse(print(e)) == e`.

use agc::expr::{parse_cel, print_cel};
use agc::source::FileId;
use agc::source::scalar::ScalarMap;
use agc_runtime::expr::{BinaryOp, Expr, ExprKind, Literal, Macro, UnaryOp};
use proptest::prelude::*;

/// A tree without ids; ids are assigned in pre-order afterwards, as the parser does.
fn renumber(e: &mut Expr, next: &mut u32) {
    e.id = *next;
    *next += 1;
    match &mut e.kind {
        ExprKind::Literal { .. } | ExprKind::Ident { .. } => {}
        ExprKind::Member { target, .. } | ExprKind::Has { target, .. } => renumber(target, next),
        ExprKind::Index { target, index } => {
            renumber(target, next);
            renumber(index, next);
        }
        ExprKind::Unary { operand, .. } => renumber(operand, next),
        ExprKind::Binary { left, right, .. } => {
            renumber(left, next);
            renumber(right, next);
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            renumber(cond, next);
            renumber(then, next);
            renumber(otherwise, next);
        }
        ExprKind::Call { target, args, .. } => {
            if let Some(t) = target {
                renumber(t, next);
            }
            for a in args {
                renumber(a, next);
            }
        }
        ExprKind::List { items } => items.iter_mut().for_each(|i| renumber(i, next)),
        ExprKind::Map { entries } => entries.iter_mut().for_each(|(k, v)| {
            renumber(k, next);
            renumber(v, next);
        }),
        ExprKind::Comprehension {
            range,
            filter,
            body,
            ..
        } => {
            renumber(range, next);
            if let Some(f) = filter {
                renumber(f, next);
            }
            renumber(body, next);
        }
        ExprKind::Template { .. } => unreachable!(),
    }
}

fn node(kind: ExprKind) -> Expr {
    Expr { id: 0, kind }
}

fn ident() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_string()),
        Just("b".to_string()),
        Just("inputs".to_string()),
        Just("_x9".to_string()),
        Just("item".to_string()),
    ]
}

fn literal() -> impl Strategy<Value = Literal> {
    prop_oneof![
        Just(Literal::Null),
        any::<bool>().prop_map(Literal::Bool),
        any::<i64>().prop_map(Literal::Int),
        any::<u64>().prop_map(Literal::Uint),
        any::<f64>()
            .prop_filter("finite", |d| d.is_finite())
            .prop_map(Literal::Double),
        any::<String>().prop_map(Literal::String),
        proptest::collection::vec(any::<u8>(), 0..6).prop_map(Literal::Bytes),
    ]
}

fn binop() -> impl Strategy<Value = BinaryOp> {
    use BinaryOp::*;
    proptest::sample::select(vec![
        Or, And, Eq, Ne, Lt, Le, Gt, Ge, In, Add, Sub, Mul, Div, Rem,
    ])
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        literal().prop_map(|value| node(ExprKind::Literal { value })),
        ident().prop_map(|name| node(ExprKind::Ident { name })),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        let b = || inner.clone().prop_map(Box::new);
        prop_oneof![
            (b(), ident()).prop_map(|(target, field)| node(ExprKind::Member { target, field })),
            (b(), b()).prop_map(|(target, index)| node(ExprKind::Index { target, index })),
            (prop_oneof![Just(UnaryOp::Not), Just(UnaryOp::Neg)], b())
                .prop_map(|(op, operand)| node(ExprKind::Unary { op, operand })),
            (binop(), b(), b()).prop_map(|(op, left, right)| node(ExprKind::Binary {
                op,
                left,
                right
            })),
            (b(), b(), b()).prop_map(|(cond, then, otherwise)| node(ExprKind::Conditional {
                cond,
                then,
                otherwise
            })),
            (
                prop_oneof![Just("size"), Just("contains"), Just("f")],
                proptest::option::of(b()),
                proptest::collection::vec(inner.clone(), 0..3)
            )
                .prop_map(|(f, target, args)| node(ExprKind::Call {
                    function: f.to_string(),
                    target,
                    args
                })),
            proptest::collection::vec(inner.clone(), 0..3)
                .prop_map(|items| node(ExprKind::List { items })),
            proptest::collection::vec((inner.clone(), inner.clone()), 0..3)
                .prop_map(|entries| node(ExprKind::Map { entries })),
            (b(), ident()).prop_map(|(target, field)| node(ExprKind::Has { target, field })),
            (
                proptest::sample::select(vec![
                    Macro::All,
                    Macro::Exists,
                    Macro::ExistsOne,
                    Macro::Map,
                    Macro::Filter
                ]),
                b(),
                ident(),
                proptest::option::of(b()),
                b()
            )
                .prop_map(|(mac, range, var, filter, body)| {
                    let filter = if mac == Macro::Map { filter } else { None };
                    node(ExprKind::Comprehension {
                        mac,
                        range,
                        var,
                        filter,
                        body,
                    })
                }),
        ]
    })
    .prop_map(|mut e| {
        let mut n = 0;
        renumber(&mut e, &mut n);
        e
    })
}

// Calls named like macros, with macro arity, would be parsed as macros; so would a
// `has` call with one argument. The generator never makes such calls (it only uses
// `size`, `contains`, `f`), so every generated tree is one the parser can produce,
// except a negation applied directly to a number literal, which the printer guards.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn print_then_parse_is_identity(e in expr()) {
        let text = print_cel(&e);
        let map = ScalarMap::contiguous(FileId(0), 0, text.len());
        match parse_cel(&text, &map) {
            Ok((back, spans)) => {
                prop_assert_eq!(&back, &e, "printed as {}", text);
                // One span per node, each inside the text.
                prop_assert!(spans.iter().all(|s| s.end as usize <= text.len()));
            }
            Err(d) => prop_assert!(false, "{} did not parse: {:?}", text, d),
        }
    }
}

/// Fragments that make up CEL text, so random soups reach deep into the grammar.
const FRAGMENTS: &[&str] = &[
    "a",
    "b",
    ".",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "?",
    "!",
    "-",
    "+",
    "*",
    "/",
    "%",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "&&",
    "||",
    " in ",
    "1",
    "0x1f",
    "2u",
    "1.5",
    "1e3",
    "\"s\"",
    "'t'",
    "r\"\\d\"",
    "b\"\\xff\"",
    "\"\"\"x\"\"\"",
    "true",
    "null",
    "has",
    "all",
    "map",
    "filter",
    "exists_one",
    "size",
    "x",
    "if",
    " ",
    "\n",
    "//c\n",
    "9223372036854775808",
    "\"\\u00e9\"",
    "M{",
    "-9223372036854775808",
];

fn soup() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..40)
        .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// Whatever the text: a result or spanned diagnostics inside the text, and what parses
    /// prints back to the same tree.
    #[test]
    fn any_text_parses_or_reports(src in soup()) {
        let map = ScalarMap::contiguous(FileId(0), 0, src.len());
        match parse_cel(&src, &map) {
            Ok((e, _)) => {
                let text = print_cel(&e);
                let m2 = ScalarMap::contiguous(FileId(0), 0, text.len());
                let back = parse_cel(&text, &m2);
                prop_assert!(back.is_ok(), "{:?} printed as {:?}: {:?}", src, text, back);
                prop_assert_eq!(back.unwrap().0, e, "{:?} printed as {:?}", src, text);
            }
            Err(ds) => {
                prop_assert!(!ds.is_empty());
                for d in ds {
                    let s = d.span.unwrap();
                    prop_assert!(s.end as usize <= src.len());
                }
            }
        }
    }
}
