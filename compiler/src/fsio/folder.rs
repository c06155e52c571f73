//! Output folders: `agc agent-graph bundle -o DIR` and `agc gen rust -o DIR` write a folder
//! of files, and a folder may already hold a user's own work (a crate, a `.git`).
//!
//! - [`may_write`]: a folder is written only when it does not exist, is empty, or is agc's
//!   own output (each command recognises its own: a bundle by its `manifest.json` listing
//!   every file there, a generated crate by its `Cargo.toml`'s header), unless `--force`.
//!   Anything else is refused (AGC019), naming a file agc did not write.
//! - [`replace_with`]: a folder replaced whole (a bundle) is built in a temporary folder
//!   beside it and swapped in at the end, so a failure leaves the old folder as it was.

use crate::diag::Diagnostic;
use std::path::{Path, PathBuf};

/// A folder the command may not write.
#[derive(Debug)]
pub struct NotOwned {
    /// One entry agc did not write (the first by name).
    pub stranger: String,
}

impl NotOwned {
    pub const CODE: &'static str = "AGC019";

    /// The message for the folder shown as `display`, written by `what` (`a bundle`).
    pub fn message(&self, display: &str, what: &str) -> String {
        format!(
            "`{display}` is not empty and is not {what} agc wrote (it holds `{}`); agc writes \
             only into an empty folder or its own output",
            self.stranger
        )
    }

    pub fn diagnostic(&self, display: &str, what: &str) -> Diagnostic {
        Diagnostic::error(Self::CODE, self.message(display, what)).with_help(
            "choose a new or empty folder, or pass `--force` to write into this one".to_string(),
        )
    }
}

/// Whether `dir` may be written: it does not exist, is empty, `force` is given, or `owned`
/// recognises it as agc's own output (`Err` otherwise, naming a file agc did not write when
/// it knows one). A path that exists and is no folder is never written (an I/O error).
pub fn may_write(
    dir: &Path,
    force: bool,
    owned: impl FnOnce(&Path) -> Result<(), Option<String>>,
) -> Result<Result<(), NotOwned>, std::io::Error> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Ok(())),
        Err(e) => return Err(e),
    };
    let mut names: Vec<String> = entries
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    if names.is_empty() || force {
        return Ok(Ok(()));
    }
    match owned(dir) {
        Ok(()) => Ok(Ok(())),
        Err(Some(stranger)) => Ok(Err(NotOwned { stranger })),
        Err(None) => {
            names.sort();
            Ok(Err(NotOwned {
                stranger: names.swap_remove(0),
            }))
        }
    }
}

/// Every regular file below `dir`, as `/`-separated relative paths (symbolic links are not
/// followed: a link counts as a file of its own), sorted; `None` when it cannot be listed.
pub fn files_below(dir: &Path) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()? {
            let e = e.ok()?;
            let t = e.file_type().ok()?;
            if t.is_dir() {
                stack.push(e.path());
            } else {
                let rel = e.path().strip_prefix(dir).ok()?.to_path_buf();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    Some(out)
}

/// Builds a folder's new contents in a temporary folder beside `dir` (`build` writes them
/// there), then swaps it in for `dir`: the old folder is moved aside, the new one renamed into
/// place, the old one removed. A failing `build` (or a failing swap) leaves `dir` as it was and
/// no temporary folder behind. `io` turns an I/O error into the caller's error type.
pub fn replace_with<T, E>(
    dir: &Path,
    build: impl FnOnce(&Path) -> Result<T, E>,
    io: impl Fn(&Path, std::io::Error) -> E,
) -> Result<T, E> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| io(&parent, e))?;
    let name = dir
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}.agc-new-"))
        .tempdir_in(&parent)
        .map_err(|e| io(&parent, e))?;
    // Dropping `staging` on any early return removes it.
    let value = build(staging.path())?;
    let old = match std::fs::symlink_metadata(dir) {
        Ok(_) => {
            let aside = tempfile::Builder::new()
                .prefix(&format!(".{name}.agc-old-"))
                .tempdir_in(&parent)
                .map_err(|e| io(&parent, e))?;
            let aside_path = aside.path().join("old");
            std::fs::rename(dir, &aside_path).map_err(|e| io(dir, e))?;
            Some((aside, aside_path))
        }
        Err(_) => None,
    };
    let new = staging.keep();
    if let Err(e) = std::fs::rename(&new, dir) {
        // Put the old folder back; the new one goes.
        if let Some((_, aside_path)) = &old {
            let _ = std::fs::rename(aside_path, dir);
        }
        let _ = std::fs::remove_dir_all(&new);
        return Err(io(dir, e));
    }
    crate::fsio::write::sync_folder(&parent);
    // Dropping the aside folder removes the old contents.
    drop(old);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_build_leaves_the_folder_and_nothing_beside_it() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("out");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("old.txt"), "old").unwrap();
        let r: Result<(), String> = replace_with(
            &dir,
            |tmp| {
                std::fs::write(tmp.join("new.txt"), "new").unwrap();
                Err("failed".into())
            },
            |_, e| e.to_string(),
        );
        assert!(r.is_err());
        assert_eq!(files_below(top.path()).unwrap(), ["out/old.txt"]);
        let r: Result<(), String> = replace_with(
            &dir,
            |tmp| {
                std::fs::write(tmp.join("new.txt"), "new").unwrap();
                Ok(())
            },
            |_, e| e.to_string(),
        );
        assert!(r.is_ok());
        assert_eq!(files_below(top.path()).unwrap(), ["out/new.txt"]);
    }

    #[test]
    fn only_an_empty_or_owned_folder_may_be_written() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("out");
        let not = |_: &Path| Err(None);
        assert!(may_write(&dir, false, not).unwrap().is_ok());
        std::fs::create_dir(&dir).unwrap();
        assert!(may_write(&dir, false, not).unwrap().is_ok());
        std::fs::write(dir.join("mine.txt"), "mine").unwrap();
        let e = may_write(&dir, false, not).unwrap().unwrap_err();
        assert_eq!(e.stranger, "mine.txt");
        assert!(may_write(&dir, false, |_| Ok(())).unwrap().is_ok());
        assert!(may_write(&dir, true, not).unwrap().is_ok());
    }
}
