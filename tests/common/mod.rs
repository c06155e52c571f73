//! What the integration tests share: a temporary folder that removes itself, and checking an
//! AGS text with default options.

// Each test crate includes this module and uses a part of it.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A new empty folder `<system temp dir>/<prefix><random>`, removed with everything in it
/// when dropped: at the end of the test, pass or fail (a failing test drops it while it
/// unwinds). Keep it alive for as long as anything uses the path, processes the test started
/// included. It derefs to its path (`dir.join(..)`, `&dir` as a `&Path`).
///
/// Under the system temp dir on purpose, never under the checkout: agc finds a workspace root
/// by looking upward for `.git` and other markers.
pub struct TempDir {
    path: PathBuf,
    guard: tempfile::TempDir,
}

impl TempDir {
    pub fn new(prefix: &str) -> TempDir {
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .expect("a temporary folder");
        TempDir {
            path: dir.path().to_path_buf(),
            guard: dir,
        }
    }

    /// The same folder, known by its canonical path (the system temp dir may be a symlink).
    pub fn canonical(self) -> TempDir {
        TempDir {
            path: self.path.canonicalize().unwrap(),
            guard: self.guard,
        }
    }

    /// `<this folder>/<name>`, not created: for a command that must create its folder itself.
    /// Dropping it still removes the whole temporary folder.
    pub fn not_created(self, name: &str) -> TempDir {
        TempDir {
            path: self.path.join(name),
            guard: self.guard,
        }
    }
}

impl Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<OsStr> for TempDir {
    fn as_ref(&self) -> &OsStr {
        self.path.as_os_str()
    }
}

/// Every diagnostic of `text` checked as `t.agraph.yaml` with default options.
pub fn check_agraph(text: String) -> Vec<agc::diag::Diagnostic> {
    agc::check::check_text(
        &mut agc::source::SourceMap::new(),
        "t.agraph.yaml",
        text,
        &agc::check::CheckOptions::default(),
    )
}

/// Every file of a run directory with its bytes, sorted by name (to show that a command wrote
/// nothing there).
pub fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    files.sort();
    files
}

/// The events of a run directory's journal (`jsonl`, or `sqlite` when built with that
/// feature), read from its file: a JSON Lines journal is read, not opened (opening repairs a
/// torn last line, which is the resume's job), and a line that does not parse is skipped.
pub fn journal_events(dir: &Path, journal: &str) -> Vec<agc_runtime::run::Event> {
    match journal {
        "jsonl" => std::fs::read_to_string(dir.join("journal.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        #[cfg(feature = "sqlite")]
        "sqlite" => {
            use agc_runtime::run::Journal;
            agc_runtime::run::SqliteJournal::open(&dir.join("journal.sqlite"))
                .unwrap()
                .load()
                .unwrap()
        }
        other => panic!("no journal {other}"),
    }
}
