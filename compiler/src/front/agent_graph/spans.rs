//! Spans of JSON pointers in a loaded document, falling back to the nearest parent that exists.

use crate::source::{Document, Span};

/// The span of the value at `pointer`, else of its nearest existing parent.
pub(crate) fn span_at(doc: &Document, pointer: &str) -> Span {
    let mut p = pointer;
    loop {
        if let Some(c) = doc.at(p) {
            return c.node.span;
        }
        match p.rfind('/') {
            Some(i) => p = &p[..i],
            None => return doc.spans.span,
        }
    }
}

/// The span of the key of the mapping entry at `pointer` (else of its value, as [`span_at`]).
pub(crate) fn key_span_at(doc: &Document, pointer: &str) -> Span {
    doc.at(pointer)
        .and_then(|c| c.node.key())
        .unwrap_or_else(|| span_at(doc, pointer))
}
