//! Provider-relative references: upstream's `resolveContainedPath` and `ensureContainedFile`.
//!
//! A reference is refused, in this order, when it is absolute (`absolute-path-forbidden`), when
//! it climbs out of the provider root lexically (`path-outside-provider`), when no regular file
//! is there (`file-missing`), and when the file's real path (symlinks resolved) lies outside the
//! root's real path (`path-symlink-outside-provider`).

use std::path::{Component, Path, PathBuf};

/// Why a reference was refused: the upstream code and a message.
pub(super) type Refusal = (&'static str, String);

/// `path` made absolute against the current folder and normalised lexically (`.` and `x/..`
/// removed, symlinks not resolved), as Node's `path.resolve` does.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// Whether a reference as written is absolute (a leading `/` or `\`, or a drive prefix).
fn is_absolute_reference(r: &str) -> bool {
    let b = r.as_bytes();
    r.starts_with('/')
        || r.starts_with('\\')
        || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
}

/// The reference normalised to a `/`-separated provider-relative path, or the refusal when it
/// is absolute or escapes the root lexically.
pub(super) fn relative(reference: &str) -> Result<String, Refusal> {
    if is_absolute_reference(reference) {
        return Err((
            "absolute-path-forbidden",
            format!("`{reference}` must be relative to the provider root"),
        ));
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in reference.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err((
                        "path-outside-provider",
                        format!("`{reference}` escapes the provider root"),
                    ));
                }
            }
            s => parts.push(s),
        }
    }
    Ok(parts.join("/"))
}

/// Resolves `reference` under `root` and checks that a regular file is there, inside the root
/// also after resolving symlinks. Gives the relative path and the absolute (lexical) path.
pub(super) fn contained_file(root: &Path, reference: &str) -> Result<(String, PathBuf), Refusal> {
    let rel = relative(reference)?;
    let abs = root.join(&rel);
    if !std::fs::metadata(&abs).is_ok_and(|m| m.is_file()) {
        return Err((
            "file-missing",
            format!("`{reference}` does not exist in the provider"),
        ));
    }
    match (root.canonicalize(), abs.canonicalize()) {
        (Ok(r), Ok(p)) if p.starts_with(&r) => Ok((rel, abs)),
        _ => Err((
            "path-symlink-outside-provider",
            format!("`{reference}` resolves outside the provider root"),
        )),
    }
}

/// Every regular file below `dir` (not following symlinks), sorted per folder by name as
/// upstream's `listFilesRecursive` does (ICU order), as absolute paths. Iterative.
pub(crate) fn files_below(dir: &Path) -> Vec<PathBuf> {
    use agc_runtime::agent_graph::canon::locale_compare;
    let mut out = Vec::new();
    // A stack of folder listings, each consumed front to back (depth first, in order).
    let mut stack: Vec<std::vec::IntoIter<(String, PathBuf, bool)>> = Vec::new();
    let list = |d: &Path| {
        let mut entries: Vec<(String, PathBuf, bool)> = std::fs::read_dir(d)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .filter_map(|e| {
                        let ft = e.file_type().ok()?;
                        if !(ft.is_dir() || ft.is_file()) {
                            return None;
                        }
                        Some((
                            e.file_name().to_string_lossy().into_owned(),
                            e.path(),
                            ft.is_dir(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        entries.sort_by(|a, b| locale_compare(&a.0, &b.0));
        entries.into_iter()
    };
    stack.push(list(dir));
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some((_, path, true)) => {
                if stack.len() < 64 {
                    let next = list(&path);
                    stack.push(next);
                }
            }
            Some((_, path, false)) => out.push(path),
            None => {
                stack.pop();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_normalised_or_refused() {
        assert_eq!(
            relative("./graphs/../graphs/a.yaml").unwrap(),
            "graphs/a.yaml"
        );
        assert_eq!(relative("/etc/x").unwrap_err().0, "absolute-path-forbidden");
        assert_eq!(relative("C:x").unwrap_err().0, "absolute-path-forbidden");
        assert_eq!(
            relative("a/../../x").unwrap_err().0,
            "path-outside-provider"
        );
    }
}
