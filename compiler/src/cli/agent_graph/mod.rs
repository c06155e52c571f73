//! `agc evaluate`, `agc route`, `agc test`: drop-ins for the upstream `agent-graph` CLI's commands
//! of the same names (`@c4a/agent-graph` 0.2.6).
//!
//! - The Provider is the first argument (a `provider.yaml`, a bundle `manifest.json`, or a
//!   folder holding one; a bundle wins) instead of upstream's `--manifest`; it is loaded and
//!   checked by agc's front end, and any loader error is reported with its code and place (all
//!   of them) before evaluation is refused. With `--skill SKILL.md` the Skill's binding names
//!   the Provider, graph and entry instead ([`select`]).
//! - `agc agent-graph bundle` is upstream's `build` ([`bundle`]).
//! - `--format json` prints exactly upstream's compact JSON (`agent-graph.evaluation.v1`,
//!   `agent-graph.route.v1`); `human` (the default) prints upstream's human lines. Failures
//!   print `ERROR code: message` (human) or the `agent-graph.error.v1` envelope (json) on stderr
//!   and exit 1.
//! - `route` also takes `--workspace DIR` (default: the current folder), the working directory
//!   of `cwd: workspace` actions; upstream takes it only from a Run (`--state`).
//! - `test` runs `PATH` (default: the Provider's `tests/` folder, where upstream uses
//!   `./tests` of the current folder) and prints `PASS name` / `FAIL name` per case, then
//!   upstream's summary line; exit 1 when any case fails.

use agc_runtime::agent_graph::{Error, eval, route};
use serde_json::Value;
use std::path::PathBuf;

mod ajv;
mod bundle;
mod inputs;
mod io;
mod select;
mod tests_cmd;

pub(crate) use bundle::{AgentGraphCommand, tools};
pub(crate) use io::{AgFormat, StateArgs, fail, load, outcome_map, provider, resolved, structured};
use io::{manifest_path, output};

#[derive(clap::Args, Debug)]
pub(crate) struct EvaluateArgs {
    /// `PROVIDER GRAPH`: the Provider (its `provider.yaml`, a bundle `manifest.json`, or the
    /// folder holding one) and the graph id. With `--skill`: at most `GRAPH`.
    #[arg(value_name = "PROVIDER GRAPH")]
    targets: Vec<String>,
    #[command(flatten)]
    state: StateArgs,
}

#[derive(clap::Args, Debug)]
pub(crate) struct RouteArgs {
    /// `PROVIDER GRAPH [ROUTE_ID]`: the Provider, the graph id and the route to resolve
    /// (default: the primary route). With `--skill`: at most `ROUTE_ID`.
    #[arg(value_name = "PROVIDER GRAPH [ROUTE_ID]")]
    targets: Vec<String>,
    /// Fail with `route-revision-stale` unless the state still has this revision.
    #[arg(long, value_name = "DIGEST")]
    revision: Option<String>,
    /// Resource read receipts (`agent-graph.resource-read-receipts.v1`) as JSON or `@FILE`.
    #[arg(long, value_name = "JSON|@FILE")]
    resource_receipts: Option<String>,
    /// Working directory of `cwd: workspace` actions (default: the current folder).
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    #[command(flatten)]
    state: StateArgs,
}

#[derive(clap::Args, Debug)]
pub(crate) struct TestArgs {
    /// The Provider: its `provider.yaml`, or the folder holding it.
    provider: PathBuf,
    /// A test file or folder (default: the Provider's `tests/`).
    path: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = AgFormat::Human)]
    format: AgFormat,
    #[command(flatten)]
    limit: super::LimitArg,
}

/// [`fail`] for a [`inputs::Failure`].
fn failed(format: AgFormat, f: inputs::Failure) -> i32 {
    fail(format, &f.error, f.diagnostics)
}

/// `agc evaluate`.
pub(crate) fn evaluate(a: EvaluateArgs) -> i32 {
    let format = a.state.format;
    let s = match select::select(&a.targets, &a.state, false) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let provider = s.provider;
    let result = inputs::input(&a.state, None, None).and_then(|i| {
        eval::evaluate(&provider, &s.graph, &s.entry, &i).map_err(inputs::Failure::from)
    });
    match result {
        Ok(e) => {
            let e = e.evaluation;
            let mut lines = vec![format!("State: {}", e.status_code)];
            if let Some(p) = &e.primary_route {
                lines.push(format!("Next: {} ({})", p.node, p.availability));
                lines.push(format!("Reason: {}", p.reason_code));
                lines.push(format!("Route: {}", p.route_id));
            }
            for d in &e.diagnostics {
                lines.push(format!(
                    "{} {}: {}",
                    d.severity.to_uppercase(),
                    d.code,
                    d.message
                ));
            }
            output(format, &e, lines);
            0
        }
        Err(f) => failed(format, f),
    }
}

/// `agc route`.
pub(crate) fn route(a: RouteArgs) -> i32 {
    let format = a.state.format;
    let s = match select::select(&a.targets, &a.state, true) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let provider = &s.provider;
    let run = || -> Result<route::Route, inputs::Failure> {
        let i = inputs::input(
            &a.state,
            a.resource_receipts.as_deref(),
            a.workspace.as_deref(),
        )?;
        let selected = match &s.route_id {
            Some(r) => r.clone(),
            None => eval::evaluate(provider, &s.graph, &s.entry, &i)?
                .evaluation
                .primary_route
                .map(|p| p.route_id)
                .ok_or_else(|| {
                    Error::new(
                        "route-unavailable",
                        format!("Graph {} has no available route", s.graph),
                    )
                })?,
        };
        Ok(route::resolve(
            provider,
            &s.graph,
            &s.entry,
            &selected,
            &i,
            a.revision.as_deref(),
        )?)
    };
    match run() {
        Ok(r) => {
            let mut lines = vec![
                format!("Next: {} ({})", r.node, r.availability),
                format!("Reason: {}", r.reason_code),
            ];
            for item in &r.command_plan {
                lines.push(match &item.command {
                    Some(c) => format!("Command: {c}"),
                    None => format!("Host handler: {}", item.handler.as_deref().unwrap_or("")),
                });
                lines.push(format!("Working directory: {}", item.working_directory));
            }
            for (label, list) in [
                ("Required", &r.resources.required),
                ("Recommended", &r.resources.recommended),
            ] {
                for l in list {
                    let place = l
                        .file_path
                        .clone()
                        .unwrap_or_else(|| format!("materialize {}", l.id));
                    lines.push(format!(
                        "{label} [{}]: {place}",
                        l.read_state.unwrap_or("read-required")
                    ));
                }
            }
            if let Some(prompt) = r
                .gate
                .as_ref()
                .and_then(|g| g.get("prompt"))
                .and_then(Value::as_str)
            {
                lines.push(format!("Gate: {prompt}"));
            }
            lines.push(format!(
                "After action: record {}, then evaluate again",
                r.after_action.record_node
            ));
            output(format, &r, lines);
            0
        }
        Err(f) => failed(format, f),
    }
}

/// `agc test`.
pub(crate) fn test(a: TestArgs) -> i32 {
    let provider = match provider(&a.provider, a.format) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let path = a.path.clone().unwrap_or_else(|| {
        manifest_path(&a.provider)
            .parent()
            .map(|p| p.join("tests"))
            .unwrap_or_else(|| PathBuf::from("tests"))
    });
    match tests_cmd::run(&provider, &path, a.limit.bytes) {
        Ok(results) => tests_cmd::print(a.format, &results),
        Err(f) => failed(a.format, f),
    }
}
