//! GitHub Actions workflow commands, one per diagnostic and line:
//!
//! ```text
//! ::error file=flow.yaml,line=3,col=1,endLine=3,endColumn=6,title=AG003::unknown key `stpes`%0Ahelp: did you mean `steps`?
//! ```
//!
//! Errors become `::error`, warnings `::warning`, notes `::notice`. A diagnostic without a
//! location has only `title`. The help text, if any, is appended to the message on a new line
//! (`help: …`), since an annotation has no other place for it; labels are not shown.
//! `endColumn` is exclusive, as everywhere in agc's output (ruff does the same).
//!
//! Escaping is GitHub's (`@actions/core` `escapeData` / `escapeProperty`): in the message `%`,
//! CR and LF become `%25`, `%0D`, `%0A`; in property values `:` and `,` also become `%3A` and
//! `%2C`.

use std::fmt::Write as _;

use super::locate;
use crate::diag::{Diagnostic, Severity};
use crate::source::SourceMap;

pub(super) fn render(diags: &[Diagnostic], sources: &SourceMap) -> String {
    let mut out = String::new();
    for d in diags {
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "notice",
        };
        let _ = write!(out, "::{command} ");
        if let Some(at) = d.span.and_then(|s| locate(sources, s)) {
            let _ = write!(
                out,
                "file={},line={},col={},endLine={},endColumn={},",
                escape_property(&at.file.name),
                at.start.line,
                at.start.column,
                at.end.line,
                at.end.column
            );
        }
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            let _ = write!(message, "\nhelp: {help}");
        }
        let _ = writeln!(
            out,
            "title={}::{}",
            escape_property(d.code),
            escape_data(&message)
        );
    }
    out
}

/// Escapes a command's message.
pub(crate) fn escape_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes a property value (`file=…`, `title=…`).
pub(crate) fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}
