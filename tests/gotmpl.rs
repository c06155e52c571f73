//! agh `{{ }}` values: the accepted Go-template subset, its lowering, spans and rejections.

use agc::expr::cel::print::print_cel;
use agc::expr::parse_gotmpl;
use agc::source::FileId;
use agc::source::scalar::ScalarMap;
use agc_runtime::expr::{Expr, ExprKind, TemplatePart};

fn map(src: &str) -> ScalarMap {
    ScalarMap::contiguous(FileId(0), 0, src.len())
}

fn parse(src: &str) -> Expr {
    match parse_gotmpl(src, &map(src)) {
        Ok((e, spans)) => {
            assert_eq!(count(&e), spans.len(), "one span per node");
            e
        }
        Err(d) => panic!("{src:?} failed: {d:#?}"),
    }
}

fn count(e: &Expr) -> usize {
    1 + match &e.kind {
        ExprKind::Template { parts } => parts
            .iter()
            .map(|p| match p {
                TemplatePart::Text { .. } => 0,
                TemplatePart::Expr { expr } => count(expr),
            })
            .sum(),
        ExprKind::Member { target, .. } => count(target),
        ExprKind::Call { args, .. } => args.iter().map(count).sum(),
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => count(cond) + count(then) + count(otherwise),
        ExprKind::List { items } => items.iter().map(count).sum(),
        ExprKind::Comprehension { range, body, .. } => count(range) + count(body),
        _ => 0,
    }
}

/// The template as a CEL-ish display string (text parts quoted).
fn show(src: &str) -> String {
    print_cel(&parse(src))
}

fn errors(src: &str) -> String {
    match parse_gotmpl(src, &map(src)) {
        Ok((e, _)) => panic!("{src:?} parsed as {}", print_cel(&e)),
        Err(ds) => ds
            .iter()
            .map(|d| {
                let s = d.span.expect("span");
                format!("{} @{}..{}: {}", d.code, s.start, s.end, d.message)
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[test]
fn text_and_paths() {
    assert_eq!(show("plain text"), r#""plain text""#);
    assert_eq!(show(""), r#""""#);
    assert_eq!(show("{{ .inputs.slug }}"), "string(inputs.slug)");
    assert_eq!(
        show("Task {{ .item.id }}: {{.item.title}}!"),
        r#""Task " + string(item.id) + ": " + string(item.title) + "!""#
    );
    assert_eq!(
        show("{{ .nodes.review.output.issues }}"),
        "string(nodes.review.output.issues)"
    );
    assert_eq!(show("{{ . }}"), "string($)");
    assert_eq!(show("{{ $ }}"), "string($)");
    assert_eq!(show("{{ $.inputs.x }}"), "string(inputs.x)");
    assert_eq!(
        show("{{ \"lit\" }}{{ 3 }}{{ true }}{{ nil }}"),
        r#"string("lit") + string(3) + string(true) + string(null)"#
    );
}

#[test]
fn pipelines_and_functions() {
    assert_eq!(
        show("{{ join \", \" .item.blocks }}"),
        r#"string(join(", ", item.blocks))"#
    );
    assert_eq!(show("{{ .x | json }}"), "string(json(x))");
    assert_eq!(
        show("{{ .x | default \"none\" }}"),
        r#"string(default("none", x))"#
    );
    assert_eq!(
        show("{{ .x | default \"n\" | toJson }}"),
        r#"string(toJson(default("n", x)))"#
    );
    assert_eq!(show("{{ len .xs }}"), "string(len(xs))");
    assert_eq!(
        show("{{ .inputs.slug | shellQuote }}"),
        "string(shellQuote(inputs.slug))"
    );
    assert_eq!(show("{{ (json .a).b }}"), "string(json(a).b)");
    assert_eq!(
        show("{{ json (default 1 .a) }}"),
        "string(json(default(1, a)))"
    );
    // A space separates arguments: `(..) .b` is two arguments, `(..).b` a field of the first.
    assert_eq!(show("{{ join (.sep) .items }}"), "string(join(sep, items))");
}

#[test]
fn control_structures() {
    assert_eq!(
        show("{{ if .inputs.auto_commit -}}\n  commit\n{{- else -}}\n  no\n{{ end }}"),
        r#"string(truthy(inputs.auto_commit) ? "commit" : "no\n")"#
    );
    assert_eq!(
        show("{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}"),
        r#"string(truthy(a) ? "A" : string(truthy(b) ? "B" : "C"))"#
    );
    assert_eq!(
        show("{{ range .item.issue_files }}- {{ .path }}\n{{ end }}"),
        r#"string(truthy(item.issue_files) ? join("", item.issue_files.map($1, "- " + string($1.path) + "\n")) : "")"#
    );
    assert_eq!(
        show("{{ range .xs }}{{ . }}{{ else }}none{{ end }}"),
        r#"string(truthy(xs) ? join("", xs.map($1, string($1))) : "none")"#
    );
    assert_eq!(
        show("{{ with .a }}{{ .b }}{{ range .c }}{{ .d }}{{ $.e }}{{ end }}{{ end }}"),
        r#"string(truthy(a) ? join("", [a].map($1, string($1.b) + string(truthy($1.c) ? join("", $1.c.map($2, string($2.d) + string(e))) : ""))) : "")"#
    );
    assert_eq!(
        show("a {{/* note */}} b {{- /* trim */ -}} c"),
        r#""a " + " b" + "c""#
    );
    assert_eq!(
        show("{{ with .a }}A{{ else with .b }}{{ .c }}{{ end }}"),
        r#"string(truthy(a) ? join("", [a].map($1, "A")) : string(truthy(b) ? join("", [b].map($1, string($1.c))) : ""))"#
    );
    assert_eq!(show("x\n  {{- .a -}}  \n y"), r#""x" + string(a) + "y""#);
    assert_eq!(show("{{-3}}"), "string(-3)");
    assert_eq!(
        show("{{ `raw \\n` }}{{ 1.5 }}"),
        r#"string("raw \\n") + string(1.5)"#
    );
}

#[test]
fn block_spans() {
    let src = "{{ if .a }}x{{ end }}";
    let (_, spans) = parse_gotmpl(src, &map(src)).unwrap();
    let text: Vec<&str> = spans
        .iter()
        .map(|s| &src[s.start as usize..s.end as usize])
        .collect();
    // template, conditional, truthy call, path, then-template, else-template
    assert_eq!(text, vec![src, src, ".a", ".a", src, src]);
}

#[test]
fn spans_are_file_spans() {
    let src = "x {{ .inputs.slug | json }}";
    let m = ScalarMap::contiguous(FileId(2), 100, src.len());
    let (_, spans) = parse_gotmpl(src, &m).unwrap();
    let text: Vec<&str> = spans
        .iter()
        .map(|s| &src[s.start as usize - 100..s.end as usize - 100])
        .collect();
    // template, json call (covers its input), member, root ident
    assert_eq!(
        text,
        vec![src, ".inputs.slug | json", ".inputs.slug", ".inputs"]
    );
}

#[test]
fn rejections_snapshot() {
    let cases = [
        "{{ printf \"%s\" .item.title }}",
        "{{ eq .a 1 }}",
        "{{ .a | index 0 }}",
        "{{ $x := .a }}{{ $x }}",
        "{{ range $i, $e := .xs }}{{ end }}",
        "{{ $x.field }}",
        "{{ define \"t\" }}x{{ end }}",
        "{{ template \"t\" . }}",
        "{{ range .xs }}{{ break }}{{ end }}",
        "{{ if .a }}",
        "{{ end }}",
        "{{ else }}",
        "{{ if .a }}x{{ else }}y{{ else }}z{{ end }}",
        "{{ .a",
        "{{ \"abc }}",
        "{{ }}",
        "{{ .a .b }}",
        "{{ 1 | .a }}",
        "{{ json }}",
        "{{ join \",\" }}",
        "{{ .a ! }}",
        "{{/* unclosed }}",
    ];
    let out: String = cases
        .iter()
        .map(|c| format!("{c:?}\n{}\n\n", errors(c)))
        .collect();
    insta::assert_snapshot!(out);
}

#[test]
fn deep_blocks_are_limited() {
    let src = format!(
        "{}x{}",
        "{{ if .a }}".repeat(10_000),
        "{{ end }}".repeat(10_000)
    );
    let e = errors(&src);
    assert!(e.starts_with("AGC050"), "{e}");
    let ok = format!("{}x{}", "{{ if .a }}".repeat(32), "{{ end }}".repeat(32));
    parse(&ok);
    let src = format!("{{{{ .a{} }}}}", " | json".repeat(10_000));
    assert!(errors(&src).starts_with("AGC050"));
    let src = format!("{{{{ {}.a{} }}}}", "(".repeat(10_000), ")".repeat(10_000));
    assert_eq!(
        errors(&src),
        "AGC050 @35..36: parentheses nest more than 32 levels deep"
    );
    let ok = format!("{{{{ {}.a{} }}}}", "(json ".repeat(32), ")".repeat(32));
    parse(&ok);
}

#[test]
fn corpus_values_parse() {
    let root = std::path::Path::new("../shared/corpus/agh");
    if !root.exists() {
        println!("skipping: {} is absent", root.display());
        return;
    }
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut checked = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        // Every single-line double-quoted or plain value holding `{{` with only agh's syntax.
        for line in text.lines() {
            let Some(i) = line.find("{{") else { continue };
            let value = line[i..].trim_end_matches(['"', '\'']);
            // Values spread over block scalars are checked piecewise: skip unbalanced lines.
            let opens = value.matches("{{").count();
            if opens != value.matches("}}").count()
                || value.contains("{{ if")
                || value.contains("{{ range")
                || value.contains("{{ else")
                || value.contains("{{ end")
                || value.contains("{{ with")
                // `{{agh_executable}}`-style placeholders sit in fields agh does not compile.
                || value.contains("_executable}}")
            {
                continue;
            }
            if let Err(d) = parse_gotmpl(value, &map(value)) {
                panic!("{}: {value:?}: {d:#?}", f.display());
            }
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} values checked");
}
