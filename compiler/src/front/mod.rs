//! Dialect front ends: semantic checks with native codes, then lowering into the IR.
//!
//! Every dialect offers the same entry points, the [`FrontEnd`] trait, so that the driver
//! (`check_source` in `check.rs`) dispatches on the detected dialect and never grows a copy
//! of itself per dialect:
//!
//! 1. [`FrontEnd::check`] takes the root document (already loaded, detected and validated
//!    against its dialect's schema; `cx.schema_ok` says whether that passed) and checks it,
//!    reading whatever other files it pulls in through [`Context::load_document`] (AGS
//!    `subgraph.ref`, an Agent Graph Provider's graphs and actions, agh extension manifests,
//!    AWP sub-workflows). It returns the front end's checked unit and every diagnostic.
//! 2. [`FrontEnd::lower`] turns an error-free unit into one or more IR graphs (an Agent Graph
//!    Provider holds several; the other dialects give one), each with its digest.
//! 3. [`FrontEnd::compiled_with`] (compiling only): where a document that stands for no graph
//!    of its own is compiled instead (an Agent Graph graph file: with its Provider).
//! 4. [`FrontEnd::xref`]: the unit's reference index ([`xref`]: where each node id is declared
//!    and used, structure and expressions alike, and links to other files), asked after every
//!    check, errors or not, for the language server's definition, references and rename.
//!
//! A front end may also do part of its check early ([`FrontEnd::early`]: work on the root
//! document alone, which the driver runs beside the schema validation on large documents and
//! hands to `check` only when the schema passed). AGS does its semantic checks there.
//!
//! Front ends never call the drivers: what they read comes through the session below them
//! ([`crate::session`]: overlays, load → detect → schema, via [`Context`]). What they share
//! lives below them too: containment ([`contained`]), schema reporting ([`crate::schema`]),
//! and the analyses of the lowered graph ([`crate::analysis`]).

pub mod agent_graph;
pub mod agh;
pub mod ags;
pub mod awp;
pub mod xref;

use crate::diag::Diagnostic;
use crate::dialect::Dialect;
use crate::ir::Graph;
use crate::session::{CheckOptions, Files};
use crate::source::{Document, FileId, SourceMap, Span};
use std::path::{Component, Path, PathBuf};

pub use crate::session::LoadedDocument;
use std::sync::atomic::AtomicBool;

/// What a front end may use while checking: the sources and the session's files (to load
/// more files), the root file and its path, and the options.
pub struct Context<'a> {
    pub sources: &'a mut SourceMap,
    /// How files are read (overlays in front of the disk): every file a front end reads goes
    /// through here or [`Context::load_document`].
    pub files: &'a mut Files,
    /// The root document's file.
    pub file: FileId,
    /// The root document's path on disk (`None` for in-memory input).
    pub path: Option<&'a Path>,
    pub opts: &'a CheckOptions,
    /// Whether the root document passed its schema.
    pub schema_ok: bool,
    /// The dialect the root document was detected (or forced) as.
    pub dialect: Dialect,
}

impl Context<'_> {
    /// The root document's name as shown to users.
    pub fn display(&self) -> String {
        self.sources.get(self.file).name.clone()
    }

    /// The root document's text.
    pub fn text(&self) -> &str {
        &self.sources.get(self.file).text
    }

    /// The workspace root that referenced files may not leave: `--root`, else the one
    /// [`detect_root`] finds from the root document's path, else (in-memory input) the current
    /// folder.
    pub fn workspace_root(&self) -> PathBuf {
        match (&self.opts.root, self.path) {
            (Some(root), _) => root.clone(),
            (None, Some(path)) => detect_root(path),
            (None, None) => PathBuf::from("."),
        }
    }

    /// Loads another file of the same compilation through the session (so overlays apply),
    /// detects its dialect (`expect` forces one, as `--dialect` does) and validates it against
    /// its schema ([`crate::session::load_document`]). Semantic checks are the caller's.
    pub fn load_document(
        &mut self,
        path: &Path,
        display: &str,
        expect: Option<Dialect>,
    ) -> LoadedDocument {
        crate::session::load_document(self.sources, self.files, self.opts, path, display, expect)
    }
}

/// `lower()` with, when `digest` is set, the digest of `value` computed beside it on a second
/// thread (a pass over the whole document, as long as a quarter of lowering at 100k nodes).
pub(crate) fn lower_with_digest<T>(
    digest: bool,
    value: &crate::source::Value,
    lower: impl FnOnce() -> T,
) -> (T, Option<String>) {
    if !digest {
        return (lower(), None);
    }
    std::thread::scope(|s| {
        let digest = s.spawn(|| crate::canon::graph_digest(value).ok());
        let lowered = lower();
        // A panic in the digest thread is a bug; it then counts as "no digest".
        (lowered, digest.join().ok().flatten())
    })
}

/// One lowered graph, ready for the analyses and the back ends.
#[derive(Debug)]
pub struct Lowered {
    pub graph: Graph,
    /// `sha256-…` of the graph's source document in its canonical form (AGS `graph_digest`;
    /// the other dialects use the same RFC 8785 digest of their document).
    pub digest: Option<String>,
    /// The path of the file the graph comes from, as shown to users (the plan's `source`).
    pub display: String,
}

/// A dialect's front end. See the module docs for the contract.
pub trait FrontEnd {
    /// What `check` hands to `lower`: the root document and whatever it pulled in.
    type Unit: Send;

    /// What [`FrontEnd::early`] hands to [`FrontEnd::check`].
    type Early: Send;

    /// Work on the root document alone that `check` would start with (AGS: its semantic
    /// checks), done while the schema validation runs on another thread; the driver hands the
    /// result to `check` when the schema passed and drops it when not. The document may fail
    /// its schema, so this must not panic or hang on any document, and it should give up soon
    /// after `stop` is set (the schema failed). `None`: nothing done early (the default).
    fn early(&self, doc: &Document, text: &str, stop: &AtomicBool) -> Option<Self::Early> {
        let _ = (doc, text, stop);
        None
    }

    /// Semantic checks of the root document and the files it pulls in: every finding, with
    /// the dialect's own codes. Must not panic on a schema-invalid document. `early` is what
    /// [`FrontEnd::early`] gave for this document, when the schema passed.
    fn check(
        &self,
        cx: &mut Context<'_>,
        doc: Document,
        early: Option<Self::Early>,
    ) -> (Self::Unit, Vec<Diagnostic>);

    /// Lowers a unit whose check reported no error. Diagnostics here are either warnings or
    /// internal errors (a bug, reported rather than panicking). `digest`: whether the graphs'
    /// [`Lowered::digest`] is wanted (plans carry it; `agc check` writes none and skips it).
    fn lower(
        &self,
        sources: &SourceMap,
        unit: &Self::Unit,
        digest: bool,
    ) -> (Vec<Lowered>, Vec<Diagnostic>);

    /// Gives back the root document.
    fn into_root(unit: Self::Unit) -> Document;

    /// The reference index of a checked unit ([`xref::Xref`]): node ids declared and used,
    /// in structure and in expressions, and the unit's other references. Asked after every
    /// check, errors or not, so it must be total on any document. Empty by default.
    fn xref(&self, sources: &SourceMap, unit: &Self::Unit) -> xref::Xref {
        let _ = (sources, unit);
        xref::Xref::default()
    }

    /// Where a document that checked clean but lowered to no graph is compiled instead: the
    /// file and the graph to take from it (Agent Graph: a graph file is compiled with the
    /// Provider that lists it), or the error saying why it cannot be. Asked only when
    /// compiling (`build`, `graph`, `gen`, `run`), never by `check`. `None` (the default): the
    /// document is compiled as itself.
    fn compiled_with(
        &self,
        cx: &mut Context<'_>,
        unit: &Self::Unit,
    ) -> Option<Result<CompiledWith, Diagnostic>> {
        let _ = (cx, unit);
        None
    }
}

/// What [`FrontEnd::compiled_with`] names: compile `path` (shown as `display`) and take its
/// graph `graph`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledWith {
    pub path: PathBuf,
    pub display: String,
    pub graph: String,
}

/// Files whose presence in a folder makes it a workspace root: version-control roots (`.git`,
/// a folder or, in worktrees and submodules, a file; `.hg`; `.jj`) and `.agc-root`, an empty
/// file users may add to mark a root explicitly.
pub const ROOT_MARKERS: [&str; 4] = [".git", ".hg", ".jj", ".agc-root"];

/// The workspace root of a document at `doc`: the nearest folder, from the document's own
/// folder upwards, that holds one of [`ROOT_MARKERS`]; else the document's own folder.
///
/// The result is the document's folder as given followed by one `..` per level climbed
/// (`../shared/corpus/x/../..`), not an absolute path, so that messages naming the root stay
/// relative to what the user typed; containment is still decided on canonical paths. Climbing
/// follows the real (symlink-resolved) parents.
pub fn detect_root(doc: &Path) -> PathBuf {
    marked_root(doc).unwrap_or_else(|| doc_folder(doc))
}

/// The nearest folder, from the document's own folder upwards, that holds one of
/// [`ROOT_MARKERS`] (written as [`detect_root`] writes it); `None` when no folder does.
pub fn marked_root(doc: &Path) -> Option<PathBuf> {
    let dir = doc_folder(doc);
    let canon = dir.canonicalize().ok()?;
    let up = canon
        .ancestors()
        .position(|a| ROOT_MARKERS.iter().any(|m| a.join(m).exists()))?;
    let mut root = dir;
    for _ in 0..up {
        root.push("..");
    }
    Some(root)
}

/// The folder of a document path as given (`.` for a bare file name).
fn doc_folder(doc: &Path) -> PathBuf {
    match doc.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Whether `path` lies inside `root` after resolving symlinks and `..` (both must exist).
/// Front ends use this for every file a document names, so no reference reads outside the
/// workspace (AGS `subgraph.ref`, Agent Graph provider paths, agh manifests).
pub fn contained(root: &Path, path: &Path) -> bool {
    match (root.canonicalize(), path.canonicalize()) {
        (Ok(r), Ok(p)) => p.starts_with(r),
        _ => false,
    }
}

/// Whether a relative path as written climbs out with `..` or is absolute (checked before any
/// file is touched).
pub fn escapes_lexically(rel: &Path) -> bool {
    let mut depth: i64 = 0;
    for c in rel.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => return true,
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
        }
    }
    false
}

/// A span at the start of a file, for findings about a whole file.
pub fn file_start(file: FileId) -> Span {
    Span::point(file, 0)
}

/// The text of file `file` of `sources`, when it is one of them.
pub fn source_text(sources: &SourceMap, file: FileId) -> Option<&str> {
    ((file.0 as usize) < sources.len()).then(|| sources.get(file).text.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_escapes() {
        assert!(escapes_lexically(Path::new("../x")));
        assert!(escapes_lexically(Path::new("a/../../x")));
        assert!(escapes_lexically(Path::new("/etc/passwd")));
        assert!(!escapes_lexically(Path::new("a/../b")));
        assert!(!escapes_lexically(Path::new("./graphs/main.yaml")));
    }
}
