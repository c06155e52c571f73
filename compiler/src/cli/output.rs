//! The one place the commands print diagnostics and text to standard output.

use super::args::{ColorArg, FormatArg};
use crate::diag::render::{self, Format};
use crate::diag::{self, Diagnostic};
use crate::source::SourceMap;
use std::io::{IsTerminal, Write};

/// Where diagnostics go: stdout for `check` (they are its output), stderr when stdout carries
/// a plan, a diagram or a value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

/// The one place the commands print diagnostics: sorted, rendered in `format`, coloured per
/// `color` (auto: only on a terminal, never with `NO_COLOR`), with the summary line for human
/// output when `summary`. Returns whether they fail the run (errors, or warnings if `strict`).
pub(crate) fn print_diagnostics(
    diags: &mut [Diagnostic],
    sources: &SourceMap,
    format: FormatArg,
    color: ColorArg,
    stream: Stream,
    summary: bool,
    strict: bool,
) -> bool {
    diag::sort(diags);
    let format = match format {
        FormatArg::Human => Format::Human,
        FormatArg::Json => Format::Json,
        FormatArg::Sarif => Format::Sarif,
        FormatArg::Github => Format::Github,
    };
    let terminal = match stream {
        Stream::Stdout => std::io::stdout().is_terminal(),
        Stream::Stderr => std::io::stderr().is_terminal(),
    };
    let color = match color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => terminal && std::env::var_os("NO_COLOR").is_none(),
    };
    let out = render::render(format, diags, sources, render::Options { color });
    // The summary is written after the reports rather than appended to them: the reports'
    // string is sized exactly, and growing it by one line copied all of it (30 MB for the
    // 92k advisories of a 100k-node graph, a tenth of a second).
    let mut tail = String::new();
    if format == Format::Human && summary {
        if !diags.is_empty() {
            tail.push('\n');
        }
        tail.push_str(&render::summary(diags));
        tail.push('\n');
    }
    let write = |w: &mut dyn Write| {
        w.write_all(out.as_bytes())
            .and_then(|()| w.write_all(tail.as_bytes()))
    };
    // Standard output is checked (a failed write exits 2); stderr has nowhere to report to.
    let _ = match stream {
        Stream::Stdout => write(&mut crate::fsio::stdout::Stdout),
        Stream::Stderr => write(&mut std::io::stderr().lock()),
    };
    let errors = diags.iter().any(Diagnostic::is_error);
    let warnings = diags.iter().any(|d| d.severity == diag::Severity::Warning);
    errors || (strict && warnings)
}

/// Writes `text` to stdout, checked ([`crate::fsio::stdout`]): a failed write makes the
/// command exit 2, a closed pipe (`agc explain --list | head -1`) stops it quietly.
pub(crate) fn out(text: &str) {
    crate::fsio::stdout::write(text.as_bytes());
}
