//! Finding documents: files as given, folders searched (without recursion on the call stack,
//! without following symlinked folders, hidden folders and `target/` skipped, sorted).
//!
//! An Agent Graph Provider is checked as a unit: below a folder that holds a `provider.yaml`
//! (`.yml`, `.json`), its manifest stands for the Provider's own files (graphs, actions,
//! resources, catalog), which the manifest's check loads itself; they are not checked a second
//! time on their own. A built bundle's `manifest.json` stands for its folder likewise. The route
//! tests under the Provider's `tests/` are no part of the manifest (upstream reads them only in
//! `test`, against `test-case.schema.json`), so they are checked on their own, each as an
//! `agent-graph.test.v1` document.
//!
//! Files in `graphs/`, `actions/` or `resources/` that the manifest does not reach are not
//! checked: upstream's loader never reads them either (graphs are an explicit list, actions and
//! resources are followed from nodes).

use crate::diag::Diagnostic;
use crate::dialect::is_candidate;
use std::path::{Path, PathBuf};

/// How a path given on the command line is shown: `/` between its parts, and `<stdin>` for
/// `-` (standard input).
pub fn shown(path: &Path) -> String {
    if crate::source::load::is_stdin(path) {
        return crate::source::load::STDIN_NAME.to_string();
    }
    path.to_string_lossy().replace('\\', "/")
}

/// The documents named by `path`: `(path, display name)` pairs in a stable order. `-` is
/// standard input, read once by the check.
pub fn documents(path: &Path) -> Result<Vec<(PathBuf, String)>, Diagnostic> {
    if crate::source::load::is_stdin(path) {
        return Ok(vec![(path.to_path_buf(), shown(path))]);
    }
    let display = |p: &Path| p.to_string_lossy().replace('\\', "/");
    let meta = std::fs::metadata(path).map_err(|e| {
        Diagnostic::error("AGC001", format!("cannot read `{}`: {e}", display(path)))
    })?;
    if !meta.is_dir() {
        return Ok(vec![(path.to_path_buf(), display(path))]);
    }
    let mut found = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| {
            Diagnostic::error("AGC001", format!("cannot read `{}`: {e}", display(&dir)))
        })?;
        let mut children: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        children.sort();
        for child in children.into_iter().rev() {
            let name = child.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let Ok(meta) = std::fs::symlink_metadata(&child) else {
                continue;
            };
            if meta.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    stack.push(child);
                }
            } else if is_candidate(&child) || crate::front::agent_graph::is_bundle_manifest(&child)
            {
                found.push(child);
            }
        }
    }
    found.sort();
    let found = providers_as_units(found);
    if found.is_empty() {
        return Err(Diagnostic::error(
            "AGC001",
            format!("no workflow documents found under `{}`", display(path)),
        ));
    }
    Ok(found
        .into_iter()
        .map(|p| {
            let d = display(&p);
            (p, d)
        })
        .collect())
}

/// Drops the files of an Agent Graph Provider (below the folder of a `provider.*` manifest, found
/// only by the Agent Graph naming rules) so that the manifest's check covers them once.
fn providers_as_units(found: Vec<PathBuf>) -> Vec<PathBuf> {
    let is_manifest = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| matches!(n, "provider.yaml" | "provider.yml" | "provider.json"))
    };
    // A built bundle's `manifest.json` stands for its folder (and is verified) instead of the
    // `provider.yaml` beside it.
    let bundles: Vec<PathBuf> = found
        .iter()
        .filter(|p| crate::front::agent_graph::is_bundle_manifest(p))
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    let is_unit = |p: &Path| {
        if crate::front::agent_graph::is_bundle_manifest(p) {
            return true;
        }
        is_manifest(p) && !p.parent().is_some_and(|d| bundles.iter().any(|b| b == d))
    };
    let roots: Vec<PathBuf> = found
        .iter()
        .filter(|p| is_unit(p))
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    if roots.is_empty() {
        return found;
    }
    found
        .into_iter()
        .filter(|p| {
            is_unit(p)
                || !roots.iter().any(|r| p.starts_with(r))
                || roots.iter().any(|r| p.starts_with(r.join("tests")))
                || crate::dialect::is_candidate_outside_agent_graph(p)
        })
        .collect()
}
