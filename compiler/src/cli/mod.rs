//! The command line: `agc check`, `agc explain`, ...
//!
//! Exit status: 0 clean (warnings allowed unless `--strict`), 1 errors, 2 usage or I/O.

mod agent_graph;
mod args;
mod build;
mod eval;
mod eval_limits;
mod explain;
mod r#gen;
mod graph;
mod manual;
mod output;
mod restate;
mod run;
mod run_answers;
mod run_args;
mod run_dir;
mod run_inputs;
mod run_progress;
mod run_restate;
mod walk;

use crate::diag::Diagnostic;
use crate::session::Session;
use crate::source::SourceMap;
pub(crate) use args::{ColorArg, DiagArgs, FormatArg, GraphPick, LimitArg, RootArg};
use clap::{CommandFactory, Parser, Subcommand};
pub(crate) use output::{Stream, out, print_diagnostics};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  agc check examples/ags/changelog-release.agraph.yaml   check one document
  agc check examples/                              check every workflow document under a folder
  agc check --format json wf.yaml                  machine-readable diagnostics
  agc check --format sarif . > agc.sarif           for code-scanning uploads
  agc build wf.agraph.yaml -o wf.plan.json         compile to the resolved JSON plan
  agc build wf.agraph.yaml -o wf.plan.json --check fail if the committed plan is stale
  agc graph wf.agraph.yaml -o wf.mmd               a Mermaid flowchart
  agc graph --inject README.md --check             fail if a diagram in the docs is stale
  agc gen rust wf.agraph.yaml -o runner/           a typed Rust runner crate
  agc eval --lang agx 'len(params.xs) > 1' --vars vars.json   debug a condition
  agc run wf.agraph.yaml --script wf.script.yaml  dry-run with a scripted handler
  agc run --resume runs/1 --decide approve=approved   continue a paused run
  agc explain AG201                                what a diagnostic code means";

#[derive(Parser, Debug)]
#[command(
    name = "agc",
    // The package version and the commit it was built from (compiler/build.rs).
    version = env!("AGC_VERSION"),
    about = "A compiler for agentic workflow documents: AGS 1.0, Agent Graph v1, AWP, agh.loop/v1",
    after_help = EXAMPLES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check documents: syntax, schema, references; every problem at once.
    #[command(after_help = EXAMPLES)]
    Check(CheckArgs),
    /// Compile a document into its resolved JSON plan (format `agc.plan/v5`).
    #[command(after_help = EXAMPLES)]
    Build(build::BuildArgs),
    /// Draw a document as a Mermaid flowchart, or refresh the diagrams in a Markdown file.
    #[command(after_help = EXAMPLES)]
    Graph(graph::GraphArgs),
    /// Generate code from a document: `agc gen rust FILE -o DIR`, a typed runner crate.
    #[command(after_help = EXAMPLES)]
    Gen(r#gen::GenArgs),
    /// Evaluate one expression (agx, cel, jq, agx-template, agh-template) as agc does.
    #[command(after_help = EXAMPLES)]
    Eval(eval::EvalArgs),
    /// Agent Graph v1: the next legal steps of a graph (`agent-graph.evaluation.v1`).
    Evaluate(agent_graph::EvaluateArgs),
    /// Agent Graph v1: resolve one evaluated route (`agent-graph.route.v1`).
    Route(agent_graph::RouteArgs),
    /// Agent Graph v1: run a Provider's route tests (`agent-graph.test.v1`).
    Test(agent_graph::TestArgs),
    /// Agent Graph v1 Provider tools: `agc agent-graph bundle PROVIDER -o DIR` builds a bundle.
    #[command(subcommand, name = "agent-graph")]
    AgentGraph(agent_graph::AgentGraphCommand),
    /// Run a workflow with a scripted handler (dry runs, tests), or resume a paused run.
    #[command(after_help = EXAMPLES)]
    Run(run::RunArgs),
    /// Restate operations: `agc restate register URL` registers an agc worker.
    Restate(restate::RestateArgs),
    /// Serve the Language Server Protocol on standard input and output, for editors
    /// (docs/editors.md): diagnostics as you type, outline, definitions, references, hover.
    Lsp(LspArgs),
    /// Explain a diagnostic code (`agc explain AG003`), or list all codes (`agc explain --list`).
    Explain {
        /// The code, e.g. AG003 or AGC013.
        code: Option<String>,
        /// List every code with its summary.
        #[arg(long)]
        list: bool,
    },
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(manual::CompletionsArgs),
    /// Print the manual page `agc.1`, or write every page into a folder with `-o DIR`.
    Man(manual::ManArgs),
}

#[derive(clap::Args, Debug)]
struct CheckArgs {
    /// Files, or folders to search for workflow documents; `-` reads one document from
    /// standard input (shown as `<stdin>`; its references resolve from the current folder).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    diag: DiagArgs,
    /// Treat warnings as errors (exit 1 when any is reported).
    #[arg(long)]
    strict: bool,
    /// Force a dialect instead of detecting it: ags, agent-graph, awp, agh.
    #[arg(long, value_name = "DIALECT")]
    dialect: Option<String>,
    #[command(flatten)]
    root: RootArg,
}

#[derive(clap::Args, Debug)]
struct LspArgs {
    /// Accepted and ignored: standard input and output is the only transport (editors' LSP
    /// clients pass it).
    #[arg(long)]
    stdio: bool,
    #[command(flatten)]
    root: RootArg,
}

/// The command line's definition (every command, argument and help text): what completions
/// and manual pages are generated from.
pub fn command() -> clap::Command {
    Cli::command()
}

/// Runs agc with the process arguments; returns the exit status.
pub fn main() -> i32 {
    let Some(cli) = parse(std::env::args_os()) else {
        // `run` parses again and prints clap's message (or the help), with its exit status.
        return run(std::env::args_os());
    };
    // The process's memory settings follow the documents the command reads (never a file it
    // writes, such as `-o plan.json`); this is the binary's own entry, with no other thread
    // yet, unlike `run`, which tests call from many threads at once. `lsp` and `run` keep
    // freed pages whatever the size (they free and build the same values over and over).
    if matches!(cli.command, Command::Lsp(_) | Command::Run(_)) {
        crate::memory::keep_freed();
    } else {
        crate::memory::tune_for_inputs(cli.command.inputs());
    }
    crate::fsio::stdout::finish(dispatch(cli))
}

/// Runs agc with the given arguments (the first is the program name).
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    crate::fsio::stdout::finish(dispatch(cli))
}

/// The parsed command line, or `None` when clap refuses it (or answers `--help`).
fn parse<I, T>(args: I) -> Option<Cli>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    Cli::try_parse_from(args).ok()
}

impl Command {
    /// The documents the command reads, as given (folders and `-` included; the memory
    /// settings measure only regular files).
    fn inputs(&self) -> Vec<&std::path::Path> {
        match self {
            Command::Check(a) => a.paths.iter().map(PathBuf::as_path).collect(),
            Command::Build(a) => vec![a.input()],
            Command::Graph(a) => a.input().into_iter().collect(),
            Command::Gen(a) => a.input().into_iter().collect(),
            _ => Vec::new(),
        }
    }
}

/// Runs a parsed command.
fn dispatch(cli: Cli) -> i32 {
    match cli.command {
        Command::Check(args) => run_check(args),
        Command::Build(args) => build::run(args),
        Command::Graph(args) => graph::run(args),
        Command::Gen(args) => r#gen::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Evaluate(args) => agent_graph::evaluate(args),
        Command::Route(args) => agent_graph::route(args),
        Command::Test(args) => agent_graph::test(args),
        Command::AgentGraph(cmd) => agent_graph::tools(cmd),
        Command::Run(args) => run::run(args),
        Command::Restate(args) => restate::run(args),
        Command::Lsp(args) => {
            let _ = args.stdio;
            crate::lsp::run_stdio(args.root.options())
        }
        Command::Explain { code, list } => explain::run(code.as_deref(), list),
        Command::Completions(args) => manual::completions(args, Cli::command()),
        Command::Man(args) => manual::man(args, Cli::command()),
    }
}

fn run_check(args: CheckArgs) -> i32 {
    let mut opts = args.root.options();
    opts.no_digest = true;
    if let Some(d) = &args.dialect {
        match crate::dialect::Dialect::parse_flag(d) {
            Ok(d) => opts.dialect = Some(d),
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        }
    }
    // Standard input can be read once: a second `-` would check an empty document.
    let stdin_args = args
        .paths
        .iter()
        .filter(|p| crate::source::load::is_stdin(p))
        .count();
    if stdin_args > 1 {
        eprintln!("error: `-` (standard input) is given {stdin_args} times; it can be read once");
        return 2;
    }
    let mut session = Session::new(opts);
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut io_error = false;
    for path in &args.paths {
        match walk::documents(path) {
            Ok(files) => {
                for (file, display) in files {
                    let mut checked = session.check(&file, &display);
                    crate::discard::discard((checked.unit, checked.compiled));
                    io_error |= checked.diags.iter().any(crate::fsio::is_refusal);
                    diags.append(&mut checked.diags);
                }
            }
            Err(mut d) => {
                io_error = true;
                // The path named on the command line is the location (SARIF needs one).
                let name = path.to_string_lossy().replace('\\', "/");
                let file = session
                    .sources
                    .add(crate::source::SourceFile::new(name, String::new()));
                d.span = Some(crate::source::Span::point(file, 0));
                diags.push(d);
            }
        }
    }
    let sources = session.sources;
    let code = emit(
        &mut diags,
        &sources,
        args.diag.format,
        args.diag.color,
        args.strict,
    );
    // The process exits next: the diagnostics and sources are freed off the main thread.
    crate::discard::discard((diags, sources));
    if io_error { 2 } else { code }
}

/// Prints diagnostics in the chosen format; returns 1 if they fail the run, else 0.
fn emit(
    diags: &mut [Diagnostic],
    sources: &SourceMap,
    format: FormatArg,
    color: ColorArg,
    strict: bool,
) -> i32 {
    let failed = print_diagnostics(diags, sources, format, color, Stream::Stdout, true, strict);
    i32::from(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(args: &[&str]) -> Vec<PathBuf> {
        let cli = parse(args.iter().copied()).expect("the command line parses");
        cli.command
            .inputs()
            .into_iter()
            .map(std::path::Path::to_path_buf)
            .collect()
    }

    /// The memory settings follow what a command reads, never what it writes: a large plan
    /// left by an earlier `build -o` must not count for a small document.
    #[test]
    fn a_commands_inputs_are_its_documents_not_its_outputs() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            inputs(&["agc", "build", "g.yaml", "-o", "plan.json"]),
            [p("g.yaml")]
        );
        assert_eq!(
            inputs(&["agc", "check", "a.yaml", "docs", "-"]),
            [p("a.yaml"), p("docs"), p("-")]
        );
        assert_eq!(
            inputs(&["agc", "graph", "g.yaml", "-o", "g.mmd"]),
            [p("g.yaml")]
        );
        assert_eq!(
            inputs(&["agc", "gen", "rust", "g.yaml", "-o", "out"]),
            [p("g.yaml")]
        );
        assert!(inputs(&["agc", "explain", "AG003"]).is_empty());
    }
}
