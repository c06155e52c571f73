//! What a bundle of an error-free Provider lists ([`Inventory`]): upstream's
//! `LoadedProvider.files`, and the graphs, actions, resources, schemas and graph dependencies
//! that `buildProviderBundle` writes and the bundle checks compare against.

use super::loader::{GraphDoc, Loader};
use crate::source::Span;
use crate::source::Value;
use indexmap::{IndexMap, IndexSet};
use std::path::{Path, PathBuf};

fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// The files and definitions of an error-free Provider, as a bundle lists them (upstream's
/// `LoadedProvider.files`, graphs, actions, resources, schemas and graph dependencies). Paths
/// are provider-relative with `/`.
#[derive(Clone, Debug, Default)]
pub struct Inventory {
    /// The provider root (absolute).
    pub root: PathBuf,
    /// The manifest's path (absolute) and value.
    pub manifest_path: PathBuf,
    pub manifest: Value,
    /// Every file the Provider reads but the manifest, in load order.
    pub files: Vec<String>,
    /// `(id, path)` of each graph, action and resource (descriptor or Markdown file).
    pub graphs: Vec<(String, String)>,
    pub actions: Vec<(String, String)>,
    pub resources: Vec<(String, String)>,
    /// `(id, path)` of each schema: action input and output schemas (id = path as written)
    /// and the content of static `schema` resources (id = the resource id).
    pub schemas: Vec<(String, String)>,
    /// Each graph's subgraph callees.
    pub dependencies: Vec<(String, Vec<String>)>,
}

/// What a bundle of the loaded Provider lists (see [`Inventory`]).
pub(super) fn of(
    l: &Loader<'_, '_>,
    manifest_path: &Path,
    manifest: &Value,
    catalog: &Option<String>,
    graphs: &[GraphDoc],
    graph_rel: &[String],
    deps: &[Vec<(usize, Span)>],
) -> Inventory {
    let gid = |g: &GraphDoc| str_at(&g.doc.value, "id").unwrap_or_default().to_string();
    let mut files: IndexSet<String> = IndexSet::new();
    files.extend(catalog.iter().cloned());
    files.extend(graph_rel.iter().cloned());
    for r in l.resources.values() {
        files.extend(r.files.iter().cloned());
    }
    for a in l.actions.values() {
        files.extend(a.files.iter().cloned());
    }
    let mut schemas: IndexMap<String, String> = IndexMap::new();
    for a in l.actions.values() {
        for s in &a.schemas {
            schemas.insert(s.clone(), s.clone());
        }
    }
    for r in l.resources.values() {
        if let Some(m) = &r.model
            && m.kind == "schema"
            && r.materializer.is_none()
            && let Some(content) = r.files.last()
        {
            schemas.insert(content.clone(), m.id.clone());
        }
    }
    Inventory {
        root: l.root.clone(),
        manifest_path: manifest_path.to_path_buf(),
        manifest: manifest.clone(),
        files: files.into_iter().collect(),
        graphs: graphs
            .iter()
            .zip(graph_rel)
            .map(|(g, r)| (gid(g), r.clone()))
            .collect(),
        actions: l
            .actions
            .iter()
            .map(|(rel, a)| (a.id.clone(), rel.clone()))
            .collect(),
        resources: l
            .resources
            .iter()
            .map(|(rel, r)| (r.id.clone(), rel.clone()))
            .collect(),
        schemas: schemas.into_iter().map(|(p, id)| (id, p)).collect(),
        dependencies: graphs
            .iter()
            .zip(deps)
            .map(|(g, d)| {
                let children: IndexSet<String> = d.iter().map(|(c, _)| gid(&graphs[*c])).collect();
                (gid(g), children.into_iter().collect())
            })
            .collect(),
    }
}
