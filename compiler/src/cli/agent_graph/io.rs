//! How the Agent Graph commands read a Provider and structured input, and print results and
//! failures as upstream does.

use crate::cli::{ColorArg, FormatArg, Stream, print_diagnostics};
use crate::diag::Diagnostic;
use crate::front::agent_graph::Inventory;
use crate::session::Session;
use agc_runtime::agent_graph::Error;
use agc_runtime::agent_graph::model::Provider;
use indexmap::IndexMap;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

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
    pub(crate) entry: Option<String>,
    /// Resolve the Provider, graph and entry through the `metadata` of a SKILL.md
    /// (`agent-graph`, `agent-graph.graph`, `agent-graph.entry`); PROVIDER is then not given.
    #[arg(long, value_name = "SKILL.md")]
    pub(crate) skill: Option<PathBuf>,
    /// Provider registry for `provider:<id>` locators (`{providers: {id: manifest}}`).
    #[arg(long, value_name = "FILE")]
    pub(crate) registry: Option<PathBuf>,
    /// A Run file (`agent-graph.run.v1`) supplying facts, outcomes, authorities, workspace.
    #[arg(long, value_name = "RUN")]
    pub(crate) state: Option<PathBuf>,
    /// Facts as JSON, or `@FILE` (JSON or YAML); merged over the Run's at the top level.
    #[arg(long, value_name = "JSON|@FILE")]
    pub(crate) facts: Option<String>,
    /// Node outcomes `{stateKey: outcome}` as JSON, or `@FILE`; merged over the Run's.
    #[arg(long, value_name = "JSON|@FILE")]
    pub(crate) outcomes: Option<String>,
    /// Session-scoped delegated authorities.
    #[arg(long, value_name = "ID", num_args = 1..)]
    pub(crate) authority: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = AgFormat::Human)]
    pub(crate) format: AgFormat,
    #[command(flatten)]
    pub(crate) limit: crate::cli::LimitArg,
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

/// The manifest path of a Provider argument: a folder stands for its bundle `manifest.json`
/// when it holds one (so that a built bundle is verified), else for its `provider.yaml`.
pub(super) fn manifest_path(p: &Path) -> PathBuf {
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
pub(super) fn output(format: AgFormat, value: &impl serde::Serialize, lines: Vec<String>) {
    match format {
        AgFormat::Json => crate::cli::out(&format!(
            "{}\n",
            serde_json::to_string(value).unwrap_or_default()
        )),
        AgFormat::Human => crate::cli::out(&format!("{}\n", lines.join("\n"))),
    }
}
