//! `agc run FILE|PLAN.json [--params P.json] [--script S.yaml] [--run-dir D] [--record R.json]
//! [--fixed-clock]` and `agc run --resume D [--decide NAME=approved|rejected]
//! [--outputs NAME=JSON|NAME=@FILE]` (a gate's scope path, or a checkpoint's
//! `NODE.CHECKPOINT`; the outputs go with an approval).
//!
//! Runs a plan on agc-runtime's async driver with the scripted handler (the way to dry-run
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

pub(crate) use super::run_args::RunArgs;
use super::run_dir;
use super::run_inputs::{check_script_keys, load_plan_and_script, load_script, parse_plan_while};
use super::{ColorArg, FormatArg, Stream};
use crate::diag::Diagnostic;
use crate::source::SourceMap;
use agc_runtime::run::script::{Script, ScriptHandler};
use agc_runtime::run::{
    FixedClock, FixedIds, MemoryJournal, RunOptions, RunRecord, RunStatus, SystemClock, SystemIds,
};
use serde_json::Map;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) fn run(args: RunArgs) -> i32 {
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
    let limit = args.root.limit.bytes;
    // The script is read while the plan is; its diagnostics follow the plan's and the params'.
    let Some(loaded) = load_plan_and_script(args, file, sources, diags) else {
        return if diags.iter().any(crate::fsio::is_refusal) {
            2
        } else {
            1
        };
    };
    let (plan, plan_text) = (loaded.plan, loaded.text);
    let params = match &args.params {
        None => Map::new(),
        Some(p) => match super::run_answers::read_params(p, limit) {
            Ok(p) => p,
            Err(d) => {
                diags.push(d);
                return 2;
            }
        },
    };
    diags.extend(loaded.beside_diags);
    let script = match loaded.beside {
        None => Script::default(),
        Some(Some(s)) => s,
        Some(None) => return 2,
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
            let preparing =
                match run_dir::prepare(dir, plan_text, &script, args.fixed_clock, &args.journal) {
                    Ok(p) => p,
                    Err(e) => {
                        diags.push(Diagnostic::error("AGC001", e));
                        return 2;
                    }
                };
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
            // Held here so that they are freed off the way once the run has dropped its own.
            let kept = (Arc::clone(&plan), Arc::clone(&handler));
            let mut journal = run_dir::AfterPrepared::new(&mut *opened.journal, preparing);
            let run = agc_runtime::run::run(plan, params, handler, &mut journal, &opts);
            let outcome = block_on(args.threads, run, diags);
            if let Err(e) = journal.finish() {
                diags.push(Diagnostic::error("AGC001", e));
                return 2;
            }
            let Some(outcome) = outcome else {
                return 2;
            };
            drop(opened);
            let status = finish(args, outcome, diags, "AGC301");
            // After the record is written: its writing has both cores to itself.
            crate::discard::discard(kept);
            return status;
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
    let text = match read("plan.json") {
        Ok(t) => t,
        Err(e) => {
            diags.push(Diagnostic::error(
                "AGC001",
                format!("`{}` holds no run to resume: {e}", dir.display()),
            ));
            return 2;
        }
    };
    // The script is read while the plan is; its diagnostics follow the plan's.
    let mut script_diags = Vec::new();
    let (plan, script) = parse_plan_while(&text, || match &args.script {
        Some(p) => load_script(p, args.root.limit.bytes, sources, &mut script_diags),
        None => Some(
            read("script.json")
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or_default(),
        ),
    });
    drop(text);
    let plan = match plan {
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
    };
    diags.append(&mut script_diags);
    let Some(script) = script else {
        return 2;
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
    let mut record = match outcome {
        Ok(r) => r,
        Err(e) => {
            diags.push(Diagnostic::error(code, e.to_string()));
            return 2;
        }
    };
    let text = record.to_pretty_parts();
    let mut targets: Vec<PathBuf> = Vec::new();
    if let Some(d) = &args.run_dir {
        targets.push(d.join("record.json"));
    }
    if let Some(r) = &args.record {
        targets.push(r.clone());
    }
    for t in &targets {
        let fill =
            |w: &mut dyn std::io::Write| text.iter().try_for_each(|p| w.write_all(p.as_bytes()));
        if let Err(e) = crate::fsio::write::write_with(t, &[], fill) {
            diags.push(e.diagnostic(&t.to_string_lossy()));
            return 2;
        }
    }
    if targets.is_empty() {
        super::out(&text.concat());
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
    let status = exit_status(args, &record);
    // Freed off the way out (a 10k-node record is millions of small values).
    crate::discard::discard(record);
    status
}

/// The exit status of a run that ended or paused as `record` says, with the lines that say
/// what to do next.
fn exit_status(args: &RunArgsView, record: &RunRecord) -> i32 {
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
            for line in super::run_progress::failure_summary(record) {
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
    let mut opts = RunOptions {
        // Over the plan's own `eval_limits`, for this run only.
        eval_limits: args.eval_limits.plan_limits(),
        ..RunOptions::default()
    };
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
