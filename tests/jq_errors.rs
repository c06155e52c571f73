//! jq diagnostics from `parse_jq`: codes, messages and exact spans.

use agc::diag::Diagnostic;
use agc::expr::jq::parse_jq;
use agc::source::scalar::ScalarMap;
use agc::source::{FileId, Span};

fn errors(src: &str) -> Vec<Diagnostic> {
    let map = ScalarMap::contiguous(FileId(0), 0, src.len());
    match parse_jq(src, &map) {
        Ok(p) => panic!("`{src}` parsed; paths {:?}", p.paths),
        Err(d) => d,
    }
}

/// One line per diagnostic: code, the marked text, message, help.
fn describe(src: &str, diags: &[Diagnostic]) -> String {
    let mut out = format!("{src}\n");
    for d in diags {
        let s = d.span.expect("every jq diagnostic has a span");
        out.push_str(&format!(
            "  {} {}..{} `{}` {}",
            d.code,
            s.start,
            s.end,
            &src[s.range()],
            d.message
        ));
        if let Some(h) = &d.help {
            out.push_str(&format!(" (help: {h})"));
        }
        out.push('\n');
    }
    out
}

#[test]
fn error_messages() {
    let cases = [
        ".a |",
        "(.a",
        ".a)",
        "[1, 2",
        "{a: 1",
        "\"unterminated",
        "\"bad \\q escape\"",
        "\"\\u12\"",
        ".a & .b",
        "if .a then 1",
        "if .a then 1 else 2",
        "reduce .[] (0; .)",
        ". as | .",
        ".a.[",
        "{(.k)}",
        "map()",
        "f(1;)",
        "1 +",
        "$",
        ".. ..",
        "lenght",
        "map",
        "mapp(.x)",
        "$x + 1",
        "break $out",
        "input",
        "inputs",
        "$ENV.HOME",
        "import \"lib\" as lib; .",
        "include \"lib\"; .",
        "module {}; .",
        "def f: g; f",
    ];
    let text: String = cases.iter().map(|c| describe(c, &errors(c))).collect();
    insta::assert_snapshot!(text);
}

#[test]
fn undefined_name_span_is_exact() {
    let d = errors(".steps[] | nosuchfn(.x)");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "AGC061");
    assert_eq!(d[0].span, Some(Span::new(FileId(0), 11, 19)));
}

#[test]
fn every_undefined_name_is_reported() {
    let d = errors("foo | bar | $baz");
    let codes: Vec<_> = d
        .iter()
        .map(|d| (d.code, d.span.map(|s| s.start)))
        .collect();
    assert_eq!(
        codes,
        vec![
            ("AGC061", Some(0)),
            ("AGC061", Some(6)),
            ("AGC061", Some(12))
        ]
    );
}

#[test]
fn spans_follow_escapes_in_the_file() {
    // In the file: `when: "\"x\" | nosuch"`; the decoded jq text is `"x" | nosuch`. The
    // content starts at file byte 7 and each `\"` takes two file bytes.
    let src = "\"x\" | nosuch";
    let map = ScalarMap::from_points(
        FileId(1),
        vec![(0, 7), (1, 9), (2, 10), (3, 12)],
        src.len(),
        21,
    );
    let d = parse_jq(src, &map).unwrap_err();
    assert_eq!(d[0].code, "AGC061");
    assert_eq!(d[0].span, Some(Span::new(FileId(1), 15, 21)));
}

#[test]
fn ten_thousand_parentheses_are_a_diagnostic() {
    let src = format!("{}.{}", "(".repeat(10_000), ")".repeat(10_000));
    let d = errors(&src);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "AGC062");
    assert_eq!(d[0].span, Some(Span::new(FileId(0), 256, 257)));
}

#[test]
fn ten_thousand_brackets_are_a_diagnostic() {
    let src = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    let d = errors(&src);
    assert_eq!(d[0].code, "AGC062");
    let src = format!("{}1{}", "{a:".repeat(10_000), "}".repeat(10_000));
    assert_eq!(errors(&src)[0].code, "AGC062");
    let src = format!(".{}", " | .".repeat(10_000));
    assert_eq!(errors(&src)[0].code, "AGC062");
    let src = format!("{}1", "-".repeat(10_000));
    assert_eq!(errors(&src)[0].code, "AGC062");
}

#[test]
fn host_dependent_calls_warn() {
    let src = "now, env.HOME, (. | debug)";
    let map = ScalarMap::contiguous(FileId(0), 0, src.len());
    let prog = parse_jq(src, &map).unwrap();
    let w: Vec<_> = prog
        .warnings
        .iter()
        .map(|d| (d.code, &src[d.span.unwrap().range()]))
        .collect();
    assert_eq!(
        w,
        vec![("AGC064", "now"), ("AGC064", "env"), ("AGC064", "debug")]
    );
    // A local definition with the same name is the user's own filter.
    let src = "def now: 1; now";
    let prog = parse_jq(src, &ScalarMap::contiguous(FileId(0), 0, src.len())).unwrap();
    assert!(prog.warnings.is_empty());
}

#[test]
fn awp_corpus_programs_parse() {
    let dir = std::path::Path::new("../shared/corpus/awp/examples");
    if !dir.exists() {
        eprintln!(
            "notice: {} is absent; skipping the AWP corpus jq check",
            dir.display()
        );
        return;
    }
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut stack = vec![&doc];
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::Object(m) => {
                    for (k, x) in m {
                        if let (true, Some(s)) = (
                            matches!(k.as_str(), "when" | "jq" | "output_mapping"),
                            x.as_str(),
                        ) {
                            let map = ScalarMap::contiguous(FileId(0), 0, s.len());
                            if let Err(d) = parse_jq(s, &map) {
                                panic!("{}: `{s}`: {d:?}", path.display());
                            }
                            checked += 1;
                        }
                        stack.push(x);
                    }
                }
                serde_json::Value::Array(a) => stack.extend(a),
                _ => {}
            }
        }
    }
    assert!(checked > 10, "only {checked} jq programs found");
}

#[test]
fn codes_are_registered() {
    use agc::diag::{Severity, lookup};
    for (code, sev) in [
        ("jq-syntax", Severity::Error),
        ("AGC061", Severity::Error),
        ("AGC062", Severity::Error),
        ("AGC063", Severity::Error),
        ("AGC064", Severity::Warning),
        ("AGC070", Severity::Error),
        ("AGC071", Severity::Warning),
        ("AGC072", Severity::Warning),
    ] {
        let info = lookup(code).unwrap_or_else(|| panic!("{code} is not registered"));
        assert_eq!(info.severity, sev, "{code}");
        assert!(
            !info.summary.is_empty() && info.explanation.len() > 80,
            "{code}"
        );
    }
}

#[test]
fn surrogate_escapes_say_what_jaq_refuses() {
    // jq reads `\ud83d\ude00` as one character; jaq refuses both halves. One finding per
    // pair, at its first escape's digits, naming the character to write instead.
    let src = r#""\ud83d\ude00 happy""#;
    let d = errors(src);
    assert_eq!(d.len(), 1, "{}", describe(src, &d));
    assert_eq!(d[0].code, "jq-syntax");
    // At the escape's hex digits, right after `"\u`.
    assert_eq!(d[0].span.unwrap().start, 3);
    assert!(
        d[0].message
            .contains("`\\ud83d` is a UTF-16 surrogate escape")
    );
    assert!(d[0].help.as_deref().unwrap().contains("`😀`, U+1F600"));
    // A lone half (or halves in the wrong order) is reported for each, without a character.
    let src = r#""\ude00\ud83d""#;
    let d = errors(src);
    assert_eq!(d.len(), 2, "{}", describe(src, &d));
    assert!(
        d.iter()
            .all(|x| x.help.as_deref() == Some("write the character itself instead of the escape"))
    );
    // Other escapes are untouched by this.
    let map = ScalarMap::contiguous(FileId(0), 0, 10);
    assert!(parse_jq(r#""\u00e9""#, &map).is_ok());
}
