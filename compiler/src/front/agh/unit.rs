//! What the agh front end's checks hand to its lowering ([`Unit`]).

use super::tools;
use crate::source::Document;
use std::collections::BTreeMap;

/// What `check` hands to `lower`: the Loop and what the checks found out.
#[derive(Debug)]
pub struct Unit {
    pub doc: Document,
    pub tools: tools::Tools,
    /// Every template and condition that compiled, by the pointer of its scalar (shared with
    /// the IR the lowering makes).
    pub exprs: BTreeMap<String, std::sync::Arc<agc_runtime::expr::Expr>>,
    /// (scope, node index, field pointer, node id read), for data links.
    pub reads: Vec<(usize, usize, String, String)>,
    /// (scope, node id, span of the path) of every `nodes.<id>` read, for the reference
    /// index ([`super::xref`]).
    pub node_reads: Vec<(u32, Box<str>, crate::source::Span)>,
    /// Compiled templates (`false`) and conditions (`true`) by pointer.
    pub sources: BTreeMap<String, bool>,
}

/// The parts of a [`Unit`] the checks produce.
#[derive(Debug, Default)]
pub struct Unit0 {
    pub exprs: BTreeMap<String, std::sync::Arc<agc_runtime::expr::Expr>>,
    pub reads: Vec<(usize, usize, String, String)>,
    pub node_reads: Vec<(u32, Box<str>, crate::source::Span)>,
    pub sources: BTreeMap<String, bool>,
}
