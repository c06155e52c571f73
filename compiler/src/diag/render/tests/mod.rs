//! Renderer tests over hand-built [`SourceMap`]s and diagnostics.

mod direct;
mod github;
mod human;
mod json;
mod sarif;

use super::*;
use crate::diag::Severity;
use crate::source::{FileId, SourceFile, SourceMap, Span};

/// A source map holding the given `(name, text)` files, in order.
fn map(files: &[(&str, &str)]) -> SourceMap {
    let mut m = SourceMap::new();
    for (name, text) in files {
        m.add(SourceFile::new(*name, *text));
    }
    m
}

/// The byte span of the `nth` (0-based) occurrence of `needle` in file `file` of `m`.
fn find(m: &SourceMap, file: u32, needle: &str, nth: usize) -> Span {
    let id = FileId(file);
    let text = &m.get(id).text;
    let start = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("`{needle}` not found {nth} times"))
        .0;
    Span::new(id, start, start + needle.len())
}

#[test]
fn summary_counts_each_severity() {
    let e = Diagnostic::error("AGC003", "x");
    let w = Diagnostic::warning("AG903", "x");
    let n = Diagnostic::error("AG903", "x").with_severity(Severity::Note);
    assert_eq!(summary(&[]), "no problems");
    assert_eq!(summary(std::slice::from_ref(&e)), "1 error");
    assert_eq!(
        summary(&[e.clone(), w.clone(), e.clone()]),
        "2 errors, 1 warning"
    );
    assert_eq!(summary(&[w.clone(), w.clone()]), "2 warnings");
    assert_eq!(summary(&[n.clone(), e.clone()]), "1 error, 1 note");
    assert_eq!(
        summary(&[n.clone(), n, w, e]),
        "1 error, 1 warning, 2 notes"
    );
}

#[test]
fn locate_clamps_and_snaps_to_char_boundaries() {
    // 'é' is bytes 1..3, '€' bytes 4..7.
    let m = map(&[("f", "aé\n€z")]);
    let at = locate(&m, Span::new(FileId(0), 2, 5)).expect("file exists");
    assert_eq!(at.span.range(), 1..7);
    assert_eq!((at.start.line, at.start.column), (1, 2));
    assert_eq!((at.end.line, at.end.column), (2, 2));
    let past = locate(&m, Span::new(FileId(0), 50, 60)).expect("file exists");
    assert_eq!(past.span.range(), 8..8);
    assert_eq!((past.start.line, past.start.column), (2, 3));
    assert!(locate(&m, Span::new(FileId(1), 0, 1)).is_none());
}
