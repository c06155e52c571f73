//! The session: what one run of the compiler (a command, or a language server's life) reads
//! and how. It sits below the front ends, which read every file through it, and the drivers
//! ([`crate::check`], [`crate::compile`]) sit above them; arrows only point down:
//!
//! ```text
//! cli/, a language server ──▶ Session::check · Session::compile     (check.rs, compile.rs)
//!                                   │ dispatch on the detected dialect, once
//!                                   ▼
//!                             front/<dialect>: FrontEnd             (front/mod.rs)
//!                                   │ Context::load_document for the files a document names
//!                                   ▼
//!        session: Files (disk + overlays) · CheckOptions · load → detect → schema
//!                                   ▼
//!                   source (loading, spans) · dialect · schema · diag
//! ```
//!
//! # The interface
//!
//! - [`Session::new`] with the [`CheckOptions`] (limits, forced dialect, workspace root, agh
//!   extension manifests, `--graph`).
//! - [`Session::set_overlay`] / [`Session::remove_overlay`]: unsaved text for a path (an
//!   editor's buffer), used in place of the disk's for that file by every later check,
//!   including when another document pulls the file in ([`Files`] says exactly what an overlay
//!   changes).
//! - [`Session::check`] (in [`crate::check`]): the diagnostics of one document and of the
//!   files it pulls in, sorted, with spans into [`Session::sources`]; the front end's checked
//!   unit ([`crate::check::Unit`]) and its reference index ([`crate::check::Checked::xref`]);
//!   the lowered and analysed graphs when error-free; and which
//!   files the check read ([`crate::check::Checked::files`], the document's own first): the
//!   files whose change can change the result.
//! - [`Session::compile`] (in [`crate::compile`]): what `build`, `graph` and `gen` take: the
//!   compiled graphs (IR, order, bounds, digest), the diagnostics and the unit. A document
//!   that stands for no graph of its own is compiled through the one its front end names
//!   ([`crate::front::FrontEnd::compiled_with`]: an Agent Graph graph file through its
//!   Provider).
//!
//! [`Session::sources`] keeps every file loaded, so that diagnostics can be rendered; a
//! long-lived session calls [`Session::clear_sources`] between checks (file ids of earlier
//! results then mean nothing).
//!
//! Below the session API, front ends see [`Files`] and [`load_document`] through
//! [`crate::front::Context`]; they never call the drivers.

mod detect;
mod files;
mod options;

pub use detect::{
    LoadedDocument, agent_graph_parse_codes, detect, detect_and_validate, load_document,
};
pub use files::{Files, normal};
pub use options::CheckOptions;

use crate::source::SourceMap;
use std::path::Path;

/// One compiler session: the files loaded so far, the files as the session reads them
/// (overlays included), and the options. See the module docs.
#[derive(Debug, Default)]
pub struct Session {
    /// Every file loaded, for rendering diagnostics and plans (spans point into it).
    pub sources: SourceMap,
    /// How files are read: the disk, with overlays in front.
    pub files: Files,
    pub options: CheckOptions,
}

impl Session {
    pub fn new(options: CheckOptions) -> Session {
        Session {
            sources: SourceMap::new(),
            files: Files::new(),
            options,
        }
    }

    /// Makes `text` the contents of `path` for every later check, in place of the disk's.
    pub fn set_overlay(&mut self, path: &Path, text: String) {
        self.files.set_overlay(path, text);
    }

    /// Drops the overlay of `path`; whether there was one.
    pub fn remove_overlay(&mut self, path: &Path) -> bool {
        self.files.remove_overlay(path)
    }

    /// The overlay text of `path`, when it has one.
    pub fn overlay(&self, path: &Path) -> Option<&str> {
        self.files.overlay(path)
    }

    /// Forgets every loaded file (overlays and options stay).
    pub fn clear_sources(&mut self) {
        self.sources = SourceMap::new();
    }
}
