//! CEL grammar: precedence, literals, macros, spans, errors and depth limits.

use agc::expr::{parse_cel, print_cel};
use agc::source::FileId;
use agc::source::scalar::ScalarMap;
use agc_runtime::expr::{Expr, ExprKind, Literal, TemplatePart};

fn map(src: &str) -> ScalarMap {
    ScalarMap::contiguous(FileId(0), 0, src.len())
}

fn parse(src: &str) -> Expr {
    match parse_cel(src, &map(src)) {
        Ok((e, _)) => e,
        Err(d) => panic!("{src:?} failed: {d:#?}"),
    }
}

/// Fully parenthesized prefix form, to see the tree shape.
fn sx(e: &Expr) -> String {
    use agc::expr::cel::print::macro_name;
    match &e.kind {
        ExprKind::Literal { value } => match value {
            Literal::Null => "null".into(),
            Literal::Bool(b) => b.to_string(),
            Literal::Int(i) => i.to_string(),
            Literal::Uint(u) => format!("{u}u"),
            Literal::Double(d) => format!("{d:?}"),
            Literal::String(s) => format!("{s:?}"),
            Literal::Bytes(b) => format!("b{b:?}"),
        },
        ExprKind::Ident { name } => name.clone(),
        ExprKind::Member { target, field } => format!("(. {} {field})", sx(target)),
        ExprKind::Index { target, index } => format!("([] {} {})", sx(target), sx(index)),
        ExprKind::Unary { op, operand } => format!("({op:?} {})", sx(operand)),
        ExprKind::Binary { op, left, right } => {
            format!("({} {} {})", op.symbol(), sx(left), sx(right))
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => format!("(? {} {} {})", sx(cond), sx(then), sx(otherwise)),
        ExprKind::Call {
            function,
            target,
            args,
        } => {
            let mut s = format!("(call {function}");
            if let Some(t) = target {
                s += &format!(" recv={}", sx(t));
            }
            for a in args {
                s += &format!(" {}", sx(a));
            }
            s + ")"
        }
        ExprKind::List { items } => {
            format!("[{}]", items.iter().map(sx).collect::<Vec<_>>().join(" "))
        }
        ExprKind::Map { entries } => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{}:{}", sx(k), sx(v)))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        ExprKind::Has { target, field } => format!("(has {} {field})", sx(target)),
        ExprKind::Comprehension {
            mac,
            range,
            var,
            filter,
            body,
        } => {
            let f = filter
                .as_ref()
                .map(|f| format!(" if={}", sx(f)))
                .unwrap_or_default();
            format!("({} {} {var}{f} {})", macro_name(*mac), sx(range), sx(body))
        }
        ExprKind::Template { parts } => parts
            .iter()
            .map(|p| match p {
                TemplatePart::Text { text } => format!("{text:?}"),
                TemplatePart::Expr { expr } => sx(expr),
            })
            .collect::<Vec<_>>()
            .join(" ~ "),
    }
}

fn shape(src: &str) -> String {
    sx(&parse(src))
}

/// The error messages for `src`, one per line, as `code @start..end: message`.
fn errors(src: &str) -> String {
    match parse_cel(src, &map(src)) {
        Ok((e, _)) => panic!("{src:?} parsed as {}", sx(&e)),
        Err(ds) => ds
            .iter()
            .map(|d| {
                let s = d.span.expect("every error has a span");
                format!("{} @{}..{}: {}", d.code, s.start, s.end, d.message)
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[test]
fn precedence_levels() {
    assert_eq!(shape("a ? b : c ? d : e"), "(? a b (? c d e))");
    assert_eq!(shape("a || b && c"), "(|| a (&& b c))");
    assert_eq!(shape("a || b || c"), "(|| (|| a b) c)");
    assert_eq!(shape("a && b == c"), "(&& a (== b c))");
    assert_eq!(shape("a < b == c"), "(== (< a b) c)");
    assert_eq!(shape("x in [1] == true"), "(== (in x [1]) true)");
    assert_eq!(shape("a == b + c"), "(== a (+ b c))");
    assert_eq!(shape("a + b * c - d"), "(- (+ a (* b c)) d)");
    assert_eq!(shape("a * b / c % d"), "(% (/ (* a b) c) d)");
    assert_eq!(shape("-a * b"), "(* (Neg a) b)");
    assert_eq!(shape("!a.b"), "(Not (. a b))");
    assert_eq!(shape("!!a"), "(Not (Not a))");
    assert_eq!(shape("--a"), "(Neg (Neg a))");
    assert_eq!(shape("(a + b) * c"), "(* (+ a b) c)");
    assert_eq!(shape("a ? b || c : d"), "(? a (|| b c) d)");
    assert_eq!(
        shape("a <= b && b >= c && c != d && d > e"),
        "(&& (&& (&& (<= a b) (>= b c)) (!= c d)) (> d e))"
    );
}

#[test]
fn members_indexes_and_calls() {
    assert_eq!(shape("a.b.c"), "(. (. a b) c)");
    assert_eq!(shape("a[0][\"k\"]"), "([] ([] a 0) \"k\")");
    assert_eq!(shape("a.b[1].c"), "(. ([] (. a b) 1) c)");
    assert_eq!(shape("size(x)"), "(call size x)");
    assert_eq!(shape("x.size()"), "(call size recv=x)");
    assert_eq!(
        shape("s.startsWith(\"a\") && f(1, 2)"),
        "(&& (call startsWith recv=s \"a\") (call f 1 2))"
    );
    assert_eq!(shape(".a.b"), "(. a b)");
    assert_eq!(shape("[1, 2,]"), "[1 2]");
    assert_eq!(shape("{\"a\": 1, 2: [],}"), "{\"a\":1 2:[]}");
    assert_eq!(shape("[]"), "[]");
    assert_eq!(shape("{}"), "{}");
    assert_eq!(shape("a // comment\n + b"), "(+ a b)");
}

#[test]
fn number_literals() {
    assert_eq!(shape("0"), "0");
    assert_eq!(shape("123"), "123");
    assert_eq!(shape("0x1F"), "31");
    assert_eq!(shape("0xfF"), "255");
    assert_eq!(shape("42u"), "42u");
    assert_eq!(shape("0x10U"), "16u");
    assert_eq!(shape("18446744073709551615u"), "18446744073709551615u");
    assert_eq!(shape("9223372036854775807"), "9223372036854775807");
    assert_eq!(shape("-9223372036854775808"), "-9223372036854775808");
    assert_eq!(shape("-1"), "-1");
    assert_eq!(shape("- 1"), "-1");
    assert_eq!(shape("-(1)"), "(Neg 1)");
    assert_eq!(shape("--1"), "(Neg -1)");
    assert_eq!(shape("-1u"), "(Neg 1u)");
    assert_eq!(shape("1 - 1"), "(- 1 1)");
    assert_eq!(shape("1.5"), "1.5");
    assert_eq!(shape(".5"), "0.5");
    assert_eq!(shape("1e3"), "1000.0");
    assert_eq!(shape("2.5E-3"), "0.0025");
    assert_eq!(shape("1e+2"), "100.0");
    assert_eq!(shape("-2.5"), "-2.5");
    assert_eq!(shape("1.size()"), "(call size recv=1)");
}

#[test]
fn string_and_bytes_literals() {
    assert_eq!(shape(r#""a\"b""#), r#""a\"b""#);
    assert_eq!(shape(r#"'"'"#), r#""\"""#);
    assert_eq!(
        shape(
            r#""""a"b
c""""#
        ),
        r#""a\"b\nc""#
    );
    assert_eq!(shape("'''x''x'''"), r#""x''x""#);
    assert_eq!(shape(r#"r"\d+\n""#), r#""\\d+\\n""#);
    assert_eq!(shape(r#"R'\'"#), r#""\\""#);
    assert_eq!(
        shape(r#""\a\b\f\n\r\t\v\\\?\'\"\`""#),
        r#""\u{7}\u{8}\u{c}\n\r\t\u{b}\\?'\"`""#
    );
    assert_eq!(shape(r#""\x41\X42\101\u00e9\U0001F600""#), r#""ABAé😀""#);
    assert_eq!(shape(r#""\303\277""#), r#""Ã¿""#);
    assert_eq!(shape(r#"b"abc""#), "b[97, 98, 99]");
    assert_eq!(shape("b\"ÿ\""), "b[195, 191]");
    assert_eq!(shape(r#"b"\303\277""#), "b[195, 191]");
    assert_eq!(shape(r#"B'\xFF'"#), "b[255]");
    assert_eq!(shape(r#"rb"\x""#), "b[92, 120]");
    assert_eq!(shape(r#"BR"\x""#), "b[92, 120]");
    assert_eq!(
        shape(
            r#"b'''a
b'''"#
        ),
        "b[97, 10, 98]"
    );
    assert_eq!(
        shape("true && !false || null == null"),
        "(|| (&& true (Not false)) (== null null))"
    );
}

#[test]
fn macros() {
    assert_eq!(shape("has(a.b)"), "(has a b)");
    assert_eq!(shape("has(a.b.c)"), "(has (. a b) c)");
    assert_eq!(shape("l.all(x, x > 0)"), "(all l x (> x 0))");
    assert_eq!(shape("l.exists(x, x == 1)"), "(exists l x (== x 1))");
    assert_eq!(shape("l.exists_one(x, x)"), "(exists_one l x x)");
    assert_eq!(
        shape("l.filter(x, x % 2 == 0)"),
        "(filter l x (== (% x 2) 0))"
    );
    assert_eq!(shape("l.map(x, x * 2)"), "(map l x (* x 2))");
    assert_eq!(
        shape("l.map(x, x > 1, x * 2)"),
        "(map l x if=(> x 1) (* x 2))"
    );
    assert_eq!(
        shape("m.all(k, m[k].exists(v, v))"),
        "(all m k (exists ([] m k) v v))"
    );
    // Other arities are ordinary calls, as in cel-go.
    assert_eq!(shape("l.all(x)"), "(call all recv=l x)");
    assert_eq!(shape("all(l, x, p)"), "(call all l x p)");
    assert_eq!(shape("has(a, b)"), "(call has a b)");
}

#[test]
fn spans_are_file_spans_in_preorder() {
    // The expression sits at offset 10 of the file.
    let src = "a.b + f(1, 'x')";
    let m = ScalarMap::contiguous(FileId(3), 10, src.len());
    let (e, spans) = parse_cel(src, &m).unwrap();
    assert_eq!(e.id, 0);
    let text: Vec<(u32, &str)> = spans
        .iter()
        .enumerate()
        .map(|(i, s)| {
            assert_eq!(s.file, FileId(3));
            (i as u32, &src[s.start as usize - 10..s.end as usize - 10])
        })
        .collect();
    assert_eq!(
        text,
        vec![
            (0, "a.b + f(1, 'x')"),
            (1, "a.b"),
            (2, "a"),
            (3, "f(1, 'x')"),
            (4, "1"),
            (5, "'x'"),
        ]
    );
    // Ids really are pre-order.
    let ExprKind::Binary { left, right, .. } = &e.kind else {
        panic!()
    };
    assert_eq!((left.id, right.id), (1, 3));
}

#[test]
fn spans_of_macros_unary_and_negative_literals() {
    let src = "!l.all(x, -1 < x)";
    let (_, spans) = parse_cel(src, &map(src)).unwrap();
    let text: Vec<&str> = spans
        .iter()
        .map(|s| &src[s.start as usize..s.end as usize])
        .collect();
    assert_eq!(
        text,
        vec![
            "!l.all(x, -1 < x)",
            "l.all(x, -1 < x)",
            "l",
            "-1 < x",
            "-1",
            "x"
        ]
    );
}

#[test]
fn syntax_errors_snapshot() {
    let cases = [
        "",
        "a +",
        "(a",
        "a b",
        "a = b",
        "a & b",
        "a | b",
        "f(1,)",
        "[1,,2]",
        "\"abc",
        "'a\nb'",
        "\"\\q\"",
        "\"\\x4\"",
        "\"\\400\"",
        "\"\\uD800\"",
        "b\"\\u00ff\"",
        "9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616u",
        "0x",
        "0XfF",
        "12abc",
        "1e999",
        "if",
        "a.while",
        "let + 1",
        "!-a",
        "a ? b",
        "Msg{a: 1}",
        "google.protobuf.Int64Value{value: 1}",
        "has(a)",
        "l.all(1, true)",
        "l.map(x.y, x)",
        "a #",
        "1 +\n  * 2",
    ];
    let out: String = cases
        .iter()
        .map(|c| format!("{c:?}\n{}\n\n", errors(c)))
        .collect();
    insta::assert_snapshot!(out);
}

#[test]
fn errors_point_into_the_file() {
    // A YAML-ish line: `when: "a +"` with the expression at offset 7.
    let m = ScalarMap::contiguous(FileId(1), 7, 3);
    let d = parse_cel("a +", &m).unwrap_err();
    let s = d[0].span.unwrap();
    assert_eq!((s.file, s.start, s.end), (FileId(1), 10, 10));
}

#[test]
fn deep_parentheses_do_not_overflow() {
    let src = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let e = errors(&src);
    assert!(e.starts_with("AGC050 @64..65:"), "{e}");
    // At the limit it parses.
    let ok = format!("{}1{}", "(".repeat(64), ")".repeat(64));
    assert_eq!(shape(&ok), "1");
}

#[test]
fn deep_unary_runs_do_not_overflow() {
    for op in ["!", "-"] {
        let src = format!("{}x", op.repeat(10_000));
        let e = errors(&src);
        assert!(e.starts_with("AGC050 @64..65:"), "{e}");
    }
    let src = format!("{}x", "!".repeat(64));
    assert!(shape(&src).starts_with("(Not (Not"));
}

#[test]
fn long_chains_hit_the_height_limit_not_the_stack() {
    for (sep, unit) in [(" + ", "1"), (" && ", "a"), ("", "a.b"), ("", "[0]")] {
        let src = format!("x{}", format!("{sep}{unit}").repeat(10_000));
        let e = errors(&src);
        assert!(e.starts_with("AGC050 @0.."), "{sep:?}: {e}");
        assert!(e.contains("more than 256 levels"), "{e}");
    }
    let src = format!("a{}", " ? a : a".repeat(10_000));
    assert!(errors(&src).starts_with("AGC050"));
    // 200 terms are fine.
    let src = format!("x{}", " || x".repeat(200));
    assert!(parse_cel(&src, &map(&src)).is_ok());
}

#[test]
fn nested_lists_and_maps_count_as_nesting() {
    let src = format!("{}{}", "[".repeat(100), "]".repeat(100));
    assert!(errors(&src).starts_with("AGC050 @64..65"));
    let src = format!("{}1{}", "{1: ".repeat(100), "}".repeat(100));
    assert!(errors(&src).starts_with("AGC050"));
}

#[test]
fn print_is_readable() {
    let cases = [
        ("(a+b)*c", "(a + b) * c"),
        ("a - (b - c)", "a - (b - c)"),
        ("(a - b) - c", "a - b - c"),
        ("!(a && b)", "!(a && b)"),
        ("-(-1)", "-(-1)"),
        ("(a ? b : c) ? d : e", "(a ? b : c) ? d : e"),
        ("l.map(x, x > 0, x * 2)", "l.map(x, x > 0, x * 2)"),
        (
            "has(a.b) && {'k': [1u, 2.0, b'\\xff']}.size() > 0",
            "has(a.b) && {\"k\": [1u, 2.0, b\"\\xff\"]}.size() > 0",
        ),
        ("(-5).foo()", "(-5).foo()"),
        ("!(-x)", "!(-x)"),
    ];
    for (src, want) in cases {
        let e = parse(src);
        assert_eq!(print_cel(&e), want, "{src}");
        let again = parse(&print_cel(&e));
        assert_eq!(again, e, "{src}");
    }
}

#[test]
fn spans_go_through_the_scalar_map() {
    // The YAML scalar `"a\t+ b"` at file offset 0: the decoded text has a real tab where the
    // file has the two characters `\t`, so offsets after it shift by one.
    let m = ScalarMap::from_points(FileId(0), vec![(0, 1), (1, 2), (2, 4)], 5, 7);
    let (_, spans) = parse_cel("a\t+ b", &m).unwrap();
    let got: Vec<(u32, u32)> = spans.iter().map(|s| (s.start, s.end)).collect();
    assert_eq!(got, vec![(1, 7), (1, 2), (6, 7)]);
}

/// A fuzzer finding: unclosed `[` between operators made the Pratt-based grammar re-parse
/// operands in every binding-power frame (380 bytes took minutes). With one parser per
/// precedence level the input four times over is rejected with its errors at once; a return of
/// the blow-up would hang this test.
#[test]
fn unclosed_brackets_between_operators_do_not_blow_up() {
    let finding =
        include_str!("../fuzz/regressions/cel/timeout-13f40c9914c121caea9e3395258b756cd2bd7818");
    let src = finding.repeat(4);
    let errs = errors(&src);
    assert!(!errs.is_empty());
    // Precedence is unchanged: `*` binds tighter than `+`, `&&` tighter than `||`.
    assert_eq!(shape("a + b * c"), shape("a + (b * c)"));
    assert_eq!(shape("a || b && c"), shape("a || (b && c)"));
}
