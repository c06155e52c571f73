use super::*;
use crate::dialect::{AgentGraphKind, Dialect};
use crate::source::{Limits, SourceMap, load::load_str};

/// Validates `text` as `dialect`; returns `(code, line:col, message)` per finding, sorted.
fn run(dialect: Dialect, text: &str) -> Vec<(String, String, String)> {
    let mut sources = SourceMap::new();
    let (id, loaded) = load_str(&mut sources, "t.yaml", text.to_string(), Limits::default());
    let doc = loaded.doc.expect("test document loads");
    let mut diags = validate(dialect, &doc);
    crate::diag::sort(&mut diags);
    diags
        .into_iter()
        .map(|d| {
            let lc = sources.get(id).line_col(d.span.expect("span").start);
            (
                d.code.to_string(),
                format!("{}:{}", lc.line, lc.column),
                d.message,
            )
        })
        .collect()
}

#[test]
fn every_embedded_schema_compiles() {
    let mut dialects = vec![Dialect::Ags, Dialect::Awp, Dialect::Agh];
    dialects.extend(AgentGraphKind::ALL.map(Dialect::AgentGraph));
    for d in dialects {
        assert!(
            embedded::compiled(d).is_ok(),
            "{d:?}: {:?}",
            embedded::compiled(d).err()
        );
    }
}

const AWP_HEAD: &str = "document: {schema: s, name: n, version: '1'}
state_schema: {type: object, properties: {a: {type: object}}}
edges: []
";

#[test]
fn one_of_failure_reports_the_intended_branch_only() {
    // A `step` node with an unknown field and no `config`: the step branch's two errors, not
    // twelve branches' worth.
    let text = format!("{AWP_HEAD}nodes:\n  - id: s\n    type: step\n    bogus: 1\n");
    let got = run(Dialect::Awp, &text);
    assert_eq!(
        got,
        vec![
            (
                "schema".into(),
                "5:5".into(),
                "`s` is missing required field `config` (schema keyword `required`)".into()
            ),
            (
                "schema".into(),
                "7:5".into(),
                "unknown field `bogus` (schema keyword `additionalProperties`)".into()
            ),
        ]
    );
}

#[test]
fn unknown_discriminator_lists_every_branch_value_once() {
    let text = format!("{AWP_HEAD}nodes:\n  - {{id: s, type: stpe, config: {{}}}}\n");
    let mut sources = SourceMap::new();
    let (_, loaded) = load_str(&mut sources, "t.yaml", text, Limits::default());
    let diags = validate(Dialect::Awp, &loaded.doc.unwrap());
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].code, "schema");
    let help = diags[0].help.as_deref().unwrap();
    assert!(
        help.starts_with("did you mean `step`? allowed: `start`, `end`, `step`"),
        "{help}"
    );
    assert_eq!(help.matches("`step`").count(), 2, "{help}");
}

#[test]
fn unknown_field_suggests_the_closest_name() {
    let text = "ags_version: \"1.0\"\nkind: AgenticGraph\nid: g\ntitle: t\nobjective: o\n\
entrypoints: [a]\nnodes:\n  a: {title: A, description: d, depnds_on: []}\n";
    let mut sources = SourceMap::new();
    let (_, loaded) = load_str(&mut sources, "t.yaml", text.to_string(), Limits::default());
    let diags = validate(Dialect::Ags, &loaded.doc.unwrap());
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].code, "AG003");
    assert_eq!(diags[0].help.as_deref(), Some("did you mean `depends_on`?"));
    assert_eq!(diags[0].pointer.as_deref(), Some("/nodes/a/depnds_on"));
}

#[test]
fn forbidden_combination_names_the_discriminator() {
    let text = "schema: agent-graph.action.v1\nid: p\nrunner: command\neffect: read\n\
command: make\nskill: s/SKILL.md\n";
    let got = run(Dialect::AgentGraph(AgentGraphKind::Action), text);
    assert_eq!(
        got,
        vec![(
            "schema-invalid".into(),
            "6:1".into(),
            "field `skill` is not allowed here when `runner` is `command`".into()
        )]
    );
}

/// AG002 once, and the schema's AG001 beside it where the version also fails the schema (the
/// pattern, the type), as the AGS reference validators give both (`agc explain AG002`).
#[test]
fn ags_version_fails_closed_once() {
    let base = "kind: AgenticGraph\nid: g\ntitle: t\nobjective: o\nentrypoints: [a]\n\
nodes:\n  a: {title: A, description: d}\n";
    for (version, help, beside) in [
        ("\"1.1\"", "newer minor", false),
        ("\"1.00\"", "without leading zeros", false),
        ("\"2.0\"", "write", true),
        ("1.0", "quote", true),
    ] {
        let mut sources = SourceMap::new();
        let text = format!("ags_version: {version}\n{base}");
        let (_, loaded) = load_str(&mut sources, "t.yaml", text, Limits::default());
        let diags = validate(Dialect::Ags, &loaded.doc.unwrap());
        let codes: Vec<&str> = diags.iter().map(|d| d.code).collect();
        let want: &[&str] = if beside {
            &["AG002", "AG001"]
        } else {
            &["AG002"]
        };
        assert_eq!(codes, want, "{version}: {diags:?}");
        assert_eq!(
            diags[1..]
                .iter()
                .filter_map(|d| d.pointer.as_deref())
                .collect::<Vec<_>>(),
            vec!["/ags_version"; diags.len() - 1]
        );
        assert_eq!(diags[0].span.map(|s| s.start), Some(13));
        assert!(
            diags[0].help.as_deref().unwrap().contains(help),
            "{version}"
        );
    }
}

#[test]
fn missing_field_lands_on_the_key_of_the_object() {
    let got = run(
        Dialect::Agh,
        "apiVersion: agh.loop/v1\nkind: Loop\ncontract: {}\ngraph:\n  edges: []\n",
    );
    assert_eq!(
        got,
        vec![(
            "AGC021".into(),
            "4:1".into(),
            "`graph` is missing required field `nodes`".into()
        )]
    );
}

#[test]
fn version_specific_agh_keys_are_refused_in_the_other_version() {
    let text = "apiVersion: agh.loop/v1\nkind: Loop\ncontract:\n  runtime_defaults: {}\n\
graph: {nodes: []}\n";
    assert_eq!(
        run(Dialect::Agh, text),
        vec![(
            "AGC022".into(),
            "4:3".into(),
            "field `runtime_defaults` is not allowed here".into()
        )]
    );
    let mut sources = SourceMap::new();
    let (_, loaded) = load_str(&mut sources, "t.yaml", text.to_string(), Limits::default());
    let diags = validate(Dialect::Agh, &loaded.doc.unwrap());
    assert!(
        diags[0]
            .help
            .as_deref()
            .unwrap()
            .contains("compozy.loop/v1")
    );
}

#[test]
fn deep_documents_validate_without_trouble() {
    // Nested sub-loop bodies, as deep as the loader allows: validation must not overflow.
    let mut text = String::from("apiVersion: agh.loop/v1\nkind: Loop\ncontract: {}\ngraph: ");
    for _ in 0..30 {
        text.push_str("{nodes: [{id: s, class: control, kind: sub-loop, body: ");
    }
    text.push_str("{nodes: []}");
    for _ in 0..30 {
        text.push_str("}]}");
    }
    text.push('\n');
    assert_eq!(run(Dialect::Agh, &text), vec![]);
}

#[test]
fn rule_messages_name_the_field_and_the_limit() {
    let text = "ags_version: \"1.0\"\nkind: AgenticGraph\nid: g\ntitle: ''\nobjective: o\n\
entrypoints: [Bad Id]\nnodes:\n  a: {title: A, description: d, intelligence: {tier: standard, \
level: 7, hints: [creative, creative]}}\nedges:\n  - {from: a, to: a, kind: conditional}\n";
    let want = [
        ("AG001", "4:8", "`title` must not be empty"),
        (
            "AG001",
            "6:15",
            "`Bad Id` is not a valid node id (pattern `^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$`)",
        ),
        ("AG001", "8:71", "`level` must be at most 4, found `7`"),
        (
            "AG001",
            "8:81",
            "`hints` lists the same value more than once",
        ),
        ("AG001", "10:6", "a `conditional` edge needs a `when` guard"),
    ];
    let got = run(Dialect::Ags, text);
    let got: Vec<(&str, &str, &str)> = got
        .iter()
        .map(|(c, p, m)| (c.as_str(), p.as_str(), m.as_str()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn exactly_one_of_several_fields() {
    let head = "ags_version: \"1.0\"\nkind: AgenticGraph\nid: g\ntitle: t\nobjective: o\n\
entrypoints: [l]\nnodes:\n  l:\n    type: loop\n    title: L\n    description: d\n";
    let both = format!(
        "{head}    loop: {{mode: repeat, max_iterations: 2, use: f, body: {{entrypoints: [a], \
nodes: {{a: {{title: A, description: d}}}}}}}}\n"
    );
    let got = run(Dialect::Ags, &both);
    assert_eq!(
        got,
        vec![(
            "AG001".into(),
            "12:5".into(),
            "`loop` takes exactly one of `body`, `use`; it sets `body` and `use`".into()
        )]
    );
    let none = format!("{head}    loop: {{mode: repeat, max_iterations: 2}}\n");
    assert_eq!(
        run(Dialect::Ags, &none),
        vec![(
            "AG001".into(),
            "12:5".into(),
            "`loop` needs one of `body`, `use`".into()
        )]
    );
}

#[test]
fn awp_signature_blocks_are_not_schema_fields() {
    let body = "state_schema: {type: object, properties: {a: {type: object}}}\n\
nodes: [{id: s, type: start}]\nedges: []\n";
    let signed = format!(
        "document: {{schema: s, name: n, version: '1', signature: {{alg: EdDSA}}}}\n\
signature: {{kid: k}}\n{body}"
    );
    assert_eq!(run(Dialect::Awp, &signed), vec![]);
    let other = format!("document: {{schema: s, name: n, version: '1', signer: x}}\n{body}");
    assert_eq!(
        run(Dialect::Awp, &other),
        vec![(
            "schema".into(),
            "1:46".into(),
            "unknown field `signer` (schema keyword `additionalProperties`)".into()
        )]
    );
}

#[test]
fn a_misspelt_node_type_is_reported_once() {
    // `type: gat` with a `gate:` block: the block is not "not allowed on a `gat` node" (AG101),
    // the type is wrong (AG004). Another node's AG101 is still reported.
    let text = "ags_version: \"1.0\"\nkind: AgenticGraph\nid: g\ntitle: t\nobjective: o\n\
entrypoints: [a]\nnodes:\n  a:\n    type: gat\n    title: A\n    description: d\n    gate:\n      \
mode: approve\n      prompt: Go?\n  b:\n    type: task\n    title: B\n    description: d\n    \
depends_on: [a]\n    gate:\n      mode: approve\n      prompt: Go?\n";
    let codes: Vec<String> = run(Dialect::Ags, text).into_iter().map(|d| d.0).collect();
    assert_eq!(codes, ["AG004", "AG101"], "{:?}", run(Dialect::Ags, text));
    let msgs = run(Dialect::Ags, text);
    assert!(
        msgs[1]
            .2
            .contains("a `task` node cannot have a `gate:` block"),
        "{msgs:?}"
    );
}
