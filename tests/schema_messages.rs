//! The wording of the detection and schema diagnostics, over this phase's fixtures: code,
//! position, message, help and labels, as users read them. A change of wording shows up here.

use agc::check::{CheckOptions, check_text};
use agc::source::SourceMap;
use std::fmt::Write;
use std::path::Path;

/// The codes of the detection and schema phases; fixtures for other codes are not listed.
const CODES: &[&str] = &[
    "AG001",
    "AG002",
    "AG003",
    "AG004",
    "AG005",
    "AG101",
    "AG102",
    "AG103",
    "AG104",
    "AGC020",
    "AGC021",
    "AGC022",
    "AGC023",
    "AGC024",
    "schema-invalid",
    "schema",
    "node_id_invalid",
    "unknown_control_kind",
    "unknown_source_kind",
    "unknown_terminal_state",
    "file_import_parse_required",
    "watch_kind_required",
];

#[test]
fn schema_phase_messages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files = Vec::new();
    for dir in ["ags", "agent-graph", "awp", "agh", "detect"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries {
            let path = e.unwrap().path();
            if path.is_dir() {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("# EXPECT: "));
            // The first code (`# EXPECT: AG101 AG001` lists the codes given beside it too).
            let code = code.and_then(|c| c.split_whitespace().next());
            if code.is_some_and(|c| CODES.contains(&c)) {
                files.push((
                    format!("{dir}/{}", path.file_name().unwrap().to_string_lossy()),
                    text,
                ));
            }
        }
    }
    files.sort();
    let mut out = String::new();
    for (name, text) in files {
        let mut sources = SourceMap::new();
        let diags = check_text(&mut sources, &name, text, &CheckOptions::default());
        writeln!(out, "{name}").unwrap();
        for d in diags {
            let at = |s: agc::source::Span| {
                let lc = sources.get(s.file).line_col(s.start);
                format!("{}:{}", lc.line, lc.column)
            };
            let pos = d.span.map(at).unwrap_or_default();
            writeln!(out, "  {} {pos} {}", d.code, d.message).unwrap();
            if let Some(h) = &d.help {
                writeln!(out, "    help: {h}").unwrap();
            }
            for l in &d.labels {
                writeln!(out, "    label {}: {}", at(l.span), l.message).unwrap();
            }
        }
    }
    insta::assert_snapshot!(out);
}

#[test]
fn a_number_the_loader_refused_is_not_reported_again_by_the_schema() {
    // `1e400` is AGC011 and becomes null; the schema's "must be a number, found null" at the
    // same place would only repeat it. Elsewhere the schema still speaks.
    for (value, codes) in [
        ("1e400", vec!["AGC011"]),
        (".inf", vec!["AGC011"]),
        ("\"many\"", vec!["AG001"]),
    ] {
        let text = format!(
            "ags_version: \"1.0\"\nkind: AgenticGraph\nid: t/n\ntitle: N\nobjective: o\n\
             constraints:\n  max_cost_usd: {value}\nentrypoints: [a]\nnodes:\n  a: {{title: A, description: A.}}\n"
        );
        let mut sources = SourceMap::new();
        let diags = check_text(
            &mut sources,
            "t.agraph.yaml",
            text,
            &CheckOptions::default(),
        );
        let found: Vec<_> = diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.code)
            .collect();
        assert_eq!(found, codes, "{value}: {diags:?}");
    }
}
