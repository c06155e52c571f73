//! The check driver: load → detect → schema-validate, every diagnostic of one file, sorted.
//!
//! - A file that does not load (syntax error, bad UTF-8, too deep) stops after loading; one that
//!   loads with errors (duplicate keys, custom tags, ...) is still detected and schema-checked, so
//!   every error is reported at once.
//! - In AGS documents the loader's duplicate-key AGC004 becomes AG005, the spec's own code.
//! - After the schema, the detected dialect's front end ([`crate::front::FrontEnd`]) checks
//!   the document and the files it pulls in, then lowers it when error-free; [`check_source`]
//!   is that one generic driver, and also hands back the document, dialect and graphs. On
//!   documents of 64 KiB or more (`EARLY_FROM`) the schema is validated on a second thread
//!   while the front end does its early work ([`crate::front::FrontEnd::early`]), whose
//!   result counts only when the schema passed: the diagnostics are the same either way.
//!
//! Which files a directory walk picks up ([`is_candidate`]) is decided by file name only,
//! from the names the four formats use in their own repositories (see the function docs);
//! a file named on the command line is checked whatever its name.

use crate::diag::{self, Diagnostic};
use crate::dialect::{self, Dialect};
use crate::front::{self, Context, FrontEnd};
use crate::schema;
use crate::source::yaml::Loaded;
use crate::source::{Document, FileId, Limits, SourceMap, load};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// What the driver needs to know besides the file.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    pub limits: Limits,
    /// `--dialect`: skip detection (an Agent Graph document's kind still comes from `schema:`).
    pub dialect: Option<Dialect>,
    /// The workspace root that referenced files may not leave (`--root`). `None`: found from
    /// the root document's path ([`crate::front::detect_root`]: the nearest ancestor folder
    /// holding `.git`, `.hg`, `.jj` or `.agc-root`, else the document's own folder); the
    /// current folder for in-memory input.
    pub root: Option<std::path::PathBuf>,
    /// `--extension`: agh extension manifests that declare the tool schemas of a Loop's
    /// tool-id actions (besides the one found next to the Loop).
    pub extensions: Vec<std::path::PathBuf>,
    /// `agc check`: the graphs' digests (a pass over each whole document) are not computed,
    /// since no plan is written. [`crate::compile::Compiled::digest`] is then `None`.
    pub no_digest: bool,
    /// `--graph ID` of `build` and `graph`: the one graph they take from a document holding
    /// several (an Agent Graph Provider).
    pub graph: Option<String>,
}

/// One file after the checks so far.
#[derive(Debug)]
pub struct Checked {
    pub file: FileId,
    /// The loaded document, when it could be built.
    pub doc: Option<Document>,
    /// The dialect, when it was detected (or forced).
    pub dialect: Option<Dialect>,
    /// Every diagnostic, sorted with [`diag::sort`].
    pub diags: Vec<Diagnostic>,
    /// The lowered and analysed graphs, when the document is error-free and its dialect
    /// lowers (the static bounds are part of checking). One per graph: an Agent Graph
    /// Provider holds several, the other dialects one.
    pub compiled: Vec<crate::compile::Compiled>,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(Diagnostic::is_error)
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
    match load::load_input(sources, path, display, opts.limits) {
        Ok((file, loaded)) => {
            // Standard input is checked as text without a file: references resolve from the
            // current folder (or `--root`), as for any in-memory document.
            let path = (!load::is_stdin(path)).then_some(path);
            let checked = check_source(sources, file, loaded, opts, path);
            crate::discard::discard((checked.doc, checked.compiled));
            checked.diags
        }
        Err(d) => vec![d],
    }
}

/// Checks a loaded file: detection and schema, then the dialect's front end (semantic checks,
/// the files it pulls in, resolved relative to `path`), lowering and static bounds.
pub fn check_source(
    sources: &mut SourceMap,
    file: FileId,
    loaded: Loaded,
    opts: &CheckOptions,
    path: Option<&Path>,
) -> Checked {
    let early = if sources.get(file).text.len() >= EARLY_FROM {
        Early::Beside
    } else {
        Early::After
    };
    check_source_with(sources, file, loaded, opts, path, early)
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

/// [`check_source`], with how the schema and the early work run (the tests choose).
pub(crate) fn check_source_with(
    sources: &mut SourceMap,
    file: FileId,
    loaded: Loaded,
    opts: &CheckOptions,
    path: Option<&Path>,
    early: Early,
) -> Checked {
    let (doc, dialect, mut diags) = detect(loaded, opts);
    let (doc, compiled) = match (doc, dialect) {
        (Some(doc), Some(dialect)) => {
            let mut cx = Context {
                sources,
                file,
                path,
                opts,
                schema_ok: false,
                dialect,
            };
            let cx = &mut cx;
            let d = &mut diags;
            let (doc, compiled) = match dialect {
                Dialect::Ags => drive(&front::ags::Ags, cx, doc, d, early),
                Dialect::AgentGraph(_) => drive(&front::agent_graph::AgentGraph, cx, doc, d, early),
                Dialect::Awp => drive(&front::awp::Awp, cx, doc, d, early),
                Dialect::Agh => drive(&front::agh::Agh, cx, doc, d, early),
            };
            (Some(doc), compiled)
        }
        (doc, _) => (doc, Vec::new()),
    };
    diag::sort(&mut diags);
    Checked {
        file,
        doc,
        dialect,
        diags,
        compiled,
    }
}

/// One front end, generically: the schema (beside the front end's early work), check, then
/// (when error-free) lower and analyse.
fn drive<F: FrontEnd>(
    fe: &F,
    cx: &mut Context<'_>,
    doc: Document,
    diags: &mut Vec<Diagnostic>,
    early: Early,
) -> (Document, Vec<crate::compile::Compiled>) {
    let text = &cx.sources.get(cx.file).text;
    let (schema_diags, early) = validate_with_early(fe, cx.dialect, &doc, text, early);
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
    let mut compiled = Vec::new();
    if !diags.iter().any(Diagnostic::is_error) {
        let (lowered, more) = fe.lower(cx.sources, &unit, !cx.opts.no_digest);
        diags.extend(more);
        if !diags.iter().any(Diagnostic::is_error) {
            for l in lowered {
                let (c, more) = crate::compile::analyse(l);
                diags.extend(more);
                compiled.extend(c);
            }
        }
    }
    (F::into_root(unit), compiled)
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

/// Detection of one loaded file: the document (when it loaded), its dialect (when detected or
/// forced), and the diagnostics of loading and detection. In AGS documents the loader's
/// duplicate-key AGC004 becomes AG005, the spec's own code.
fn detect(
    loaded: Loaded,
    opts: &CheckOptions,
) -> (Option<Document>, Option<Dialect>, Vec<Diagnostic>) {
    let Loaded { doc, mut diags } = loaded;
    let mut dialect = None;
    if let Some(doc) = &doc {
        match dialect::resolve(doc, opts.dialect) {
            Ok(d) => {
                dialect = Some(d);
                if d == Dialect::Ags {
                    for diag in &mut diags {
                        if diag.code == "AGC004" {
                            diag.code = "AG005";
                        }
                    }
                }
                if let Dialect::AgentGraph(_) = d {
                    crate::front::agent_graph::remap_parse_codes(&mut diags);
                }
            }
            Err(d) => diags.push(d),
        }
    }
    (doc, dialect, diags)
}

/// Detection and schema validation of one loaded file: the document (when it loaded), its
/// dialect (when detected or forced), whether the schema passed, and the diagnostics of
/// loading, detection and schema (detection as `detect` does it).
pub fn detect_and_validate(
    loaded: Loaded,
    opts: &CheckOptions,
) -> (Option<Document>, Option<Dialect>, bool, Vec<Diagnostic>) {
    let (doc, dialect, mut diags) = detect(loaded, opts);
    let mut schema_ok = false;
    if let (Some(doc), Some(d)) = (&doc, dialect) {
        let schema_diags = schema::validate(d, doc);
        schema_ok = !schema_diags.iter().any(Diagnostic::is_error);
        diags.extend(schema_diags);
    }
    (doc, dialect, schema_ok, diags)
}

/// Whether a directory walk should check this file, by name:
///
/// - AGS: `*.agraph.yaml`, `*.agraph.yml`, `*.agraph.json` (the spec's extensions);
/// - AWP: `*.workflow.json` (every published example), `*.workflow.yaml`/`.yml`,
///   `workflow.json`, and `workflow*.yaml|yml` (not `workflow*.json`: the AWP repository names
///   its JSON Schemas `workflow-definition*.json`);
/// - agh: `loop.yaml`/`loop.yml` (the daemon's layout, `loops/<name>/loop.yaml`) and
///   `*.loop.yaml`/`.yml`;
/// - Agent Graph: `provider.yaml|yml|json`, `codes.yaml|yml|json`, and any YAML/JSON file
///   under a directory named `graphs`, `actions`, `tests` or `resources` **of a Provider**: a
///   folder whose parent holds a `provider.yaml|yml|json` manifest (the provider layout).
///
/// A folder argument means "every workflow document below it, by these names". The layout
/// folder names count only inside a Provider, because `tests/` and `resources/` are common
/// folder names in any repository: a project's `tests/ci.yaml` or `resources/config.json` is
/// not a workflow document. (Inside a Provider, the manifest's check covers those files, except
/// the route tests under `tests/`, which a folder walk checks one by one; a walk started inside
/// a Provider's `graphs/` checks them one by one.) This is the one rule that looks at the disk
/// (a manifest beside the folder) rather than the name alone.
///
/// `*.schema.json` and `*-schema.json` files (JSON Schemas) are never candidates.
pub fn is_candidate(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let lower = name.to_ascii_lowercase();
    let Some((stem, ext)) = lower.rsplit_once('.') else {
        return false;
    };
    if !matches!(ext, "yaml" | "yml" | "json")
        || lower.ends_with(".schema.json")
        || lower.ends_with("-schema.json")
    {
        return false;
    }
    let yaml = ext != "json";
    if stem.ends_with(".agraph")
        || stem.ends_with(".workflow")
        || stem == "workflow"
        || (yaml && stem.starts_with("workflow"))
        || stem == "loop"
        || stem.ends_with(".loop")
        || stem == "provider"
        || stem == "codes"
    {
        return true;
    }
    path.ancestors().skip(1).any(|dir| {
        matches!(
            dir.file_name().and_then(|n| n.to_str()),
            Some("graphs" | "actions" | "tests" | "resources")
        ) && dir.parent().is_some_and(has_provider_manifest)
    })
}

/// Whether `dir` holds an Agent Graph Provider manifest.
fn has_provider_manifest(dir: &Path) -> bool {
    ["provider.yaml", "provider.yml", "provider.json"]
        .iter()
        .any(|m| dir.join(m).is_file())
}

/// Whether a walk picks `path` for a dialect other than Agent Graph (AGS, AWP or agh names).
pub fn is_candidate_outside_agent_graph(path: &Path) -> bool {
    let lower = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let Some((stem, ext)) = lower.rsplit_once('.') else {
        return false;
    };
    let yaml = ext != "json";
    matches!(ext, "yaml" | "yml" | "json")
        && (stem.ends_with(".agraph")
            || stem.ends_with(".workflow")
            || stem == "workflow"
            || (yaml && stem.starts_with("workflow"))
            || stem == "loop"
            || stem.ends_with(".loop"))
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

    #[test]
    fn candidates_by_name() {
        for yes in [
            "x/minimal.agraph.yaml",
            "a.agraph.json",
            "examples/r2.workflow.json",
            "workflow.yaml",
            "loops/review/loop.yaml",
            "p/provider.yaml",
            "p/codes.yaml",
        ] {
            assert!(is_candidate(Path::new(yes)), "{yes}");
        }
        // The provider layout folders count only beside a manifest.
        let tmp = tempfile::Builder::new()
            .prefix("agc-candidates-")
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        let p = dir.join("p");
        std::fs::create_dir_all(p.join("graphs")).unwrap();
        std::fs::write(p.join("provider.yaml"), "name: p\n").unwrap();
        for yes in ["graphs/main.yaml", "resources/views/a.yaml", "tests/t.json"] {
            assert!(is_candidate(&p.join(yes)), "{yes}");
        }
        for no in ["tests/ci.yaml", "resources/config.json", "graphs/main.yaml"] {
            assert!(!is_candidate(&dir.join("project").join(no)), "{no}");
        }
        tmp.close().unwrap();
        for no in [
            "package.json",
            "p/schemas/input.schema.json",
            "p/graphs/a.schema.json",
            "README.md",
            "p/graphs/notes.md",
            "config.toml",
            "registry.yaml",
            "schemas/workflow-definition.json",
            "assets/workflow-definition-schema.json",
            "loop",
        ] {
            assert!(!is_candidate(Path::new(no)), "{no}");
        }
    }
}
