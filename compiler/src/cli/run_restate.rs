//! `agc run FILE --engine restate --ingress URL [--admin URL]`: submits a run to a Restate
//! server where an agc worker is registered, follows it with progress, and writes the run
//! record as `agc run` does locally. `agc run --engine restate --ingress URL --resume RUN
//! [--decide NAME=approved|rejected] [--outputs NAME=JSON|NAME=@FILE]` decides gates and
//! checkpoints of a paused run (with the outputs that go with an approval) and follows it again.
//!
//! The worker (crate `agc-restate`) runs the same scheduler core as the local driver; this
//! side only speaks JSON over HTTP (the contract is in `docs/restate.md`).
//!
//! Exit status as locally: 0 succeeded; 1 failed, partial or cancelled; 2 usage or input
//! errors (and Restate refusing a run or a decision); 4 paused awaiting a human.

use super::restate::{Response, request};
use super::run_answers::read_params;
use super::run_args::RunArgs;
use super::run_inputs::{check_script_keys, load_plan_and_script};
use crate::diag::Diagnostic;
use crate::source::SourceMap;
use agc_runtime::run::{IdSource, SystemIds, bind_params};
use serde_json::{Map, Value, json};
use std::time::Duration;

pub(super) fn run(args: &RunArgs, sources: &mut SourceMap, diags: &mut Vec<Diagnostic>) -> i32 {
    if args.engine != "restate" {
        diags.push(Diagnostic::error(
            "AGC365",
            format!("unknown engine `{}` (local or restate)", args.engine),
        ));
        return 2;
    }
    let Some(ingress) = &args.ingress else {
        diags.push(Diagnostic::error(
            "AGC365",
            "`--engine restate` needs `--ingress URL` (the server's ingress, e.g. http://127.0.0.1:8080)",
        ));
        return 2;
    };
    if args.run_dir.is_some() || args.journal != "jsonl" {
        diags.push(Diagnostic::error(
            "AGC365",
            "`--run-dir` and `--journal` are for local runs; on Restate the server keeps the journal and `--resume` takes the run id",
        ));
        return 2;
    }
    let ingress = ingress.trim_end_matches('/');
    let result = match &args.resume {
        Some(id) => resume(args, ingress, &id.to_string_lossy()),
        None => submit(args, ingress, sources, diags),
    };
    match result {
        Ok(code) => code,
        Err(d) => {
            diags.push(d);
            2
        }
    }
}

fn submit(
    args: &RunArgs,
    ingress: &str,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Result<i32, Diagnostic> {
    let Some(file) = &args.file else {
        return Ok(2);
    };
    let limit = args.root.limit.bytes;
    // The script is read while the plan is; its diagnostics follow the plan's and the params'.
    let Some(loaded) = load_plan_and_script(args, file, sources, diags) else {
        return Ok(if diags.iter().any(crate::fsio::is_refusal) {
            2
        } else {
            1
        });
    };
    let plan = loaded.plan;
    let params = match &args.params {
        None => Map::new(),
        Some(p) => read_params(p, limit)?,
    };
    // Params are checked here too, so a mistake is reported before anything is submitted.
    if let Err(e) = bind_params(&plan, params.clone()) {
        return Err(Diagnostic::error("AGC301", e.to_string()));
    }
    diags.extend(loaded.beside_diags);
    let script = match loaded.beside {
        None => None,
        Some(Some(s)) => {
            check_script_keys(&s, &plan, diags);
            Some(serde_json::to_value(&s).unwrap_or(Value::Null))
        }
        Some(None) => return Ok(2),
    };
    if let Some(admin) = &args.admin {
        check_registered(admin)?;
    }
    let run_id = SystemIds.run_id();
    let mut input = json!({
        "run_id": run_id,
        "plan": serde_json::to_value(&plan).unwrap_or(Value::Null),
        "params": params,
        "fixed_clock": args.fixed_clock,
    });
    if let Some(s) = script {
        input["script"] = s;
    }
    // The command's limits over the plan's, which the worker honours by itself.
    let limits = args.eval_limits.plan_limits();
    if !limits.is_empty() {
        input["eval_limits"] = serde_json::to_value(limits).unwrap_or(Value::Null);
    }
    let url = format!("{ingress}/restate/send/AgcRun/{run_id}/run");
    let r = request("POST", &url, Some(&input.to_string()))?;
    if !r.ok() {
        return Err(refused("refused the run", &r));
    }
    if !args.quiet {
        eprintln!("run {run_id} submitted to {ingress}");
    }
    follow(args, ingress, &run_id)
}

fn refused(what: &str, r: &Response) -> Diagnostic {
    let hint = if r.status == 404 {
        " (is an agc worker registered? `agc restate register WORKER_URL --admin ADMIN_URL`)"
    } else {
        ""
    };
    Diagnostic::error(
        "AGC361",
        format!("Restate {what} (HTTP {}): {}{hint}", r.status, r.message()),
    )
}

/// Checks with the admin API that agc's workflow is registered.
fn check_registered(admin: &str) -> Result<(), Diagnostic> {
    let r = request(
        "GET",
        &format!("{}/services/AgcRun", admin.trim_end_matches('/')),
        None,
    )?;
    if r.ok() {
        return Ok(());
    }
    Err(Diagnostic::error(
        "AGC361",
        format!(
            "agc's services are not registered with the Restate server at `{admin}` (HTTP {}): run `agc restate register WORKER_URL --admin {admin}`",
            r.status
        ),
    ))
}

/// `status` of a run.
fn status(ingress: &str, run_id: &str) -> Result<Value, Diagnostic> {
    let r = request(
        "POST",
        &format!("{ingress}/restate/call/AgcRun/{run_id}/status"),
        None,
    )?;
    if !r.ok() {
        return Err(refused("could not report the run's status", &r));
    }
    serde_json::from_str(&r.body).map_err(|e| {
        Diagnostic::error(
            "AGC361",
            format!("the run's status is not the expected JSON: {e}"),
        )
    })
}

/// Whether the run's invocation failed before it could report (a plan the worker refused).
fn failure(ingress: &str, run_id: &str) -> Result<Option<String>, Diagnostic> {
    let r = request(
        "GET",
        &format!("{ingress}/restate/workflow/AgcRun/{run_id}/output"),
        None,
    )?;
    // 470 is Restate's "not ready yet"; a 4xx/5xx with a message is the run's failure.
    if r.ok() || r.status == 470 || r.status == 404 {
        return Ok(None);
    }
    Ok(Some(r.message()))
}

fn follow(args: &RunArgs, ingress: &str, run_id: &str) -> Result<i32, Diagnostic> {
    let mut seen = 0u64;
    let mut delay = Duration::from_millis(20);
    let mut polls = 0u64;
    loop {
        let view = status(ingress, run_id)?;
        let st = view["status"].as_str().unwrap_or("unknown").to_string();
        let finished = view["finished"].as_u64().unwrap_or(0);
        if !args.quiet && finished > seen {
            let last = view["last"].as_str().unwrap_or("");
            eprintln!("  finished {last} ({finished} node runs)");
        }
        if finished > seen {
            seen = finished;
            delay = Duration::from_millis(20);
        }
        if let Some(record) = view.get("record").filter(|r| r.is_object()) {
            let text = format!(
                "{}\n",
                serde_json::to_string_pretty(record).unwrap_or_default()
            );
            write_record(args, &text)?;
            return Ok(match st.as_str() {
                "succeeded" => 0,
                "awaiting_human" => {
                    let gates: Vec<&str> = view["awaiting"]
                        .as_array()
                        .map(|a| a.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    eprintln!(
                        "run {run_id} awaits a human at {}; decide with `agc run --engine restate --ingress {ingress} --resume {run_id} --decide {}=approved`",
                        gates.join(", "),
                        gates.first().copied().unwrap_or("NAME")
                    );
                    4
                }
                _ => 1,
            });
        }
        polls += 1;
        if st == "unknown"
            && polls.is_multiple_of(10)
            && let Some(m) = failure(ingress, run_id)?
        {
            return Err(Diagnostic::error(
                "AGC363",
                format!("the run {run_id} failed on Restate before it could start: {m}"),
            ));
        }
        std::thread::sleep(delay);
        // Up to one poll a second: each poll is a (small) invocation Restate keeps for its
        // retention period.
        delay = (delay * 2).min(Duration::from_secs(1));
    }
}

fn write_record(args: &RunArgs, text: &str) -> Result<(), Diagnostic> {
    match &args.record {
        Some(p) => crate::fsio::write::write(p, &args.inputs(), text.as_bytes())
            .map_err(|e| e.diagnostic(&p.to_string_lossy())),
        None => {
            super::out(text);
            Ok(())
        }
    }
}

/// `a[2].b` → `a.b`.
fn strip_indices(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0usize;
    for c in path.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

fn resume(args: &RunArgs, ingress: &str, run_id: &str) -> Result<i32, Diagnostic> {
    let decisions = super::run_answers::parse(&args.decide, &args.outputs, args.root.limit.bytes)
        .map_err(|e| Diagnostic::error("AGC365", e))?;
    if !decisions.is_empty() {
        let view = status(ingress, run_id)?;
        let awaiting: Vec<String> = view["awaiting"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        for answer in decisions {
            let gate = answer.name.clone();
            // The same names as a local resume: the scope path, the plan id, the local id.
            let path = awaiting
                .iter()
                .find(|p| {
                    **p == gate || {
                        let plain = strip_indices(p);
                        plain == gate.replace('/', ".") || plain.rsplit('.').next() == Some(&gate)
                    }
                })
                .cloned()
                .ok_or_else(|| {
                    Diagnostic::error(
                        "AGC362",
                        format!(
                            "no gate, checkpoint or signal wait named `{gate}` is awaiting a decision in run {run_id} (awaiting: {})",
                            if awaiting.is_empty() {
                                "none".to_string()
                            } else {
                                awaiting.join(", ")
                            }
                        ),
                    )
                })?;
            // Restate's `decide` takes the outputs in its body; the worker's core checks them
            // as a handler's answer (see docs/run.md).
            let mut body = json!({ "gate": path, "outcome": answer.outcome.as_str() });
            if !answer.outputs.is_empty() {
                body["outputs"] = Value::Object(answer.outputs.clone());
            }
            let body = body.to_string();
            let r = request(
                "POST",
                &format!("{ingress}/restate/call/AgcRun/{run_id}/decide"),
                Some(&body),
            )?;
            if !r.ok() {
                return Err(Diagnostic::error(
                    "AGC362",
                    format!(
                        "Restate refused the decision for gate `{path}` (HTTP {}): {}",
                        r.status,
                        r.message()
                    ),
                ));
            }
            if !args.quiet {
                eprintln!("decided {path}: {}", answer.outcome.as_str());
            }
        }
        // The run picks the decision up asynchronously: wait until it no longer reports
        // the pause this decision ended (bounded; then follow as usual).
        wait_unpaused(ingress, run_id, &view)?;
    }
    follow(args, ingress, run_id)
}

/// Waits (at most ~10 s) until `status` differs from the paused `before`.
fn wait_unpaused(ingress: &str, run_id: &str, before: &Value) -> Result<(), Diagnostic> {
    for _ in 0..200 {
        let now = status(ingress, run_id)?;
        if now["status"] != "awaiting_human" || now["finished"] != before["finished"] {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}
