//! Code generation from a document, as a library: what `agc gen rust` runs, and what
//! `agc-build` calls from a user's `build.rs` (issue 49 item 9).
//!
//! [`rust_runner`] loads, checks and compiles one document of one graph through a
//! [`Session`], and when no error was found renders the runner crate
//! ([`crate::back::rust::generate`]). It writes nothing and prints nothing: the caller gets
//! the files, the diagnostics with the sources to render them against, and every file the
//! compile read (the document first), which a build script turns into
//! `cargo::rerun-if-changed` lines.

use crate::back::rust::{self, GenFile, Runtime};
use crate::check::CheckOptions;
use crate::compile::plan_text;
use crate::diag::Diagnostic;
use crate::session::Session;
use crate::source::SourceMap;
use std::path::{Path, PathBuf};

/// What to generate.
#[derive(Clone, Debug)]
pub struct RustRunner {
    /// The package name (default: the graph id's last segment plus `-runner`).
    pub crate_name: Option<String>,
    /// Where the crate's `Cargo.toml` finds `agc-runtime`.
    pub runtime: Runtime,
    /// The check's options (workspace root, limits, `--graph`).
    pub options: CheckOptions,
    /// The folder the generated files will be in (`agc gen rust -o DIR`): the embedded plan
    /// and the docs name the document and the files it references relative to it, so that
    /// two checkouts generate the same bytes. `None`: as given (relative to the current
    /// folder, as a build script gives them).
    pub relative_to: Option<PathBuf>,
}

/// What [`rust_runner`] gives.
#[derive(Debug)]
pub struct Generated {
    /// The crate's files, in a fixed order; empty when an error was found.
    pub files: Vec<GenFile>,
    /// The package name the files use (empty when an error was found).
    pub crate_name: String,
    /// Every diagnostic, errors and warnings, unsorted.
    pub diags: Vec<Diagnostic>,
    /// The files the diagnostics' spans point into.
    pub sources: SourceMap,
    /// Every file the compile read, the document first: a change to any of them can change
    /// the output.
    pub read: Vec<PathBuf>,
    /// The `agc-runtime` features the plan needs ([`agc_runtime::plan::Plan::runtime_features`]),
    /// which the crate's `Cargo.toml` turns on.
    pub features: Vec<&'static str>,
}

impl Generated {
    /// Whether any diagnostic is an error (then [`Generated::files`] is empty).
    pub fn failed(&self) -> bool {
        self.diags.iter().any(Diagnostic::is_error)
    }
}

/// Compiles the document at `path` (shown as `display` in diagnostics and in the generated
/// crate) and renders its runner crate.
pub fn rust_runner(path: &Path, display: &str, what: &RustRunner) -> Generated {
    let mut session = Session::new(what.options.clone());
    let out = session.compile(path, display);
    crate::discard::discard(out.unit);
    let (mut diags, read) = (out.diags, out.files);
    let mut generated = Generated {
        files: Vec::new(),
        crate_name: String::new(),
        diags: Vec::new(),
        sources: SourceMap::new(),
        read,
        features: Vec::new(),
    };
    let compiled = match crate::compile::single(out.compiled, display) {
        Ok(c) => c,
        Err(d) => {
            diags.push(d);
            None
        }
    };
    if let Some(mut compiled) = compiled.filter(|_| !diags.iter().any(Diagnostic::is_error)) {
        let mut display = display.to_string();
        // The names as given, put back after the plan is written: the diagnostics show them.
        let given: Vec<String> = session
            .sources
            .files()
            .map(|(_, f)| f.name.clone())
            .collect();
        if let Some(dir) = &what.relative_to {
            let dir = crate::session::normal(dir);
            let relative = |name: &str| {
                let path = Path::new(name);
                if name == crate::source::load::STDIN_NAME || !path.exists() {
                    return name.to_string();
                }
                rust::relative_path(&dir, &crate::session::normal(path))
            };
            session.sources.rename_files(relative);
            display = relative(&display);
            if !compiled.display.is_empty() {
                compiled.display = relative(&compiled.display);
            }
        }
        let text = plan_text(&compiled, &session.sources, &display);
        let mut given = given.into_iter();
        session
            .sources
            .rename_files(|name| given.next().unwrap_or_else(|| name.to_string()));
        crate::discard::discard(compiled);
        match agc_runtime::plan::Plan::from_json(&text) {
            Ok(plan) => {
                let name = what
                    .crate_name
                    .clone()
                    .unwrap_or_else(|| rust::default_crate_name(&plan.graph.id));
                generated.files = rust::generate(&text, &plan, &name, &what.runtime);
                generated.features = plan.runtime_features();
                generated.crate_name = name;
            }
            // The plan writer writes a valid plan; a failure to read it back is an agc bug.
            Err(e) => diags.push(Diagnostic::error(
                "AGC302",
                format!("internal: the plan does not read back: {e}"),
            )),
        }
    }
    generated.diags = diags;
    generated.sources = session.sources;
    generated
}
