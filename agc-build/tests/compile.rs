//! What a build script sees: the files written into OUT_DIR, `rerun-if-changed` for the
//! document and every file it references, diagnostics as cargo warnings and errors.

use agc_build::{Builder, Error};
use std::path::Path;

const CHILD: &str = "ags_version: \"1.0\"\nkind: AgenticGraph\nid: kid\ntitle: Child\nobjective: Be referenced.\nconstraints: {max_cost_usd: 1}\nentrypoints: [work]\nnodes:\n  work:\n    title: Work\n    description: The child's only node.\n    outputs:\n      result: {type: string, description: The result.}\noutputs:\n  result: {type: string, description: Out., from: nodes.work.outputs.result}\n";

fn parent(uri: &str) -> String {
    format!(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: parent\ntitle: Parent\nobjective: Reference a child.\nconstraints: {{max_cost_usd: 1}}\nentrypoints: [run]\nnodes:\n  run:\n    type: subgraph\n    title: Run\n    description: Runs the child.\n    subgraph:\n      ref:\n        uri: \"{uri}\"\n        expected_id: kid\n"
    )
}

/// Runs the builder; (result, the directives it printed).
fn build(b: &Builder) -> (Result<std::path::PathBuf, Error>, String) {
    let mut out = Vec::new();
    let r = b.compile_to(&mut out);
    (r, String::from_utf8(out).expect("UTF-8 directives"))
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir_all(dir.path().join("graphs/sub")).unwrap();
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    dir
}

#[test]
fn a_document_and_its_references_are_watched_and_the_module_written() {
    let ws = workspace();
    let root = ws.path();
    std::fs::write(root.join("graphs/sub/child.agraph.yaml"), CHILD).unwrap();
    std::fs::write(
        root.join("graphs/main-flow.agraph.yaml"),
        parent("./sub/child.agraph.yaml"),
    )
    .unwrap();
    let doc = root.join("graphs/main-flow.agraph.yaml");
    let b = Builder::new(&doc).out_dir(root.join("out")).root(root);
    let (written, directives) = build(&b);
    let written = written.expect("compiles");
    assert_eq!(written, root.join("out/main_flow.rs"));
    let watched: Vec<&str> = directives
        .lines()
        .filter_map(|l| l.strip_prefix("cargo::rerun-if-changed="))
        .collect();
    assert_eq!(watched.len(), 2, "{directives}");
    assert!(
        Path::new(watched[0]).ends_with("graphs/main-flow.agraph.yaml"),
        "{directives}"
    );
    assert!(
        Path::new(watched[1]).ends_with("sub/child.agraph.yaml"),
        "{directives}"
    );
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(
        text.contains("\npub mod main_flow {\n#![allow(dead_code)]\n"),
        "{text:.300}"
    );
    assert!(text.contains("include_str!(\"main_flow.plan.json\")"));
    let plan = std::fs::read_to_string(root.join("out/main_flow.plan.json")).unwrap();
    assert!(plan.contains("\"format\": \"agc.plan/v5\""), "{plan:.200}");
    // Again, unchanged: the files keep their time stamps (nothing downstream rebuilds).
    let before = std::fs::metadata(&written).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let (again, _) = build(&b.clone().module("main_flow"));
    assert_eq!(again.expect("compiles"), written);
    assert_eq!(
        std::fs::metadata(&written).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn errors_are_cargo_errors_and_fail_the_build() {
    let ws = workspace();
    let root = ws.path();
    let doc = root.join("graphs/broken.agraph.yaml");
    std::fs::write(&doc, parent("./sub/missing.agraph.yaml")).unwrap();
    let (r, directives) = build(&Builder::new(&doc).out_dir(root.join("out")).root(root));
    match r {
        Err(Error::Diagnostics { errors, .. }) => assert_eq!(errors, 1, "{directives}"),
        other => panic!("{other:?}\n{directives}"),
    }
    assert!(
        directives.contains("cargo::error=error[AGC081]"),
        "{directives}"
    );
    // The document is watched all the same: fixing it reruns the build script.
    assert!(
        directives.starts_with("cargo::rerun-if-changed="),
        "{directives}"
    );
    assert!(
        std::fs::read_dir(root.join("out"))
            .unwrap()
            .next()
            .is_none()
    );
}

#[test]
fn warnings_are_cargo_warnings_unless_strict() {
    let ws = workspace();
    let root = ws.path();
    // Without `constraints.max_cost_usd` the graph bounds its cost nowhere: AG908, a warning.
    let doc = root.join("graphs/child.agraph.yaml");
    let text = CHILD.replace("constraints: {max_cost_usd: 1}\n", "");
    std::fs::write(&doc, text).unwrap();
    let (r, directives) = build(&Builder::new(&doc).out_dir(root.join("out")).root(root));
    assert!(r.is_ok(), "{r:?}\n{directives}");
    let warning = directives
        .lines()
        .find(|l| l.starts_with("cargo::warning=warning["))
        .unwrap_or_else(|| panic!("no warning in\n{directives}"))
        .to_string();
    assert!(!directives.contains("cargo::error="), "{directives}");
    let (r, directives) = build(
        &Builder::new(&doc)
            .out_dir(root.join("out"))
            .root(root)
            .strict(true),
    );
    assert!(matches!(r, Err(Error::Diagnostics { .. })), "{r:?}");
    let as_error = warning.replace("cargo::warning=", "cargo::error=");
    assert!(directives.contains(&as_error), "{directives}");
}

#[test]
fn the_module_name_is_checked_and_out_dir_required() {
    let (r, _) = build(&Builder::new("x.agraph.yaml").module("type").out_dir("."));
    assert!(
        matches!(r, Err(Error::Module(ref m)) if m == "type"),
        "{r:?}"
    );
    let (r, _) = build(&Builder::new("x.agraph.yaml").module("Release").out_dir("."));
    assert!(matches!(r, Err(Error::Module(_))), "{r:?}");
    if std::env::var_os("OUT_DIR").is_none() {
        let (r, _) = build(&Builder::new("x.agraph.yaml"));
        assert!(matches!(r, Err(Error::NoOutDir)), "{r:?}");
    }
}
