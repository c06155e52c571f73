//! The schema validated beside the front end's early work gives what one after the other
//! gives: the same diagnostics and graphs for every document, whether its schema passes or
//! fails.

use super::*;
use crate::dialect;
use crate::source::Limits;
use std::path::PathBuf;

/// Every YAML and JSON file below `dir`, sorted.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
        {
            out.push(p);
        }
    }
}

/// The YAML and JSON files of the project's folders `dirs` and of the corpus (with a notice
/// when `../shared/corpus` is absent).
fn documents(dirs: &[&str]) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for dir in dirs {
        files(&root.join(dir), &mut all);
    }
    let corpus = root.join("../shared/corpus");
    if corpus.is_dir() {
        files(&corpus, &mut all);
    } else {
        eprintln!(
            "note: {} is absent; checking the project's own files only",
            corpus.display()
        );
    }
    all
}

/// The diagnostics and graphs of one file, checked with `early`.
fn run(path: &Path, early: Early) -> (String, Vec<(String, usize)>) {
    let mut sources = SourceMap::new();
    let opts = CheckOptions::default();
    let display = path.display().to_string();
    match load::load_path(&mut sources, path, &display, opts.limits) {
        Ok((file, loaded)) => {
            let checked = check_source_with(&mut sources, file, loaded, &opts, Some(path), early);
            let graphs = checked
                .compiled
                .iter()
                .map(|c| (c.graph.id.clone(), c.graph.nodes.len()))
                .collect();
            (format!("{:?}", checked.diags), graphs)
        }
        Err(d) => (format!("{d:?}"), Vec::new()),
    }
}

#[test]
fn beside_and_after_agree_on_every_document() {
    let all = documents(&["examples", "tests", "bench"]);
    let mut schema_failures = 0;
    for path in &all {
        let after = run(path, Early::After);
        let beside = run(path, Early::Beside);
        assert_eq!(beside, after, "{}", path.display());
        // The documents whose early work ran on a schema-invalid document and was dropped.
        let mut sources = SourceMap::new();
        let display = path.display().to_string();
        if let Ok((_, loaded)) = load::load_path(&mut sources, path, &display, Limits::default())
            && let (Some(_), Some(_), false, _) =
                detect_and_validate(loaded, &CheckOptions::default())
        {
            schema_failures += 1;
        }
    }
    assert!(all.len() > 20, "found only {} files", all.len());
    assert!(schema_failures > 0, "no document failed its schema");
    eprintln!("{} files, {schema_failures} with schema errors", all.len());
}

/// The schema reads a loaded document in place (`schema/doc_json.rs`): every document of the
/// project and the corpus gets exactly the errors, in the same order and with the same scalar
/// instances, that the validator gives for a `serde_json` copy of it (a collection instance is
/// a placeholder in agc's: see `schema::embedded::show`).
#[test]
fn the_schema_reads_documents_as_it_reads_json() {
    let all = documents(&["examples", "tests"]);
    let (mut compared, mut failing) = (0, 0);
    for path in &all {
        let mut sources = SourceMap::new();
        let display = path.display().to_string();
        let Ok((_, loaded)) = load::load_path(&mut sources, path, &display, Limits::default())
        else {
            continue;
        };
        let Some(doc) = loaded.doc else { continue };
        let Ok(d) = dialect::detect(&doc) else {
            continue;
        };
        let (ours, theirs) = schema::embedded::errors_both_ways(d, &doc.value);
        assert_eq!(ours, theirs, "{display}");
        compared += 1;
        failing += usize::from(!ours.is_empty());
    }
    assert!(
        compared > 20 && failing > 0,
        "{compared} compared, {failing} failing"
    );
    eprintln!("{compared} documents, {failing} with schema errors");
}

/// A schema-valid AGS document whose one guard reads a node that does not exist (AG203).
const VALID_BUT_FOR_A_NAME: &str = "\
ags_version: \"1.0\"
kind: AgenticGraph
id: g
title: G
objective: test
entrypoints: [a]
nodes:
  a:
    type: task
    title: A
    description: d
    when: nodes.nobody.outputs.x == 1
";

/// A document failing its schema and with semantic errors too: the semantic errors are not
/// reported (they are for schema-valid documents), both ways.
#[test]
fn early_findings_of_a_schema_invalid_document_are_dropped() {
    let text = &VALID_BUT_FOR_A_NAME.replace("entrypoints:", "no_such_field: 1\nentrypoints:");
    for early in [Early::After, Early::Beside] {
        let mut sources = SourceMap::new();
        let opts = CheckOptions {
            root: Some(std::env::temp_dir()),
            ..CheckOptions::default()
        };
        let (file, loaded) =
            load::load_str(&mut sources, "t.agraph.yaml", text.into(), opts.limits);
        let checked = check_source_with(&mut sources, file, loaded, &opts, None, early);
        let codes: Vec<_> = checked.diags.iter().map(|d| d.code).collect();
        assert!(!codes.is_empty(), "{early:?}");
        assert!(
            codes.iter().all(|c| !c.starts_with("AG2")),
            "{early:?}: {codes:?}"
        );
    }
    // Schema-valid, the same reference is reported.
    let valid = VALID_BUT_FOR_A_NAME.to_string();
    let codes: Vec<_> = check_test_text("t.agraph.yaml", valid)
        .iter()
        .map(|d| d.code)
        .collect();
    assert!(codes.iter().any(|c| c.starts_with("AG2")), "{codes:?}");
}

/// The early work gives up once told to stop: the AGS checks with the flag set find nothing in
/// a document full of findings.
#[test]
fn early_work_stops_when_told() {
    let text = VALID_BUT_FOR_A_NAME;
    let mut sources = SourceMap::new();
    let (_, loaded) = load::load_str(
        &mut sources,
        "t.agraph.yaml",
        text.into(),
        Limits::default(),
    );
    let doc = loaded.doc.expect("a document");
    let go = AtomicBool::new(false);
    let (found, _, _) = front::ags::Ags
        .early(&doc, text, &go)
        .expect("AGS works early");
    assert!(found.iter().any(|d| d.code.starts_with("AG2")), "{found:?}");
    let stop = AtomicBool::new(true);
    let (found, exprs, _) = front::ags::Ags
        .early(&doc, text, &stop)
        .expect("AGS works early");
    assert!(found.is_empty() && exprs.is_empty(), "{found:?}");
}
