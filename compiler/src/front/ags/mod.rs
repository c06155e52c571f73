//! The AGS 1.0 front end: semantic checks (layers 2 and 3 of SPEC §18.1, plus the advisory
//! warnings) and lowering into the IR.
//!
//! The schema (layer 1) has already passed when this runs, so shapes can be assumed, but every
//! access is still checked: a malformed document must never panic here.

mod advisories;
mod defaults;
mod edges;
mod exprs;
mod fragments;
pub mod lower;
mod names;
mod positions;
pub mod refs;
pub mod scope;
mod structure;
mod types;

use crate::diag::Diagnostic;
use crate::source::{Document, FileId};
use serde_json::Value;

/// Parsed expressions by the file position of their scalar and whether it was read as a
/// `${{ }}` template (an aliased scalar can sit in both kinds of field): the checks parse
/// every expression and template once, lowering reuses them instead of parsing again.
pub type ExprCache =
    std::collections::HashMap<(FileId, u32, bool), agc_runtime::expr::Expr, edges::FastState>;

/// Runs every semantic check on a schema-valid AGS document; `text` is its file's text (for
/// spans inside expressions).
pub fn check(doc: &Document, text: &str) -> Vec<Diagnostic> {
    check_into(doc, text, &mut ExprCache::default())
}

/// [`check`], keeping every expression that parsed in `exprs`.
pub fn check_into(doc: &Document, text: &str, exprs: &mut ExprCache) -> Vec<Diagnostic> {
    let Some(root) = doc.value.as_object() else {
        return Vec::new();
    };
    let mut c = Checker {
        doc,
        text,
        diags: Vec::new(),
        exprs,
    };
    let scopes = scope::collect(root);
    for s in &scopes {
        c.check_scope(s);
    }
    c.check_fragments(&scopes);
    c.check_expressions(&scopes, &parse_position);
    c.check_advisories(&scopes);
    c.diags
}

/// AGX for expression positions, `${{ }}` templates for template positions.
fn parse_position(
    src: &str,
    map: &crate::source::scalar::ScalarMap,
    template: bool,
) -> Result<(agc_runtime::expr::Expr, Vec<crate::source::Span>), Vec<Diagnostic>> {
    if template {
        crate::expr::template::parse_template(src, map)
    } else {
        crate::expr::agx::parse_agx(src, map)
    }
}

/// Shared state of the checks: the document (for spans) and the findings.
pub(crate) struct Checker<'d> {
    pub doc: &'d Document,
    pub text: &'d str,
    pub diags: Vec<Diagnostic>,
    /// Every expression that parsed, for lowering.
    pub exprs: &'d mut ExprCache,
}

impl Checker<'_> {
    /// A diagnostic at the value at `ptr`.
    fn diag(&self, code: &'static str, ptr: &str, msg: String) -> Diagnostic {
        Diagnostic::new(code, msg)
            .at(self.doc.span(ptr))
            .with_pointer(ptr)
    }

    fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn error(&mut self, code: &'static str, ptr: &str, msg: String, help: Option<String>) {
        let mut d = self.diag(code, ptr, msg);
        d.help = help;
        self.push(d);
    }

    /// A diagnostic at the key of the entry at `ptr`.
    fn error_key(&mut self, code: &'static str, ptr: &str, msg: &str, help: &str) {
        let d = Diagnostic::new(code, msg)
            .at(self.doc.key_span(ptr))
            .with_pointer(ptr)
            .with_help(help);
        self.push(d);
    }

    /// "did you mean" for an unknown node id.
    fn suggest(&self, scope: &scope::Scope<'_>, name: &str) -> Option<String> {
        let ids = scope.nodes().map(|(id, _)| id.as_str());
        closest(name, ids).map(|s| format!("did you mean `{s}`?"))
    }
}

/// The candidate closest to `name` by edit distance, if it is close enough to be a typo.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 3 {
        return usize::MAX;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The `type` of a node, defaulting to `task`.
pub(crate) fn node_type(node: &serde_json::Map<String, Value>) -> &str {
    node.get("type").and_then(Value::as_str).unwrap_or("task")
}
