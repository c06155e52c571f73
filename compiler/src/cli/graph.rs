//! `agc graph FILE` (Mermaid or DOT) and `agc graph --inject FILE.md [--check]`.

use crate::back::mermaid::{self, Direction, inject};
use crate::check::CheckOptions;
use crate::diag::Diagnostic;
use crate::session::Session;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub(crate) enum DirArg {
    #[value(name = "TB")]
    Tb,
    #[value(name = "LR")]
    Lr,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub(crate) enum GraphFormat {
    Mermaid,
    Dot,
}

#[derive(clap::Args, Debug)]
pub(crate) struct GraphArgs {
    /// The workflow document (`-`: standard input) (not with --inject).
    #[arg(required_unless_present = "inject")]
    file: Option<PathBuf>,
    /// Diagram language (`--inject` always writes Mermaid).
    #[arg(long = "graph-format", value_enum, default_value_t = GraphFormat::Mermaid)]
    graph_format: GraphFormat,
    /// Write the diagram here instead of stdout (`-`: stdout, as without `-o`).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Layout direction.
    #[arg(long, value_enum, default_value_t = DirArg::Tb)]
    direction: DirArg,
    /// Fold every loop, map and subgraph into its owner node.
    #[arg(long)]
    collapse: bool,
    /// Add a small key of the shapes and edge styles used (Mermaid).
    #[arg(long)]
    legend: bool,
    /// Refill the `<!-- agc:graph … -->` blocks of a Markdown file.
    #[arg(long, value_name = "FILE.md", conflicts_with = "file")]
    inject: Option<PathBuf>,
    /// With --inject: change nothing, exit 1 if any block is stale.
    #[arg(long, requires = "inject")]
    check: bool,
    #[command(flatten)]
    root: super::RootArg,
    #[command(flatten)]
    graph: super::GraphPick,
    #[command(flatten)]
    diag: super::DiagArgs,
}

impl GraphArgs {
    /// The document to draw, when one is given (`--inject` reads Markdown files instead).
    pub(crate) fn input(&self) -> Option<&Path> {
        self.file.as_deref()
    }
}

pub(crate) fn run(args: GraphArgs) -> i32 {
    let mut session = Session::new(CheckOptions {
        graph: args.graph.id.clone(),
        ..args.root.options()
    });
    let mut diags = Vec::new();
    let status = match (&args.inject, &args.file) {
        (Some(md), _) => run_inject(&args, md, &mut session, &mut diags),
        (None, Some(file)) => {
            let opts = mermaid::Options {
                direction: match args.direction {
                    DirArg::Tb => Direction::TopBottom,
                    DirArg::Lr => Direction::LeftRight,
                },
                collapse: args.collapse,
                legend: args.legend,
            };
            let display = super::walk::shown(file);
            let format = args.graph_format;
            let opts_check = session.options.clone();
            match diagram(
                &mut session,
                file,
                &display,
                opts,
                format,
                &opts_check,
                &mut diags,
            ) {
                Some(text) => write_out(args.output.as_deref(), &text, &[file.as_path()]),
                None => 1,
            }
        }
        (None, None) => 2,
    };
    let sources = &session.sources;
    super::build::diags_to_stderr(
        &mut diags,
        sources,
        args.diag.format,
        args.diag.color,
        false,
    );
    if diags.iter().any(crate::fsio::is_refusal) {
        2
    } else {
        status
    }
}

/// What to do about a diagram Mermaid cannot render (AGC100, AGC103): `--collapse` only helps
/// a graph with loops, maps or subgraphs that is not collapsed already.
fn too_big_help(graph: &crate::ir::Graph, collapsed: bool) -> &'static str {
    if !collapsed && !graph.regions.is_empty() {
        "draw with `--collapse` to fold loops, maps and subgraphs into single nodes, or draw it \
         with `--graph-format dot` (Graphviz has no such limit)"
    } else {
        "draw it with `--graph-format dot` (Graphviz has no such limit), or split the graph"
    }
}

/// Draws one document; `None` (with diagnostics) when it does not compile or is too large.
fn diagram(
    session: &mut Session,
    file: &Path,
    display: &str,
    opts: mermaid::Options,
    format: GraphFormat,
    opts_check: &CheckOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    let out = session.compile_with(file, display, opts_check);
    crate::discard::discard(out.unit);
    let (compiled, mut found) = (out.compiled, out.diags);
    let failed = found.iter().any(Diagnostic::is_error);
    diags.append(&mut found);
    let compiled = match crate::compile::single(compiled, display) {
        Ok(c) => c.filter(|_| !failed)?,
        Err(d) => {
            diags.push(d);
            return None;
        }
    };
    if format == GraphFormat::Dot {
        return Some(crate::back::dot::render(&compiled.graph, opts.collapse));
    }
    let (text, edges) = mermaid::render(&compiled.graph, opts);
    if edges > mermaid::MAX_EDGES {
        diags.push(
            Diagnostic::error(
                "AGC100",
                format!(
                    "`{display}` draws {edges} edges; Mermaid renders at most {}",
                    mermaid::MAX_EDGES
                ),
            )
            .with_help(too_big_help(&compiled.graph, opts.collapse)),
        );
        return None;
    }
    let size = mermaid::text_size(&text);
    if size > mermaid::MAX_TEXT {
        diags.push(
            Diagnostic::error(
                "AGC103",
                format!(
                    "`{display}` draws a diagram of {size} characters; Mermaid renders at most {}",
                    mermaid::MAX_TEXT
                ),
            )
            .with_help(too_big_help(&compiled.graph, opts.collapse)),
        );
        return None;
    }
    Some(text)
}

fn run_inject(
    args: &GraphArgs,
    md: &Path,
    session: &mut Session,
    diags: &mut Vec<Diagnostic>,
) -> i32 {
    let md_display = md.to_string_lossy().replace('\\', "/");
    let text = match crate::fsio::read_text(md, args.root.limit.bytes) {
        Ok(t) => t,
        Err(e) => {
            diags.push(e.diagnostic(&md_display));
            return 2;
        }
    };
    // The diagrams' documents are read only below the root (`--root`, else the Markdown
    // file's own workspace root), as a document's references are: a README in a pull request
    // must not make a CI machine read, and print in a diagnostic, any file it names.
    let root = args
        .root
        .root
        .clone()
        .unwrap_or_else(|| crate::front::detect_root(md));
    let blocks = match inject::blocks(&text) {
        Ok(b) => b,
        Err((line, msg)) => {
            diags.push(Diagnostic::error(
                "AGC101",
                format!("{md_display}:{line}: {msg}"),
            ));
            return 1;
        }
    };
    let base = md.parent().unwrap_or(Path::new(""));
    let mut fresh = Vec::new();
    for b in &blocks {
        let mut opts = mermaid::Options::default();
        let mut words = b.options.iter();
        while let Some(w) = words.next() {
            match w.as_str() {
                "--collapse" => opts.collapse = true,
                "--legend" => opts.legend = true,
                "--direction" => match words.next().map(String::as_str) {
                    Some("LR") => opts.direction = Direction::LeftRight,
                    Some("TB") => opts.direction = Direction::TopBottom,
                    other => {
                        let given = other.map_or("nothing".to_string(), |o| format!("`{o}`"));
                        diags.push(Diagnostic::error(
                            "AGC101",
                            format!(
                                "{md_display}:{}: `--direction` takes TB or LR, not {given}",
                                b.line
                            ),
                        ));
                        return 1;
                    }
                },
                other => {
                    diags.push(Diagnostic::error(
                        "AGC101",
                        format!("{md_display}:{}: unknown option `{other}` (allowed: --direction TB|LR, --collapse, --legend)", b.line),
                    ));
                    return 1;
                }
            }
        }
        let path = base.join(&b.path);
        let display = path.to_string_lossy().replace('\\', "/");
        if let Some(why) = outside(&root, &path) {
            diags.push(
                Diagnostic::error(
                    "AGC104",
                    format!(
                        "{md_display}:{}: the diagram's document `{}` {why}",
                        b.line, b.path
                    ),
                )
                .with_help(format!(
                    "name a document inside the workspace root `{}`, or pass `--root DIR`",
                    root.display()
                )),
            );
            return 2;
        }
        let opts_check = CheckOptions {
            graph: args.graph.id.clone(),
            root: Some(root.clone()),
            ..args.root.options()
        };
        let mermaid = GraphFormat::Mermaid;
        match diagram(session, &path, &display, opts, mermaid, &opts_check, diags) {
            Some(t) => fresh.push(t),
            None => return 1,
        }
    }
    let updated = inject::fill(&text, &blocks, &fresh);
    if args.check {
        let stale: Vec<usize> = blocks
            .iter()
            .zip(&fresh)
            .filter(|(b, f)| text[b.content.clone()] != inject::block_text(&text, f))
            .map(|(b, _)| b.line)
            .collect();
        if stale.is_empty() {
            return 0;
        }
        for line in stale {
            diags.push(
                Diagnostic::error(
                    "AGC102",
                    format!("{md_display}:{line}: the diagram is stale"),
                )
                .with_help(format!("run `agc graph --inject {md_display}`")),
            );
        }
        return 1;
    }
    // The Markdown file is this command's input and output by design.
    if updated != text
        && let Err(e) = crate::fsio::write::write(md, &[], updated.as_bytes())
    {
        diags.push(e.diagnostic(&md_display));
        return 2;
    }
    0
}

/// Why a diagram block's document may not be read (AGC104): it does not exist, or it lies
/// outside `root` once `..` and symbolic links are resolved. `None` when it may.
fn outside(root: &Path, path: &Path) -> Option<String> {
    if std::fs::symlink_metadata(path).is_err() {
        return Some("does not exist".to_string());
    }
    if crate::front::contained(root, path) {
        return None;
    }
    Some(format!(
        "lies outside the workspace root `{}` (after resolving `..` and symbolic links); agc \
         reads nothing outside it",
        root.display()
    ))
}

fn write_out(out: Option<&Path>, text: &str, inputs: &[&Path]) -> i32 {
    match out.filter(|p| *p != Path::new("-")) {
        None => {
            crate::fsio::stdout::write(text.as_bytes());
            0
        }
        Some(p) => match crate::fsio::write::write(p, inputs, text.as_bytes()) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("{}", e.line(&p.to_string_lossy()));
                2
            }
        },
    }
}
