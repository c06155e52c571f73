//! Human output: insta snapshots (no colour) plus structural checks.

use super::*;

fn plain(diags: &[Diagnostic], m: &SourceMap) -> String {
    render(Format::Human, diags, m, Options { color: false })
}

/// Snapshots the rendered output; the snapshot's description is the source it points into.
fn snap(name: &str, diags: &[Diagnostic], m: &SourceMap) {
    let sources: Vec<String> = m
        .files()
        .map(|(_, f)| format!("--- {} ---\n{}", f.name, f.text))
        .collect();
    let out = plain(diags, m);
    insta::with_settings!({ description => sources.join("\n"), omit_expression => true }, {
        insta::assert_snapshot!(name, out);
    });
}

const FLOW: &str = "ags_version: \"1.0\"\nname: demo\nstpes:\n  - id: build\n    run: make\n";

#[test]
fn key_span() {
    let m = map(&[("flow.yaml", FLOW)]);
    let d = Diagnostic::error("AG001", "unknown key `stpes`")
        .at(find(&m, 0, "stpes", 0))
        .with_label_text("not a key of an AGS document")
        .with_help("did you mean `steps`?")
        .with_pointer("/stpes");
    snap("key_span", &[d], &m);
}

#[test]
fn multi_line_span() {
    let m = map(&[("flow.yaml", FLOW)]);
    let start = find(&m, 0, "- id", 0).start as usize;
    let d = Diagnostic::error("AG001", "a step needs `uses` or `run`, not both").at(Span::new(
        FileId(0),
        start,
        FLOW.len() - 1,
    ));
    snap("multi_line_span", &[d], &m);
}

#[test]
fn unicode_before_span() {
    let text = "name: «Größe» — 日本語 value: 42\n";
    let m = map(&[("ü.yaml", text)]);
    let span = find(&m, 0, "42", 0);
    let d = Diagnostic::error("AG001", "expected a string").at(span);
    let out = plain(std::slice::from_ref(&d), &m);
    // The header location counts code points: `42` is the 28th character.
    let col = m.get(FileId(0)).line_col(span.start).column;
    assert_eq!(col, 28);
    assert!(out.contains("ü.yaml:1:28"), "{out}");
    snap("unicode_before_span", &[d], &m);
}

#[test]
fn zero_width_span_at_end_of_file() {
    let text = "steps:\n  - id: a\n    run:\n";
    let m = map(&[("eof.yaml", text)]);
    let d = Diagnostic::error("AGC003", "unexpected end of file")
        .at(Span::point(FileId(0), text.len()))
        .with_label_text("the document ends here")
        .with_help("give `run` a value");
    let out = plain(std::slice::from_ref(&d), &m);
    // Line 4 is the empty line after the final newline, as `line_col` and the JSON output say.
    assert!(out.contains("eof.yaml:4:1"), "{out}");
    snap("zero_width_span_at_end_of_file", &[d], &m);
}

#[test]
fn zero_width_span_without_final_newline() {
    let text = "steps: [a, b";
    let m = map(&[("flow.json", text)]);
    let d = Diagnostic::error("AGC003", "expected `,` or `]`")
        .at(Span::point(FileId(0), text.len()))
        .with_label_text("the flow sequence is not closed");
    assert!(plain(std::slice::from_ref(&d), &m).contains("flow.json:1:13"));
    snap("zero_width_span_without_final_newline", &[d], &m);
}

#[test]
fn zero_width_span_inside_a_line() {
    let m = map(&[("flow.yaml", FLOW)]);
    let at = find(&m, 0, "demo", 0).start as usize;
    let d = Diagnostic::warning("AG903", "something starts here").at(Span::point(FileId(0), at));
    snap("zero_width_span_inside_a_line", &[d], &m);
}

#[test]
fn label_in_second_file() {
    let main = "imports:\n  - lib.yaml\nsteps:\n  - uses: lib/build\n";
    let lib = "nodes:\n  build:\n    kind: task\n    outputs: [artifact]\n";
    let m = map(&[("main.yaml", main), ("lib.yaml", lib)]);
    let d = Diagnostic::error("AG003", "undeclared output `binary`")
        .at(find(&m, 0, "lib/build", 0))
        .with_label_text("`lib/build` has no output `binary`")
        .with_label(
            find(&m, 1, "outputs: [artifact]", 0),
            "its outputs are declared here",
        )
        .with_label(find(&m, 0, "lib.yaml", 0), "imported here");
    let out = plain(std::slice::from_ref(&d), &m);
    // The primary file comes first, with both of its labels in one snippet.
    let main_at = out.find("main.yaml:4:11").expect("primary file shown");
    let lib_at = out.find("lib.yaml:4:5").expect("second file shown");
    assert!(main_at < lib_at, "{out}");
    assert_eq!(out.matches("main.yaml:").count(), 1, "{out}");
    snap("label_in_second_file", &[d], &m);
}

#[test]
fn no_span() {
    let m = map(&[]);
    let d = Diagnostic::error("AGC001", "cannot read `missing.yaml`: no such file")
        .with_help("check the path\nor pass a directory");
    let out = plain(std::slice::from_ref(&d), &m);
    assert_eq!(
        out,
        "error[AGC001]: cannot read `missing.yaml`: no such file\n\
         help: check the path\n      or pass a directory\n"
    );
}

#[test]
fn several_diagnostics_in_one_file() {
    let m = map(&[("flow.yaml", FLOW)]);
    let diags = [
        Diagnostic::error("AG002", "unsupported `ags_version`")
            .at(find(&m, 0, "\"1.0\"", 0))
            .with_help("use \"1.0\""),
        Diagnostic::warning("AG903", "unreachable node").at(find(&m, 0, "build", 0)),
        Diagnostic::error("AG001", "unknown key `stpes`").at(find(&m, 0, "stpes", 0)),
    ];
    let out = plain(&diags, &m);
    assert_eq!(
        out.matches("\n\n").count(),
        2,
        "one blank line between reports:\n{out}"
    );
    snap("several_diagnostics_in_one_file", &diags, &m);
}

#[test]
fn colour_only_when_asked() {
    let m = map(&[("flow.yaml", FLOW)]);
    let d = [Diagnostic::error("AG001", "unknown key").at(find(&m, 0, "stpes", 0))];
    assert!(!plain(&d, &m).contains('\x1b'));
    let coloured = render(Format::Human, &d, &m, Options { color: true });
    assert!(coloured.contains("\x1b["), "{coloured}");
}

#[test]
fn control_characters_never_reach_the_terminal() {
    let m = map(&[(
        "evil.yaml",
        "key: \"\x1b[2J\u{202E}x\"\r\nnext: 1\u{2028}\n",
    )]);
    let d = [Diagnostic::error("AG001", "bad key `\x1b[31m`")
        .at(find(&m, 0, "key", 0))
        .with_help("\x07")];
    let out = plain(&d, &m);
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    assert!(!out.contains('\u{202E}'));
    assert!(out.contains("bad key `\\u{1b}[31m`"), "{out}");
}

#[test]
fn labels_with_an_unknown_file_are_dropped() {
    let m = map(&[("flow.yaml", FLOW)]);
    let d = [Diagnostic::error("AG001", "unknown key")
        .at(find(&m, 0, "stpes", 0))
        .with_label(Span::new(FileId(7), 0, 3), "nowhere")];
    let out = plain(&d, &m);
    assert!(
        out.contains("flow.yaml:3:1") && !out.contains("nowhere"),
        "{out}"
    );
    let lost = [Diagnostic::error("AG001", "lost").at(Span::new(FileId(7), 0, 3))];
    assert_eq!(plain(&lost, &m), "error[AG001]: lost\n");
}

/// A one-line JSON document longer than a terminal, with multi-byte characters on both sides.
const LONG_LINE_TEXT: &str = "{\"name\":\"ünïcode\",\"steps\":[{\"id\":\"a\",\"run\":\"make all\"},{\"id\":\"b\",\"run\":\"make test\"},{\"id\":\"e\",\"run\":\"make docs\"},{\"id\":\"f\",\"run\":\"make lint\"},{\"id\":\"c\",\"rnu\":\"make install\"},{\"id\":\"d\",\"run\":\"日本\"}]}\n";

#[test]
fn long_lines_are_cut_around_the_labels() {
    let m = map(&[("min.json", LONG_LINE_TEXT)]);
    let d = Diagnostic::error("AG001", "unknown key `rnu`")
        .at(find(&m, 0, "\"rnu\"", 0))
        .with_label(find(&m, 0, "\"name\"", 0), "in this document")
        .with_help("did you mean `run`?");
    let out = plain(std::slice::from_ref(&d), &m);
    // The position is the one in the file, not in the shortened line.
    let col = m
        .get(FileId(0))
        .line_col(find(&m, 0, "\"rnu\"", 0).start)
        .column;
    assert!(out.contains(&format!("min.json:1:{col} ]")), "{out}");
    assert!(out.contains('…') && !out.contains("make test"), "{out}");
    snap("long_lines_are_cut_around_the_labels", &[d], &m);
}

#[test]
fn output_stays_small_for_a_huge_one_line_document() {
    let steps: Vec<String> = (0..5000)
        .map(|i| format!("{{\"id\":\"s{i}\",\"run\":\"make {i}\"}}"))
        .collect();
    let text = format!("{{\"steps\":[{}]}}", steps.join(","));
    assert!(text.len() > 100_000);
    let m = map(&[("big.json", &text)]);
    let diags: Vec<Diagnostic> = (0..50)
        .map(|i| {
            Diagnostic::error("AG001", "bad step")
                .at(find(&m, 0, &format!("\"s{}\"", i * 97), 0))
                .with_label(find(&m, 0, "\"steps\"", 0), "in here")
        })
        .collect();
    let out = plain(&diags, &m);
    assert!(out.len() < 50 * 2_000, "{} bytes", out.len());
    assert_eq!(out.matches("error[AG001]").count(), 50);
}

/// Every span (including ones past the end and inside multi-byte characters) over texts with
/// every kind of line break renders without panicking, and the snippet's header position is
/// the one [`SourceFile::line_col`] (and so the JSON output) gives.
#[test]
fn any_span_renders_and_agrees_with_line_col() {
    let texts = [
        "",
        "\n",
        "a",
        "ab\r\ncd\r\n",
        "x\ry\x0bz\x0cw\n",
        "é\u{85}ü\u{2028}日\u{2029}本\n\n",
        "\t-\tx: '€'\n  y: 1",
        LONG_LINE_TEXT,
    ];
    for text in texts {
        let m = map(&[("t.yaml", text)]);
        let file = m.get(FileId(0));
        // Every pair for the short texts; every 5th start and 7th end for the long one.
        let (by_start, by_end) = if text.len() > 64 { (5, 7) } else { (1, 1) };
        for start in (0..=text.len() + 1).step_by(by_start) {
            for end in (start..=text.len() + 2).step_by(by_end) {
                let span = Span::new(FileId(0), start, end);
                let d = [Diagnostic::error("AG001", "m")
                    .at(span)
                    .with_label(Span::new(FileId(0), end, end + 1), "l")];
                let out = plain(&d, &m);
                let at = locate(&m, span).expect("file exists");
                let lc = file.line_col(at.span.start);
                let want = format!("t.yaml:{}:{} ]", lc.line, lc.column);
                assert!(
                    out.contains(&want),
                    "{text:?} {start}..{end}: want {want}\n{out}"
                );
            }
        }
    }
}

#[test]
fn crlf_files_render_like_lf_files() {
    let lf = map(&[("flow.yaml", "name: demo\nstpes:\n  - run: make\n")]);
    let crlf = map(&[("flow.yaml", "name: demo\r\nstpes:\r\n  - run: make\r\n")]);
    let diag = |m: &SourceMap| {
        [Diagnostic::error("AG001", "unknown key `stpes`")
            .at(find(m, 0, "stpes", 0))
            .with_label(find(m, 0, "make", 0), "and this")]
    };
    let out = plain(&diag(&crlf), &crlf);
    assert!(!out.contains('\r'), "{out:?}");
    assert_eq!(out, plain(&diag(&lf), &lf));
}

#[test]
fn nothing_to_report_renders_nothing() {
    assert_eq!(plain(&[], &map(&[("a", "b")])), "");
}

#[test]
fn long_lists_render_the_same_on_several_threads() {
    // Three files, reports with and without spans, labels across files: every split of the
    // list into runs must give the bytes of one thread.
    let m = map(&[("a.yaml", FLOW), ("b.yaml", "x: 1\ny: 2\n"), ("c.yaml", "")]);
    let mut diags = Vec::new();
    for i in 0..50 {
        let d = match i % 4 {
            0 => Diagnostic::error("AG001", format!("unknown key {i}")).at(find(&m, 0, "stpes", 0)),
            1 => Diagnostic::warning("AG904", format!("unread {i}"))
                .at(find(&m, 1, "y", 0))
                .with_help("remove it"),
            2 => Diagnostic::error("AGC001", format!("no span {i}")),
            _ => Diagnostic::error("AG201", format!("two files {i}"))
                .at(find(&m, 0, "run", 0))
                .with_label(find(&m, 1, "x", 0), "here"),
        };
        diags.push(d);
    }
    let one = crate::diag::render::human::render_on(&diags, &m, Options::default(), 1, 1);
    // Each of the 13 reports says it twice: header and label.
    assert_eq!(one.matches("unknown key").count(), 26, "{one}");
    for threads in [2, 3, 7, 50, 64] {
        let many =
            crate::diag::render::human::render_on(&diags, &m, Options::default(), threads, 1);
        assert_eq!(many, one, "{threads} threads");
    }
    // Below the threshold the list stays on one thread, with the same result.
    assert_eq!(
        crate::diag::render::human::render_on(&diags, &m, Options::default(), 4, 51),
        one
    );
}

#[test]
fn a_file_without_text_is_named_not_boxed() {
    // A file that could not be read (AGC001), is over the size limit (AGC012) or is empty:
    // there is no line to draw, so the file's name stands alone instead of an empty box.
    let m = map(&[("missing.yaml", ""), ("flow.yaml", FLOW)]);
    let d = Diagnostic::error("AGC001", "cannot read `missing.yaml`").at(Span::point(FileId(0), 0));
    assert_eq!(
        plain(&[d], &m),
        "error[AGC001]: cannot read `missing.yaml`\n  --> missing.yaml\n"
    );
    // A file with text keeps its box, even at 1:1.
    let d = Diagnostic::error("AG001", "first line").at(Span::point(FileId(1), 0));
    assert!(plain(&[d], &m).contains("╭─[ flow.yaml:1:1 ]"));
}
