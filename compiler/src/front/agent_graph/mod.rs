//! The Agent Graph v1 front end (`@c4a/agent-graph` 0.2.6).
//!
//! The root document of a Provider is its `provider.yaml` (`agent-graph.provider.v1`). Checking
//! it loads everything the Provider names, in upstream's order ([`provider`]): the code catalog
//! and its documents, each graph (schema, then the rules of [`graph`]), the actions, gate
//! inspection and resolution actions, resources (YAML descriptors or Markdown frontmatter,
//! [`frontmatter`]), cross-graph recursion, the catalog closure and the materializers of dynamic
//! resources. Every reference stays inside the provider root ([`paths`]). Findings carry
//! upstream's codes (`graph-flow-cycle`, `gate-delegated-policy-invalid`, ...) and all of them
//! are reported, where upstream stops at the first; agc's lints ([`lints`]) are warnings.
//!
//! A graph file checked on its own (not through its Provider) gets its schema, its own rules and
//! the lints; references to actions and other graphs are then not followed, since only the
//! manifest says where the provider root is. Other Agent Graph documents (actions, resources,
//! catalogs, tests, outputs) checked alone get their schema only.
//!
//! When the Provider is error-free, the front end fills in the runtime's model
//! ([`agc_runtime::agent_graph::model::Provider`]) for `agc evaluate`, `agc route` and
//! `agc test`, and lowers each graph into the IR ([`lower`]).

pub mod build;
mod bundle;
mod convert;
pub mod enclosing;
mod frontmatter;
mod graph;
mod inventory;
mod lints;
mod loader;
mod lower;
mod paths;
pub mod provider;
mod recursion;
mod resources;
pub mod skill;
mod spans;
mod unit;
mod xref;

use super::{CompiledWith, Context, FrontEnd, Lowered};
use crate::diag::Diagnostic;
use crate::dialect::{AgentGraphKind, Dialect};
use crate::source::{Document, SourceMap, Value};
use std::path::Path;

pub use inventory::Inventory;
pub use loader::GraphDoc;
pub use lower::MAX_NODES;
pub(crate) use paths::{absolute, files_below};
pub use provider::LoadedProvider;
pub(crate) use spans::span_at;
pub use unit::Unit;

/// Whether `path` is a built bundle's `manifest.json` (JSON whose `schema` is
/// `agent-graph.bundle.v1`). A folder holding one stands for the bundle, which is verified,
/// rather than for the `provider.yaml` inside it.
pub fn is_bundle_manifest(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "manifest.json")
        && crate::fsio::read_text(path, crate::fsio::DEFAULT_MAX_BYTES)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|v| {
                v.get("schema").and_then(serde_json::Value::as_str) == Some("agent-graph.bundle.v1")
            })
}

/// The Agent Graph v1 front end (see [`FrontEnd`]).
pub struct AgentGraph;

/// AGC207: a Provider manifest or a bundle's manifest read without a file (standard input):
/// the manifest itself is checked, the files it lists cannot be found, and saying nothing would
/// pass a Provider whose graphs were never read.
fn without_folder(cx: &Context<'_>, what: &str) -> Diagnostic {
    Diagnostic::warning(
        "AGC207",
        format!("this {what} was read without its folder: the files it lists are not checked"),
    )
    .at(crate::front::file_start(cx.file))
    .with_help("give the Provider's folder or its manifest's path instead of standard input")
}

impl FrontEnd for AgentGraph {
    type Unit = Unit;
    type Early = ();

    fn check(&self, cx: &mut Context<'_>, doc: Document, _: Option<()>) -> (Unit, Vec<Diagnostic>) {
        let mut unit = Unit {
            root: doc,
            provider: None,
            lone_graph: None,
        };
        if !cx.schema_ok {
            let diags = match cx.dialect {
                Dialect::AgentGraph(AgentGraphKind::Bundle) => bundle::invalid(&unit.root),
                _ => Vec::new(),
            };
            return (unit, diags);
        }
        match cx.dialect {
            Dialect::AgentGraph(AgentGraphKind::Bundle) => {
                let Some(path) = cx.path.map(Path::to_path_buf) else {
                    return (unit, vec![without_folder(cx, "built bundle's manifest")]);
                };
                let (loaded, diags) = bundle::check(cx, &unit.root, &path);
                unit.provider = loaded;
                (unit, diags)
            }
            Dialect::AgentGraph(AgentGraphKind::Provider) => {
                let Some(path) = cx.path.map(Path::to_path_buf) else {
                    // In-memory text (standard input): no folder to load the graphs from.
                    return (unit, vec![without_folder(cx, "Provider manifest")]);
                };
                let shown = cx.display();
                let mut loaded = provider::load(cx, &unit.root, &path, &shown);
                let diags = std::mem::take(&mut loaded.diags);
                unit.provider = Some(loaded);
                (unit, diags)
            }
            Dialect::AgentGraph(AgentGraphKind::Graph) => {
                let mut diags = graph::check(&unit.root);
                if !diags.iter().any(Diagnostic::is_error) {
                    diags.extend(lints::graph(&unit.root));
                }
                unit.lone_graph = Some(cx.display());
                (unit, diags)
            }
            _ => (unit, Vec::new()),
        }
    }

    /// Agent Graph digests are part of the Provider's model (evaluation revisions), so they
    /// are computed whatever `digest` says.
    fn lower(
        &self,
        sources: &SourceMap,
        unit: &Unit,
        _digest: bool,
    ) -> (Vec<Lowered>, Vec<Diagnostic>) {
        lower::lower(sources, unit)
    }

    fn into_root(unit: Unit) -> Document {
        unit.root
    }

    fn xref(&self, sources: &SourceMap, unit: &Unit) -> crate::front::xref::Xref {
        xref::xref(sources, unit)
    }

    /// A graph file checked on its own is compiled with the Provider that lists it.
    fn compiled_with(
        &self,
        cx: &mut Context<'_>,
        unit: &Unit,
    ) -> Option<Result<CompiledWith, Diagnostic>> {
        unit.lone_graph.as_ref()?;
        let id = unit.root.value.get("id").and_then(Value::as_str)?;
        Some(enclosing::compiled_with(cx, id))
    }
}
