//! The AWP workflow definition front end.
//!
//! Not landed yet: documents are loaded, detected and schema-checked by the driver; this front
//! end adds no semantic checks and lowers nothing, so `build` and `graph` report AGC084.

use super::{Context, FrontEnd, Lowered};
use crate::diag::Diagnostic;
use crate::source::{Document, SourceMap};

/// The AWP workflow definition front end (see [`FrontEnd`]).
pub struct Awp;

impl FrontEnd for Awp {
    type Unit = Document;

    fn check(&self, _cx: &mut Context<'_>, doc: Document) -> (Document, Vec<Diagnostic>) {
        (doc, Vec::new())
    }

    fn lower(&self, _sources: &SourceMap, _unit: &Document) -> (Vec<Lowered>, Vec<Diagnostic>) {
        (Vec::new(), Vec::new())
    }

    fn into_root(unit: Document) -> Document {
        unit
    }
}
