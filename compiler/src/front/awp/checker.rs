//! The AWP checks' shared state ([`Checker`]): each pass (`graph`, `values`, `jq`) adds its
//! methods in its own file.

use crate::diag::Diagnostic;
use crate::source::Document;

/// Shared state of the checks: the document (for spans) and the findings.
pub(crate) struct Checker<'d> {
    pub doc: &'d Document,
    pub text: &'d str,
    pub diags: Vec<Diagnostic>,
    /// The comparisons left for "did you mean" among node ids.
    pub suggestions: crate::diag::suggest::Budget,
}

impl Checker<'_> {
    /// A diagnostic (with the code's registered severity) at the value at `ptr`.
    pub(super) fn diag(&self, code: &'static str, ptr: &str, msg: String) -> Diagnostic {
        Diagnostic::new(code, msg)
            .at(self.doc.span(ptr))
            .with_pointer(ptr)
    }
}
