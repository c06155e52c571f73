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
//!   [`SourceFile::line_col`](crate::source::SourceFile::line_col) does); an end position is **exclusive**: it is the position just
//!   after the last character of the span (so a zero-width span has `end == start`). This is
//!   SARIF's and LSP's convention, and ruff's for GitHub annotations.
//! - Spans are made safe before use ([`locate()`]): offsets past the end of the file are clamped to
//!   it, a start inside a multi-byte character moves back to the character's start and an end
//!   inside one moves forward to its end. A span or label whose [`FileId`](crate::source::FileId) is not in the
//!   [`SourceMap`] is a bug in the caller; it is rendered as if it had no location (a label is
//!   dropped) rather than panicking.
//! - File names are [`SourceFile::name`](crate::source::SourceFile::name), the path as the user gave it, never made absolute.

mod direct;
mod excerpt;
mod github;
mod human;
mod json;
mod locate;
mod options;
mod sarif;

use super::Diagnostic;
use crate::source::SourceMap;

pub(crate) use locate::{Counts, Located, file_of, locate, primary_label};
pub use options::Options;

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

#[cfg(test)]
mod tests;
