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

use super::{ColorArg, FormatArg, Stream, print_diagnostics};
use crate::diag::Diagnostic;
use crate::front::agent_graph::Inventory;
use crate::session::Session;
use agc_runtime::agent_graph::model::Provider;
use agc_runtime::agent_graph::{Error, eval, route};
use indexmap::IndexMap;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

mod ajv;
mod bundle;
mod inputs;
mod select;
mod tests_cmd;

pub(crate) use bundle::{AgentGraphCommand, tools};

/// Output format of the Agent Graph commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum AgFormat {
    Human,
    Json,
}

/// The evaluation input options shared by `evaluate` and `route`.
#[derive(clap::Args, Debug)]
pub(crate) struct StateArgs {
    /// Graph entrypoint (default: the Skill binding's, else `default`).
    #[arg(long)]
    entry: Option<String>,
    /// Resolve the Provider, graph and entry through the `metadata` of a SKILL.md
    /// (`agent-graph`, `agent-graph.graph`, `agent-graph.entry`); PROVIDER is then not given.
    #[arg(long, value_name = "SKILL.md")]
    skill: Option<PathBuf>,
    /// Provider registry for `provider:<id>` locators (`{providers: {id: manifest}}`).
    #[arg(long, value_name = "FILE")]
    registry: Option<PathBuf>,
    /// A Run file (`agent-graph.run.v1`) supplying facts, outcomes, authorities, workspace.
    #[arg(long, value_name = "RUN")]
    state: Option<PathBuf>,
    /// Facts as JSON, or `@FILE` (JSON or YAML); merged over the Run's at the top level.
    #[arg(long, value_name = "JSON|@FILE")]
    facts: Option<String>,
    /// Node outcomes `{stateKey: outcome}` as JSON, or `@FILE`; merged over the Run's.
    #[arg(long, value_name = "JSON|@FILE")]
    outcomes: Option<String>,
    /// Session-scoped delegated authorities.
    #[arg(long, value_name = "ID", num_args = 1..)]
    authority: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = AgFormat::Human)]
    format: AgFormat,
    #[command(flatten)]
    limit: super::LimitArg,
}

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

/// Prints an upstream-style failure; returns the exit status 1.
pub(crate) fn fail(format: AgFormat, e: &Error, diagnostics: Vec<Value>) -> i32 {
    match format {
        AgFormat::Json => {
            let envelope = json!({
                "schema": "agent-graph.error.v1",
                "state": "error",
                "error": {"code": e.code, "message": e.message, "diagnostics": diagnostics},
            });
            eprintln!("{envelope}");
        }
        AgFormat::Human => {
            eprintln!("ERROR {}: {}", e.code, e.message);
            for d in &diagnostics {
                let text = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or_default();
                eprintln!(
                    "{} {}: {}",
                    text("severity").to_uppercase(),
                    text("code"),
                    text("message")
                );
            }
        }
    }
    1
}

/// [`fail`] for a [`inputs::Failure`].
fn failed(format: AgFormat, f: inputs::Failure) -> i32 {
    fail(format, &f.error, f.diagnostics)
}

/// The manifest path of a Provider argument: a folder stands for its bundle `manifest.json`
/// when it holds one (so that a built bundle is verified), else for its `provider.yaml`.
fn manifest_path(p: &Path) -> PathBuf {
    if p.is_dir() {
        if crate::front::agent_graph::is_bundle_manifest(&p.join("manifest.json")) {
            return p.join("manifest.json");
        }
        for name in ["provider.yaml", "provider.yml", "provider.json"] {
            if p.join(name).is_file() {
                return p.join(name);
            }
        }
        p.join("provider.yaml")
    } else {
        p.to_path_buf()
    }
}

/// Loads the Provider, or prints its loader findings and gives the exit status.
pub(crate) fn provider(path: &Path, format: AgFormat) -> Result<Provider, i32> {
    load(path, format).map(|(p, _)| p)
}

/// [`provider`], with what a bundle of it holds.
pub(crate) fn load(path: &Path, format: AgFormat) -> Result<(Provider, Inventory), i32> {
    let manifest = manifest_path(path);
    let display = manifest.to_string_lossy().replace('\\', "/");
    let mut session = Session::default();
    let mut loaded = session.check_provider(&manifest, &display);
    let sources = &session.sources;
    if let Some(p) = loaded.provider
        && let Some(inventory) = loaded.inventory
        && !loaded.diags.iter().any(Diagnostic::is_error)
    {
        if format == AgFormat::Human {
            // Warnings (agc's lints) go to stderr, the answer to stdout.
            let mut warnings: Vec<Diagnostic> = loaded.diags;
            if !warnings.is_empty() {
                print_diagnostics(
                    &mut warnings,
                    sources,
                    FormatArg::Human,
                    ColorArg::Auto,
                    Stream::Stderr,
                    false,
                    false,
                );
            }
        }
        return Ok((p, inventory));
    }
    let errors: Vec<&Diagnostic> = loaded.diags.iter().filter(|d| d.is_error()).collect();
    // The envelope carries the code upstream stops at: a bundle's own digest is checked before
    // anything else (agc reports the file findings that come with it too), and `bundle-invalid`
    // comes with `schema-invalid`, which is what upstream reports alone. Otherwise the first.
    let rank = |code: &str| match code {
        "bundle-digest-mismatch" => 0,
        "bundle-invalid" => 2,
        _ => 1,
    };
    let first = errors
        .iter()
        .min_by_key(|d| rank(d.code))
        .map_or("unexpected-error", |d| d.code);
    match format {
        AgFormat::Json => {
            let diags = errors
                .iter()
                .map(|d| {
                    let mut v = json!({"code": d.code, "severity": d.severity.as_str(), "message": d.message});
                    if let Some(s) = d.span {
                        v["path"] = json!(sources.get(s.file).name);
                        let lc = sources.get(s.file).line_col(s.start);
                        v["detail"] = json!({"line": lc.line, "column": lc.column});
                    }
                    v
                })
                .collect();
            let message = format!(
                "the provider `{display}` has {} error(s)",
                errors.len().max(1)
            );
            Err(fail(format, &Error::new(first, message), diags))
        }
        AgFormat::Human => {
            print_diagnostics(
                &mut loaded.diags,
                sources,
                FormatArg::Human,
                ColorArg::Auto,
                Stream::Stderr,
                true,
                false,
            );
            Err(1)
        }
    }
}

/// Parses a file's text: JSON for `.json`, YAML otherwise.
pub(crate) fn structured(text: &str, name: &str) -> Result<Value, Error> {
    if name.to_ascii_lowercase().ends_with(".json") {
        return serde_json::from_str(text)
            .map_err(|e| Error::new("parse-failed", format!("Cannot parse {name}: {e}")));
    }
    let mut scratch = crate::source::SourceMap::new();
    let (_, loaded) = crate::source::load::load_str(
        &mut scratch,
        name,
        text.to_string(),
        crate::source::Limits::default(),
    );
    match (loaded.doc, loaded.diags.iter().find(|d| d.is_error())) {
        (Some(doc), None) => Ok(doc.value.to_json()),
        (_, d) => Err(Error::new(
            "parse-failed",
            format!(
                "Cannot parse {name}: {}",
                d.map_or("no document".to_string(), |d| d.message.clone())
            ),
        )),
    }
}

/// Outcomes as given: strings, or records whose `.outcome` is used.
pub(crate) fn outcome_map(v: &Value) -> IndexMap<String, String> {
    v.as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, o)| {
                    let o = o
                        .as_str()
                        .or_else(|| o.get("outcome").and_then(Value::as_str))?;
                    Some((k.clone(), o.to_string()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The absolute, lexically normalised form of a path (Node's `path.resolve`).
pub(crate) fn resolved(p: &Path) -> String {
    crate::front::agent_graph::absolute(p)
        .to_string_lossy()
        .into_owned()
}

/// Prints `value` as upstream does: compact JSON, or the human lines.
fn output(format: AgFormat, value: &impl serde::Serialize, lines: Vec<String>) {
    match format {
        AgFormat::Json => crate::cli::out(&format!(
            "{}\n",
            serde_json::to_string(value).unwrap_or_default()
        )),
        AgFormat::Human => crate::cli::out(&format!("{}\n", lines.join("\n"))),
    }
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
