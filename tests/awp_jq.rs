//! jq inside AWP documents: state paths checked against `state_schema` (declared, undeclared,
//! nested arrays, closed objects, scalars), exact positions inside JSON and YAML strings, and
//! whole-value `${ }` templates.

use agc::check::{CheckOptions, check_text};
use agc::diag::Diagnostic;
use agc::source::SourceMap;

const STATE: &str = r#"{
    "type": "object",
    "properties": {
      "ticket": {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": false},
      "items": {"type": "array", "items": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}},
      "count": {"type": "integer"},
      "blob": {}
    }
  }"#;

/// A JSON workflow whose `end` maps with `program` (JSON-escaped by the caller).
fn workflow(program: &str) -> String {
    format!(
        r#"{{
  "document": {{"schema": "https://agent-workflow.dev/schemas/workflow-definition.json", "name": "t", "version": "1"}},
  "state_schema": {STATE},
  "nodes": [
    {{"id": "start", "type": "start"}},
    {{"id": "end", "type": "end", "config": {{"output_mapping": "{program}"}}}}
  ],
  "edges": [{{"source": "__start__", "target": "start"}}, {{"source": "start", "target": "end"}}]
}}
"#
    )
}

/// (code, line:column, text at the span) of every AGC242/AGC243/jq-syntax finding.
fn findings(text: &str) -> Vec<(String, String, String)> {
    let mut sources = SourceMap::new();
    let diags = check_text(
        &mut sources,
        "t.workflow.json",
        text.to_string(),
        &CheckOptions::default(),
    );
    let f = sources.files().next().unwrap().1;
    diags
        .iter()
        .filter(|d: &&Diagnostic| matches!(d.code, "AGC242" | "AGC243" | "jq-syntax"))
        .map(|d| {
            let s = d.span.unwrap();
            let lc = f.line_col(s.start);
            (
                d.code.to_string(),
                format!("{}:{}", lc.line, lc.column),
                f.text[s.range()].to_string(),
            )
        })
        .collect()
}

fn codes(program: &str) -> Vec<(String, String)> {
    findings(&workflow(program))
        .into_iter()
        .map(|(c, _, t)| (c, t))
        .collect()
}

#[test]
fn declared_paths_pass() {
    assert_eq!(codes(".ticket.id"), vec![]);
    assert_eq!(codes(".items[].tags[0] | ascii_upcase"), vec![]);
    assert_eq!(codes("[.items[] | .tags[]] | length"), vec![]);
    assert_eq!(codes("{id: .ticket.id, n: .count}"), vec![]);
}

#[test]
fn a_path_the_schema_cannot_have_is_an_error() {
    // A closed object without the field.
    assert_eq!(
        codes(".ticket.title"),
        vec![("AGC242".into(), ".ticket.title".into())]
    );
    // A field of a number; an index of an integer.
    assert_eq!(
        codes(".count.value"),
        vec![("AGC242".into(), ".count.value".into())]
    );
    assert_eq!(
        codes(".count[0]"),
        vec![("AGC242".into(), ".count[0]".into())]
    );
    // Inside nested arrays: `tags` holds strings, which have no fields.
    assert_eq!(
        codes(".items[] | .tags[] | .name"),
        vec![("AGC242".into(), ".name".into())]
    );
}

#[test]
fn a_path_through_an_untyped_part_is_a_warning() {
    // Undeclared at the top (the state allows other properties), and below an untyped value.
    assert_eq!(
        codes(".priority"),
        vec![("AGC243".into(), ".priority".into())]
    );
    assert_eq!(
        codes(".blob.deep.er"),
        vec![("AGC243".into(), ".blob.deep.er".into())]
    );
    // Items of an array whose items are not objects with declared fields: `.items[].other`.
    assert_eq!(
        codes(".items | map(.other)"),
        vec![("AGC243".into(), ".other".into())]
    );
    let mut sources = SourceMap::new();
    let diags = check_text(
        &mut sources,
        "t.workflow.json",
        workflow(".priority"),
        &CheckOptions::default(),
    );
    assert!(!diags.iter().any(Diagnostic::is_error), "{diags:?}");
}

#[test]
fn positions_land_inside_escaped_json_strings() {
    // `\"` escapes shift the program against the file: the finding is still on `.nme`.
    let text = workflow(r#"if .ticket.id == \"x\" then .ticket.nme else 1 end"#);
    let got = findings(&text);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].2, ".ticket.nme");
    let line = text
        .lines()
        .position(|l| l.contains("output_mapping"))
        .unwrap()
        + 1;
    let col = text
        .lines()
        .nth(line - 1)
        .unwrap()
        .find(".ticket.nme")
        .unwrap()
        + 1;
    assert_eq!(got[0].1, format!("{line}:{col}"));
    // A syntax error points at the unclosed bracket's end of program.
    let text = workflow(r#"[.ticket.id, \"a\""#);
    let got = findings(&text);
    assert_eq!(got[0].0, "jq-syntax");
}

#[test]
fn whole_value_templates_are_programs_and_other_strings_are_not() {
    let yaml = |mapping: &str| {
        format!(
            "document: {{schema: s, name: t, version: '1'}}
state_schema:
  type: object
  properties:
    task: {{type: string}}
nodes:
  - {{id: start, type: start}}
  - id: d
    type: agent_delegate
    config:
      agent_id: coder
      protocol: a2a
      input_mapping:
        {mapping}
  - {{id: end, type: end, config: {{output_mapping: .task}}}}
edges:
  - {{source: __start__, target: start}}
  - {{source: start, target: d}}
  - {{source: d, target: end}}
"
        )
    };
    let run = |text: String| {
        let mut sources = SourceMap::new();
        let diags = check_text(
            &mut sources,
            "t.workflow.yaml",
            text,
            &CheckOptions::default(),
        );
        let f = sources.files().next().unwrap().1;
        diags
            .into_iter()
            .filter(|d| d.code != "AGC241")
            .map(|d| {
                (
                    d.code,
                    f.text[d.span.unwrap().range()].to_string(),
                    d.pointer,
                )
            })
            .collect::<Vec<_>>()
    };
    // `${ … }` as the whole value: checked, positioned inside the template.
    assert_eq!(
        run(yaml("task: '${ .tsk }'")),
        vec![(
            "AGC243",
            ".tsk".to_string(),
            Some("/nodes/1/config/input_mapping/task".to_string())
        )]
    );
    assert_eq!(run(yaml("task: {jq: '.task | ('}"))[0].0, "jq-syntax");
    // Text around `${ }`, or `{literal: …}`: a literal value, not a program.
    assert_eq!(run(yaml("task: 'fix ${ .tsk }'")), vec![]);
    assert_eq!(run(yaml("task: {literal: '${ .tsk }'}")), vec![]);
}

/// Programs are parsed and checked in batches (1,024 at a time): across batch boundaries the
/// findings keep document order, and a state property read only in a later batch is still
/// read (no AGC241).
#[test]
fn findings_hold_across_batches_of_programs() {
    let n = 2_500;
    let mut props = vec![r#""unread": {"type": "string"}"#.to_string()];
    let mut nodes = vec![r#"{"id": "start", "type": "start"}"#.to_string()];
    let mut edges = vec![r#"{"source": "__start__", "target": "start"}"#.to_string()];
    let mut prev = "start".to_string();
    for i in 0..n {
        props.push(format!(r#""k{i}": {{"type": "integer"}}"#));
        // Every thousandth program reads a property that is not declared (AGC243 on a closed
        // schema would be AGC242; this one is open, so AGC243).
        let program = if i % 1000 == 999 {
            format!(".k{i} + .missing{i}")
        } else {
            format!(".k{i} + 1")
        };
        nodes.push(format!(
            r#"{{"id": "n{i}", "type": "set_state", "config": {{"assignments": {{"k{i}": {{"jq": "{program}"}}}}}}}}"#
        ));
        edges.push(format!(r#"{{"source": "{prev}", "target": "n{i}"}}"#));
        prev = format!("n{i}");
    }
    nodes.push(r#"{"id": "end", "type": "end", "config": {"output_mapping": ".k0"}}"#.into());
    edges.push(format!(r#"{{"source": "{prev}", "target": "end"}}"#));
    let text = format!(
        r#"{{"document": {{"schema": "https://agent-workflow.dev/schemas/workflow-definition.json", "name": "t", "version": "1"}},
"state_schema": {{"type": "object", "properties": {{{}}}}},
"nodes": [{}],
"edges": [{}]}}
"#,
        props.join(", "),
        nodes.join(",\n"),
        edges.join(",\n")
    );
    let mut sources = SourceMap::new();
    let diags = check_text(
        &mut sources,
        "t.workflow.json",
        text,
        &CheckOptions::default(),
    );
    let got: Vec<(&str, String)> = diags
        .iter()
        .filter(|d| d.is_error() || matches!(d.code, "AGC241" | "AGC242" | "AGC243"))
        .map(|d| (d.code, d.message.clone()))
        .collect();
    let missing = |i: usize| {
        (
            "AGC243",
            format!(
                "`.missing{i}` is not checked against `state_schema`: at `.missing{i}`, \
                 `missing{i}` is not declared"
            ),
        )
    };
    assert_eq!(
        got,
        vec![
            (
                "AGC241",
                "state property `unread` is declared but no jq program reads it".to_string()
            ),
            missing(999),
            missing(1999),
        ],
        "{got:#?}"
    );
}
