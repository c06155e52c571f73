//! The one place diagnostics become text.
//!
//! [`render`] turns a slice of [`Diagnostic`]s into one of four formats:
//!
//! - [`Format::Human`] ([`human`]): rustc/Gleam-style reports drawn by ariadne over an
//!   [`excerpt`] of each file (long lines cut down), for terminals.
//! - [`Format::Json`] ([`json`]): one stable, versioned JSON object, documented in
//!   `docs/diagnostics.md`, for editors and scripts.
//! - [`Format::Sarif`] ([`sarif`]): SARIF 2.1.0, for code-scanning dashboards.
//! - [`Format::Github`] ([`github`]): GitHub Actions workflow commands (`::error file=…::…`),
//!   which GitHub turns into annotations on the pull request.
//!
//! Decisions shared by all formats:
//!
//! - Diagnostics are rendered in the order given; callers sort them with [`super::sort`] first.
//! - Lines and columns are 1-based; columns count Unicode code points (as
//!   [`SourceFile::line_col`] does); an end position is **exclusive**: it is the position just
//!   after the last character of the span (so a zero-width span has `end == start`). This is
//!   SARIF's and LSP's convention, and ruff's for GitHub annotations.
//! - Spans are made safe before use ([`locate`]): offsets past the end of the file are clamped to
//!   it, a start inside a multi-byte character moves back to the character's start and an end
//!   inside one moves forward to its end. A span or label whose [`FileId`] is not in the
//!   [`SourceMap`] is a bug in the caller; it is rendered as if it had no location (a label is
//!   dropped) rather than panicking.
//! - File names are [`SourceFile::name`], the path as the user gave it, never made absolute.

mod direct;
mod excerpt;
mod github;
mod human;
mod json;
mod sarif;

use super::{Diagnostic, Severity};
use crate::source::{FileId, LineCol, SourceFile, SourceMap, Span};

/// Output format of diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Source snippets with labels, for people.
    Human,
    /// The stable JSON object described in `docs/diagnostics.md`.
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// GitHub Actions workflow commands, one per line.
    Github,
}

/// Rendering options.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Use ANSI colours (human format only; the other formats never colour).
    pub color: bool,
}

/// Renders all diagnostics in `format`.
///
/// Human and GitHub output end with a newline when there is at least one diagnostic and are
/// empty when there is none; JSON and SARIF always produce one pretty-printed document followed
/// by a newline.
pub fn render(format: Format, diags: &[Diagnostic], sources: &SourceMap, opts: Options) -> String {
    match format {
        Format::Human => human::render(diags, sources, opts),
        Format::Json => json::render(diags, sources),
        Format::Sarif => sarif::render(diags, sources),
        Format::Github => github::render(diags, sources),
    }
}

/// The CLI's last line: `2 errors, 1 warning`, `1 note`, or `no problems`.
///
/// Counts that are zero are left out; the order is always errors, warnings, notes.
pub fn summary(diags: &[Diagnostic]) -> String {
    let counts = Counts::of(diags);
    let parts: Vec<String> = [
        (counts.errors, "error"),
        (counts.warnings, "warning"),
        (counts.notes, "note"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, word)| format!("{n} {word}{}", if n == 1 { "" } else { "s" }))
    .collect();
    if parts.is_empty() {
        "no problems".to_string()
    } else {
        parts.join(", ")
    }
}

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

#[cfg(test)]
mod tests;
