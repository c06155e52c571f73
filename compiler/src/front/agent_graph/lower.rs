//! Lowering Agent Graph graphs into the IR: not landed yet (no graphs are produced).

use super::Unit;
use crate::diag::Diagnostic;
use crate::front::Lowered;
use crate::source::SourceMap;

pub(super) fn lower(_sources: &SourceMap, _unit: &Unit) -> (Vec<Lowered>, Vec<Diagnostic>) {
    (Vec::new(), Vec::new())
}
