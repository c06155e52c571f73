//! `agc gen rust FILE -o DIR [--crate-name N] [--runtime path=..|version=..] [--check]`: a
//! typed Rust runner crate (see `compiler/src/back/rust/` and `docs/codegen.md`).
//!
//! Writing is idempotent: a file whose contents are already right is not rewritten (its
//! modification time stays, so cargo does not rebuild). Files in `DIR` that agc did not
//! generate are left alone. `--check` writes nothing and exits 1 when any generated file on
//! disk differs, like `agc build --check`.

use super::{ColorArg, FormatArg};
use crate::back::rust::{self, GenFile, Runtime};
use crate::compile::{compile_file, plan_text};
use crate::source::SourceMap;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub(crate) struct GenArgs {
    #[command(subcommand)]
    target: Target,
}

#[derive(clap::Subcommand, Debug)]
enum Target {
    /// A Rust crate: typed params, inputs and outputs, a `Handlers` trait with one method per
    /// task, decision and gate, and the plan embedded, running on `agc-runtime`.
    Rust(RustArgs),
}

#[derive(clap::Args, Debug)]
struct RustArgs {
    /// The workflow document.
    file: PathBuf,
    /// The crate's directory (created if needed).
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    /// The package name (default: the graph id's last segment plus `-runner`).
    #[arg(long, value_name = "NAME")]
    crate_name: Option<String>,
    /// Where the crate gets `agc-runtime`: `path=DIR` (relative to the crate) or
    /// `version=REQ` (default: `version=` this agc's version).
    #[arg(long, value_name = "path=..|version=..")]
    runtime: Option<String>,
    /// Do not write: exit 1 if the crate on disk differs from what would be generated.
    #[arg(long)]
    check: bool,
    #[command(flatten)]
    root: super::RootArg,
    /// Output format of the diagnostics.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    format: FormatArg,
    /// When to colour human output.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    color: ColorArg,
    /// Treat warnings as errors.
    #[arg(long)]
    strict: bool,
}

impl GenArgs {
    /// The document to generate from.
    pub(crate) fn input(&self) -> Option<&Path> {
        match &self.target {
            Target::Rust(a) => Some(&a.file),
        }
    }
}

pub(crate) fn run(args: GenArgs) -> i32 {
    match args.target {
        Target::Rust(a) => run_rust(a),
    }
}

/// The `--runtime` value: `path=..` or `version=..`.
pub(crate) fn parse_runtime(s: Option<&str>) -> Result<Runtime, String> {
    let Some(s) = s else {
        return Ok(Runtime::Version(env!("CARGO_PKG_VERSION").to_string()));
    };
    match s.split_once('=') {
        Some(("path", p)) if !p.is_empty() => Ok(Runtime::Path(p.to_string())),
        Some(("version", v)) if !v.is_empty() => Ok(Runtime::Version(v.to_string())),
        _ => Err(format!(
            "error[AGC341]: `--runtime {s}` is neither `path=DIR` nor `version=REQ`"
        )),
    }
}

fn run_rust(args: RustArgs) -> i32 {
    let runtime = match parse_runtime(args.runtime.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    if let Some(name) = &args.crate_name
        && !rust::valid_crate_name(name)
    {
        eprintln!(
            "error[AGC340]: `{}` is not a valid crate name: use ASCII letters, digits, `-` and `_`, starting with a letter (at most 64)",
            name.escape_debug()
        );
        return 2;
    }
    let mut sources = SourceMap::new();
    let display = super::walk::shown(&args.file);
    let (compiled, mut diags) =
        compile_file(&mut sources, &args.file, &display, &args.root.options());
    let compiled = match crate::compile::single(compiled, &display) {
        Ok(c) => c,
        Err(d) => {
            diags.push(d);
            None
        }
    };
    let failed =
        super::build::diags_to_stderr(&mut diags, &sources, args.format, args.color, args.strict);
    let io = diags.iter().any(crate::fsio::is_refusal);
    let Some(compiled) = compiled else {
        return if io { 2 } else { 1 };
    };
    if failed {
        return 1;
    }
    let text = plan_text(&compiled, &sources, &display);
    crate::discard::discard(compiled);
    // The plan writer writes valid JSON; a parse failure here would be an agc bug.
    let plan: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: internal: the plan does not read back: {e}");
            return 2;
        }
    };
    let graph_id = plan
        .pointer("/graph/id")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("graph");
    let crate_name = args
        .crate_name
        .clone()
        .unwrap_or_else(|| rust::default_crate_name(graph_id));
    let files = rust::generate(&text, &plan, &crate_name, &runtime);
    if args.check {
        check(&files, &args.output, &display)
    } else {
        match write(&files, &args.output) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!(
                    "error[AGC001]: cannot write `{}`: {e}",
                    args.output.display()
                );
                2
            }
        }
    }
}

/// Writes the files under `dir`, skipping those already identical.
pub(crate) fn write(files: &[GenFile], dir: &Path) -> std::io::Result<()> {
    for f in files {
        let path = dir.join(f.path);
        if std::fs::read(&path).is_ok_and(|old| old == f.contents.as_bytes()) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, &f.contents)?;
    }
    Ok(())
}

/// Exit 0 when every file under `dir` is as generated, else 1 with the first difference.
fn check(files: &[GenFile], dir: &Path, display: &str) -> i32 {
    let mut stale = 0;
    for f in files {
        let path = dir.join(f.path);
        let shown = path.to_string_lossy().replace('\\', "/");
        match std::fs::read_to_string(&path) {
            Ok(old) if old == f.contents => {}
            Ok(old) => {
                stale += 1;
                let summary = super::build::stale_summary(&old, &f.contents, &shown);
                // stale_summary ends with advice for `agc build`; give ours instead.
                let summary = summary
                    .rsplit_once('\n')
                    .map_or(summary.as_str(), |(a, _)| a);
                eprintln!("{summary}");
            }
            Err(e) => {
                stale += 1;
                eprintln!("error: `{shown}` cannot be read ({e})");
            }
        }
    }
    if stale == 0 {
        return 0;
    }
    eprintln!(
        "{stale} generated file(s) stale; run `agc gen rust {display} -o {}` without `--check`",
        dir.display()
    );
    1
}
