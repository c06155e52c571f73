//! The AGS 1.0 front end: semantic checks (layers 2 and 3 of SPEC §18.1, plus the advisory
//! warnings) and lowering into the IR.
//!
//! The schema (layer 1) has already passed when this runs, so shapes can be assumed, but every
//! access is still checked: a malformed document must never panic here.

mod advisories;
mod carry;
mod checker;
mod criteria;
mod defaults;
mod edges;
mod exprs;
mod fixes;
mod fragments;
mod hyphen;
pub mod lower;
mod names;
mod params;
mod positions;
pub mod refs;
pub mod scope;
mod structure;
mod types;
mod xref;

use crate::diag::Diagnostic;
use crate::source::Document;
use checker::Checker;
pub use checker::{ExprCache, Reads};
use std::sync::atomic::AtomicBool;

/// Runs every semantic check on a schema-valid AGS document; `text` is its file's text (for
/// spans inside expressions).
pub fn check(doc: &Document, text: &str) -> Vec<Diagnostic> {
    check_into(doc, text, &mut ExprCache::default())
}

/// [`check`], keeping every expression that parsed in `exprs`.
pub fn check_into(doc: &Document, text: &str, exprs: &mut ExprCache) -> Vec<Diagnostic> {
    check_until(doc, text, exprs, &mut Reads::new(), &AtomicBool::new(false))
}

/// [`check_into`], giving up between steps once `stop` is set (the result is then partial).
fn check_until(
    doc: &Document,
    text: &str,
    exprs: &mut ExprCache,
    reads: &mut Reads,
    stop: &AtomicBool,
) -> Vec<Diagnostic> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    check_with(doc, text, exprs, reads, exprs::PARALLEL_FROM, threads, stop)
}

/// [`check_until`], with the number of expression positions from which a scope's first pass
/// runs on several threads, and how many (the tests choose both).
pub(crate) fn check_with(
    doc: &Document,
    text: &str,
    exprs: &mut ExprCache,
    reads: &mut Reads,
    parallel_from: usize,
    threads: usize,
    stop: &AtomicBool,
) -> Vec<Diagnostic> {
    let Some(root) = doc.value.as_object() else {
        return Vec::new();
    };
    let mut c = Checker {
        doc,
        text,
        diags: Vec::new(),
        exprs,
        reads,
        parallel_from,
        threads,
        suggestions: Default::default(),
        stop,
    };
    let scopes = scope::collect(root);
    for s in &scopes {
        if c.stopped() {
            return c.diags;
        }
        c.check_scope(s);
        c.check_criterion_outputs(root, s);
    }
    c.check_fragments(&scopes);
    c.check_carry(&scopes);
    c.check_params(&scopes);
    // The advisories read only the document, so in a large one they are found on a second
    // thread while the expressions are checked (that pass leaves a core idle in its serial
    // parts); their findings come after the expressions' either way.
    let nodes: usize = scopes.iter().map(scope::Scope::node_count).sum();
    if threads < 2 || nodes < parallel_from {
        c.check_expressions(&scopes, &parse_position);
        if !c.stopped() {
            c.check_advisories(&scopes);
        }
        return c.diags;
    }
    let advisories = || {
        // The advisories use neither the expression cache nor the suggestion budget.
        let mut unused = ExprCache::default();
        let mut no_reads = Reads::new();
        let mut a = Checker {
            doc,
            text,
            diags: Vec::new(),
            exprs: &mut unused,
            reads: &mut no_reads,
            parallel_from,
            threads,
            suggestions: Default::default(),
            stop,
        };
        a.check_advisories(&scopes);
        a.diags
    };
    let expressions = || c.check_expressions(&scopes, &parse_position);
    let (found, ()) = crate::beside::beside("agc-advisories", advisories, expressions);
    if !c.stopped() {
        c.diags.extend(found);
    }
    c.diags
}

/// The AGS 1.0 front end (see [`super::FrontEnd`]): its unit is the [`refs::Workspace`] of
/// the root document and every file it references through `subgraph.ref`.
pub struct Ags;

impl super::FrontEnd for Ags {
    type Unit = refs::Workspace;
    /// The root's semantic checks: their findings, parsed expressions and node reads.
    type Early = (Vec<Diagnostic>, ExprCache, Reads);

    /// The root's semantic checks, beside its schema validation. The checks read every field
    /// through `Option`s and never assume a shape, so a schema-invalid document costs them
    /// nothing worse than findings that are dropped; they stop between steps once `stop` is
    /// set.
    fn early(&self, doc: &Document, text: &str, stop: &AtomicBool) -> Option<Self::Early> {
        let mut exprs = ExprCache::default();
        let mut reads = Reads::new();
        let diags = check_until(doc, text, &mut exprs, &mut reads, stop);
        Some((diags, exprs, reads))
    }

    /// Semantic checks of the root (layer 1 must have passed: SPEC §18), then, when those are
    /// clean, every `subgraph.ref` file loaded, schema-checked and checked the same way.
    fn check(
        &self,
        cx: &mut super::Context<'_>,
        doc: Document,
        early: Option<Self::Early>,
    ) -> (refs::Workspace, Vec<Diagnostic>) {
        if !cx.schema_ok {
            return (refs::Workspace::single(doc), Vec::new());
        }
        let never = AtomicBool::new(false);
        let (mut diags, mut exprs, mut reads) = early.unwrap_or_else(|| {
            let (mut exprs, mut reads) = (ExprCache::default(), Reads::new());
            let diags = check_until(&doc, cx.text(), &mut exprs, &mut reads, &never);
            (diags, exprs, reads)
        });
        if diags.iter().any(Diagnostic::is_error) {
            let mut ws = refs::Workspace::single(doc);
            ws.reads = reads;
            return (ws, diags);
        }
        let root = cx.workspace_root();
        let display = cx.display();
        let path = cx.path;
        let mut load_child = |p: &std::path::Path, display: &str| {
            let loaded = cx.load_document(p, display, None);
            let mut ds = loaded.diags;
            let (Some(doc), Some(file)) = (loaded.doc, loaded.file) else {
                return (None, ds);
            };
            if loaded
                .dialect
                .is_some_and(|d| d != crate::dialect::Dialect::Ags)
            {
                ds.push(
                    Diagnostic::error("AGC085", format!("`{display}` is not an AGS document"))
                        .at(super::file_start(file)),
                );
                return (None, ds);
            }
            if loaded.schema_ok {
                let text = &cx.sources.get(file).text;
                ds.extend(check_until(&doc, text, &mut exprs, &mut reads, &never));
            }
            let failed = ds.iter().any(Diagnostic::is_error);
            (Some(doc).filter(|_| !failed), ds)
        };
        // The document moves into the workspace and back out: no copy of a large tree.
        let (mut ws, more) = refs::resolve(doc, path, &display, &root, &mut load_child);
        *ws.exprs.get_mut() = exprs;
        ws.reads = reads;
        diags.extend(more);
        (ws, diags)
    }

    /// Lowering, with the digest (a pass over the whole document) on a second thread.
    fn lower(
        &self,
        sources: &crate::source::SourceMap,
        ws: &refs::Workspace,
        digest: bool,
    ) -> (Vec<super::Lowered>, Vec<Diagnostic>) {
        let doc = &ws.docs[0];
        let ((graph, diags), digest) =
            super::lower_with_digest(digest, &doc.value, || lower::lower(ws, sources));
        let lowered = super::Lowered {
            graph,
            digest,
            display: sources.get(doc.file).name.clone(),
        };
        (vec![lowered], diags)
    }

    fn xref(&self, sources: &crate::source::SourceMap, ws: &refs::Workspace) -> super::xref::Xref {
        xref::xref(sources, ws)
    }

    fn into_root(ws: refs::Workspace) -> Document {
        // `resolve` always puts the root first.
        ws.docs
            .into_iter()
            .next()
            .expect("a workspace holds its root")
    }
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
