//! The check driver: load → detect → schema-validate → the dialect's front end, every
//! diagnostic of one file, sorted. [`Session::check`] is its entry point; [`check_path`],
//! [`check_text`] and [`check_source`] are the same for callers without a session.
//!
//! - A file that does not load (syntax error, bad UTF-8, too deep) stops after loading; one that
//!   loads with errors (duplicate keys, custom tags, ...) is still detected and schema-checked, so
//!   every error is reported at once.
//! - Loading and detection are the session's ([`crate::session`]): the same steps, with the
//!   same dialect codes, as for every file a document pulls in.
//! - After the schema, the detected dialect's front end ([`crate::front::FrontEnd`]) checks
//!   the document and the files it pulls in, then lowers it when error-free and the analyses
//!   run ([`crate::analysis::analyse`]); [`check_source`] is that one generic driver, and also
//!   hands back the front end's unit, the dialect and graphs. On documents of 64 KiB or more
//!   (`EARLY_FROM`) the schema is validated on a second thread while the front end does its
//!   early work ([`crate::front::FrontEnd::early`]), whose result counts only when the schema
//!   passed: the diagnostics are the same either way.
//! - When compiling ([`crate::compile`]), a document that lowers to no graph is asked where it
//!   is compiled instead ([`crate::front::FrontEnd::compiled_with`]).
//!
//! Which files a directory walk picks up ([`is_candidate`]) is decided by file name only
//! ([`crate::dialect`]); a file named on the command line is checked whatever its name.

use crate::analysis::Compiled;
use crate::diag::{self, Diagnostic};
use crate::dialect::{AgentGraphKind, Dialect};
use crate::front::agent_graph::LoadedProvider;
use crate::front::{self, CompiledWith, Context, FrontEnd};
use crate::schema;
use crate::session::{Files, Session, detect, detect_and_validate};
use crate::source::yaml::Loaded;
use crate::source::{Document, FileId, SourceMap, load};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

pub use crate::dialect::is_candidate;
pub use crate::session::CheckOptions;

/// One file after the checks so far.
#[derive(Debug)]
pub struct Checked {
    pub file: FileId,
    /// The dialect, when it was detected (or forced).
    pub dialect: Option<Dialect>,
    /// Every diagnostic, sorted with [`diag::sort`].
    pub diags: Vec<Diagnostic>,
    /// The lowered and analysed graphs, when the document is error-free and its dialect
    /// lowers (the static bounds are part of checking). One per graph: an Agent Graph
    /// Provider holds several, the other dialects one.
    pub compiled: Vec<Compiled>,
    /// The front end's checked unit (the root document and what it pulled in), when the
    /// document loaded and its dialect is known.
    pub unit: Option<Unit>,
    /// Every file the check read (through the session), each once, the document's own first:
    /// the files whose change can change this result. Empty for in-memory text and standard
    /// input, which have no path, unless they pull files in.
    pub files: Vec<PathBuf>,
    /// When compiling: where a document that lowered to no graph is compiled instead
    /// ([`FrontEnd::compiled_with`]).
    pub compiled_with: Option<Result<CompiledWith, Diagnostic>>,
    /// The reference index of the unit ([`FrontEnd::xref`]), errors or not, when the options
    /// ask for it ([`CheckOptions::xref`]; empty when the document did not load or its dialect
    /// is unknown).
    pub xref: front::xref::Xref,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(Diagnostic::is_error)
    }
}

/// A front end's checked unit ([`FrontEnd::Unit`]), by dialect. One per check, so the
/// variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub enum Unit {
    Ags(front::ags::refs::Workspace),
    AgentGraph(front::agent_graph::Unit),
    Awp(Document),
    Agh(front::agh::Unit),
}

impl std::fmt::Debug for Unit {
    /// The variant only: the units hold whole documents.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Unit::Ags(_) => "Ags",
            Unit::AgentGraph(_) => "AgentGraph",
            Unit::Awp(_) => "Awp",
            Unit::Agh(_) => "Agh",
        };
        write!(f, "Unit::{name}(..)")
    }
}

impl Unit {
    /// Gives back the root document.
    pub fn into_root(self) -> Document {
        match self {
            Unit::Ags(u) => front::ags::Ags::into_root(u),
            Unit::AgentGraph(u) => front::agent_graph::AgentGraph::into_root(u),
            Unit::Awp(u) => front::awp::Awp::into_root(u),
            Unit::Agh(u) => front::agh::Agh::into_root(u),
        }
    }
}

impl Session {
    /// Checks the document at `path` (standard input for `-`), shown to users as `display`,
    /// with the session's options and overlays. An unreadable file gives one AGC001
    /// diagnostic at the start of an empty file of that name.
    pub fn check(&mut self, path: &Path, display: &str) -> Checked {
        let opts = self.options.clone();
        self.check_with(path, display, &opts, How::check())
    }

    /// Checks `text` as an in-memory document named `name` (no path: references resolve from
    /// the workspace root option, else the current folder).
    pub fn check_text(&mut self, name: &str, text: String) -> Checked {
        let mark = self.files.mark();
        let (file, loaded) = load::load_str(&mut self.sources, name, text, self.options.limits);
        let how = How {
            early: early_for(&self.sources, file),
            compiling: false,
        };
        let (sources, files) = (&mut self.sources, &mut self.files);
        let mut checked = drive_source(sources, files, file, loaded, &self.options, None, how);
        checked.files = self.files.read_since(mark);
        checked
    }

    /// [`Session::check`] with other options and, when compiling, the
    /// [`FrontEnd::compiled_with`] hook.
    pub(crate) fn check_with(
        &mut self,
        path: &Path,
        display: &str,
        opts: &CheckOptions,
        how: How,
    ) -> Checked {
        let mark = self.files.mark();
        let (sources, files) = (&mut self.sources, &mut self.files);
        let mut checked = match files.load_input(sources, path, display, opts.limits) {
            Ok((file, loaded)) => {
                // Standard input is checked as text without a file: references resolve from
                // the current folder (or `--root`), as for any in-memory document.
                let path = (!load::is_stdin(path)).then_some(path);
                let how = How {
                    early: early_for(sources, file),
                    ..how
                };
                drive_source(sources, files, file, loaded, opts, path, how)
            }
            Err(d) => Checked {
                file: d.span.map(|s| s.file).unwrap_or_default(),
                dialect: None,
                diags: vec![d],
                compiled: Vec::new(),
                unit: None,
                files: Vec::new(),
                compiled_with: None,
                xref: Default::default(),
            },
        };
        checked.files = self.files.read_since(mark);
        checked
    }
}

impl Session {
    /// Checks the Agent Graph Provider (or built bundle) whose manifest is at `path`, shown as
    /// `display`, for the commands that evaluate it (`evaluate`, `route`, `test`): read as a
    /// Provider whatever it declares (anything else is `schema-invalid`), checked, not
    /// lowered. The model is `Some` only when no error was found.
    pub fn check_provider(&mut self, path: &Path, display: &str) -> LoadedProvider {
        let fail = |diags| LoadedProvider {
            provider: None,
            graphs: Vec::new(),
            diags,
            inventory: None,
        };
        let (sources, files) = (&mut self.sources, &mut self.files);
        let (file, loaded) = match files.load(sources, path, display, self.options.limits) {
            Ok(x) => x,
            Err(d) => return fail(vec![d]),
        };
        // A built bundle's `manifest.json` stands for the Provider it carries.
        let kind = if loaded.doc.as_ref().is_some_and(|d| {
            d.value.get("schema").and_then(crate::source::Value::as_str)
                == Some("agent-graph.bundle.v1")
        }) {
            AgentGraphKind::Bundle
        } else {
            AgentGraphKind::Provider
        };
        let opts = CheckOptions {
            dialect: Some(Dialect::AgentGraph(kind)),
            ..self.options.clone()
        };
        let (doc, dialect, schema_ok, mut diags) = detect_and_validate(loaded, &opts);
        let Some(doc) = doc else {
            return fail(diags);
        };
        if dialect != Some(Dialect::AgentGraph(kind)) {
            diags.push(
                Diagnostic::error(
                    "schema-invalid",
                    format!("`{display}` is not an `agent-graph.provider.v1` manifest"),
                )
                .at(front::agent_graph::span_at(&doc, "/schema")),
            );
            return fail(diags);
        }
        let mut cx = Context {
            sources,
            files,
            file,
            path: Some(path),
            opts: &opts,
            schema_ok,
            dialect: Dialect::AgentGraph(kind),
        };
        let (unit, more) = front::agent_graph::AgentGraph.check(&mut cx, doc, None);
        diags.extend(more);
        let mut loaded = unit.provider.unwrap_or_else(|| fail(Vec::new()));
        diag::sort(&mut diags);
        loaded.diags = diags;
        loaded
    }
}

/// Checks a file given as text; `name` is how it is shown to users.
pub fn check_text(
    sources: &mut SourceMap,
    name: &str,
    text: String,
    opts: &CheckOptions,
) -> Vec<Diagnostic> {
    let (file, loaded) = load::load_str(sources, name, text, opts.limits);
    check_source(sources, file, loaded, opts, None).diags
}

/// Unit tests' shorthand: the diagnostics of `text` checked as file `name`, with default
/// options and the temp folder as the workspace root (so a test's document refers to no file
/// of the folder it runs in).
#[cfg(test)]
pub(crate) fn check_test_text(name: &str, text: String) -> Vec<Diagnostic> {
    let opts = CheckOptions {
        root: Some(std::env::temp_dir()),
        ..CheckOptions::default()
    };
    check_text(&mut SourceMap::new(), name, text, &opts)
}

/// Reads and checks a file (standard input for `-`); `display` is how it is shown to users. An
/// unreadable file gives one AGC001 diagnostic at the start of an empty file of that name.
pub fn check_path(
    sources: &mut SourceMap,
    path: &Path,
    display: &str,
    opts: &CheckOptions,
) -> Vec<Diagnostic> {
    let mut session = Session {
        sources: std::mem::take(sources),
        ..Session::default()
    };
    let checked = session.check_with(path, display, opts, How::check());
    *sources = session.sources;
    crate::discard::discard((checked.unit, checked.compiled));
    checked.diags
}

/// Checks a loaded file: detection and schema, then the dialect's front end (semantic checks,
/// the files it pulls in, resolved relative to `path`, read from disk), lowering and static
/// bounds.
pub fn check_source(
    sources: &mut SourceMap,
    file: FileId,
    loaded: Loaded,
    opts: &CheckOptions,
    path: Option<&Path>,
) -> Checked {
    let early = early_for(sources, file);
    check_source_with(sources, file, loaded, opts, path, early)
}

/// How the schema and the early work run, by the document's size ([`EARLY_FROM`]).
fn early_for(sources: &SourceMap, file: FileId) -> Early {
    if sources.get(file).text.len() >= EARLY_FROM {
        Early::Beside
    } else {
        Early::After
    }
}

/// Documents from this many bytes on have their schema validated on a second thread while
/// the front end's early work ([`FrontEnd::early`]) runs; below, one after the other (the
/// thread would cost more than it saves).
const EARLY_FROM: usize = 64 * 1024;

/// How the schema validation and the front end's early work are run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Early {
    /// Side by side on two threads.
    Beside,
    /// One after the other: the schema, then (when it passed) the early work.
    After,
}

/// How the driver runs: the early work, and whether it compiles (then a document that lowers
/// to no graph is asked [`FrontEnd::compiled_with`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct How {
    pub early: Early,
    pub compiling: bool,
}

impl How {
    fn check() -> How {
        How {
            early: Early::After,
            compiling: false,
        }
    }
}

/// [`check_source`], with how the schema and the early work run (the tests choose).
pub(crate) fn check_source_with(
    sources: &mut SourceMap,
    file: FileId,
    loaded: Loaded,
    opts: &CheckOptions,
    path: Option<&Path>,
    early: Early,
) -> Checked {
    let how = How {
        early,
        compiling: false,
    };
    let mut files = Files::new();
    let mut checked = drive_source(sources, &mut files, file, loaded, opts, path, how);
    checked.files = files.read_since(0);
    checked
}

/// The one generic driver: detection, then the detected dialect's front end.
fn drive_source(
    sources: &mut SourceMap,
    files: &mut Files,
    file: FileId,
    loaded: Loaded,
    opts: &CheckOptions,
    path: Option<&Path>,
    how: How,
) -> Checked {
    let (doc, dialect, mut diags) = detect(loaded, opts);
    let mut checked = Checked {
        file,
        dialect,
        diags: Vec::new(),
        compiled: Vec::new(),
        unit: None,
        files: Vec::new(),
        compiled_with: None,
        xref: Default::default(),
    };
    if let (Some(doc), Some(dialect)) = (doc, dialect) {
        let mut cx = Context {
            sources,
            files,
            file,
            path,
            opts,
            schema_ok: false,
            dialect,
        };
        let (cx, d, c) = (&mut cx, &mut diags, &mut checked);
        checked.unit = Some(match dialect {
            Dialect::Ags => Unit::Ags(drive(&front::ags::Ags, cx, doc, d, how, c)),
            Dialect::AgentGraph(_) => {
                Unit::AgentGraph(drive(&front::agent_graph::AgentGraph, cx, doc, d, how, c))
            }
            Dialect::Awp => Unit::Awp(drive(&front::awp::Awp, cx, doc, d, how, c)),
            Dialect::Agh => Unit::Agh(drive(&front::agh::Agh, cx, doc, d, how, c)),
        });
    }
    diag::sort(&mut diags);
    checked.diags = diags;
    checked
}

/// One front end, generically: the schema (beside the front end's early work), check, then
/// (when error-free) lower and analyse into `out.compiled`; when compiling a document that
/// gave no graph, where it is compiled instead (`out.compiled_with`).
fn drive<F: FrontEnd>(
    fe: &F,
    cx: &mut Context<'_>,
    doc: Document,
    diags: &mut Vec<Diagnostic>,
    how: How,
    out: &mut Checked,
) -> F::Unit {
    let text = &cx.sources.get(cx.file).text;
    let (schema_diags, early) = validate_with_early(fe, cx.dialect, &doc, text, how.early);
    cx.schema_ok = !schema_diags.iter().any(Diagnostic::is_error);
    // A number the loader could not represent (AGC011: `1e400`, `.inf`) is null in the
    // document; the schema's "must be a number, found null" at the same place only repeats it.
    let unrepresentable: Vec<_> = diags
        .iter()
        .filter(|d| d.code == "AGC011")
        .filter_map(|d| d.span)
        .collect();
    diags.extend(
        schema_diags
            .into_iter()
            .filter(|d| !d.span.is_some_and(|s| unrepresentable.contains(&s))),
    );
    let (unit, more) = fe.check(cx, doc, early);
    diags.extend(more);
    if cx.opts.xref {
        out.xref = fe.xref(cx.sources, &unit);
    }
    if !diags.iter().any(Diagnostic::is_error) {
        let (lowered, more) = fe.lower(cx.sources, &unit, !cx.opts.no_digest);
        diags.extend(more);
        if !diags.iter().any(Diagnostic::is_error) {
            for l in lowered {
                let (c, more) = crate::analysis::analyse(l);
                diags.extend(more);
                out.compiled.extend(c);
            }
        }
    }
    if how.compiling && out.compiled.is_empty() && !diags.iter().any(Diagnostic::is_error) {
        out.compiled_with = fe.compiled_with(cx, &unit);
    }
    unit
}

/// The schema diagnostics of the root document, and the front end's early work on it when
/// the schema passed. [`Early::Beside`]: the schema is validated on a second thread while
/// this one does the early work, which is told to stop as soon as the schema has failed and
/// is then dropped. Both ways give the same result (tested over the corpus); where no thread
/// can be started, they run one after the other.
fn validate_with_early<F: FrontEnd>(
    fe: &F,
    dialect: Dialect,
    doc: &Document,
    text: &str,
    early: Early,
) -> (Vec<Diagnostic>, Option<F::Early>) {
    let failed = |ds: &[Diagnostic]| ds.iter().any(Diagnostic::is_error);
    let stop = AtomicBool::new(false);
    let after = || {
        let schema_diags = schema::validate(dialect, doc);
        let work = (!failed(&schema_diags))
            .then(|| fe.early(doc, text, &stop))
            .flatten();
        (schema_diags, work)
    };
    if early == Early::After {
        return after();
    }
    std::thread::scope(|s| {
        let schema = std::thread::Builder::new()
            .name("agc-schema".into())
            .spawn_scoped(s, || {
                let ds = schema::validate(dialect, doc);
                if failed(&ds) {
                    stop.store(true, Ordering::Relaxed);
                }
                ds
            });
        let Ok(schema) = schema else {
            return after();
        };
        // A panic in the early work is a bug; it is raised when its result was wanted.
        let work =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fe.early(doc, text, &stop)));
        let schema_diags = schema
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        let work = match work {
            _ if failed(&schema_diags) => None,
            Ok(work) => work,
            Err(p) => std::panic::resume_unwind(p),
        };
        (schema_diags, work)
    })
}

#[cfg(test)]
#[path = "check_early_tests.rs"]
mod early_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(text: &str, opts: &CheckOptions) -> Vec<&'static str> {
        let mut sources = SourceMap::new();
        check_text(&mut sources, "t.yaml", text.to_string(), opts)
            .iter()
            .map(|d| d.code)
            .collect()
    }

    #[test]
    fn duplicate_keys_are_ag005_in_ags_only() {
        let ags = "ags_version: \"1.0\"\nkind: AgenticGraph\nid: g\nid: h\ntitle: t\n\
objective: o\nconstraints: {max_cost_usd: 1}\nentrypoints: [a]\nnodes:\n  a: {title: A, description: d}\n";
        assert_eq!(codes(ags, &CheckOptions::default()), vec!["AG005"]);
        // (A non-empty graph: an empty one is agh's `non_terminating_structure`.)
        let agh = "apiVersion: agh.loop/v1\nkind: Loop\nkind: Loop\ncontract: {}\n\
graph: {nodes: [{id: a, class: action, kind: run-agent, params: {agent: a, prompt: p}}]}\n";
        assert_eq!(codes(agh, &CheckOptions::default()), vec!["AGC004"]);
    }

    #[test]
    fn diagnostics_come_sorted_by_position() {
        let text = "apiVersion: agh.loop/v1\nkind: Loop\nbogus: 1\ncontract: {}\n\
graph: {nodes: [{id: A, class: action, kind: run-agent}]}\nconcurrency: sometimes\n";
        let mut sources = SourceMap::new();
        let diags = check_text(
            &mut sources,
            "t.yaml",
            text.into(),
            &CheckOptions::default(),
        );
        let starts: Vec<u32> = diags.iter().map(|d| d.span.unwrap().start).collect();
        let mut sorted = starts.clone();
        sorted.sort();
        assert_eq!(starts, sorted);
        let got: Vec<&str> = diags.iter().map(|d| d.code).collect();
        assert_eq!(got, vec!["AGC022", "node_id_invalid", "AGC023"]);
    }

    #[test]
    fn forced_dialect_validates_against_that_schema() {
        let text = "name: release\n";
        assert_eq!(codes(text, &CheckOptions::default()), vec!["AGC020"]);
        let forced = CheckOptions {
            dialect: Some(Dialect::Awp),
            ..CheckOptions::default()
        };
        // Four missing required fields, then the unknown `name` (AWP: all `schema`).
        assert_eq!(codes(text, &forced), vec!["schema"; 5]);
    }

    #[test]
    fn unloadable_text_stops_before_detection() {
        assert_eq!(
            codes("a: [1, 2\n", &CheckOptions::default()),
            vec!["AGC003"]
        );
    }

    #[test]
    fn unreadable_path_is_agc001_at_an_empty_file() {
        let mut sources = SourceMap::new();
        let diags = check_path(
            &mut sources,
            Path::new("/nonexistent/agc/x.agraph.yaml"),
            "x.agraph.yaml",
            &CheckOptions::default(),
        );
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, "AGC001");
        let span = diags[0].span.expect("a location");
        assert_eq!((span.start, span.end), (0, 0));
        assert_eq!(sources.get(span.file).name, "x.agraph.yaml");
        assert_eq!(sources.get(span.file).text, "");
    }
}
