//! The AGS checks' shared state ([`Checker`]; each pass adds its methods in its own file) and
//! what they hand to lowering: the parsed expressions ([`ExprCache`]) and node reads
//! ([`Reads`]).

use super::scope;
use crate::diag::Diagnostic;
use crate::source::{Document, Field, FileId, Value};
use std::sync::atomic::{AtomicBool, Ordering};

/// Parsed expressions by the file position of their scalar and whether it was read as a
/// `${{ }}` template (an aliased scalar can sit in both kinds of field): the checks parse
/// every expression and template once, lowering reuses them instead of parsing again.
pub type ExprCache =
    std::collections::HashMap<(FileId, u32, bool), agc_runtime::expr::Expr, crate::hash::FastState>;

/// The node reads the expression checks resolved: `(scope, node id, the read's span)`, the
/// scope numbered as [`scope::collect`] lists them, for the reference index ([`super::xref`]).
pub type Reads = Vec<(u32, Box<str>, crate::source::Span)>;

/// Shared state of the checks: the document (for spans) and the findings.
pub(crate) struct Checker<'d> {
    pub doc: &'d Document,
    pub text: &'d str,
    pub diags: Vec<Diagnostic>,
    /// Every expression that parsed, for lowering.
    pub exprs: &'d mut ExprCache,
    /// Every node read the expressions make, for the reference index.
    pub reads: &'d mut Reads,
    /// Scopes with this many expression positions or more check them on `threads` threads.
    pub parallel_from: usize,
    pub threads: usize,
    /// The comparisons left for "did you mean" (see [`crate::diag::suggest::Budget`]).
    pub suggestions: crate::diag::suggest::Budget,
    /// Set when the checks' result is no longer wanted (see [`crate::front::FrontEnd::early`]).
    pub stop: &'d AtomicBool,
}

impl Checker<'_> {
    /// Whether the checks should give up (their result will be dropped).
    pub(super) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// A diagnostic at the value at `ptr`.
    pub(super) fn diag(&self, code: &'static str, ptr: &str, msg: String) -> Diagnostic {
        Diagnostic::new(code, msg)
            .at(self.doc.span(ptr))
            .with_pointer(ptr)
    }

    pub(super) fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    pub(super) fn error(
        &mut self,
        code: &'static str,
        ptr: &str,
        msg: String,
        help: Option<String>,
    ) {
        let mut d = self.diag(code, ptr, msg);
        d.help = help;
        self.push(d);
    }

    /// A diagnostic at the key of the entry at `ptr`.
    pub(super) fn error_key(&mut self, code: &'static str, ptr: &str, msg: &str, help: &str) {
        let d = Diagnostic::new(code, msg)
            .at(self.doc.key_span(ptr))
            .with_pointer(ptr)
            .with_help(help);
        self.push(d);
    }

    /// The closest node id of `scope` to an unknown `name`, within the document's budget.
    pub(super) fn suggest(&self, scope: &scope::Scope<'_>, name: &str) -> Option<String> {
        let ids = scope.nodes().map(|(id, _)| id.as_str());
        self.suggestions.closest(name, ids).map(str::to_string)
    }

    /// An error at `ptr` for the unknown node `name`, with its "did you mean" (help and fix).
    pub(super) fn unknown_node(
        &mut self,
        code: &'static str,
        ptr: &str,
        msg: String,
        scope: &scope::Scope<'_>,
        name: &str,
    ) {
        let mut d = self.diag(code, ptr, msg);
        if let Some(right) = self.suggest(scope, name) {
            d = d.with_suggestion(name, &right);
        }
        self.push(d);
    }
}

/// The `type` of a node, defaulting to `task`.
pub(crate) fn node_type(node: &crate::source::Map) -> &str {
    node.field("type").and_then(Value::as_str).unwrap_or("task")
}
