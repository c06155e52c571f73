//! The Provider a lone graph file belongs to, for the commands that compile (`build`, `graph`,
//! `gen`, `run`): an Agent Graph graph is compiled with its Provider, which resolves its
//! actions and subgraph calls, so naming one of its graph files compiles that Provider and
//! takes that graph (as `--graph ID` would).
//!
//! The Provider is the nearest folder at or above the graph's own, up to the workspace root,
//! holding a `provider.yaml` (or `.yml`, `.json`) whose `graphs` list names this very file.
//! A folder whose manifest does not list it is passed over; none found is AGC084. The root is
//! `--root` or the nearest folder with a root marker; with neither, the search is not bounded
//! (the default root of other documents, their own folder, never holds a graph's Provider).

use crate::source::Value;
use crate::source::{Limits, SourceMap, load};
use std::path::{Path, PathBuf};

const MANIFESTS: [&str; 3] = ["provider.yaml", "provider.yml", "provider.json"];

/// The manifest of the Provider listing the graph file `graph`, and how many folders above
/// the graph's own folder it is; `None` when no Provider between the graph and `root` (both
/// as given, relative or absolute; no bound when `None`) lists it.
pub fn enclosing_provider(graph: &Path, root: Option<&Path>) -> Option<(PathBuf, usize)> {
    let target = graph.canonicalize().ok()?;
    let root = match root {
        Some(r) => Some(r.canonicalize().ok()?),
        None => None,
    };
    let start = target.parent()?;
    for (up, dir) in start.ancestors().enumerate() {
        if root.as_ref().is_some_and(|r| !dir.starts_with(r)) {
            break;
        }
        for name in MANIFESTS {
            let manifest = dir.join(name);
            if manifest.is_file() && lists(&manifest, dir, &target) {
                return Some((manifest, up));
            }
        }
    }
    None
}

/// Whether the manifest's `graphs` names `target` (a canonical path).
fn lists(manifest: &Path, dir: &Path, target: &Path) -> bool {
    let mut scratch = SourceMap::new();
    let Ok((_, loaded)) = load::load_path(&mut scratch, manifest, "", Limits::default()) else {
        return false;
    };
    let Some(doc) = loaded.doc else {
        return false;
    };
    doc.value
        .get("graphs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(|g| dir.join(g).canonicalize().is_ok_and(|p| p == target))
}

/// `display` (the graph file as the user named it) `up` folders higher, joined with the
/// manifest's file name: what the Provider is shown as.
pub fn manifest_display(display: &str, up: usize, manifest: &Path) -> String {
    let mut dir = Path::new(display)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    for _ in 0..up {
        match dir.parent() {
            Some(p) if !dir.as_os_str().is_empty() && dir.file_name().is_some() => {
                dir = p.to_path_buf()
            }
            _ => dir.push(".."),
        }
    }
    let name = manifest
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let shown = dir.join(name.as_ref());
    shown.to_string_lossy().replace('\\', "/")
}
