//! Grammar, literal, error-message and nesting tests for AGX.

use super::*;
use crate::source::FileId;
use agc_runtime::expr::{BinaryOp, ExprKind, Literal, UnaryOp};

fn map(src: &str) -> ScalarMap {
    ScalarMap::contiguous(FileId(0), 0, src.len())
}

fn parse(src: &str) -> Expr {
    match parse_agx(src, &map(src)) {
        Ok((e, _)) => e,
        Err(d) => panic!("`{src}` failed: {d:#?}"),
    }
}

/// Fully bracketed prefix form, so precedence is visible.
fn sexp(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Literal { value } => match value {
            Literal::Int(i) => i.to_string(),
            Literal::Double(f) => format!("{f:?}"),
            Literal::String(s) => format!("{s:?}"),
            Literal::Bool(b) => b.to_string(),
            Literal::Null => "null".into(),
            other => format!("{other:?}"),
        },
        ExprKind::Ident { name } => name.clone(),
        ExprKind::Member { target, field } => format!("(. {} {field})", sexp(target)),
        ExprKind::Unary { op, operand } => {
            let o = if *op == UnaryOp::Not { "not" } else { "neg" };
            format!("({o} {})", sexp(operand))
        }
        ExprKind::Binary { op, left, right } => {
            let o = serde_json::to_value(op).unwrap();
            format!("({} {} {})", o.as_str().unwrap(), sexp(left), sexp(right))
        }
        ExprKind::Call { function, args, .. } => {
            let a: Vec<_> = args.iter().map(sexp).collect();
            format!("({function} {})", a.join(" ")).replace(" )", ")")
        }
        ExprKind::List { items } => {
            let a: Vec<_> = items.iter().map(sexp).collect();
            format!("[{}]", a.join(" "))
        }
        other => format!("{other:?}"),
    }
}

fn tree(src: &str) -> String {
    sexp(&parse(src))
}

#[test]
fn precedence_each_level() {
    assert_eq!(tree("a || b && c"), "(or a (and b c))");
    assert_eq!(tree("a or b and c"), "(or a (and b c))");
    assert_eq!(tree("a && b in c"), "(and a (in b c))");
    assert_eq!(tree("a in b == c"), "(in a (eq b c))");
    assert_eq!(tree("a == b < c"), "(eq a (lt b c))");
    assert_eq!(tree("a != b >= c"), "(ne a (ge b c))");
    assert_eq!(tree("a <= b + c"), "(le a (add b c))");
    assert_eq!(tree("a > b - c"), "(gt a (sub b c))");
    assert_eq!(tree("a + b * c"), "(add a (mul b c))");
    assert_eq!(tree("a - b / c % d"), "(sub a (rem (div b c) d))");
    assert_eq!(tree("a * -b"), "(mul a (neg b))");
    assert_eq!(tree("-a * b"), "(mul (neg a) b)");
    assert_eq!(tree("!a.b && c"), "(and (not (. a b)) c)");
    assert_eq!(tree("not a == b"), "(eq (not a) b)");
    assert_eq!(tree("!!a"), "(not (not a))");
    assert_eq!(tree("(a || b) && c"), "(and (or a b) c)");
}

#[test]
fn keywords_after_a_dot_are_names() {
    assert_eq!(tree("nodes.in.outputs.x"), "(. (. (. nodes in) outputs) x)");
    assert_eq!(
        tree("nodes.true.outputs.null == nodes.not.status"),
        "(eq (. (. (. nodes true) outputs) null) (. (. nodes not) status))"
    );
    assert_eq!(tree("a.and in b.or"), "(in (. a and) (. b or))");
    assert_eq!(tree("x.false or y"), "(or (. x false) y)");
}

#[test]
fn binary_operators_are_left_associative() {
    assert_eq!(tree("a - b - c"), "(sub (sub a b) c)");
    assert_eq!(tree("a || b or c"), "(or (or a b) c)");
    assert_eq!(tree("a < b < c"), "(lt (lt a b) c)");
    assert_eq!(tree("a in b in c"), "(in (in a b) c)");
    assert_eq!(tree("a == b != c"), "(ne (eq a b) c)");
}

#[test]
fn minus_is_an_operator_not_part_of_a_number() {
    assert_eq!(tree("len(x)-1"), "(sub (len x) 1)");
    assert_eq!(tree("n-1"), "(sub n 1)");
    assert_eq!(tree("n -1"), "(sub n 1)");
    assert_eq!(tree("n - -1"), "(sub n -1)");
    assert_eq!(tree("-1"), "-1");
    assert_eq!(tree("- 2.5"), "-2.5");
    assert_eq!(tree("-(1)"), "(neg 1)");
    assert_eq!(tree("--1"), "(neg -1)");
    assert_eq!(tree("-9223372036854775808"), i64::MIN.to_string());
}

#[test]
fn literals() {
    assert_eq!(tree("0"), "0");
    assert_eq!(tree("9223372036854775807"), i64::MAX.to_string());
    assert_eq!(tree("1.5"), "1.5");
    assert_eq!(tree("1e3"), "1000.0");
    assert_eq!(tree("2E-2"), "0.02");
    assert_eq!(tree("true"), "true");
    assert_eq!(tree("false"), "false");
    assert_eq!(tree("null"), "null");
    assert_eq!(tree(r#""a\"b""#), r#""a\"b""#);
    assert_eq!(tree(r"'it\'s'"), r#""it's""#);
    assert_eq!(tree(r#"'say "hi"'"#), r#""say \"hi\"""#);
    assert_eq!(tree(r#""caf\u00e9 \ud83d\ude00""#), "\"café 😀\"");
    assert_eq!(
        tree(r#""\n\t\/\\\b\f\r""#),
        "\"\\n\\t/\\\\\\u{8}\\u{c}\\r\""
    );
    assert_eq!(tree("'é'"), "\"é\"");
    assert_eq!(tree("[]"), "[]");
    assert_eq!(tree("[1, 'a', [true, null]]"), "[1 \"a\" [true null]]");
    // Integers stay integers, floats stay floats.
    assert!(matches!(
        parse("3").kind,
        ExprKind::Literal {
            value: Literal::Int(3)
        }
    ));
    assert!(matches!(
        parse("3.0").kind,
        ExprKind::Literal {
            value: Literal::Double(_)
        }
    ));
}

#[test]
fn references_and_calls() {
    assert_eq!(
        tree("nodes.run_tests.outputs.failing_count == 0"),
        "(eq (. (. (. nodes run_tests) outputs) failing_count) 0)"
    );
    assert_eq!(tree("f()"), "(f)");
    assert_eq!(tree("get(x, 'a.b', 0)"), "(get x \"a.b\" 0)");
    assert_eq!(
        tree("len(self.outputs.links) > 0"),
        "(gt (len (. (. self outputs) links)) 0)"
    );
    assert_eq!(tree("x in [1, 2]"), "(in x [1 2])");
    // Function names are not reserved as references.
    assert_eq!(tree("len"), "len");
    // Keywords need word boundaries.
    assert_eq!(tree("android or notary"), "(or android notary)");
}

#[test]
fn lowering_assigns_preorder_ids_and_spans() {
    let src = "a && f(b, 1)";
    let (e, spans) = parse_agx(src, &map(src)).unwrap();
    let text: Vec<&str> = spans.iter().map(|s| &src[s.range()]).collect();
    assert_eq!(text, ["a && f(b, 1)", "a", "f(b, 1)", "b", "1"]);
    let ExprKind::Binary { op, left, right } = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!((*op, e.id, left.id, right.id), (BinaryOp::And, 0, 1, 2));
    // Parentheses vanish; the node spans what is inside them. A folded `-` is in the literal.
    let src = "(a) * -2";
    let (_, spans) = parse_agx(src, &map(src)).unwrap();
    let text: Vec<&str> = spans.iter().map(|s| &src[s.range()]).collect();
    assert_eq!(text, ["(a) * -2", "a", "-2"]);
}

#[test]
fn printer_uses_minimal_parentheses() {
    for (src, printed) in [
        ("(a || b) && c", "(a || b) && c"),
        ("a || (b && c)", "a || b && c"),
        ("a - (b - c)", "a - (b - c)"),
        ("(a - b) - c", "a - b - c"),
        ("-(1)", "-(1)"),
        ("- -1", "--1"),
        ("!(a == b)", "!(a == b)"),
        ("not a", "!a"),
        ("a and b or c", "a && b || c"),
        ("(-2) * 3", "-2 * 3"),
        ("f(a, [1, 'x'])", "f(a, [1, \"x\"])"),
        ("1e300 + 0.5", "1e300 + 0.5"),
    ] {
        assert_eq!(print(&parse(src)), printed, "{src}");
    }
}

fn errors(src: &str) -> String {
    let diags = match parse_agx(src, &map(src)) {
        Ok(_) => return "ok".into(),
        Err(d) => d,
    };
    let mut out = format!("{src}\n");
    for d in diags {
        let s = d.span.unwrap();
        out.push_str(&format!(
            "  {} {}..{} `{}`: {}",
            d.code,
            s.start,
            s.end,
            &src[s.range()],
            d.message
        ));
        if let Some(l) = d.label {
            out.push_str(&format!(" [{l}]"));
        }
        if let Some(h) = d.help {
            out.push_str(&format!("\n    help: {h}"));
        }
        out.push('\n');
    }
    out
}

#[test]
fn error_messages() {
    let cases = [
        "a &&",
        "now() > 0 &&",
        "",
        "   ",
        "a b",
        "(a",
        "a)",
        "f(a,)",
        "f(1 +, 2 *)",
        "[1, 2",
        "a.",
        "a.1",
        "a[0]",
        "json(s).x",
        "a.b(c)",
        "(f)(x)",
        "in.x",
        "not",
        "a == == b",
        "a = b",
        "a & b",
        "a ? b : c",
        "{'a': 1}",
        "a @ b",
        "\"abc",
        "'abc\\'",
        r#""\q" + "\u12""#,
        r#""\ud800x""#,
        "12ab",
        "99999999999999999999",
        "9223372036854775808",
        "-9223372036854775809",
        "1e999",
        "${{ true }}",
        "x == 1 && ${{ y }}",
    ];
    let all: Vec<String> = cases.iter().map(|c| errors(c)).collect();
    insta::assert_snapshot!(all.join("\n"));
}

fn nested(open: &str, n: usize, mid: &str, close: &str) -> String {
    let mut s = open.repeat(n);
    s.push_str(mid);
    s.push_str(&close.repeat(n));
    s
}

fn first_code(src: &str) -> &'static str {
    match parse_agx(src, &map(src)) {
        Ok(_) => "ok",
        Err(d) => d[0].code,
    }
}

#[test]
fn deep_nesting_is_a_diagnostic_not_a_crash() {
    let n = 10_000;
    for src in [
        nested("(", n, "a", ")"),
        nested("[", n, "1", "]"),
        nested("f(", n, "x", ")"),
        nested("!", n, "a", ""),
        nested("not ", n, "a", ""),
        nested("-", n, "a", ""),
        nested("(", n, "", ""),
        nested("!(", n, "a", ")"),
        vec!["a"; n].join(" + "),
        vec!["a"; n].join("."),
        vec!["x == 1"; n].join(" && "),
    ] {
        assert_eq!(first_code(&src), "AGC040", "{}…", &src[..20]);
    }
    // The error points at the token that goes one level too deep.
    let src = nested("(", 100, "a", ")");
    let d = parse_agx(&src, &map(&src)).unwrap_err();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].span.unwrap().range(), 64..65);
}

#[test]
fn nesting_up_to_the_limit_parses() {
    let n = depth::MAX_NESTING;
    assert_eq!(first_code(&nested("(", n, "a", ")")), "ok");
    assert_eq!(first_code(&nested("[", n, "a", "]")), "ok");
    assert_eq!(first_code(&nested("!", n + 1, "a", "")), "AGC040");
    assert_eq!(first_code(&nested("!", n, "a", "")), "ok");
    assert_eq!(first_code(&nested("(", n + 1, "a", ")")), "AGC040");
    // Long but shallow expressions are fine.
    assert_eq!(first_code(&vec!["x == 1"; 40].join(" && ")), "ok");
    assert_eq!(
        first_code(&format!("f({})", vec!["a + 1"; 500].join(", "))),
        "ok"
    );
}

#[test]
fn deep_nesting_in_a_small_stack() {
    // The guard runs before any recursion, so even a 256 KiB thread copes.
    let h = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let src = nested("(", 100_000, "a", ")");
            first_code(&src)
        })
        .unwrap();
    assert_eq!(h.join().unwrap(), "AGC040");
}

#[test]
fn long_lists_and_many_errors() {
    // Long lists parse; 2,000 broken items are each reported (recovery per item) without
    // quadratic work on the error path. (Debug builds run chumsky unoptimised: keep it small.)
    let src = format!("[{}]", vec!["1"; 10_000].join(", "));
    assert_eq!(first_code(&src), "ok");
    let src = format!("[{}]", vec!["\"\\q\" 1"; 2_000].join(", "));
    let d = parse_agx(&src, &map(&src)).unwrap_err();
    assert_eq!(d.len(), 4_000);
    assert!(d.iter().all(|d| d.code == "AG204"));
}

/// Found by the fuzzer (`fuzz/fuzz_targets/agx.rs`): with chumsky's Pratt parser this input
/// took 53 s, doubling with every few bytes, because every enclosing operator frame retried the
/// failing `6(…)` call. One parser per precedence level parses it in milliseconds.
const FUZZ_SLOW_UNIT: &str = "(E((E*A--(E((E*A---6OO7(!!--6(-!--6(-!--0--6(-(06(--6(6-D)(-A6,-6OO7(!!--6(-!--6(-!--0--6(-(06(--6(6-D)(-A6,6(";

#[test]
fn failing_nested_calls_are_not_exponential() {
    let started = std::time::Instant::now();
    assert_eq!(first_code(FUZZ_SLOW_UNIT), "AG204");
    // The same shape, deeper: exponential parsing would never finish.
    let deep = format!("{}x{}", "0 - -6(-!-".repeat(30), ")".repeat(10));
    assert_eq!(first_code(&deep), "AG204");
    assert!(
        started.elapsed().as_secs() < 20,
        "took {:?}",
        started.elapsed()
    );
}

/// The path shortcut builds exactly what the parser builds, spans included, and leaves every
/// other shape to the parser.
#[test]
fn simple_paths_match_the_parser() {
    for (src, start, end) in [
        ("nodes.a.outputs.result", 0, 22),
        ("params.project", 0, 14),
        ("x", 0, 1),
        ("_a1.b_2.C", 0, 9),
        ("nodes.in.outputs.true", 0, 21),
        ("nodes.null.status", 0, 17),
        ("${{ params.p }}", 4, 12),
        ("((nodes.n7.outputs.count))", 2, 24),
    ] {
        let fast = super::simple_path(src, start, end).unwrap_or_else(|| panic!("{src}"));
        let slow = super::parse_tokens(src, start, end).expect(src);
        assert_eq!(fast, slow, "{src}");
        assert_eq!(super::parse_range(src, start, end).expect(src), slow);
    }
    for src in [
        "true.x", "in.a", "a..b", "a.", ".a", "a.1", "1.a", "a .b", "a.b ", " a", "a-b.c",
        "a.b[0]", "a.b()", "é.a", "",
    ] {
        assert!(super::simple_path(src, 0, src.len()).is_none(), "{src}");
    }
}

/// The shortcuts take a placeholder's inside with its blanks (`${{ x.y }}`), and a lone
/// literal, and build what the parser builds there.
#[test]
fn shortcuts_take_blanks_around_and_lone_literals() {
    for (src, start, end) in [
        ("${{ nodes.a.outputs.count }}", 3, 26),
        ("${{  params.project }}", 3, 19),
        ("${{ a.b > 3  }}", 3, 12),
        ("true", 0, 4),
        (" false ", 0, 7),
        ("${{ null }}", 3, 9),
    ] {
        let fast = super::shortcut(src, start, end).unwrap_or_else(|| panic!("{src}"));
        let slow = super::parse_tokens(src, start, end).expect(src);
        assert_eq!(fast, slow, "{src}");
    }
    for src in ["", "   ", "\ttrue", "true.x", "true true", "(true)"] {
        assert!(super::shortcut(src, 0, src.len()).is_none(), "{src:?}");
    }
}

/// The comparison shortcut builds exactly what the parser builds, spans included.
#[test]
fn simple_comparisons_match_the_parser() {
    for src in [
        "nodes.a.outputs.count > 3",
        "nodes.n37.outputs.decision == 'detailed'",
        "self.outputs.count >= 0",
        "a.b != \"q-1.x\"",
        "a <= 123456789012345678",
        "a < 10",
        "a.b == true",
        "a == false",
        "a != null",
        "a == ''",
    ] {
        let fast = super::simple_comparison(src, 0, src.len()).unwrap_or_else(|| panic!("{src}"));
        let slow = super::parse_tokens(src, 0, src.len()).expect(src);
        assert_eq!(fast, slow, "{src}");
    }
    for src in [
        "a > -1",
        "a > 3.5",
        "a >  3",
        "a > 'x y'",
        "a > 01",
        "a > 'x\\'y'",
        "a > 'x",
        "a => 3",
        "a + 3",
        "a > b",
        "a > 3 ",
        "true > 3",
        "a > 1234567890123456789",
        "a > 'é'",
        "a > \"x'",
    ] {
        assert!(
            super::simple_comparison(src, 0, src.len()).is_none(),
            "{src}"
        );
    }
}
