//! What the Provider loader ([`super::provider`]) keeps while it reads a Provider: its state
//! and one entry per graph, action and resource. Kept apart from the loading itself so that
//! what reads these records (the lints, the bundle inventory) does not depend on the loader's
//! code, which calls them.

use crate::diag::Diagnostic;
use crate::front::Context;
use crate::source::{Document, Span};
use agc_runtime::agent_graph::model;
use indexmap::IndexMap;
use std::collections::HashMap;
use std::path::PathBuf;

/// One graph file of the Provider, kept for lowering.
#[derive(Debug)]
pub struct GraphDoc {
    pub doc: Document,
    pub display: String,
    /// Whether the graph passed its schema and semantic rules.
    pub ok: bool,
}

pub(super) struct ActionEntry {
    pub(super) id: String,
    pub(super) effect: String,
    pub(super) runner: String,
    pub(super) model: Option<model::Action>,
    pub(super) files: Vec<String>,
    /// `inputSchema` and `outputSchema` as written (a bundle lists them so).
    pub(super) schemas: Vec<String>,
}

pub(super) struct ResourceEntry {
    pub(super) id: String,
    pub(super) model: Option<model::Resource>,
    pub(super) files: Vec<String>,
    /// Dynamic resources: the materializer reference and where it is written.
    pub(super) materializer: Option<(String, Span)>,
}

pub(super) struct Loader<'x, 'a> {
    pub(super) cx: &'x mut Context<'a>,
    pub(super) root: PathBuf,
    pub(super) display_base: String,
    pub(super) diags: Vec<Diagnostic>,
    pub(super) digests: HashMap<String, String>,
    pub(super) actions: IndexMap<String, ActionEntry>,
    pub(super) action_ids: HashMap<String, String>,
    pub(super) resources: IndexMap<String, ResourceEntry>,
    pub(super) resource_ids: HashMap<String, String>,
}
