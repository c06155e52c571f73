//! `agc build FILE [-o plan.json] [--check] [--compact]`: the resolved JSON plan.
//!
//! Diagnostics go to stderr here (stdout carries the plan when no `-o` is given).

use super::{ColorArg, FormatArg};
use crate::back::plan;
use crate::check::{CheckOptions, Unit};
use crate::compile::{Compiled, plan_input};
use crate::diag::Diagnostic;
use crate::session::Session;
use crate::source::SourceMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub(crate) struct BuildArgs {
    /// The workflow document (`-`: standard input).
    file: PathBuf,
    /// Write the plan here instead of stdout (`-`: stdout, as without `-o`).
    #[arg(short, long, value_name = "PLAN")]
    output: Option<PathBuf>,
    /// Do not write: compare with the plan at `-o` and exit 1 if it is stale.
    #[arg(long, requires = "output")]
    check: bool,
    /// Write the plan on one line, without indentation (the same document; smaller, for
    /// machines rather than review).
    #[arg(long)]
    compact: bool,
    #[command(flatten)]
    root: super::RootArg,
    #[command(flatten)]
    graph: super::GraphPick,
    #[command(flatten)]
    diag: super::DiagArgs,
    /// Treat warnings as errors.
    #[arg(long)]
    strict: bool,
    /// jq limits written into the plan as its `eval_limits` (a run uses them unless its own
    /// `--eval-…` flags say otherwise).
    #[command(flatten)]
    eval_limits: super::eval_limits::EvalLimitArgs,
    /// agh: write agh's own resolved form of the Loop (defaults filled in, template and
    /// condition sources by upstream key) instead of the plan.
    #[arg(long, conflicts_with = "check")]
    agh_resolved: bool,
}

impl BuildArgs {
    /// The document to build.
    pub(crate) fn input(&self) -> &Path {
        &self.file
    }

    /// The files the command reads, which its output must not be: the document and the
    /// extension manifests.
    fn inputs(&self) -> Vec<&Path> {
        let mut v = vec![self.file.as_path()];
        v.extend(self.root.extensions.iter().map(PathBuf::as_path));
        v
    }
}

pub(crate) fn run(mut args: BuildArgs) -> i32 {
    // `-o -` is standard output, as `-` is standard input for FILE (not a file named `-`).
    if args.output.as_deref() == Some(Path::new("-")) {
        if args.check {
            eprintln!(
                "error: `--check` compares with a plan file; `-o -` is standard output, which \
                 holds no plan to compare with"
            );
            return 2;
        }
        args.output = None;
    }
    let display = super::walk::shown(&args.file);
    let mut session = Session::new(CheckOptions {
        graph: args.graph.id.clone(),
        ..args.root.options()
    });
    let out = session.compile(&args.file, &display);
    let sources = session.sources;
    let (compiled, mut diags) = (out.compiled, out.diags);
    // The checked unit is kept only for `--agh-resolved`, which renders it.
    let unit = if args.agh_resolved {
        out.unit
    } else {
        crate::discard::discard(out.unit);
        None
    };
    let compiled = match crate::compile::single(compiled, &display) {
        Ok(c) => c,
        Err(d) => {
            diags.push(d);
            None
        }
    };
    let failed = fails(&diags, args.strict);
    let io = diags.iter().any(crate::fsio::is_refusal);
    // A plan bound for a file, or for a stdout that is not where stderr goes (`agc build x >
    // plan.json`), is written while the diagnostics are rendered to stderr on a second thread
    // (the two streams share nothing; 92k advisories of a 100k-node graph take a tenth of a
    // second). Every other way prints them first: a plan on a stdout shared with stderr (one
    // terminal, `2>&1`) would interleave with them, and the other branches print more after.
    let to_file = args.output.is_some() && !args.check;
    let to_stdout = args.output.is_none() && separate_streams();
    let beside = !failed && compiled.is_some() && !args.agh_resolved && (to_file || to_stdout);
    let (format, color, strict) = (args.diag.format, args.diag.color, args.strict);
    let mut print = Some(|| {
        diags_to_stderr(&mut diags, &sources, format, color, strict);
    });
    if !beside && let Some(mut p) = print.take() {
        p();
    }
    let Some(compiled) = compiled else {
        return if io { 2 } else { 1 };
    };
    if failed {
        return 1;
    }
    if args.agh_resolved {
        return write_resolved(unit, &display, args.output.as_deref(), &args.inputs());
    }
    let code = match (&args.output, args.check) {
        (None, _) => {
            let write = || {
                // Checked: a failed write exits 2, a closed pipe (`agc build x | head`) stops
                // quietly (`crate::fsio::stdout`).
                let mut out = BufWriter::new(crate::fsio::stdout::Stdout);
                let _ = write_plan(
                    &compiled,
                    &sources,
                    &display,
                    args.compact,
                    args.eval_limits.plan_limits(),
                    &mut out,
                )
                .and_then(|()| out.flush());
            };
            alongside(print.take(), write);
            0
        }
        (Some(out), false) => {
            let inputs = args.inputs();
            let write = || {
                crate::fsio::write::write_with(out, &inputs, |w| {
                    write_plan(
                        &compiled,
                        &sources,
                        &display,
                        args.compact,
                        args.eval_limits.plan_limits(),
                        w,
                    )
                })
            };
            match alongside(print.take(), write) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("{}", e.line(&out.to_string_lossy()));
                    2
                }
            }
        }
        (Some(out), true)
            if same_as_file(
                &compiled,
                &sources,
                &display,
                args.compact,
                args.eval_limits.plan_limits(),
                out,
            ) =>
        {
            0
        }
        (Some(out), true) => {
            let mut plan = Vec::new();
            // Writing to memory cannot fail; serde_json writes UTF-8.
            let _ = write_plan(
                &compiled,
                &sources,
                &display,
                args.compact,
                args.eval_limits.plan_limits(),
                &mut plan,
            );
            let plan = String::from_utf8_lossy(&plan);
            match std::fs::read_to_string(out) {
                Ok(old) if old == plan => 0,
                Ok(old) => {
                    eprintln!("{}", stale_summary(&old, &plan, &out.to_string_lossy()));
                    1
                }
                Err(e) => {
                    eprintln!(
                        "error: `{}` cannot be read ({e}); run `agc build {} -o {}`",
                        out.display(),
                        display,
                        out.display()
                    );
                    1
                }
            }
        }
    };
    // The process exits next: what is left (92k diagnostics of a 100k-node graph, the source
    // text) is freed off the main thread, as the plan is, rather than before the exit.
    crate::discard::discard((compiled, diags, sources));
    code
}

/// `--agh-resolved`: agh's own resolved form of the checked Loop
/// ([`crate::front::agh::resolved`]) to `out`, or stdout. Returns the exit status.
fn write_resolved(unit: Option<Unit>, display: &str, out: Option<&Path>, inputs: &[&Path]) -> i32 {
    let Some(Unit::Agh(unit)) = unit else {
        eprintln!(
            "error[AGC223]: `--agh-resolved` needs an agh.loop/v1 Loop; `{display}` is not one"
        );
        return 1;
    };
    let text = crate::front::agh::resolved::render(&unit);
    match out {
        Some(p) => match crate::fsio::write::write(p, inputs, text.as_bytes()) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("{}", e.line(&p.to_string_lossy()));
                2
            }
        },
        None => {
            crate::fsio::stdout::write(text.as_bytes());
            0
        }
    }
}

/// Whether the diagnostics fail the command: errors, or warnings under `--strict` (what
/// [`diags_to_stderr`] answers once it has printed them).
fn fails(diags: &[Diagnostic], strict: bool) -> bool {
    let warning = |d: &Diagnostic| d.severity == crate::diag::Severity::Warning;
    diags.iter().any(Diagnostic::is_error) || (strict && diags.iter().any(warning))
}

/// Runs `work`, with `side` (when given) on a second thread meanwhile ([`beside`]).
///
/// [`beside`]: crate::beside::beside
fn alongside<R>(side: Option<impl FnOnce() + Send>, work: impl FnOnce() -> R) -> R {
    match side {
        Some(side) => crate::beside::beside("agc-diags", side, work).1,
        None => work(),
    }
}

/// Whether stdout and stderr are different files, pipes or terminals, so that writing to both
/// at once cannot interleave what either shows. Unknown counts as the same.
#[cfg(unix)]
fn separate_streams() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let id = |fd: std::os::fd::BorrowedFd<'_>| {
        let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
        file.metadata().ok().map(|m| (m.dev(), m.ino()))
    };
    match (id(std::io::stdout().as_fd()), id(std::io::stderr().as_fd())) {
        (Some(out), Some(err)) => out != err,
        _ => false,
    }
}

#[cfg(not(unix))]
fn separate_streams() -> bool {
    false
}

/// Whether the plan file `path` holds exactly the plan, compared while the plan streams (no
/// copy of either in memory). Any read error counts as different.
fn same_as_file(
    c: &Compiled,
    sources: &SourceMap,
    display: &str,
    compact: bool,
    limits: agc_runtime::plan::EvalLimits,
    path: &Path,
) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut cmp = Compare {
        file: std::io::BufReader::new(file),
        buf: Vec::new(),
    };
    if write_plan(c, sources, display, compact, limits, &mut cmp).is_err() {
        return false;
    }
    // Equal only if the file has nothing left.
    matches!(std::io::Read::read(&mut cmp.file, &mut [0u8; 1]), Ok(0))
}

/// A writer that checks what is written against a file's next bytes.
struct Compare<R> {
    file: R,
    buf: Vec<u8>,
}

impl<R: std::io::Read> Write for Compare<R> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.resize(data.len(), 0);
        self.file.read_exact(&mut self.buf)?;
        if self.buf != data {
            return Err(std::io::Error::other("differs"));
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Streams the plan in the line layout, or compact.
fn write_plan(
    c: &Compiled,
    sources: &SourceMap,
    display: &str,
    compact: bool,
    limits: agc_runtime::plan::EvalLimits,
    mut out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut input = plan_input(c, sources, display);
    input.eval_limits = limits;
    if compact {
        plan::write_compact(&input, &mut out)
    } else {
        plan::write(&input, &mut out)
    }
}

/// Prints diagnostics to stderr, for the commands whose stdout carries their output (`build`,
/// `gen rust`, `graph`); whether they fail the command (errors, or warnings under `strict`).
pub(crate) fn diags_to_stderr(
    diags: &mut [Diagnostic],
    sources: &SourceMap,
    format: FormatArg,
    color: ColorArg,
    strict: bool,
) -> bool {
    if diags.is_empty() {
        return false;
    }
    super::print_diagnostics(
        diags,
        sources,
        format,
        color,
        super::Stream::Stderr,
        false,
        strict,
    )
}

/// A short account of how a committed plan differs from the fresh one.
pub(crate) fn stale_summary(old: &str, new: &str, path: &str) -> String {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let first = old_lines
        .iter()
        .zip(&new_lines)
        .position(|(a, b)| a != b)
        .unwrap_or(old_lines.len().min(new_lines.len()));
    let mut s = format!(
        "error: `{path}` is stale: {} lines on disk, {} in the fresh plan; first difference at line {}\n",
        old_lines.len(),
        new_lines.len(),
        first + 1
    );
    if let Some(l) = old_lines.get(first) {
        s.push_str(&format!("  - {}\n", l.trim()));
    }
    if let Some(l) = new_lines.get(first) {
        s.push_str(&format!("  + {}\n", l.trim()));
    }
    s.push_str("run `agc build` without `--check` to update it");
    s
}
