//! `subgraph.ref`: files are read only inside the workspace root, verified (`integrity`,
//! `expected_id`), loaded once, and cycles across files are AG131. Each test builds its own
//! workspace in a temporary folder.

mod common;

use agc::check::{CheckOptions, check_path};
use agc::source::SourceMap;
use common::TempDir;
use std::path::Path;

fn workspace(name: &str) -> TempDir {
    let dir = TempDir::new(&format!("agc-refs-{name}-"));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    dir
}

fn child(id: &str) -> String {
    format!(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: {id}\ntitle: Child\nobjective: Be referenced.\nconstraints: {{max_cost_usd: 1}}\nentrypoints: [work]\nnodes:\n  work:\n    title: Work\n    description: The child's only node.\n    outputs:\n      result: {{type: string, description: The result.}}\noutputs:\n  result: {{type: string, description: Out., from: nodes.work.outputs.result}}\n"
    )
}

fn parent(uri: &str, extra: &str) -> String {
    format!(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: parent\ntitle: Parent\nobjective: Reference a child.\nconstraints: {{max_cost_usd: 1}}\nentrypoints: [run]\nnodes:\n  run:\n    type: subgraph\n    title: Run\n    description: Runs the child.\n    subgraph:\n      ref:\n        uri: \"{uri}\"\n{extra}"
    )
}

/// Error codes from checking `file` with `root` as the workspace root.
fn errors(root: &Path, file: &Path) -> Vec<&'static str> {
    let mut sources = SourceMap::new();
    let opts = CheckOptions {
        root: Some(root.to_path_buf()),
        ..CheckOptions::default()
    };
    check_path(&mut sources, file, &file.to_string_lossy(), &opts)
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect()
}

#[test]
fn a_local_reference_is_loaded_and_lowered() {
    let ws = workspace("ok");
    std::fs::write(ws.join("sub/child.agraph.yaml"), child("kid")).unwrap();
    let p = ws.join("parent.agraph.yaml");
    std::fs::write(
        &p,
        parent("./sub/child.agraph.yaml", "        expected_id: kid\n"),
    )
    .unwrap();
    assert_eq!(errors(&ws, &p), Vec::<&str>::new());
    let mut sources = SourceMap::new();
    let opts = CheckOptions {
        root: Some(ws.to_path_buf()),
        ..CheckOptions::default()
    };
    let (compiled, _) = agc::compile::compile_file(&mut sources, &p, "parent", &opts);
    let g = compiled.into_iter().next().expect("compiles").graph;
    let ids: Vec<&str> = g.nodes.iter().map(|n| n.scoped_id.as_str()).collect();
    assert_eq!(ids, ["run", "run/work"]);
}

#[test]
fn escaping_the_root_is_refused() {
    let ws = workspace("escape");
    let inner = ws.join("sub");
    std::fs::write(ws.join("outside.agraph.yaml"), child("out")).unwrap();
    let p = inner.join("parent.agraph.yaml");
    std::fs::write(&p, parent("../outside.agraph.yaml", "")).unwrap();
    // With the root at `sub/`, `..` climbs out.
    assert_eq!(errors(&inner, &p), ["AGC081"]);
    // With the root one level up, the same reference is fine.
    assert_eq!(errors(&ws, &p), Vec::<&str>::new());
    // A missing file is refused too.
    std::fs::write(&p, parent("./nowhere.agraph.yaml", "")).unwrap();
    assert_eq!(errors(&ws, &p), ["AGC081"]);
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_root_are_refused() {
    let ws = workspace("symlink");
    let elsewhere = workspace("symlink-target");
    std::fs::write(elsewhere.join("secret.agraph.yaml"), child("secret")).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.join("secret.agraph.yaml"),
        ws.join("sub/link.agraph.yaml"),
    )
    .unwrap();
    let p = ws.join("parent.agraph.yaml");
    std::fs::write(&p, parent("./sub/link.agraph.yaml", "")).unwrap();
    assert_eq!(errors(&ws, &p), ["AGC081"]);
}

#[test]
fn integrity_and_expected_id_are_verified() {
    let ws = workspace("verify");
    let text = child("kid");
    std::fs::write(ws.join("child.agraph.yaml"), &text).unwrap();
    let mut sources = SourceMap::new();
    let (_, loaded) = agc::source::load::load_str(&mut sources, "c", text, Default::default());
    let digest = agc::canon::graph_digest(&loaded.doc.unwrap().value).unwrap();
    let p = ws.join("parent.agraph.yaml");
    std::fs::write(
        &p,
        parent(
            "./child.agraph.yaml",
            &format!("        integrity: \"{digest}\"\n        expected_id: kid\n"),
        ),
    )
    .unwrap();
    assert_eq!(errors(&ws, &p), Vec::<&str>::new());
    let wrong = "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    std::fs::write(
        &p,
        parent(
            "./child.agraph.yaml",
            &format!("        integrity: \"{wrong}\"\n"),
        ),
    )
    .unwrap();
    assert_eq!(errors(&ws, &p), ["RT051"]);
    std::fs::write(
        &p,
        parent("./child.agraph.yaml", "        expected_id: someone-else\n"),
    )
    .unwrap();
    assert_eq!(errors(&ws, &p), ["RT052"]);
}

#[test]
fn reference_cycles_across_files_are_ag131() {
    let ws = workspace("cycle");
    let a = ws.join("a.agraph.yaml");
    std::fs::write(&a, parent("./b.agraph.yaml", "")).unwrap();
    std::fs::write(
        ws.join("b.agraph.yaml"),
        parent("./a.agraph.yaml", "").replace("id: parent", "id: b"),
    )
    .unwrap();
    let found = errors(&ws, &a);
    assert!(
        !found.is_empty() && found.iter().all(|c| *c == "AG131"),
        "{found:?}"
    );
}

#[test]
fn a_reference_to_another_dialect_is_refused() {
    let ws = workspace("dialect");
    std::fs::write(
        ws.join("loop.yaml"),
        "apiVersion: agh.loop/v1\nkind: Loop\n",
    )
    .unwrap();
    let p = ws.join("parent.agraph.yaml");
    std::fs::write(&p, parent("./loop.yaml", "")).unwrap();
    let found = errors(&ws, &p);
    assert!(found.contains(&"AGC085"), "{found:?}");
}

#[test]
fn build_refuses_documents_that_hold_no_graph() {
    // Every dialect compiles now; an Agent Graph action describes a step, not a graph.
    let ws = workspace("action-build");
    let f = ws.join("review.yaml");
    std::fs::write(
        &f,
        "schema: agent-graph.action.v1\nid: review\nrunner: agent\neffect: read\nskill: skills/review/SKILL.md\n",
    )
    .unwrap();
    let mut sources = SourceMap::new();
    let (plan, diags) =
        agc::compile::build_file(&mut sources, &f, "review.yaml", &CheckOptions::default());
    assert!(plan.is_none());
    let codes: Vec<&str> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect();
    assert_eq!(codes, ["AGC084"], "{diags:?}");
    assert!(diags[0].message.contains("describes no graph"));
}

/// Error codes from checking `file` with the root found from the document.
fn errors_detected(file: &Path) -> Vec<&'static str> {
    let mut sources = SourceMap::new();
    check_path(
        &mut sources,
        file,
        &file.to_string_lossy(),
        &CheckOptions::default(),
    )
    .into_iter()
    .filter(|d| d.is_error())
    .map(|d| d.code)
    .collect()
}

#[test]
fn the_root_is_found_from_the_document() {
    let ws = workspace("detect");
    std::fs::create_dir_all(ws.join("lib")).unwrap();
    std::fs::write(ws.join("lib/child.agraph.yaml"), child("kid")).unwrap();
    std::fs::write(ws.join("sub/sibling.agraph.yaml"), child("sib")).unwrap();
    let p = ws.join("sub/parent.agraph.yaml");
    // A sibling is inside the document's own folder: found with no marker at all, wherever
    // the current folder is.
    std::fs::write(&p, parent("./sibling.agraph.yaml", "")).unwrap();
    assert_eq!(errors_detected(&p), Vec::<&str>::new());
    // Without a marker above, the root is the document's folder: `..` climbs out.
    std::fs::write(&p, parent("../lib/child.agraph.yaml", "")).unwrap();
    if !agc::front::ROOT_MARKERS
        .iter()
        .any(|m| ws.ancestors().any(|a| a.join(m).exists()))
    {
        assert_eq!(errors_detected(&p), ["AGC081"]);
    }
    // Each marker makes its folder the root.
    for marker in agc::front::ROOT_MARKERS {
        let m = ws.join(marker);
        std::fs::write(&m, "").unwrap();
        assert_eq!(errors_detected(&p), Vec::<&str>::new(), "{marker}");
        std::fs::remove_file(&m).unwrap();
    }
    // A `.git` folder (not only a worktree's `.git` file) counts, and `--root` still wins.
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    assert_eq!(errors_detected(&p), Vec::<&str>::new());
    assert_eq!(errors(&ws.join("sub"), &p), ["AGC081"]);
    // A relative document path works the same (the root is kept relative to it).
    assert_eq!(
        agc::front::detect_root(Path::new("wf.agraph.yaml")),
        Path::new(".")
    );
}
