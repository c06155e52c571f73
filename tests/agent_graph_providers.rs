//! Invalid Agent Graph Providers, one folder per loader code under
//! `tests/fixtures/agent-graph/providers/<code>/`. Each folder's `provider.yml` starts with
//! `# EXPECT: CODE` and `# AT: FILE:LINE` (FILE relative to the folder). Checking the Provider
//! must report that code, and only errors of that code, on that line of that file. (The files
//! end in `.yml` so the single-file fixture harness leaves them alone.)

mod common;

use agc::check::{CheckOptions, check_path};
use agc::source::SourceMap;
use common::TempDir;
use std::path::Path;

fn check(dir: &Path) -> Result<(), String> {
    let manifest = dir.join("provider.yml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
    let mut lines = text.lines();
    let code = lines
        .next()
        .and_then(|l| l.strip_prefix("# EXPECT: "))
        .ok_or("no `# EXPECT: CODE` line")?
        .trim();
    let (file, line) = lines
        .next()
        .and_then(|l| l.strip_prefix("# AT: "))
        .and_then(|l| l.trim().rsplit_once(':'))
        .ok_or("no `# AT: FILE:LINE` line")?;
    let line: u32 = line.parse().map_err(|_| "bad AT line")?;
    let mut sources = SourceMap::new();
    let display = manifest.to_string_lossy().replace('\\', "/");
    let diags = check_path(&mut sources, &manifest, &display, &CheckOptions::default());
    let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
    let listing: Vec<String> = errors
        .iter()
        .map(|d| {
            let at = d.span.map(|s| {
                let f = sources.get(s.file);
                format!("{}:{}", f.name, f.line_col(s.start).line)
            });
            format!("{} at {}", d.code, at.unwrap_or_default())
        })
        .collect();
    if errors.is_empty() || errors.iter().any(|d| d.code != code) {
        return Err(format!("expected only {code}, got {listing:?}"));
    }
    let hit = errors.iter().any(|d| {
        d.span.is_some_and(|s| {
            let f = sources.get(s.file);
            f.name.ends_with(&format!("/{file}")) && f.line_col(s.start).line == line
        })
    });
    if hit {
        Ok(())
    } else {
        Err(format!("expected {code} at {file}:{line}, got {listing:?}"))
    }
}

#[test]
fn every_invalid_provider_reports_its_code_on_its_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agent-graph/providers");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("provider fixtures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 20, "provider fixtures missing");
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| check(d).err().map(|e| format!("{}: {e}", d.display())))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A graph file that is a symlink to a file outside the provider root.
#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_provider_is_refused() {
    let tmp = TempDir::new("agc-ag-symlink-");
    let provider = tmp.join("provider");
    std::fs::create_dir_all(provider.join("graphs")).unwrap();
    std::fs::write(
        tmp.join("outside.yml"),
        "schema: agent-graph.graph.v1\nid: main\nentrypoints: {default: done}\n\
         nodes: [{id: done, kind: terminal, terminalOutcome: completed}]\nedges: []\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(tmp.join("outside.yml"), provider.join("graphs/main.yml")).unwrap();
    std::fs::write(
        provider.join("provider.yml"),
        "schema: agent-graph.provider.v1\nid: fixture\nversion: 1.0.0\ngraphs:\n  - graphs/main.yml\n",
    )
    .unwrap();
    let mut sources = SourceMap::new();
    let manifest = provider.join("provider.yml");
    let diags = check_path(
        &mut sources,
        &manifest,
        "provider.yml",
        &CheckOptions::default(),
    );
    let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code, "path-symlink-outside-provider");
    let s = errors[0].span.expect("span");
    assert_eq!(sources.get(s.file).line_col(s.start).line, 5);
}

/// All findings at once: problems in two graph files and the catalog are all reported, where
/// upstream stops at the first.
#[test]
fn every_problem_is_reported_not_only_the_first() {
    let tmp = TempDir::new("agc-ag-many-");
    std::fs::create_dir_all(tmp.join("graphs")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(tmp.join(name), text).unwrap();
    write(
        "provider.yml",
        "schema: agent-graph.provider.v1\nid: fixture\nversion: 1.0.0\n\
         graphs: [graphs/a.yml, graphs/b.yml]\ncatalogs: {codes: codes.yml}\n",
    );
    write(
        "codes.yml",
        "schema: agent-graph.code-catalog.v1\ncodes:\n\
         - {code: route.a.x, kind: route-reason, summary: X}\n\
         - {code: route.a.x, kind: route-reason, summary: Y}\n",
    );
    write(
        "graphs/a.yml",
        "schema: agent-graph.graph.v1\nid: a\nentrypoints: {default: x}\nnodes:\n\
         - {id: x, kind: action, action: actions/x.yml, reasonCode: route.a.x}\n\
         - {id: done, kind: terminal, terminalOutcome: completed}\n\
         edges: [{from: x, to: done}, {from: done, to: x}]\n",
    );
    write(
        "graphs/b.yml",
        "schema: agent-graph.graph.v1\nid: b\nentrypoints: {default: y}\nnodes:\n\
         - {id: y, kind: subgraph, graph: c, entry: default}\n\
         - {id: done, kind: terminal, terminalOutcome: completed}\n\
         edges: [{from: y, to: done}]\n",
    );
    let mut sources = SourceMap::new();
    let manifest = tmp.join("provider.yml");
    let diags = check_path(
        &mut sources,
        &manifest,
        "provider.yml",
        &CheckOptions::default(),
    );
    let mut codes: Vec<&str> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect();
    codes.sort();
    assert_eq!(
        codes,
        [
            "code-catalog-code-duplicate",
            "file-missing",
            "graph-flow-cycle",
            "graph-terminal-edge-invalid",
            "subgraph-missing"
        ]
    );
}

/// A graph that fails its schema is still known by its id: calls to it report nothing more.
#[test]
fn a_schema_invalid_graph_does_not_cascade_into_subgraph_missing() {
    let tmp = TempDir::new("agc-ag-cascade-");
    std::fs::create_dir_all(tmp.join("graphs")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(tmp.join(name), text).unwrap();
    write(
        "provider.yml",
        "schema: agent-graph.provider.v1\nid: fixture\nversion: 1.0.0\n\
         graphs: [graphs/main.yml, graphs/child.yml]\n",
    );
    write(
        "graphs/main.yml",
        "schema: agent-graph.graph.v1\nid: main\nentrypoints: {default: call}\nnodes:\n\
         - {id: call, kind: subgraph, graph: child, entry: default}\n\
         - {id: done, kind: terminal, terminalOutcome: completed}\n\
         edges: [{from: call, to: done}]\n",
    );
    write(
        "graphs/child.yml",
        "schema: agent-graph.graph.v1\nid: child\nentrypoints: {default: end}\nnodes:\n\
         - {id: end, kind: terminal, terminalOutcome: finished}\nedges: []\n",
    );
    let mut sources = SourceMap::new();
    let manifest = tmp.join("provider.yml");
    let diags = check_path(
        &mut sources,
        &manifest,
        "provider.yml",
        &CheckOptions::default(),
    );
    let codes: Vec<&str> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect();
    assert!(
        !codes.is_empty() && codes.iter().all(|c| *c == "schema-invalid"),
        "{codes:?}"
    );
}
