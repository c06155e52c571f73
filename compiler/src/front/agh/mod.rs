//! The agh.loop/v1 front end.
//!
//! Not landed yet: documents are loaded, detected and schema-checked by the driver; this front
//! end adds no semantic checks and lowers nothing, so `build` and `graph` report AGC084.

use super::{Context, FrontEnd, Lowered};
use crate::diag::Diagnostic;
use crate::source::{Document, SourceMap};

/// The agh.loop/v1 front end (see [`FrontEnd`]).
pub struct Agh;

impl FrontEnd for Agh {
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
