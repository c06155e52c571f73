//! The files a session reads: the disk, with unsaved in-memory texts (overlays) in front of
//! it, and a record of what was read.
//!
//! An overlay replaces the contents of one file for every read that goes through [`Files`]:
//! the document checked, the files it pulls in (AGS `subgraph.ref`, an Agent Graph Provider's
//! graphs, actions, resources and bundle files, agh extension manifests), and the manifest
//! search of a lone Agent Graph graph. Which file a reference names, whether it exists and
//! whether it stays inside the workspace root are still decided on the disk (canonical paths,
//! folder listings): an overlay changes what a file says, not which files there are. A language
//! server gives an editor's buffers this way; the command line gives none.
//!
//! Overlays are keyed by the absolute, lexically normalised path (`a/./b/../c` is `a/c`,
//! relative paths are taken from the current folder), and also by the canonical path
//! (symlinks resolved) when the file exists, so a reference that reaches the same file by
//! another spelling still sees the overlay. A session without overlays does no path work.

use crate::diag::Diagnostic;
use crate::fsio::ReadError;
use crate::source::yaml::Loaded;
use crate::source::{FileId, Limits, SourceMap, load};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// The disk with overlays in front of it; see the module docs.
#[derive(Clone, Debug, Default)]
pub struct Files {
    /// Overlay texts by normalised absolute path.
    overlays: BTreeMap<PathBuf, String>,
    /// Canonical path → the key in `overlays`, for overlaid files that exist on disk (reached
    /// through a symlink, a path is spelled otherwise).
    canonical: BTreeMap<PathBuf, PathBuf>,
    /// Every path read (loaded or read as text), in order, as the reader named it.
    read: Vec<PathBuf>,
}

impl Files {
    pub fn new() -> Files {
        Files::default()
    }

    /// Makes `text` the contents of `path` for every later read, in place of the disk's.
    pub fn set_overlay(&mut self, path: &Path, text: String) {
        let key = normal(path);
        if let Ok(canon) = path.canonicalize() {
            self.canonical.insert(canon, key.clone());
        }
        self.overlays.insert(key, text);
    }

    /// Drops the overlay of `path` (the disk's text counts again); whether there was one.
    pub fn remove_overlay(&mut self, path: &Path) -> bool {
        let key = normal(path);
        self.canonical.retain(|_, k| *k != key);
        self.overlays.remove(&key).is_some()
    }

    /// The overlay text of `path`, when it has one.
    pub fn overlay(&self, path: &Path) -> Option<&str> {
        if self.overlays.is_empty() {
            return None;
        }
        if let Some(text) = self.overlays.get(&normal(path)) {
            return Some(text);
        }
        if self.canonical.is_empty() {
            return None;
        }
        let key = self.canonical.get(&path.canonicalize().ok()?)?;
        self.overlays.get(key).map(String::as_str)
    }

    /// The paths overlaid, normalised (in path order).
    pub fn overlaid(&self) -> impl Iterator<Item = &Path> {
        self.overlays.keys().map(PathBuf::as_path)
    }

    /// The bytes of `path`, at most `limit`: its overlay, else the file as the bounded reader
    /// reads it ([`crate::fsio::read::read_file`]). Recorded as read.
    pub fn read(&mut self, path: &Path, limit: usize) -> Result<Vec<u8>, ReadError> {
        self.note(path);
        match self.overlay(path) {
            Some(text) if text.len() > limit => Err(ReadError::TooLarge {
                limit,
                size: Some(text.len() as u64),
            }),
            Some(text) => Ok(text.as_bytes().to_vec()),
            None => crate::fsio::read::read_file(path, limit),
        }
    }

    /// [`Files::read`] as UTF-8 text (invalid UTF-8 is an error, as in
    /// [`crate::fsio::read_text`]).
    pub fn read_text(&mut self, path: &Path, limit: usize) -> Result<String, ReadError> {
        String::from_utf8(self.read(path, limit)?).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            ReadError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("not UTF-8 (byte {at})"),
            ))
        })
    }

    /// Loads `path` (shown as `display`) into `sources`: its overlay when it has one, else the
    /// file as [`load::load_path`] reads it. Recorded as read.
    pub fn load(
        &mut self,
        sources: &mut SourceMap,
        path: &Path,
        display: &str,
        limits: Limits,
    ) -> Result<(FileId, Loaded), Diagnostic> {
        self.note(path);
        match self.overlay(path) {
            Some(text) => Ok(load::load_bytes_at(
                sources,
                path,
                display,
                text.as_bytes().to_vec(),
                limits,
            )),
            None => load::load_path(sources, path, display, limits),
        }
    }

    /// A document named on the command line: standard input for `-` (never overlaid), else
    /// [`Files::load`].
    pub fn load_input(
        &mut self,
        sources: &mut SourceMap,
        path: &Path,
        display: &str,
        limits: Limits,
    ) -> Result<(FileId, Loaded), Diagnostic> {
        if crate::fsio::read::is_stdin(path) {
            return load::load_input(sources, path, display, limits);
        }
        self.load(sources, path, display, limits)
    }

    /// How many reads are recorded; [`Files::read_since`] takes those after such a mark.
    pub fn mark(&self) -> usize {
        self.read.len()
    }

    /// The paths read since `mark`, each once, in the order first read; forgotten here.
    pub fn read_since(&mut self, mark: usize) -> Vec<PathBuf> {
        let mut seen = std::collections::BTreeSet::new();
        let tail = self.read.split_off(mark.min(self.read.len()));
        tail.into_iter()
            .filter(|p| seen.insert(p.clone()))
            .collect()
    }

    fn note(&mut self, path: &Path) {
        self.read.push(path.to_path_buf());
    }
}

/// `path` made absolute (from the current folder) with `.` dropped and `..` applied lexically:
/// the key of a file in the session's overlays (and in the language server's maps).
pub fn normal(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overlay_is_found_by_any_spelling_of_its_path() {
        let tmp = tempfile::Builder::new()
            .prefix("agc-files-")
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::write(dir.join("a/x.yaml"), "disk\n").unwrap();
        let mut files = Files::new();
        assert_eq!(
            files.read_text(&dir.join("a/x.yaml"), 100).unwrap(),
            "disk\n"
        );
        files.set_overlay(&dir.join("a/x.yaml"), "buffer\n".into());
        for p in ["a/x.yaml", "a/./x.yaml", "a/../a/x.yaml"] {
            assert_eq!(
                files.read_text(&dir.join(p), 100).unwrap(),
                "buffer\n",
                "{p}"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("a"), dir.join("b")).unwrap();
            assert_eq!(files.overlay(&dir.join("b/x.yaml")), Some("buffer\n"));
        }
        assert!(files.remove_overlay(&dir.join("a/x.yaml")));
        assert!(!files.remove_overlay(&dir.join("a/x.yaml")));
        assert_eq!(
            files.read_text(&dir.join("a/x.yaml"), 100).unwrap(),
            "disk\n"
        );
        // Five reads of two paths (`a/./x` and `a/x` are the same `Path`); each is recorded
        // once.
        let read = files.read_since(0);
        assert_eq!(read.len(), 2, "{read:?}");
        assert!(files.read_since(0).is_empty());
        tmp.close().unwrap();
    }
}
