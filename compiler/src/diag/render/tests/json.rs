//! JSON output: parsed back and checked field by field.

use serde_json::{Value, json};

use super::*;

fn parse(diags: &[Diagnostic], m: &SourceMap) -> Value {
    let text = render(Format::Json, diags, m, Options::default());
    assert!(text.ends_with("}\n"), "{text}");
    serde_json::from_str(&text).expect("valid JSON")
}

#[test]
fn every_diagnostic_with_its_position() {
    // `x` is the 6th code point of line 2 but its 8th byte.
    let m = map(&[
        ("wf/flow.yaml", "name: t\nnév: x\nsteps: []\n"),
        ("lib.yaml", "a: 1\n"),
    ]);
    let diags = [
        Diagnostic::error("AG001", "expected a number")
            .at(find(&m, 0, "x", 0))
            .with_pointer("/név")
            .with_help("write 1")
            .with_label(find(&m, 1, "a: 1", 0), "declared here"),
        Diagnostic::warning("AG903", "unreachable node")
            .at(find(&m, 0, "steps: []\n", 0))
            .with_label_text("never reached"),
        Diagnostic::error("AGC001", "cannot read `gone.yaml`"),
    ];
    let v = parse(&diags, &m);
    assert_eq!(v["version"], 1);
    assert_eq!(
        v["summary"],
        json!({ "errors": 2, "warnings": 1, "notes": 0 })
    );
    let ds = v["diagnostics"].as_array().expect("array");
    assert_eq!(ds.len(), 3);

    let first = &ds[0];
    assert_eq!(first["code"], "AG001");
    assert_eq!(first["severity"], "error");
    assert_eq!(first["message"], "expected a number");
    assert_eq!(first["path"], "wf/flow.yaml");
    assert_eq!((&first["line"], &first["column"]), (&json!(2), &json!(6)));
    // Exclusive end: just after `x`.
    assert_eq!(
        (&first["end_line"], &first["end_column"]),
        (&json!(2), &json!(7))
    );
    assert_eq!(
        (&first["byte_start"], &first["byte_end"]),
        (&json!(14), &json!(15))
    );
    assert_eq!(first["pointer"], "/név");
    assert_eq!(first["help"], "write 1");
    assert_eq!(first["label"], Value::Null);
    assert_eq!(
        first["labels"],
        json!([{
            "path": "lib.yaml", "line": 1, "column": 1, "end_line": 1, "end_column": 5,
            "byte_start": 0, "byte_end": 4, "message": "declared here"
        }])
    );

    // A span ending with its line's newline ends at column 1 of the next line.
    let second = &ds[1];
    assert_eq!(second["severity"], "warning");
    assert_eq!(second["label"], "never reached");
    assert_eq!(
        [
            &second["line"],
            &second["column"],
            &second["end_line"],
            &second["end_column"]
        ],
        [&json!(3), &json!(1), &json!(4), &json!(1)]
    );

    let third = &ds[2];
    for field in [
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "byte_start",
        "byte_end",
        "pointer",
        "help",
        "label",
    ] {
        assert_eq!(third[field], Value::Null, "{field}");
    }
    assert_eq!(third["labels"], json!([]));
}

#[test]
fn zero_width_span_has_end_equal_to_start() {
    let m = map(&[("f.yaml", "a: [1,\n")]);
    let d = [Diagnostic::error("AGC003", "unexpected end of file").at(Span::point(FileId(0), 7))];
    let v = parse(&d, &m);
    let d = &v["diagnostics"][0];
    assert_eq!(
        [&d["line"], &d["column"], &d["end_line"], &d["end_column"]],
        [&json!(2), &json!(1), &json!(2), &json!(1)]
    );
}

#[test]
fn empty_output_is_still_one_object() {
    let v = parse(&[], &map(&[]));
    assert_eq!(
        v,
        json!({
            "version": 1,
            "diagnostics": [],
            "summary": { "errors": 0, "warnings": 0, "notes": 0 }
        })
    );
}

#[test]
fn messages_are_escaped_json_strings() {
    let m = map(&[]);
    let d = [Diagnostic::error(
        "AG001",
        "quote \" backslash \\ newline \n tab \t nul \0",
    )];
    let v = parse(&d, &m);
    assert_eq!(
        v["diagnostics"][0]["message"],
        "quote \" backslash \\ newline \n tab \t nul \0"
    );
}
