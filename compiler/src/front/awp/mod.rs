//! The AWP workflow definition front end (benvdbergh/workflows v1.0.0; research note
//! `shared/research/awp.md`).
//!
//! The schema has run when this starts (every failure there is `schema`, with its keyword and
//! pointer). The semantic pass then reports every problem at once, each with a span on the
//! offending value and its JSON pointer:
//!
//! - [`graph`]: the graph rules (unique ids, endpoints, the one `__start__` edge, one start and
//!   one end node, out-degrees, switch targets, parallel branches: entries, `n ≤ m`,
//!   convergence on the join target, `INTERRUPT_IN_PARALLEL_BRANCH` and the other node types
//!   a branch cannot hold; unreachable nodes as warnings);
//! - [`values`]: durations, `wait.until`, reducers, `version_pin`, checkpointing;
//! - [`jq`]: every jq program parsed (all on one jq thread, against the library's
//!   signatures), the state paths each reads checked against `state_schema` ([`state`]),
//!   unused state properties, `when`s that are always true.
//!
//! A schema-invalid document gets no semantic pass: shapes cannot be trusted, and one schema
//! problem would cascade into many semantic ones.
//!
//! [`lower`] turns an error-free document into the IR. Decisions where upstream is loose are
//! documented next to each rule and in `agc explain`.

mod checker;
mod defs;
mod graph;
pub mod jq;
pub mod lower;
mod model;
pub mod ports;
mod regions;
pub mod state;
pub mod values;
mod xref;

use super::{Context, FrontEnd, Lowered};
use crate::diag::Diagnostic;
use crate::source::{Document, SourceMap};
use checker::Checker;

/// The AWP workflow definition front end (see [`FrontEnd`]).
pub struct Awp;

/// Runs every semantic check on a schema-valid AWP document; `text` is its file's text (for
/// spans inside jq programs).
pub fn check(doc: &Document, text: &str) -> Vec<Diagnostic> {
    let Some(root) = doc.value.as_object() else {
        return Vec::new();
    };
    let m = model::Model::new(root);
    let mut c = Checker {
        doc,
        text,
        diags: Vec::new(),
        suggestions: Default::default(),
    };
    c.check_graph(&m);
    c.check_values(&m);
    c.check_jq(&m);
    c.diags
}

impl FrontEnd for Awp {
    type Unit = Document;
    type Early = ();

    fn check(
        &self,
        cx: &mut Context<'_>,
        doc: Document,
        _: Option<()>,
    ) -> (Document, Vec<Diagnostic>) {
        if !cx.schema_ok {
            return (doc, Vec::new());
        }
        let diags = check(&doc, cx.text());
        (doc, diags)
    }

    fn xref(&self, sources: &SourceMap, doc: &Document) -> crate::front::xref::Xref {
        xref::xref(sources, doc)
    }

    fn lower(
        &self,
        sources: &SourceMap,
        doc: &Document,
        digest: bool,
    ) -> (Vec<Lowered>, Vec<Diagnostic>) {
        let text = &sources.get(doc.file).text;
        let ((graph, diags), digest) =
            super::lower_with_digest(digest, &doc.value, || lower::lower(doc, text));
        let lowered = Lowered {
            graph,
            digest,
            display: sources.get(doc.file).name.clone(),
        };
        (vec![lowered], diags)
    }

    fn into_root(unit: Document) -> Document {
        unit
    }
}
