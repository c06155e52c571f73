//! `agc run FILE|PLAN.json [--params P.json] [--script S.yaml] [--run-dir D] [--record R.json]
//! [--fixed-clock]` and `agc run --resume D [--decide NAME=approved|rejected]
//! [--outputs NAME=JSON|NAME=@FILE]` (a gate's scope path, or a checkpoint's
//! `NODE.CHECKPOINT`; the outputs go with an approval).
//!
//! Runs a plan on agc-runtime's blocking driver with the scripted handler (the way to dry-run
//! and test a workflow before wiring real agents; format: `schemas/agc-run-script-v1.schema.json`,
//! docs: `docs/run.md`). Progress goes to stderr; the run record goes to `--record` (and to
//! `D/record.json` with a run directory), or to stdout when neither is given.
//!
//! Run directory layout: `plan.json` (the plan run), `script.json` (the script, as JSON),
//! `options.json`, `journal.jsonl` (the events), `invocations.jsonl` (the scripted handler's
//! log), `record.json` (written at the end and on every pause).
//!
//! Exit status: 0 succeeded; 1 failed, partial or cancelled; 2 usage or input errors;
//! 4 paused awaiting a human.

use super::run_dir;
use super::{ColorArg, FormatArg, Stream};
use crate::diag::Diagnostic;
use crate::source::SourceMap;
use agc_runtime::plan::Plan;
use agc_runtime::run::script::{Script, ScriptHandler};
use agc_runtime::run::{
    FixedClock, FixedIds, MemoryJournal, RunOptions, RunRecord, RunStatus, SystemClock, SystemIds,
};
use serde_json::Map;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    /// The workflow document, or a plan written by `agc build` (`.json` with
    /// `format: agc.plan/v2`, or v1).
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    pub(super) file: Option<PathBuf>,
    /// Params as a JSON object.
    #[arg(long, value_name = "P.json")]
    pub(super) params: Option<PathBuf>,
    /// The scripted handler (YAML or JSON): what each node returns.
    #[arg(long, value_name = "S.yaml")]
    pub(super) script: Option<PathBuf>,
    /// Keep the plan, journal and record here, so the run can be resumed.
    #[arg(long, value_name = "DIR")]
    pub(super) run_dir: Option<PathBuf>,
    /// Write the run record here.
    #[arg(long, value_name = "R.json")]
    pub(super) record: Option<PathBuf>,
    /// A fixed clock and run id (`run-1`), for byte-identical records.
    #[arg(long)]
    pub(super) fixed_clock: bool,
    /// Threads of the async runtime that runs handler calls (how many poll at the same
    /// instant). How many calls are in flight is the graph's limits (`max_parallel_nodes`, a
    /// map's `max_parallel`), not this: calls that wait hold no thread.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub(super) threads: usize,
    /// Resume the run kept in this run directory.
    #[arg(long, value_name = "DIR")]
    pub(super) resume: Option<PathBuf>,
    /// On resume: decide a gate (`GATE=approved` or `GATE=rejected`) or a human checkpoint
    /// (`NODE.CHECKPOINT=approved`) that awaits a human.
    #[arg(long, value_name = "NAME=OUTCOME", requires = "resume")]
    pub(super) decide: Vec<String>,
    /// On resume: the outputs that go with the approval `--decide NAME=approved`: a JSON
    /// object inline (`NAME={"summary":"edited"}`) or read from a file (`NAME=@out.json`).
    /// A review's edits, an input checkpoint's values, a takeover's or an escalation's
    /// outputs, a gate's collected values, an AWP interrupt's resume payload. Checked as a
    /// handler's answer is: for a human checkpoint, values that do not fit are refused and the
    /// run stays paused; an interrupt's payload that does not fit its `resume_schema` fails
    /// the interrupt, as upstream (AGC326).
    #[arg(long, value_name = "NAME=JSON|NAME=@FILE", requires = "decide")]
    pub(super) outputs: Vec<String>,
    /// The journal in the run directory: `jsonl` (default) or `sqlite` (needs agc built with
    /// the `sqlite` feature).
    #[arg(long, value_name = "KIND", default_value = "jsonl")]
    pub(super) journal: String,
    /// Print no progress lines.
    #[arg(long, short)]
    pub(super) quiet: bool,
    #[command(flatten)]
    pub(super) root: super::RootArg,
    /// Where the run executes: `local` (this process) or `restate` (a Restate server with
    /// a registered agc worker; see docs/restate.md). With `restate`, `--resume` takes the
    /// run id.
    #[arg(long, value_name = "ENGINE", default_value = "local")]
    pub(super) engine: String,
    /// The Restate ingress URL (`--engine restate`).
    #[arg(long, value_name = "URL")]
    pub(super) ingress: Option<String>,
    /// The Restate admin URL, to check that agc's services are registered.
    #[arg(long, value_name = "URL")]
    pub(super) admin: Option<String>,
    #[command(flatten)]
    pub(super) eval_limits: super::eval_limits::EvalLimitArgs,
}

impl RunArgs {
    /// The files the command reads, which `--record` must not be.
    pub(super) fn inputs(&self) -> Vec<&Path> {
        [&self.file, &self.params, &self.script]
            .into_iter()
            .flatten()
            .map(PathBuf::as_path)
            .collect()
    }
}

pub(crate) fn run(args: RunArgs) -> i32 {
    let limits = args.eval_limits.limits(agc_runtime::jq::run_limits());
    agc_runtime::jq::set_run_limits(limits);
    let mut sources = SourceMap::new();
    let mut diags = Vec::new();
    // `--record` over an input is refused before anything runs.
    if let Some(r) = &args.record
        && let Err(e) = crate::fsio::write::refuse_input(r, &args.inputs())
    {
        eprintln!("{}", e.line(&r.to_string_lossy()));
        return 2;
    }
    let code = match &args.resume {
        _ if args.engine != "local" => super::run_restate::run(&args, &mut sources, &mut diags),
        Some(dir) => resume(&args, dir, &mut sources, &mut diags),
        None => start(&args, &mut sources, &mut diags),
    };
    if !diags.is_empty() {
        super::print_diagnostics(
            &mut diags,
            &sources,
            FormatArg::Human,
            ColorArg::Auto,
            Stream::Stderr,
            false,
            false,
        );
    }
    code
}

fn start(args: &RunArgs, sources: &mut SourceMap, diags: &mut Vec<Diagnostic>) -> i32 {
    let Some(file) = &args.file else {
        return 2;
    };
    let Some(plan) = load_plan(args, file, sources, diags) else {
        return if diags.iter().any(crate::fsio::is_refusal) {
            2
        } else {
            1
        };
    };
    let params = match &args.params {
        None => Map::new(),
        Some(p) => match super::run_answers::read_params(p, args.root.limit.bytes) {
            Ok(p) => p,
            Err(d) => {
                diags.push(d);
                return 2;
            }
        },
    };
    let script = match &args.script {
        None => Script::default(),
        Some(p) => match load_script(p, args.root.limit.bytes, sources, diags) {
            Some(s) => s,
            None => return 2,
        },
    };
    check_script_keys(&script, &plan, diags);
    let plan = Arc::new(plan);
    let opts = options(args, args.fixed_clock, None);
    let outcome = match &args.run_dir {
        Some(dir) => {
            if let Err(d) = run_dir::create(dir) {
                diags.push(d);
                return 2;
            }
            // Held until the record is written (the end of this function).
            let _held = match run_dir::hold(dir) {
                Ok(h) => h,
                Err(d) => {
                    diags.push(d);
                    return 2;
                }
            };
            if let Err(e) = run_dir::prepare(dir, &plan, &script, args.fixed_clock, &args.journal) {
                diags.push(Diagnostic::error("AGC001", e));
                return 2;
            }
            let handler = match ScriptHandler::new(script).with_log(&dir.join("invocations.jsonl"))
            {
                Ok(h) => Arc::new(h),
                Err(e) => {
                    diags.push(Diagnostic::error(
                        "AGC001",
                        format!("cannot write the invocation log: {e}"),
                    ));
                    return 2;
                }
            };
            let mut opened = match run_dir::open_journal(dir, &args.journal) {
                Ok(j) => j,
                Err(e) => {
                    diags.push(Diagnostic::error("AGC001", e));
                    return 2;
                }
            };
            let run = agc_runtime::run::run(plan, params, handler, &mut *opened.journal, &opts);
            let Some(outcome) = block_on(args.threads, run, diags) else {
                return 2;
            };
            drop(opened);
            return finish(args, outcome, diags, "AGC301");
        }
        None => {
            let handler = Arc::new(ScriptHandler::new(script));
            let mut journal = MemoryJournal::default();
            let run = agc_runtime::run::run(plan, params, handler, &mut journal, &opts);
            let Some(outcome) = block_on(args.threads, run, diags) else {
                return 2;
            };
            outcome
        }
    };
    finish(args, outcome, diags, "AGC301")
}

fn resume(args: &RunArgs, dir: &Path, sources: &mut SourceMap, diags: &mut Vec<Diagnostic>) -> i32 {
    // `exists`, not `is_file`: a FIFO or a device named plan.json is refused by the bounded
    // reader below (AGC017), with the lock held.
    if !dir.join("plan.json").exists() {
        diags.push(Diagnostic::error(
            "AGC001",
            format!("`{}` holds no run to resume (no plan.json)", dir.display()),
        ));
        return 2;
    }
    // Before anything is read, and held until the record is written: one process per run
    // directory (a second one would issue the call in flight again).
    let _held = match run_dir::hold(dir) {
        Ok(h) => h,
        Err(d) => {
            diags.push(d);
            return 2;
        }
    };
    // Bounded: a FIFO or a device planted in the run dir is refused, not waited on.
    let read = |name: &str| {
        let path = dir.join(name);
        crate::fsio::read_text(&path, args.root.limit.bytes)
            .map_err(|e| e.message(&path.to_string_lossy()))
    };
    let plan = match read("plan.json") {
        Ok(t) => match Plan::from_json(&t) {
            Ok(p) => p,
            Err(e) => {
                diags.push(Diagnostic::error(
                    "AGC302",
                    format!(
                        "`{}/plan.json` is not a readable agc plan: {e}",
                        dir.display()
                    ),
                ));
                return 2;
            }
        },
        Err(e) => {
            diags.push(Diagnostic::error(
                "AGC001",
                format!("`{}` holds no run to resume: {e}", dir.display()),
            ));
            return 2;
        }
    };
    let script = match &args.script {
        Some(p) => match load_script(p, args.root.limit.bytes, sources, diags) {
            Some(s) => s,
            None => return 2,
        },
        None => read("script.json")
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default(),
    };
    let kept: run_dir::Kept = read("options.json")
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let decisions =
        match super::run_answers::parse(&args.decide, &args.outputs, args.root.limit.bytes) {
            Ok(d) => d,
            Err(e) => {
                diags.push(Diagnostic::error("AGC303", e));
                return 2;
            }
        };
    // A run directory without its journal holds no run (and opening would create one).
    if !run_dir::journal_file(dir, &kept.journal).is_file() {
        diags.push(Diagnostic::error(
            "AGC303",
            format!(
                "`{}` has no journal: the run cannot be resumed",
                run_dir::journal_file(dir, &kept.journal).display()
            ),
        ));
        return 2;
    }
    let mut opened = match run_dir::open_journal(dir, &kept.journal) {
        Ok(j) => j,
        Err(e) => {
            diags.push(Diagnostic::error("AGC303", e));
            return 2;
        }
    };
    let events = match opened.journal.load() {
        Ok(evs) => evs,
        Err(e) => {
            diags.push(Diagnostic::error("AGC303", e.to_string()));
            return 2;
        }
    };
    if let Some(bytes) = opened.torn {
        diags.push(run_dir::torn_note(dir, bytes));
    }
    let last_at = events.last().map(|e| e.at().to_string());
    drop(events);
    let handler = match ScriptHandler::new(script).with_log(&dir.join("invocations.jsonl")) {
        Ok(h) => Arc::new(h),
        Err(e) => {
            diags.push(Diagnostic::error(
                "AGC001",
                format!("cannot write the invocation log: {e}"),
            ));
            return 2;
        }
    };
    let opts = options(args, kept.fixed_clock, last_at.as_deref());
    let resumed = agc_runtime::run::resume_answering(
        Arc::new(plan),
        handler,
        &mut *opened.journal,
        &decisions,
        &opts,
    );
    let Some(outcome) = block_on(args.threads, resumed, diags) else {
        return 2;
    };
    drop(opened);
    let mut args_dir = RunArgsView::from(args);
    args_dir.run_dir = Some(dir.to_path_buf());
    finish_with(&args_dir, outcome, diags, "AGC303")
}

/// The parts of the arguments `finish` needs.
struct RunArgsView {
    run_dir: Option<PathBuf>,
    record: Option<PathBuf>,
    quiet: bool,
}

impl From<&RunArgs> for RunArgsView {
    fn from(a: &RunArgs) -> Self {
        RunArgsView {
            run_dir: a.run_dir.clone(),
            record: a.record.clone(),
            quiet: a.quiet,
        }
    }
}

fn finish(
    args: &RunArgs,
    outcome: Result<RunRecord, agc_runtime::run::RunError>,
    diags: &mut Vec<Diagnostic>,
    code: &'static str,
) -> i32 {
    finish_with(&RunArgsView::from(args), outcome, diags, code)
}

fn finish_with(
    args: &RunArgsView,
    outcome: Result<RunRecord, agc_runtime::run::RunError>,
    diags: &mut Vec<Diagnostic>,
    code: &'static str,
) -> i32 {
    let record = match outcome {
        Ok(r) => r,
        Err(e) => {
            diags.push(Diagnostic::error(code, e.to_string()));
            return 2;
        }
    };
    let text = record.to_pretty_string();
    let mut targets: Vec<PathBuf> = Vec::new();
    if let Some(d) = &args.run_dir {
        targets.push(d.join("record.json"));
    }
    if let Some(r) = &args.record {
        targets.push(r.clone());
    }
    for t in &targets {
        if let Err(e) = crate::fsio::write::write(t, &[], text.as_bytes()) {
            diags.push(e.diagnostic(&t.to_string_lossy()));
            return 2;
        }
    }
    if targets.is_empty() {
        super::out(&text);
    } else if !args.quiet && !record.outputs.is_empty() {
        // The run's result (the record, where it is, holds it too): redacted values stay so.
        let outputs = serde_json::Value::Object(record.outputs.clone());
        eprintln!("outputs: {outputs}");
    }
    if let Some(t) = record.terminal.as_ref().filter(|_| !args.quiet) {
        // agh: the Loop's own terminal state (the record's `x-terminal`).
        let reason = t
            .reason_code
            .as_deref()
            .map_or(String::new(), |c| format!(" ({c})"));
        eprintln!(
            "note: the Loop ended `{}`{reason} in generation {}",
            t.status, t.generation
        );
    }
    match record.status {
        RunStatus::Succeeded => 0,
        RunStatus::AwaitingHuman => {
            // Gates by scope path, checkpoints by `<scope path>.<id>`.
            let names: Vec<String> = record
                .nodes
                .iter()
                .filter(|n| n.status == agc_runtime::run::NodeStatus::AwaitingHuman)
                .map(|n| n.awaiting.clone().unwrap_or_else(|| n.scope_path.clone()))
                .collect();
            match &args.run_dir {
                None => eprintln!(
                    "note: the run awaits a human at {}; run with --run-dir to be able to resume it",
                    names.join(", ")
                ),
                Some(d) => eprintln!(
                    "note: the run awaits a human at {}; decide with `agc run --resume {} --decide {}=approved` (or =rejected)",
                    names.join(", "),
                    d.display(),
                    names.first().map_or("NAME", String::as_str)
                ),
            }
            4
        }
        _ => {
            // Why it failed, once more at the end (issue 47): the progress lines scroll by,
            // and `--quiet` has none.
            for line in super::run_progress::failure_summary(&record) {
                eprintln!("{line}");
            }
            1
        }
    }
}

/// Awaits the driver on a tokio runtime of `threads` workers (`--threads`); `None`, with a
/// diagnostic, when the runtime cannot start.
fn block_on<T>(
    threads: usize,
    driver: impl std::future::Future<Output = T>,
    diags: &mut Vec<Diagnostic>,
) -> Option<T> {
    match agc_runtime::run::tokio_runtime(threads) {
        Ok(rt) => Some(rt.block_on(driver)),
        Err(e) => {
            diags.push(Diagnostic::error(
                "AGC001",
                format!("cannot start the async runtime for handler calls: {e}"),
            ));
            None
        }
    }
}

fn options(args: &RunArgs, fixed: bool, last_at: Option<&str>) -> RunOptions {
    let mut opts = RunOptions::default();
    if fixed {
        let clock = last_at.and_then(FixedClock::after).unwrap_or_default();
        opts.clock = Arc::new(clock);
        opts.ids = Arc::new(FixedIds::new("run"));
    } else {
        opts.clock = Arc::new(SystemClock);
        opts.ids = Arc::new(SystemIds);
    }
    if !args.quiet {
        use std::io::IsTerminal;
        opts.observer = if std::io::stderr().is_terminal() {
            Some(Arc::new(super::run_progress::Bar::default()))
        } else {
            Some(Arc::new(super::run_progress::Lines))
        };
    }
    opts
}

/// Compiles `file`, or reads it as a plan when it is one.
pub(super) fn load_plan(
    args: &RunArgs,
    file: &Path,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<Plan> {
    let display = super::walk::shown(file);
    if file.extension().and_then(|e| e.to_str()) == Some("json")
        && let Ok(text) = crate::fsio::read_text(file, args.root.limit.bytes)
        && text.contains("\"agc.plan/v")
    {
        return match Plan::from_json(&text) {
            Ok(p) => Some(p),
            Err(e) => {
                diags.push(Diagnostic::error(
                    "AGC302",
                    format!("`{display}` is not a valid agc plan: {e}"),
                ));
                None
            }
        };
    }
    let (compiled, mut found) =
        crate::compile::compile_file(sources, file, &display, &args.root.options());
    let compiled = match crate::compile::single(compiled, &display) {
        Ok(c) => c,
        Err(d) => {
            found.push(d);
            None
        }
    };
    let failed = found
        .iter()
        .any(|d| d.severity == crate::diag::Severity::Error);
    diags.append(&mut found);
    let compiled = compiled.filter(|_| !failed)?;
    let text = crate::compile::plan_text(&compiled, sources, &display);
    crate::discard::discard(compiled);
    match Plan::from_json(&text) {
        Ok(p) => Some(p),
        Err(e) => {
            diags.push(Diagnostic::error(
                "AGC302",
                format!("the plan of `{display}` does not read back: {e}"),
            ));
            None
        }
    }
}

/// Reads a script (YAML or JSON): every entry that does not fit the format is reported with
/// its position (AGC300).
pub(super) fn load_script(
    path: &Path,
    limit: usize,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<Script> {
    let display = path.to_string_lossy().replace('\\', "/");
    let limits = crate::source::Limits {
        max_file_bytes: limit,
        ..crate::source::Limits::default()
    };
    let (_, loaded) = match crate::source::load::load_path(sources, path, &display, limits) {
        Ok(x) => x,
        Err(d) => {
            diags.push(d);
            return None;
        }
    };
    let errors = loaded
        .diags
        .iter()
        .any(|d| d.severity == crate::diag::Severity::Error);
    diags.extend(loaded.diags);
    let doc = loaded.doc.filter(|_| !errors)?;
    let mut bad = false;
    let Some(root) = doc.value.as_object() else {
        diags.push(
            Diagnostic::error("AGC300", "a run script is a mapping with a `nodes` key")
                .at(doc.span("")),
        );
        return None;
    };
    for key in root.keys() {
        if key != "nodes" && key != "format" {
            diags.push(
                Diagnostic::error("AGC300", format!("unknown script key `{key}`"))
                    .at(doc.key_span(&format!("/{}", crate::source::tree::escape_token(key))))
                    .with_help("a script has `format` and `nodes`"),
            );
            bad = true;
        }
    }
    if let Some(nodes) = root.get("nodes").and_then(crate::source::Value::as_object) {
        for (k, v) in nodes {
            if let Err(e) = serde_json::from_value::<agc_runtime::run::script::Entry>(v.to_json()) {
                let ptr = format!("/nodes/{}", crate::source::tree::escape_token(k));
                diags.push(
                    Diagnostic::error("AGC300", format!("script entry `{k}`: {e}"))
                        .at(doc.span(&ptr))
                        .with_help(
                            "an entry has outputs, decision, fail, delay_ms, usage, results or checkpoints",
                        ),
                );
                bad = true;
            }
        }
    } else if root.contains_key("nodes") {
        diags.push(
            Diagnostic::error("AGC300", "`nodes` must be a mapping from node to result")
                .at(doc.span("/nodes")),
        );
        bad = true;
    }
    if bad {
        return None;
    }
    match serde_json::from_value::<Script>(doc.value.to_json()) {
        Ok(s) => Some(s),
        Err(e) => {
            diags.push(Diagnostic::error("AGC300", format!("{e}")).at(doc.span("")));
            None
        }
    }
}

/// AGC304: a script key that names no node of the plan, or a checkpoint answer that names
/// no checkpoint of those nodes (a typo would silently never match).
/// The plan's nodes are indexed once by id and local id (in plan order), so the check is
/// linear in the script and the plan (scanning the plan per entry made a run of a 40k-node
/// chain quadratic, issue 41).
pub(super) fn check_script_keys(script: &Script, plan: &Plan, diags: &mut Vec<Diagnostic>) {
    if script.nodes.is_empty() {
        return;
    }
    let mut by_name: std::collections::HashMap<&str, Vec<&agc_runtime::plan::Node>> =
        std::collections::HashMap::with_capacity(plan.nodes.len() * 2);
    for n in &plan.nodes {
        by_name.entry(n.id.as_str()).or_default().push(n);
        if n.local_id != n.id {
            by_name.entry(n.local_id.as_str()).or_default().push(n);
        }
    }
    for (key, entry) in &script.nodes {
        let plain = agc_runtime::run::strip_indices(key);
        let nodes: &[&agc_runtime::plan::Node] =
            by_name.get(plain.as_str()).map_or(&[], Vec::as_slice);
        if nodes.is_empty() {
            diags.push(Diagnostic::warning(
                "AGC304",
                format!(
                    "the script's entry `{key}` names no node of graph `{}`",
                    plan.graph.id
                ),
            ));
            continue;
        }
        let mut ids: Vec<String> = vec!["escalation".into(), "takeover".into()];
        for n in nodes {
            ids.extend(agc_runtime::run::core::checkpoint_ids(n));
        }
        let answered = entry.checkpoints.iter().flatten().chain(
            entry
                .results
                .iter()
                .flatten()
                .flat_map(|r| r.checkpoints.iter().flatten()),
        );
        for (id, _) in answered {
            if !ids.contains(id) {
                diags.push(Diagnostic::warning(
                    "AGC304",
                    format!(
                        "the script's entry `{key}` answers checkpoint `{id}`, which `{plain}` does not have (it has: {})",
                        ids.join(", ")
                    ),
                ));
            }
        }
    }
}
