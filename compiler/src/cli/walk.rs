//! Finding documents: files as given, folders searched (without recursion on the call stack,
//! without following symlinked folders, hidden folders and `target/` skipped, sorted).

use crate::check::is_candidate;
use crate::diag::Diagnostic;
use std::path::{Path, PathBuf};

/// The documents named by `path`: `(path, display name)` pairs in a stable order.
pub fn documents(path: &Path) -> Result<Vec<(PathBuf, String)>, Diagnostic> {
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
            } else if is_candidate(&child) {
                found.push(child);
            }
        }
    }
    found.sort();
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
