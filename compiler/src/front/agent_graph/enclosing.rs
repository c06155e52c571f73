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

use crate::diag::Diagnostic;
use crate::front::{CompiledWith, Context, file_start, marked_root};
use crate::session::Files;
use crate::source::Value;
use crate::source::{Limits, SourceMap};
use std::path::{Path, PathBuf};

const MANIFESTS: [&str; 3] = ["provider.yaml", "provider.yml", "provider.json"];

/// [`crate::front::FrontEnd::compiled_with`] for the lone graph `id` (checked error-free on
/// its own at `cx.path`): its Provider's manifest and the graph to take; AGC084 when read from
/// standard input or when no Provider up to the workspace root lists it, AGC206 when `--graph`
/// names another graph.
pub(super) fn compiled_with(cx: &mut Context<'_>, id: &str) -> Result<CompiledWith, Diagnostic> {
    let at = file_start(cx.file);
    let display = cx.display();
    let Some(path) = cx.path else {
        let d = Diagnostic::error(
            "AGC084",
            format!("graph `{id}` read from standard input has no Provider to be compiled with"),
        )
        .at(at)
        .with_help("give the graph's file or its Provider's folder instead of `-`");
        return Err(d);
    };
    if let Some(want) = cx.opts.graph.as_deref().filter(|w| *w != id) {
        let msg = format!("`{display}` has no graph `{want}` (it has {id})");
        return Err(Diagnostic::error("AGC206", msg).at(at));
    }
    // Without `--root` or a root marker the default root would be the graph's own folder,
    // which never holds its Provider: the search then goes up without a bound.
    let root = cx.opts.root.clone().or_else(|| marked_root(path));
    let Some((manifest, up)) = enclosing_provider(cx.files, path, root.as_deref()) else {
        let d = Diagnostic::error(
            "AGC084",
            format!(
                "graph `{id}` is compiled with the Provider that lists it, and no Provider up to the workspace root lists `{display}`"
            ),
        )
        .at(at)
        .with_help(
            "list the file under `graphs` in its Provider's `provider.yaml` and give the command the \
             Provider's folder or this file; `agc check` checks the graph on its own",
        );
        return Err(d);
    };
    Ok(CompiledWith {
        display: manifest_display(&display, up, &manifest),
        path: manifest,
        graph: id.to_string(),
    })
}

/// The manifest of the Provider listing the graph file `graph`, and how many folders above
/// the graph's own folder it is; `None` when no Provider between the graph and `root` (both
/// as given, relative or absolute; no bound when `None`) lists it.
pub fn enclosing_provider(
    files: &mut Files,
    graph: &Path,
    root: Option<&Path>,
) -> Option<(PathBuf, usize)> {
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
            if manifest.is_file() && lists(files, &manifest, dir, &target) {
                return Some((manifest, up));
            }
        }
    }
    None
}

/// Whether the manifest's `graphs` names `target` (a canonical path).
fn lists(files: &mut Files, manifest: &Path, dir: &Path, target: &Path) -> bool {
    let mut scratch = SourceMap::new();
    let Ok((_, loaded)) = files.load(&mut scratch, manifest, "", Limits::default()) else {
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
