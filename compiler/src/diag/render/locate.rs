//! What every renderer shares: spans resolved to safe positions ([`locate`], [`Located`]),
//! the counts per severity ([`Counts`]) and the text of the primary label.

use crate::diag::{Diagnostic, Severity};
use crate::source::{FileId, LineCol, SourceFile, SourceMap, Span};

/// How many diagnostics of each severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
}

impl Counts {
    pub(crate) fn of(diags: &[Diagnostic]) -> Counts {
        let mut c = Counts::default();
        for d in diags {
            match d.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
                Severity::Note => c.notes += 1,
            }
        }
        c
    }
}

/// A span resolved against its file: the safe byte range and its line/column positions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Located<'a> {
    pub file: &'a SourceFile,
    /// The span after clamping and snapping to character boundaries.
    pub span: Span,
    pub start: LineCol,
    /// Exclusive end.
    pub end: LineCol,
}

/// Resolves `span`, or `None` when its file is not in `sources`.
pub(crate) fn locate(sources: &SourceMap, span: Span) -> Option<Located<'_>> {
    let file = file_of(sources, span.file)?;
    let text = &file.text;
    let mut start = (span.start as usize).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (span.end as usize).clamp(start, text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let span = Span::new(span.file, start, end);
    Some(Located {
        file,
        span,
        start: file.line_col(span.start),
        end: file.line_col(span.end),
    })
}

/// The file with this id, if the map has it.
pub(crate) fn file_of(sources: &SourceMap, id: FileId) -> Option<&SourceFile> {
    ((id.0 as usize) < sources.len()).then(|| sources.get(id))
}

/// The text at the primary span: the diagnostic's own label, else its message.
pub(crate) fn primary_label(d: &Diagnostic) -> &str {
    d.label.as_deref().unwrap_or(&d.message)
}
