//! JSON output: one stable, versioned object (documented in `docs/diagnostics.md`).
//!
//! ```json
//! {
//!   "version": 1,
//!   "diagnostics": [
//!     {
//!       "code": "AG003", "severity": "error", "message": "unknown key `stpes`",
//!       "path": "flow.yaml", "line": 3, "column": 1, "end_line": 3, "end_column": 6,
//!       "byte_start": 24, "byte_end": 29,
//!       "pointer": "/stpes", "label": null, "help": "did you mean `steps`?",
//!       "labels": []
//!     }
//!   ],
//!   "summary": { "errors": 1, "warnings": 0, "notes": 0 }
//! }
//! ```
//!
//! Positions follow the conventions in the parent module: 1-based lines, 1-based columns in
//! Unicode code points, exclusive ends; byte offsets are 0-based UTF-8 offsets, also end
//! exclusive. Every location field is `null` together when the diagnostic has no location.
//! Adding fields is not a breaking change; renaming, removing or changing the meaning of one
//! bumps `version`.

use serde::Serialize;

use super::{Counts, Located, locate};
use crate::diag::Diagnostic;
use crate::source::{SourceMap, Span};

/// The version of the JSON format; bumped on any incompatible change.
pub const VERSION: u32 = 1;

#[derive(Serialize)]
struct Output<'a> {
    version: u32,
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct Summary {
    errors: usize,
    warnings: usize,
    notes: usize,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: &'a str,
    severity: &'a str,
    message: &'a str,
    #[serde(flatten)]
    location: Location<'a>,
    pointer: Option<&'a str>,
    label: Option<&'a str>,
    help: Option<&'a str>,
    labels: Vec<JsonLabel<'a>>,
}

#[derive(Serialize)]
struct JsonLabel<'a> {
    #[serde(flatten)]
    location: Location<'a>,
    message: &'a str,
}

#[derive(Serialize, Default)]
struct Location<'a> {
    path: Option<&'a str>,
    line: Option<u32>,
    column: Option<u32>,
    end_line: Option<u32>,
    end_column: Option<u32>,
    byte_start: Option<u32>,
    byte_end: Option<u32>,
}

impl<'a> Location<'a> {
    fn of(sources: &'a SourceMap, span: Option<Span>) -> Location<'a> {
        span.and_then(|s| locate(sources, s))
            .map_or_else(Location::default, |at: Located<'a>| Location {
                path: Some(&at.file.name),
                line: Some(at.start.line),
                column: Some(at.start.column),
                end_line: Some(at.end.line),
                end_column: Some(at.end.column),
                byte_start: Some(at.span.start),
                byte_end: Some(at.span.end),
            })
    }
}

pub(super) fn render(diags: &[Diagnostic], sources: &SourceMap) -> String {
    let counts = Counts::of(diags);
    let output = Output {
        version: VERSION,
        diagnostics: diags.iter().map(|d| diagnostic(d, sources)).collect(),
        summary: Summary {
            errors: counts.errors,
            warnings: counts.warnings,
            notes: counts.notes,
        },
    };
    // Serialising plain structs of strings and integers cannot fail.
    let mut text = serde_json::to_string_pretty(&output).unwrap_or_default();
    text.push('\n');
    text
}

fn diagnostic<'a>(d: &'a Diagnostic, sources: &'a SourceMap) -> JsonDiagnostic<'a> {
    JsonDiagnostic {
        code: d.code,
        severity: d.severity.as_str(),
        message: &d.message,
        location: Location::of(sources, d.span),
        pointer: d.pointer.as_deref(),
        label: d.label.as_deref(),
        help: d.help.as_deref(),
        labels: d
            .labels
            .iter()
            .filter(|l| locate(sources, l.span).is_some())
            .map(|l| JsonLabel {
                location: Location::of(sources, Some(l.span)),
                message: &l.message,
            })
            .collect(),
    }
}
