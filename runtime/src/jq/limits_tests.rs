//! Hostile filters end with [`JqError::Limit`], never with a crash (issue 47 item 4).

use super::*;
use serde_json::json;
use std::time::Duration;

/// The unit tests of this crate count memory as agc does.
#[global_allocator]
static GLOBAL: crate::held::Counting<std::alloc::System> =
    crate::held::Counting(std::alloc::System);

fn small() -> Limits {
    Limits {
        stack: 8 << 20,
        depth: 1000,
        memory: 64 << 20,
        time: Duration::from_secs(60),
    }
}

fn limit(filter: &str, limits: Limits) -> Exceeded {
    match run_jq_limited(filter, json!(null), limits) {
        Err(JqError::Limit(e)) => e,
        other => panic!("`{filter}`: expected a limit, got {other:?}"),
    }
}

#[test]
fn unbounded_recursion_is_a_recursion_limit() {
    for f in [
        "def f: [f]; f",
        "def f: f + 1; f",
        "def f: 1 + f; f",
        "def f: {a: f}; f",
        "def f: (f | .a); f",
        "def f(g): [f(g)]; f(.)",
        "def f: try [f] catch [f]; f",
        "def f: [f] // 1; f",
    ] {
        assert_eq!(limit(f, small()), Exceeded::Recursion(8 << 20), "{f}");
    }
}

#[test]
fn large_values_are_a_memory_limit() {
    for f in [
        "[range(1e9)] | length",
        "[limit(1e9; repeat(1))] | length",
        "\"abc\" * 1e10",
        "\"abc\" as $s | {a: $s} | .a *= 1e10",
        "[range(1e4)] as $a | [$a[] + $a[]] | length",
        "reduce range(1e9) as $i ([]; . + [$i]) | length",
    ] {
        assert_eq!(limit(f, small()), Exceeded::Memory(64 << 20), "{f}");
    }
}

#[test]
fn endless_loops_are_a_time_limit() {
    let limits = Limits {
        time: Duration::from_millis(300),
        ..small()
    };
    for f in [
        "last(range(1e18))",
        "def f: f; f",
        "[range(1e5)] as $a | first($a[] as $x | $a[] as $y | $a[] | select(. < 0))",
        "until(false; .)",
        "[range(1e5)] as $a | $a[] as $x | $a[] as $y | empty",
    ] {
        assert_eq!(limit(f, limits), Exceeded::Time(limits.time), "{f}");
    }
}

#[test]
fn the_limit_survives_try_and_alternatives() {
    // The halt a tripped meter raises is not an error: `try`, `?` and `//` do not hide it.
    for f in [
        "try (def f: [f]; f) catch 1",
        "(def f: [f]; f)?, 2",
        "[(def f: [f]; f) // 1]",
        "first((def f: [f]; f), 1)",
    ] {
        assert_eq!(limit(f, small()), Exceeded::Recursion(8 << 20), "{f}");
    }
}

#[test]
fn raised_limits_let_the_same_filter_finish() {
    let f = "def f: if . < 3000 then (.+1 | f) + 1 else . end; 0 | f";
    assert!(matches!(
        run_jq_limited(f, json!(null), small()),
        Err(JqError::Limit(Exceeded::Recursion(_)))
    ));
    let big = Limits {
        stack: 512 << 20,
        ..small()
    };
    assert_eq!(
        run_jq_limited(f, json!(null), big).unwrap(),
        vec![json!(6000)]
    );
    let f = "[range(1e6)] | length";
    assert!(
        run_jq_limited(
            f,
            json!(null),
            Limits {
                memory: 1 << 20,
                ..small()
            }
        )
        .is_err()
    );
    assert_eq!(
        run_jq_limited(f, json!(null), small()).unwrap(),
        vec![json!(1000000)]
    );
}

#[test]
fn deep_values_are_a_depth_limit() {
    for f in [
        "reduce range(1e9) as $i (null; [.]) | length",
        "reduce range(1e9) as $i (null; {a: .}) | length",
        "reduce range(1e9) as $i (null; . as $x | {} | .a = $x) | length",
        "reduce range(1e9) as $i (null; . as $x | {} | .a |= $x) | length",
        "reduce range(1e9) as $i ({}; . as $x | {} | setpath([\"a\"]; $x)) | length",
        "reduce range(1e9) as $i ([1]; group_by(.)) | length",
        "def f($x): f([$x]); f(1)",
        "\"[\" * 100000 | try fromjson catch 1",
    ] {
        let e = limit(f, small());
        assert!(matches!(e, Exceeded::Depth(1000)), "{f}: {e:?}");
    }
    // At the limit, values are printed, compared and freed without trouble.
    let f = "(reduce range(999) as $i (null; [.])) as $v | [$v == $v, ($v | tojson | length)]";
    assert_eq!(
        run_jq_limited(f, json!(null), small()).unwrap(),
        vec![json!([true, 2002])]
    );
}

#[test]
fn ordinary_programs_keep_their_meaning() {
    let cases = [
        ("[(1,2) * (3,4)]", json!([3, 4, 6, 8])),
        (
            "[\"ab\" * 2, 2 * \"ab\", \"ab\" * 0]",
            json!(["abab", "abab", null]),
        ),
        ("{a: 2} | .a *= 3", json!({"a": 6})),
        ("[range(5)]", json!([0, 1, 2, 3, 4])),
        ("[range(0; 10; 3)]", json!([0, 3, 6, 9])),
        ("[paths]", json!([["a"], ["a", 0]])),
        ("[.. | numbers]", json!([1])),
        ("path(.a[0])", json!(["a", 0])),
        (".a[] |= . + 1", json!({"a": [2]})),
        ("[.a[]]", json!([1])),
        ("until(. > 100000; . + 1)", json!(100001)),
        ("[limit(3; repeat(1))]", json!([1, 1, 1])),
        ("def f: def g: 3; g; f", json!(3)),
        ("reduce range(100000) as $i (0; . + 1)", json!(100000)),
    ];
    for (f, want) in cases {
        let input = if f.starts_with("until") || f.starts_with("reduce") || f.starts_with("[(") {
            json!(0)
        } else {
            json!({"a": [1]})
        };
        let got = run_jq(f, input).unwrap_or_else(|e| panic!("`{f}`: {e}"));
        assert_eq!(got.last(), Some(&want), "{f}");
    }
}
