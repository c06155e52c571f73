//! Syntax errors with spans in the decoded string, turned into [`Diagnostic`]s by mapping the
//! span through the scalar's [`ScalarMap`].

use crate::diag::Diagnostic;
use crate::expr::Local;
use crate::source::scalar::ScalarMap;

/// One problem found while lexing, parsing or checking an expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    /// `AG204` for syntax errors, `AG211` for `${{ }}` in expression position, `AGC04x` for
    /// agc's own limits.
    pub code: &'static str,
    pub span: Local,
    pub message: String,
    pub label: Option<String>,
    pub help: Option<String>,
}

impl Error {
    pub fn new(code: &'static str, span: Local, message: impl Into<String>) -> Error {
        Error {
            code,
            span,
            message: message.into(),
            label: None,
            help: None,
        }
    }

    pub fn syntax(span: Local, message: impl Into<String>) -> Error {
        Error::new("AG204", span, message)
    }

    pub fn label(mut self, label: impl Into<String>) -> Error {
        self.label = Some(label.into());
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Error {
        self.help = Some(help.into());
        self
    }

    /// The diagnostic, with its span in the file.
    pub fn into_diagnostic(self, map: &ScalarMap) -> Diagnostic {
        let mut d =
            Diagnostic::error(self.code, self.message).at(map.span(self.span.start, self.span.end));
        if let Some(label) = self.label {
            d = d.with_label_text(label);
        }
        if let Some(help) = self.help {
            d = d.with_help(help);
        }
        d
    }
}

/// Converts a batch of errors, in source order.
pub fn into_diagnostics(mut errors: Vec<Error>, map: &ScalarMap) -> Vec<Diagnostic> {
    errors.sort_by_key(|e| (e.span.start, e.span.end));
    errors.dedup_by(|a, b| a.span == b.span && a.message == b.message);
    errors.into_iter().map(|e| e.into_diagnostic(map)).collect()
}
