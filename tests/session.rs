//! The session layer: unsaved in-memory texts (overlays) are checked and compiled in place of
//! the disk's, for the document itself and for the files it pulls in, and a check says which
//! files it read. This is what a language server builds on.

mod common;

use agc::check::{CheckOptions, Unit};
use agc::diag::Diagnostic;
use agc::session::Session;
use common::TempDir;
use std::path::Path;

const CHILD: &str = "ags_version: \"1.0\"\nkind: AgenticGraph\nid: kid\ntitle: Child\nobjective: Be referenced.\nconstraints: {max_cost_usd: 1}\nentrypoints: [work]\nnodes:\n  work:\n    title: Work\n    description: The child's only node.\n    outputs:\n      result: {type: string, description: The result.}\noutputs:\n  result: {type: string, description: Out., from: nodes.work.outputs.result}\n";

const PARENT: &str = "ags_version: \"1.0\"\nkind: AgenticGraph\nid: parent\ntitle: Parent\nobjective: Reference a child.\nconstraints: {max_cost_usd: 1}\nentrypoints: [run]\nnodes:\n  run:\n    type: subgraph\n    title: Run\n    description: Runs the child.\n    subgraph:\n      ref:\n        uri: \"./sub/child.agraph.yaml\"\n        expected_id: kid\n";

/// A workspace holding the parent and its child, both valid on disk, and a session rooted
/// there.
fn workspace() -> (TempDir, Session) {
    let ws = TempDir::new("agc-session-").canonical();
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::write(ws.join("sub/child.agraph.yaml"), CHILD).unwrap();
    std::fs::write(ws.join("parent.agraph.yaml"), PARENT).unwrap();
    let session = Session::new(CheckOptions {
        root: Some(ws.to_path_buf()),
        ..CheckOptions::default()
    });
    (ws, session)
}

/// The errors as (code, file name, the text the span covers).
fn errors(session: &Session, diags: &[Diagnostic]) -> Vec<(&'static str, String, String)> {
    diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let span = d.span.expect("a location");
            let file = session.sources.get(span.file);
            let name = Path::new(&file.name)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (d.code, name, file.text[span.range()].to_string())
        })
        .collect()
}

#[test]
fn an_overlay_of_the_document_is_checked_instead_of_the_disk() {
    let (ws, mut session) = workspace();
    let parent = ws.join("parent.agraph.yaml");
    let shown = parent.to_string_lossy().into_owned();
    let clean = session.check(&parent, &shown);
    assert!(!clean.has_errors(), "{:?}", clean.diags);
    // The unsaved buffer starts at a node that does not exist.
    let edited = PARENT.replace("entrypoints: [run]", "entrypoints: [runn]");
    session.set_overlay(&parent, edited.clone());
    let checked = session.check(&parent, &shown);
    let found = errors(&session, &checked.diags);
    assert!(!found.is_empty(), "the overlay's error is found");
    for (_, name, text) in &found {
        assert_eq!(name, "parent.agraph.yaml");
        assert_eq!(text, "runn", "{found:?}");
    }
    assert_eq!(session.sources.get(checked.file).text, edited);
    // The disk is untouched, and without the overlay the document is clean again.
    assert_eq!(std::fs::read_to_string(&parent).unwrap(), PARENT);
    assert!(session.remove_overlay(&parent));
    assert!(!session.check(&parent, &shown).has_errors());
}

#[test]
fn an_overlay_of_a_referenced_file_is_what_the_reference_reads() {
    let (ws, mut session) = workspace();
    let parent = ws.join("parent.agraph.yaml");
    let child = ws.join("sub/child.agraph.yaml");
    let shown = parent.to_string_lossy().into_owned();
    // The check read the document, then the file it references.
    let clean = session.check(&parent, &shown);
    assert!(!clean.has_errors(), "{:?}", clean.diags);
    let read: Vec<_> = clean
        .files
        .iter()
        .map(|p| p.canonicalize().unwrap())
        .collect();
    assert_eq!(read, [parent.clone(), child.clone()]);
    // Spelled another way (`a/../sub/x`), the overlay still applies to the child.
    let edited = CHILD.replace("id: kid", "id: other");
    session.set_overlay(&ws.join("sub/../sub/child.agraph.yaml"), edited);
    let checked = session.check(&parent, &shown);
    let codes: Vec<_> = checked
        .diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect();
    assert!(!codes.is_empty(), "the parent sees the child's unsaved id");
    assert_eq!(std::fs::read_to_string(&child).unwrap(), CHILD);
    // The child's own error, in the child's unsaved text.
    let broken = CHILD.replace(
        "from: nodes.work.outputs.result",
        "from: nodes.nowhere.outputs.result",
    );
    session.set_overlay(&child, broken.clone());
    let checked = session.check(&parent, &shown);
    let found = errors(&session, &checked.diags);
    assert!(
        found
            .iter()
            .any(|(_, name, text)| name == "child.agraph.yaml" && text.contains("nowhere")),
        "{found:?}"
    );
    // Compiling sees the overlays too: no plan while the child is broken, one once it is
    // fixed in the buffer (the disk never changed).
    assert!(session.compile(&parent, &shown).compiled.is_empty());
    session.set_overlay(
        &child,
        CHILD.replace("Be referenced.", "Be referenced, unsaved."),
    );
    let out = session.compile(&parent, &shown);
    assert!(
        !out.diags.iter().any(Diagnostic::is_error),
        "{:?}",
        out.diags
    );
    assert_eq!(out.compiled.len(), 1);
    assert!(matches!(out.unit, Some(Unit::Ags(_))));
    let child_text = session
        .sources
        .files()
        .find(|(_, f)| f.name.ends_with("child.agraph.yaml") && f.text.contains("unsaved"));
    assert!(child_text.is_some(), "the compiled child is the buffer's");
}
