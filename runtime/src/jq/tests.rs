use super::library::compat_definitions;
use super::*;
use serde_json::{Value, json};

#[test]
fn all_outputs_in_order() {
    let out = run_jq(
        ".steps[] | select(.kind == \"llm\") | .model",
        json!({
            "steps": [{"kind": "llm", "model": "a"}, {"kind": "tool"}, {"kind": "llm", "model": "b"}]
        }),
    );
    assert_eq!(out.unwrap(), vec![json!("a"), json!("b")]);
}

#[test]
fn empty_gives_no_outputs() {
    assert_eq!(run_jq("empty", json!(1)).unwrap(), Vec::<Value>::new());
}

#[test]
fn runtime_errors_are_values() {
    let err = run_jq("error({\"code\": 7})", json!(null)).unwrap_err();
    match err {
        JqError::Runtime { value, .. } => assert_eq!(value, json!({"code": 7})),
        other => panic!("unexpected {other:?}"),
    }
    assert!(matches!(
        run_jq(".a.b", json!({"a": 1})),
        Err(JqError::Runtime { .. })
    ));
}

#[test]
fn endless_generators_hit_the_output_cap() {
    assert_eq!(
        run_jq("repeat(1)", json!(null)),
        Err(JqError::TooManyOutputs)
    );
    assert_eq!(
        run_jq("range(1e18)", json!(null)),
        Err(JqError::TooManyOutputs)
    );
    assert_eq!(
        run_jq("recurse(. + 1)", json!(0)),
        Err(JqError::TooManyOutputs)
    );
    assert_eq!(
        run_jq("range(10000)", json!(null)).unwrap().len(),
        MAX_OUTPUTS
    );
}

#[test]
fn halt_does_not_exit_the_process() {
    assert_eq!(run_jq("halt", json!(null)), Err(JqError::Halt(0)));
    assert!(matches!(
        run_jq("\"x\" | halt_error(3)", json!(null)),
        Err(JqError::Halt(3))
    ));
}

#[test]
fn compile_errors_carry_ranges() {
    let Err(JqError::Compile(errs)) = run_jq(".a | nosuchfn", json!(null)) else {
        panic!("expected a compile error")
    };
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].message, "undefined filter `nosuchfn/0`");
    assert_eq!(errs[0].range, 5..13);
    assert!(matches!(
        run_jq("(.a", json!(null)),
        Err(JqError::Compile(_))
    ));
    assert!(matches!(
        run_jq("input", json!(null)),
        Err(JqError::Compile(_))
    ));
    assert!(matches!(
        run_jq("$ENV", json!(null)),
        Err(JqError::Compile(_))
    ));
}

#[test]
fn deep_nesting_is_rejected_not_a_crash() {
    let deep = format!("{}.{}", "(".repeat(10_000), ")".repeat(10_000));
    assert_eq!(
        run_jq(&deep, json!(1)),
        Err(JqError::TooDeep { at: 256, len: 1 })
    );
    let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(matches!(
        run_jq(&deep, json!(1)),
        Err(JqError::TooDeep { .. })
    ));
}

#[test]
fn filters_are_reusable() {
    let f = JqFilter::compile(".a + 1").unwrap();
    assert_eq!(f.run(&json!({"a": 1})).unwrap(), vec![json!(2)]);
    assert_eq!(f.run(&json!({"a": 41})).unwrap(), vec![json!(42)]);
}

/// Programs just under the nesting limit, in every shape that makes jaq recurse, must compile
/// and run, whatever the caller's stack (here 256 KiB): `run_jq` brings its own.
#[test]
fn programs_at_the_limit_fit_a_small_stack() {
    const STACK: usize = 256 * 1024;
    let n = nesting::MAX_NESTING - 1;
    let shapes = [
        format!("{}.{}", "(".repeat(n), ")".repeat(n)),
        format!("{}1{}", "[".repeat(n), "]".repeat(n)),
        format!("{}1", "-".repeat(n)),
        format!("{}1", "try ".repeat(n)),
        format!("{}.", ". as $x | ".repeat(n / 2)),
        format!(".{}", " | .".repeat(n)),
        format!("1{}", ", 1".repeat(n)),
        format!("1{}", " + 1".repeat(n)),
        format!(
            "{}1{}",
            "if true then ".repeat(n / 2),
            " else 0 end".repeat(n / 2)
        ),
        format!("{}1{}", "{a: ".repeat(n / 2), "}".repeat(n / 2)),
        format!("{}0{}", ".a[".repeat(n), "]".repeat(n)),
        format!("{}.{}", "first(".repeat(n), ")".repeat(n)),
        format!("{}.{}", "[{a: ".repeat(n / 3), "}]".repeat(n / 3)),
        format!("{}.{}", "(. | ".repeat(n / 2), ")".repeat(n / 2)),
        format!("{}1{}", "\"\\(".repeat(n / 2), ")\"".repeat(n / 2)),
        format!("{}.{}", "def f: ".repeat(n / 2), "; f".repeat(n / 2)),
        format!(
            "{}.{}",
            "reduce . as $x (".repeat(n / 3),
            "; .)".repeat(n / 3)
        ),
    ];
    let handle = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            for s in &shapes {
                nesting::check_nesting(s, nesting::MAX_NESTING).unwrap();
                run_jq(s, json!(null)).unwrap_or_else(|e| panic!("{s:.40}: {e}"));
            }
        })
        .unwrap();
    handle.join().unwrap();
}

#[test]
fn known_filters_list_the_standard_library() {
    let names = known_filters();
    for f in [
        ("map", 1),
        ("select", 1),
        ("length", 0),
        ("tostring", 0),
        ("fromjson", 0),
        ("test", 1),
    ] {
        assert!(names.contains(&f), "{f:?} missing");
    }
    assert!(!names.iter().any(|(n, _)| *n == "input"));
    // Listed once: the second call hands out the same list.
    assert!(std::ptr::eq(names, known_filters()));
}

#[test]
fn compat_definitions_parse_and_apply() {
    assert_eq!(compat_definitions().count(), 10);
    let out = run_jq("trimstr(\"-\")", json!("-a-")).unwrap();
    assert_eq!(out, vec![json!("a")]);
    let out = run_jq("join(\",\")", json!(["a", 1, null, true])).unwrap();
    assert_eq!(out, vec![json!("a,1,,true")]);
    let out = run_jq("[.[] | ltrimstr(\"a\")]", json!(["ab", 1])).unwrap();
    assert_eq!(out, vec![json!(["b", 1])]);
    let out = run_jq("@csv", json!([1, "a\"b", null])).unwrap();
    assert_eq!(out, vec![json!("1,\"a\"\"b\",")]);
    let out = run_jq("tostring", json!(1.0)).unwrap();
    assert_eq!(out, vec![json!("1")]);
}

#[test]
fn cached_definitions_are_the_library_in_load_order() {
    // The prelude is parsed once; every compile must still see jaq's definitions followed by
    // agc's compat ones (the later definition of a name wins, so the order matters).
    // agc's ticking `range/3` comes first (see `instrument`).
    let fresh: Vec<_> = [instrument::range_def(), instrument::fromjson_def()]
        .into_iter()
        .chain(jaq_core::defs())
        .chain(jaq_std::defs())
        .chain(jaq_json::defs())
        .chain(compat_definitions())
        .map(|d| (d.name, d.args.len()))
        .collect();
    for _ in 0..2 {
        let cached: Vec<_> = definitions().map(|d| (d.name, d.args.len())).collect();
        assert_eq!(cached, fresh);
    }
    // A compat definition replacing jaq's is still the one that runs, compile after compile.
    for _ in 0..2 {
        let out = run_jq("join(\"-\")", json!(["a", null, 2])).unwrap();
        assert_eq!(out, vec![json!("a--2")]);
    }
}
