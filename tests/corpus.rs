//! The real documents in `../shared/corpus/<dialect>/` (read in place, never copied): each graph
//! document loads, is detected as the dialect its folder names, and the published valid
//! documents pass their schema with no diagnostic at all.
//!
//! Which corpus files are workflow documents is decided by folder and marker ([`is_document`]):
//! data files (`.yaml`, `.yml`, `.json`) except JSON Schemas, run records, traces, conformance
//! vectors and results, manifests, and the two Agent Graph files that are inputs of other tools
//! (a provider registry and a legacy workflow for `import`).
//!
//! When the corpus folder is absent the tests print a notice and pass.

use agc::check::{CheckOptions, check_source};
use agc::dialect::{self, Dialect};
use agc::source::{Limits, SourceMap, load};
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if root.is_dir() {
        Some(root)
    } else {
        eprintln!("notice: {} is absent; corpus tests skipped", root.display());
        None
    }
}

fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable corpus dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Whether a corpus file (path relative to `corpus/<folder>/`) is a workflow document.
fn is_document(folder: &str, rel: &str) -> bool {
    let data = [".yaml", ".yml", ".json"].iter().any(|e| rel.ends_with(e));
    if !data || rel.ends_with(".schema.json") {
        return false;
    }
    let under = |dir: &str| rel.starts_with(dir) || rel.contains(&format!("/{dir}"));
    match folder {
        // schema/: JSON Schemas; conformance/: result records; the golden trace is a run.
        "ags" => {
            !under("schema/") && !under("conformance/") && !rel.ends_with("golden-minimal.json")
        }
        // schemas/ and _derived/: not documents; case-studies/: replay data; registry.yaml and
        // legacy-workflow.yaml are inputs of the registry and `import` commands.
        "agent-graph" => {
            !under("schemas/")
                && !under("_derived/")
                && !under("case-studies/")
                && !rel.ends_with("registry.yaml")
                && !rel.ends_with("legacy-workflow.yaml")
        }
        // Only workflow definitions: not the schemas, the MCP manifests, the OpenAPI file, the
        // conformance vectors (which name definitions by path) or the traces.
        "awp" => rel.ends_with(".workflow.json"),
        // Loop definitions; extension manifests are not.
        "agh" => rel.ends_with("loop.yaml"),
        _ => false,
    }
}

struct Doc {
    rel: String,
    dialect: Option<Dialect>,
    diags: Vec<String>,
}

fn check_folder(root: &Path, folder: &str) -> Vec<Doc> {
    let base = root.join(folder);
    let mut out = Vec::new();
    for path in files(&base) {
        let rel = path
            .strip_prefix(&base)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if !is_document(folder, &rel) {
            continue;
        }
        let mut sources = SourceMap::new();
        let (file, loaded) = load::load_path(&mut sources, &path, &rel, Limits::default())
            .unwrap_or_else(|d| panic!("{rel}: {}", d.message));
        let checked = check_source(
            &mut sources,
            file,
            loaded,
            &CheckOptions {
                root: path.parent().map(Path::to_path_buf),
                ..CheckOptions::default()
            },
            Some(&path),
        );
        let diags = checked
            .diags
            .iter()
            // Advisory warnings (AG9xx) are not failures of the documents.
            .filter(|d| d.is_error())
            .map(|d| {
                let lc = d.span.map(|s| sources.get(s.file).line_col(s.start));
                let at = lc
                    .map(|lc| format!("{}:{}", lc.line, lc.column))
                    .unwrap_or_default();
                format!("{} {at} {}", d.code, d.message)
            })
            .collect();
        out.push(Doc {
            rel,
            dialect: checked.dialect,
            diags,
        });
    }
    out
}

#[test]
fn every_corpus_document_is_detected_as_its_folder_dialect() {
    let Some(root) = corpus() else { return };
    let mut counts = Vec::new();
    for folder in ["ags", "agent-graph", "awp", "agh"] {
        let docs = check_folder(&root, folder);
        assert!(!docs.is_empty(), "no documents in {folder}");
        for d in &docs {
            let name = d.dialect.map(Dialect::name);
            assert_eq!(name, Some(folder), "{folder}/{}: {:?}", d.rel, d.diags);
        }
        counts.push((folder, docs.len()));
    }
    eprintln!("documents per dialect: {counts:?}");
}

#[test]
fn agent_graph_kind_comes_from_the_schema_marker() {
    let Some(root) = corpus() else { return };
    for d in check_folder(&root, "agent-graph") {
        let text = std::fs::read_to_string(root.join("agent-graph").join(&d.rel)).unwrap();
        let Some(Dialect::AgentGraph(kind)) = d.dialect else {
            panic!("{}: not agent-graph", d.rel)
        };
        assert!(text.contains(&kind.marker()), "{}: {kind:?}", d.rel);
    }
}

#[test]
fn non_documents_in_the_corpus_are_not_detected() {
    let Some(root) = corpus() else { return };
    for rel in [
        "agent-graph/examples/provider-registry/registry.yaml",
        "agent-graph/examples/importing/legacy-workflow.yaml",
    ] {
        let mut sources = SourceMap::new();
        let (_, loaded) =
            load::load_path(&mut sources, &root.join(rel), rel, Limits::default()).unwrap();
        let err = dialect::detect(&loaded.doc.unwrap()).unwrap_err();
        assert_eq!(err.code, "AGC020", "{rel}");
    }
}

fn assert_clean(docs: &[Doc], folder: &str, pick: impl Fn(&str) -> bool) -> usize {
    let mut n = 0;
    let mut bad = Vec::new();
    for d in docs.iter().filter(|d| pick(&d.rel)) {
        n += 1;
        if !d.diags.is_empty() {
            bad.push(format!("{folder}/{}:\n  {}", d.rel, d.diags.join("\n  ")));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    n
}

#[test]
fn ags_examples_and_third_party_graphs_pass_the_schema() {
    let Some(root) = corpus() else { return };
    let docs = check_folder(&root, "ags");
    let n = assert_clean(&docs, "ags", |r| {
        r.starts_with("examples/") || r.starts_with("third_party/")
    });
    assert!(n >= 13, "only {n} documents");
}

/// Each upstream invalid fixture produces exactly its `# EXPECT` code as its errors (the
/// conformance rule: one intended defect per fixture; agc adds no other error).
#[test]
fn ags_invalid_fixtures_produce_exactly_their_code() {
    let Some(root) = corpus() else { return };
    let mut n = 0;
    for d in check_folder(&root, "ags")
        .iter()
        .filter(|d| d.rel.starts_with("invalid/"))
    {
        let text = std::fs::read_to_string(root.join("ags").join(&d.rel)).unwrap();
        let expect = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# EXPECT: "))
            .unwrap_or_else(|| panic!("{}: no EXPECT header", d.rel))
            .trim();
        assert!(
            !d.diags.is_empty(),
            "{}: expected {expect}, got nothing",
            d.rel
        );
        for diag in &d.diags {
            assert!(
                diag.starts_with(&format!("{expect} ")),
                "{}: expected only {expect}, got {:?}",
                d.rel,
                d.diags
            );
        }
        n += 1;
    }
    assert_eq!(n, 20, "the 20 upstream fixtures");
}

#[test]
fn agent_graph_documents_pass_their_schemas() {
    let Some(root) = corpus() else { return };
    // templates/ are scaffolds with `{{providerId}}` placeholders, documents only once filled.
    let docs = check_folder(&root, "agent-graph");
    let n = assert_clean(&docs, "agent-graph", |r| !r.starts_with("templates/"));
    assert!(n >= 150, "only {n} documents");
    let template = docs
        .iter()
        .find(|d| d.rel == "templates/basic/provider.yaml");
    let diags = &template.expect("template provider").diags;
    assert!(
        diags.iter().all(|d| d.starts_with("schema-invalid ")),
        "{diags:?}"
    );
}

#[test]
fn awp_valid_definitions_pass_and_invalid_ones_fail() {
    let Some(root) = corpus() else { return };
    let docs = check_folder(&root, "awp");
    // Current definitions only: `_history/` holds pre-1.0 forms of the format.
    assert_clean(&docs, "awp", |r| {
        !r.starts_with("_history/") && !r.contains("fixtures.invalid/")
    });
    for d in docs.iter().filter(|d| d.rel.contains("fixtures.invalid/")) {
        // INTERRUPT_IN_PARALLEL_BRANCH is a profile rule beyond the schema.
        if d.rel.contains("interrupt-in-parallel-branch") {
            continue;
        }
        assert!(!d.diags.is_empty(), "{} passed the schema", d.rel);
    }
}

#[test]
fn agh_loops_pass_agcs_agh_schema() {
    let Some(root) = corpus() else { return };
    // Tool-id actions resolve through the extension manifests that come with the Loops, which
    // tests/agh.rs passes; without them they are `unknown_action_kind`, as upstream.
    let docs: Vec<Doc> = check_folder(&root, "agh")
        .into_iter()
        .map(|mut d| {
            d.diags.retain(|m| !m.starts_with("unknown_action_kind "));
            d
        })
        .collect();
    let n = assert_clean(&docs, "agh", |_| true);
    assert_eq!(n, 14);
}

/// A directory walk over the corpus picks up exactly the workflow documents, except the one
/// Agent Graph receipts example, whose name follows no layout convention.
#[test]
fn directory_walk_candidates_match_the_documents() {
    let Some(root) = corpus() else { return };
    let mut wrong = Vec::new();
    for folder in ["ags", "agent-graph", "awp", "agh"] {
        let base = root.join(folder);
        for path in files(&base) {
            let rel = path
                .strip_prefix(&base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel == "examples/dynamic-resource/resource-read-receipts.example.json" {
                continue;
            }
            let doc = is_document(folder, &rel);
            if agc::check::is_candidate(&path) != doc {
                wrong.push(format!("{folder}/{rel}: document {doc}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
