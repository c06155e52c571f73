//! Property: printing a tree and parsing the text gives the same tree back.

use super::{parse_agx, print};
use crate::source::FileId;
use crate::source::scalar::ScalarMap;
use agc_runtime::expr::{BinaryOp, Expr, ExprKind, Literal, UnaryOp};
use proptest::prelude::*;

fn node(kind: ExprKind) -> Expr {
    Expr { id: 0, kind }
}

fn name() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,6}".prop_filter("not a keyword", |s| {
        !matches!(
            s.as_str(),
            "and" | "or" | "not" | "in" | "true" | "false" | "null"
        )
    })
}

fn literal() -> impl Strategy<Value = Literal> {
    prop_oneof![
        Just(Literal::Null),
        any::<bool>().prop_map(Literal::Bool),
        any::<i64>().prop_map(Literal::Int),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Literal::Double),
        any::<String>().prop_map(Literal::String),
    ]
}

/// A reference: `name` or `name.field…`.
fn reference() -> impl Strategy<Value = Expr> {
    (name(), prop::collection::vec(name(), 0..4)).prop_map(|(root, fields)| {
        fields
            .into_iter()
            .fold(node(ExprKind::Ident { name: root }), |t, field| {
                node(ExprKind::Member {
                    target: Box::new(t),
                    field,
                })
            })
    })
}

const BINARY: [BinaryOp; 14] = [
    BinaryOp::Or,
    BinaryOp::And,
    BinaryOp::In,
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Rem,
];

fn agx() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        literal().prop_map(|value| node(ExprKind::Literal { value })),
        reference(),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        prop_oneof![
            (
                prop::sample::select(BINARY.to_vec()),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(op, l, r)| node(ExprKind::Binary {
                    op,
                    left: Box::new(l),
                    right: Box::new(r),
                })),
            (
                prop::sample::select(vec![UnaryOp::Not, UnaryOp::Neg]),
                inner.clone()
            )
                .prop_map(|(op, e)| node(ExprKind::Unary {
                    op,
                    operand: Box::new(e),
                })),
            (name(), prop::collection::vec(inner.clone(), 0..3)).prop_map(|(function, args)| {
                node(ExprKind::Call {
                    function,
                    target: None,
                    args,
                })
            }),
            prop::collection::vec(inner, 0..3).prop_map(|items| node(ExprKind::List { items })),
        ]
    })
}

/// The same tree with every id set to 0.
fn strip(e: &Expr) -> Expr {
    let b = |x: &Expr| Box::new(strip(x));
    let kind = match &e.kind {
        ExprKind::Member { target, field } => ExprKind::Member {
            target: b(target),
            field: field.clone(),
        },
        ExprKind::Unary { op, operand } => ExprKind::Unary {
            op: *op,
            operand: b(operand),
        },
        ExprKind::Binary { op, left, right } => ExprKind::Binary {
            op: *op,
            left: b(left),
            right: b(right),
        },
        ExprKind::Call {
            function,
            target,
            args,
        } => ExprKind::Call {
            function: function.clone(),
            target: target.as_deref().map(b),
            args: args.iter().map(strip).collect(),
        },
        ExprKind::List { items } => ExprKind::List {
            items: items.iter().map(strip).collect(),
        },
        other => other.clone(),
    };
    node(kind)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn print_then_parse_is_identity(e in agx()) {
        let text = print(&e);
        let map = ScalarMap::contiguous(FileId(0), 0, text.len());
        let parsed = parse_agx(&text, &map);
        prop_assert!(parsed.is_ok(), "`{}` did not parse: {:?}", text, parsed.err());
        let (back, spans) = parsed.unwrap();
        prop_assert_eq!(strip(&back), strip(&e), "via `{}`", text);
        // Spans stay inside the text and ids index them.
        prop_assert!(spans.iter().all(|s| s.end as usize <= text.len()));
        prop_assert_eq!(print(&back), text);
    }

    #[test]
    fn arbitrary_input_never_panics(s in "\\PC{0,64}") {
        let map = ScalarMap::contiguous(FileId(0), 0, s.len());
        if let Err(diags) = parse_agx(&s, &map) {
            prop_assert!(!diags.is_empty());
            for d in diags {
                let sp = d.span.unwrap();
                prop_assert!(sp.start <= sp.end && sp.end as usize <= s.len());
            }
        }
        let _ = super::super::parse_template(&s, &map);
    }
}

proptest! {
    // Cheap cases (a few µs each) and rare near misses: many of them.
    #![proptest_config(ProptestConfig::with_cases(8192))]

    /// The path and comparison shortcuts of `parse_range` agree with the parser wherever
    /// they apply. Inputs are mostly `PATH OP VALUE` and `PATH` shapes whose every piece may
    /// be a near miss (keywords, digits, `-`, non-ASCII, doubled or missing blanks, leading
    /// zeros, odd quotes, 19-digit numbers), plus free concatenations of those pieces.
    #[test]
    fn shortcuts_agree_with_the_parser(src in shortcut_shapes()) {
        let agreed = super::shortcut_agrees(&src);
        prop_assert!(agreed.is_ok(), "{}", agreed.unwrap_err());
    }
}

fn path_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z_][a-zA-Z0-9_]{0,4}",
        1 => prop_oneof![
            Just("in"), Just("true"), Just("null"), Just("and"), Just("not"), Just("1a"),
            Just("a-b"), Just("é"), Just(""), Just("a b"),
        ].prop_map(str::to_string),
    ]
}

fn shortcut_shapes() -> impl Strategy<Value = String> {
    let path = || proptest::collection::vec(path_piece(), 1..5).prop_map(|p| p.join("."));
    let blank = prop_oneof![8 => Just(" "), 1 => Just(""), 1 => Just("  ")];
    let op = prop_oneof![
        Just("=="),
        Just("!="),
        Just("<"),
        Just("<="),
        Just(">"),
        Just(">="),
        Just("=>"),
        Just("+"),
        Just("="),
    ];
    let value = prop_oneof![
        "-?[0-9]{1,3}",
        "[0-9]{17,20}",
        "0[0-9]{1,2}",
        "[0-9]\\.[0-9]",
        "'[a-zA-Z0-9_.-]{0,4}'",
        "\"[a-zA-Z0-9_.-]{0,4}\"",
        "['\"][a-z'\" \\\\é-]{0,4}['\"]?",
        Just("true".to_string()),
        Just("false".to_string()),
        Just("null".to_string()),
        path_piece(),
    ];
    let tail = prop_oneof![9 => Just(""), 1 => Just(" ")];
    let comparison = (path(), blank.clone(), op, blank, value, tail)
        .prop_map(|(l, b1, o, b2, v, t)| format!("{l}{b1}{o}{b2}{v}{t}"));
    let pieces = proptest::collection::vec(
        prop_oneof![path_piece(), Just(".".to_string()), Just(" ".to_string())],
        1..8,
    )
    .prop_map(|p| p.concat());
    let literal = prop_oneof![Just("true"), Just("false"), Just("null"), Just("nul")]
        .prop_map(str::to_string);
    let shape = prop_oneof![4 => comparison, 2 => path(), 1 => pieces, 1 => literal];
    // Blanks around the whole, as inside a `${{ … }}` placeholder.
    let pad = || prop_oneof![6 => Just(""), 2 => Just(" "), 1 => Just("  "), 1 => Just("\t")];
    (pad(), shape, pad()).prop_map(|(a, s, b)| format!("{a}{s}{b}"))
}
