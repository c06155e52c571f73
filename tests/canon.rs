//! AGS digests of real documents: the published example digests (AGS notes §3.1, from the spec
//! repository's test suite) reproduce from the corpus files as agc's loader reads them.

use agc::canon::{graph_digest, to_jcs, verify_integrity};
use agc::source::load::load_path;
use agc::source::{Limits, SourceMap};
use serde_json::Value;
use std::path::{Path, PathBuf};

const LIBRARY: &str = "sha256-ZaKZTS3i9OBDZNnKSNF2ZI22BZmOh1CcVNM0VZGDe+A=";
const MINIMAL: &str = "sha256-UVrM3iZ07z2EVF96uVF7QoRcbOw9qFcZcswl3ARx0kc=";

fn examples() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/ags/examples");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "note: {} is absent; skipping the corpus digest tests",
            dir.display()
        );
        None
    }
}

fn load(dir: &Path, name: &str) -> Value {
    let mut sources = SourceMap::new();
    let (_, loaded) = load_path(&mut sources, &dir.join(name), name, Limits::default())
        .unwrap_or_else(|d| panic!("cannot read {name}: {}", d.message));
    assert!(loaded.diags.is_empty(), "{name}: {:?}", loaded.diags);
    loaded.doc.expect("a document").value.to_json()
}

#[test]
fn published_example_digests_reproduce() {
    let Some(dir) = examples() else { return };
    for (name, want) in [
        ("library-v1-release.agraph.yaml", LIBRARY),
        ("library-v1-release.agraph.json", LIBRARY),
        ("minimal.agraph.yaml", MINIMAL),
    ] {
        let doc = load(&dir, name);
        assert_eq!(graph_digest(&doc).unwrap(), want, "{name}");
        assert_eq!(verify_integrity(&doc, want), Ok(true), "{name}");
    }
}

#[test]
fn any_change_to_a_document_changes_its_digest() {
    let Some(dir) = examples() else { return };
    let mut doc = load(&dir, "minimal.agraph.yaml");
    doc["x-note"] = Value::String("added".into());
    assert_ne!(graph_digest(&doc).unwrap(), MINIMAL);
    assert_eq!(verify_integrity(&doc, MINIMAL), Ok(false));
}

#[test]
fn yaml_and_json_forms_have_the_same_canonical_text() {
    let Some(dir) = examples() else { return };
    let yaml = to_jcs(&load(&dir, "library-v1-release.agraph.yaml")).unwrap();
    let json = to_jcs(&load(&dir, "library-v1-release.agraph.json")).unwrap();
    assert_eq!(yaml, json);
    // Canonical text is itself JSON that reads back to the same value and canonicalizes to
    // itself.
    let back: Value = serde_json::from_str(&yaml).unwrap();
    assert_eq!(to_jcs(&back).unwrap(), yaml);
}

#[test]
fn every_corpus_example_has_a_canonical_form() {
    let Some(dir) = examples() else { return };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    assert!(names.len() >= 6);
    for name in names {
        let doc = load(&dir, &name);
        let digest = graph_digest(&doc).unwrap();
        assert!(
            digest.starts_with("sha256-") && digest.len() == 51,
            "{name}: {digest}"
        );
    }
}
