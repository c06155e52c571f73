//! Typed agc runners generated at build time, the way `prost-build` and `tonic-build` turn
//! `.proto` files into Rust: a build script compiles a workflow document into `OUT_DIR`, and
//! the crate includes the result.
//!
//! ```toml
//! [dependencies]
//! agc-runtime = { version = "0.1", default-features = false }   # features = ["awp"] for AWP
//! serde = { version = "1", features = ["derive"] }
//! serde_json = "1"
//!
//! [build-dependencies]
//! agc-build = "0.1"
//! ```
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), agc_build::Error> {
//!     agc_build::compile("graphs/release.agraph.yaml")?;
//!     Ok(())
//! }
//! ```
//!
//! ```ignore
//! // src/lib.rs: `release::Handlers`, `release::run`, `release::Params`, ...
//! agc_runtime::include_runner!("release");
//! ```
//!
//! [`compile`] (or a [`Builder`]) checks the document as `agc check` does and writes
//! `OUT_DIR/<module>.rs`, one item `pub mod <module> { … }` holding what `agc gen rust`
//! puts in a runner crate's `src/` (the same templates: the typed params, inputs and outputs,
//! the `Handlers` trait, `run`, `resume`, the plan's test), and `OUT_DIR/<module>.plan.json`,
//! the plan it embeds. It tells cargo:
//!
//! - `cargo::rerun-if-changed` for the document and every file the compile read (subgraph
//!   references, an Agent Graph Provider's actions, agh extension manifests), so the build
//!   script runs again exactly when one of them changes;
//! - each warning as `cargo::warning` lines and each error as `cargo::error` lines (rendered
//!   as `agc check` renders them, without colour), which fail the build; [`compile`] then
//!   returns [`Error::Diagnostics`] too.
//!
//! A plan that needs an `agc-runtime` feature (`awp` for AWP's jq) says so in the module: it
//! uses what the feature provides, so a dependency without it is a compile error there
//! (rustc names the feature), not a run that fails.
//!
//! The module's name is the document's file name up to its first `.`, in snake_case
//! (`release.agraph.yaml` → `release`), or [`Builder::module`].

use agc::back::rust::include::{default_module_name, module_files, valid_module_name};
use agc::back::rust::{Runtime, names};
use agc::check::CheckOptions;
use agc::diag::Severity;
use agc::diag::render::{self, Format, Options};
use agc::generate::{RustRunner, rust_runner};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Compiles the document at `document` (relative to the package, as build scripts run) into
/// `OUT_DIR/<module>.rs` with the defaults; see the crate docs. Returns the path written.
pub fn compile(document: impl AsRef<Path>) -> Result<PathBuf, Error> {
    Builder::new(document).compile()
}

/// What to compile and where: [`Builder::new`], then any of the setters, then
/// [`Builder::compile`].
#[derive(Clone, Debug)]
pub struct Builder {
    document: PathBuf,
    module: Option<String>,
    out_dir: Option<PathBuf>,
    root: Option<PathBuf>,
    graph: Option<String>,
    strict: bool,
}

impl Builder {
    pub fn new(document: impl AsRef<Path>) -> Builder {
        Builder {
            document: document.as_ref().to_path_buf(),
            module: None,
            out_dir: None,
            root: None,
            graph: None,
            strict: false,
        }
    }

    /// The module's name (default: the document's file name up to its first `.`, in
    /// snake_case): a lowercase ASCII identifier that is not a keyword.
    pub fn module(mut self, name: &str) -> Builder {
        self.module = Some(name.to_string());
        self
    }

    /// Where to write (default: the `OUT_DIR` cargo gives the build script).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Builder {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The folder that references (`subgraph.ref`, ...) may not leave, as `agc check --root`
    /// (default: the nearest folder up from the document with `.git`, `.hg`, `.jj` or
    /// `.agc-root`, else the document's own).
    pub fn root(mut self, dir: impl AsRef<Path>) -> Builder {
        self.root = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The graph of an Agent Graph Provider to compile, as `agc build --graph`.
    pub fn graph(mut self, id: &str) -> Builder {
        self.graph = Some(id.to_string());
        self
    }

    /// Fail on warnings too, as `agc check --strict`.
    pub fn strict(mut self, strict: bool) -> Builder {
        self.strict = strict;
        self
    }

    /// Compiles and writes, printing cargo's directives on standard output; returns the path
    /// of `<module>.rs`.
    pub fn compile(&self) -> Result<PathBuf, Error> {
        let mut out = std::io::stdout().lock();
        self.compile_to(&mut out)
    }

    /// [`Builder::compile`] with the directives written to `directives` (tests read them).
    pub fn compile_to(&self, directives: &mut dyn Write) -> Result<PathBuf, Error> {
        let module = match &self.module {
            Some(m) if valid_module_name(m) => m.clone(),
            Some(m) => return Err(Error::Module(m.clone())),
            None => default_module_name(&self.document),
        };
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(Error::NoOutDir)?,
        };
        let display = self.document.to_string_lossy().replace('\\', "/");
        let what = RustRunner {
            crate_name: None,
            // The module form has no Cargo.toml: the dependency line is not written.
            runtime: Runtime::Version(String::new()),
            options: CheckOptions {
                root: self.root.clone(),
                graph: self.graph.clone(),
                ..CheckOptions::default()
            },
            relative_to: None,
        };
        let mut generated = rust_runner(&self.document, &display, &what);
        let io = |e: std::io::Error| Error::Io(PathBuf::from("<stdout>"), e);
        for path in &generated.read {
            writeln!(directives, "cargo::rerun-if-changed={}", path.display()).map_err(io)?;
        }
        agc::diag::sort(&mut generated.diags);
        let mut errors = 0;
        for d in &generated.diags {
            let failing = d.is_error() || (self.strict && d.severity == Severity::Warning);
            errors += usize::from(failing);
            let directive = if failing { "error" } else { "warning" };
            let text = render::render(
                Format::Human,
                std::slice::from_ref(d),
                &generated.sources,
                Options { color: false },
            );
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                writeln!(directives, "cargo::{directive}={line}").map_err(io)?;
            }
        }
        if errors > 0 || generated.files.is_empty() {
            return Err(Error::Diagnostics {
                document: display,
                errors: errors.max(1),
            });
        }
        std::fs::create_dir_all(&out_dir).map_err(|e| Error::Io(out_dir.clone(), e))?;
        let from = format!("`{}`", names::markdown_inline(&display));
        let mut written = None;
        for (name, text) in module_files(&generated.files, &module, &from, &generated.features) {
            let path = out_dir.join(&name);
            // Unchanged files keep their time stamps, so that nothing downstream rebuilds.
            if !std::fs::read(&path).is_ok_and(|old| old == text.as_bytes()) {
                std::fs::write(&path, text).map_err(|e| Error::Io(path.clone(), e))?;
            }
            written.get_or_insert(path);
        }
        written.ok_or(Error::NoOutDir)
    }
}

/// Why [`compile`] failed.
#[derive(Debug)]
pub enum Error {
    /// The document has errors (printed as `cargo::error` lines), or warnings under
    /// [`Builder::strict`].
    Diagnostics { document: String, errors: usize },
    /// The module name is not a lowercase identifier, or is a keyword.
    Module(String),
    /// No `OUT_DIR`: not run by cargo as a build script, and no [`Builder::out_dir`].
    NoOutDir,
    /// A file could not be written.
    Io(PathBuf, std::io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Diagnostics { document, errors } => write!(
                f,
                "`{document}` does not compile: {errors} error(s), shown above"
            ),
            Error::Module(m) => write!(
                f,
                "`{m}` cannot name the module: use a lowercase ASCII identifier that is not a keyword"
            ),
            Error::NoOutDir => write!(
                f,
                "OUT_DIR is not set: call agc_build from a build script, or give Builder::out_dir"
            ),
            Error::Io(path, e) => write!(f, "cannot write `{}`: {e}", path.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(_, e) => Some(e),
            _ => None,
        }
    }
}
