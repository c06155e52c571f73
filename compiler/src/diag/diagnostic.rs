//! [`Diagnostic`] and its [`Severity`] and [`Label`]s: the one type every phase returns (see
//! the module docs of [`crate::diag`]).

use super::codes::lookup;
use super::severity::Severity;
use crate::source::Span;

/// A secondary span with a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// A fix the help names, as data an editor applies (`agc lsp`'s code actions); the renderers
/// show only the help.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fix {
    /// "did you mean": the name `wrong`, written within the diagnostic's span (its first
    /// whole occurrence there), replaced by `right`.
    Replace { wrong: String, right: String },
    /// Text inserted at a place (a missing `depends_on` entry), described by `title`.
    Insert {
        at: Span,
        text: String,
        title: String,
    },
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The dialect's own code (`AG003`, `graph-flow-cycle`, ...) or agc's (`AGC001`).
    pub code: &'static str,
    pub severity: Severity,
    /// One sentence, lower-case start, no trailing period.
    pub message: String,
    /// Where it is. `None` only for diagnostics about no file at all (usage, I/O before reading).
    pub span: Option<Span>,
    /// What to say at the primary span (defaults to the message).
    pub label: Option<String>,
    /// Other places that explain the finding.
    pub labels: Vec<Label>,
    /// How to fix it.
    pub help: Option<String>,
    /// JSON pointer of the offending value in the document, when there is one.
    pub pointer: Option<String>,
    /// The fix the help names, when it is mechanical.
    pub fix: Option<Box<Fix>>,
}

impl Diagnostic {
    /// A diagnostic with the code's registered default severity.
    pub fn new(code: &'static str, message: impl Into<String>) -> Diagnostic {
        let severity = lookup(code).map_or(Severity::Error, |c| c.severity);
        Diagnostic {
            code,
            severity,
            message: message.into(),
            span: None,
            label: None,
            labels: Vec::new(),
            help: None,
            pointer: None,
            fix: None,
        }
    }

    pub fn error(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, message).with_severity(Severity::Error)
    }

    pub fn warning(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, message).with_severity(Severity::Warning)
    }

    pub fn with_severity(mut self, severity: Severity) -> Diagnostic {
        self.severity = severity;
        self
    }

    pub fn at(mut self, span: Span) -> Diagnostic {
        self.span = Some(span);
        self
    }

    pub fn with_label_text(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn with_pointer(mut self, pointer: impl Into<String>) -> Diagnostic {
        self.pointer = Some(pointer.into());
        self
    }

    /// "did you mean `right`?" as the help, and the replacement of `wrong` (within the span)
    /// by `right` as the fix.
    pub fn with_suggestion(mut self, wrong: &str, right: &str) -> Diagnostic {
        self.help = Some(format!("did you mean `{right}`?"));
        self.fix = Some(Box::new(Fix::Replace {
            wrong: wrong.into(),
            right: right.into(),
        }));
        self
    }

    pub fn with_fix(mut self, fix: Fix) -> Diagnostic {
        self.fix = Some(Box::new(fix));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Sorts diagnostics into the stable output order: file, position, code, message.
pub fn sort(diags: &mut [Diagnostic]) {
    diags.sort_by(|a, b| {
        let ka = a.span.map(|s| (s.file, s.start, s.end));
        let kb = b.span.map(|s| (s.file, s.start, s.end));
        ka.cmp(&kb)
            .then_with(|| a.code.cmp(b.code))
            .then_with(|| a.message.cmp(&b.message))
    });
}
