//! The evaluation input of `evaluate` and `route`, read as upstream's `evaluationInput` reads it
//! (`src/cli.ts`), in its order: `--facts` (a JSON object), `--outcomes` (an object of Outcome
//! strings), `--resource-receipts` (checked against `resource-read-receipts.schema.json`), then
//! the `--state` Run (checked against `run.schema.json`, as upstream's `loadRun`). A file that
//! does not match its schema is refused with `schema-invalid` and one diagnostic per failing
//! rule ([`super::ajv`]); nothing of it is used.

use super::ajv;
use super::{StateArgs, outcome_map, resolved, structured};
use crate::dialect::AgentGraphKind;
use agc_runtime::agent_graph::model::{Input, Receipt, Receipts};
use agc_runtime::agent_graph::{Error, OUTCOMES};
use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// A failure of a command: upstream's error, with the diagnostics its envelope lists.
pub(crate) struct Failure {
    pub error: Error,
    pub diagnostics: Vec<Value>,
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure {
            error,
            diagnostics: Vec::new(),
        }
    }
}

impl From<ajv::Invalid> for Failure {
    fn from(i: ajv::Invalid) -> Failure {
        Failure {
            error: Error::new("schema-invalid", i.message),
            diagnostics: i.diagnostics,
        }
    }
}

/// Reads a file as upstream's `readStructuredFile`: `file-read-failed`, else JSON for `.json`
/// and YAML otherwise (`parse-failed`).
/// The file is read by the bounded reader ([`crate::fsio::read`]): a FIFO, a device or a
/// file over `limit` is `file-read-failed` too, with the reader's reason.
pub(crate) fn read_structured(path: &Path, limit: usize) -> Result<Value, Error> {
    let name = resolved(path);
    let text = crate::fsio::read::read_text(path, limit).map_err(|e| {
        Error::new(
            "file-read-failed",
            format!("Cannot read {name}: {}", e.message(&name)),
        )
    })?;
    structured(&text, &name)
}

/// A `JSON` or `@FILE` argument (a `.json` file as JSON, anything else as YAML).
fn json_argument(arg: &str, limit: usize) -> Result<Value, Error> {
    if let Some(file) = arg.strip_prefix('@') {
        return read_structured(Path::new(file), limit);
    }
    serde_json::from_str(arg).map_err(|e| Error::new("json-invalid", format!("Invalid JSON: {e}")))
}

fn object(v: Value, label: &str) -> Result<Map<String, Value>, Error> {
    match v {
        Value::Object(m) => Ok(m),
        _ => Err(Error::new(
            "json-object-required",
            format!("{label} must be a JSON object"),
        )),
    }
}

/// `--outcomes`: every value an Outcome string (`outcome-invalid` otherwise).
fn outcome_values(arg: &str, limit: usize) -> Result<IndexMap<String, String>, Error> {
    let mut outcomes = IndexMap::new();
    for (k, v) in object(json_argument(arg, limit)?, "outcomes")? {
        match v.as_str().filter(|s| OUTCOMES.contains(s)) {
            Some(s) => {
                outcomes.insert(k, s.to_string());
            }
            None => {
                return Err(Error::new(
                    "outcome-invalid",
                    format!("Outcome for {k} is invalid: {v}"),
                ));
            }
        }
    }
    Ok(outcomes)
}

/// `--resource-receipts`: a document that matches `resource-read-receipts.schema.json`.
fn receipts(arg: &str, limit: usize) -> Result<Receipts, Failure> {
    let v = json_argument(arg, limit)?;
    ajv::validate(
        AgentGraphKind::ResourceReadReceipts,
        "resource-read-receipts",
        &v,
        "resourceReceipts",
    )?;
    let text = |r: &Value, k: &str| r.get(k).and_then(Value::as_str).map(String::from);
    Ok(Receipts {
        provider: text(&v, "provider").unwrap_or_default(),
        receipts: v
            .get("receipts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|r| Receipt {
                id: text(r, "id").unwrap_or_default(),
                digest: text(r, "digest"),
                revision: text(r, "revision"),
            })
            .collect(),
    })
}

/// A `--state` Run file that matches `run.schema.json` (upstream's `loadRun`).
fn load_run(path: &Path, limit: usize) -> Result<Value, Failure> {
    let run = read_structured(path, limit)?;
    ajv::validate(AgentGraphKind::Run, "run", &run, &resolved(path))?;
    Ok(run)
}

/// The evaluation input: the options over the Run's state; `workspace` (route's
/// `--workspace`) over the Run's, else the current folder.
pub(crate) fn input(
    a: &StateArgs,
    receipt_arg: Option<&str>,
    workspace: Option<&Path>,
) -> Result<Input, Failure> {
    let limit = a.limit.bytes;
    let facts = match &a.facts {
        Some(f) => object(json_argument(f, limit)?, "facts")?,
        None => Map::new(),
    };
    let outcomes = match &a.outcomes {
        Some(o) => outcome_values(o, limit)?,
        None => IndexMap::new(),
    };
    let receipts = receipt_arg.map(|r| receipts(r, limit)).transpose()?;
    let mut input = Input {
        facts: Value::Object(facts.clone()),
        outcomes: outcomes.clone(),
        authorities: a.authority.clone(),
        workspace: String::new(),
        receipts,
    };
    let mut run_workspace = None;
    if let Some(state) = &a.state {
        let run = load_run(state, limit)?;
        let mut merged = run
            .get("facts")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        merged.extend(facts);
        input.facts = Value::Object(merged);
        let mut o = outcome_map(run.get("outcomes").unwrap_or(&Value::Null));
        o.extend(outcomes);
        input.outcomes = o;
        let mut auth: Vec<String> = run
            .get("authorities")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect();
        auth.extend(a.authority.iter().cloned());
        input.authorities = auth;
        run_workspace = run
            .get("workspace")
            .and_then(Value::as_str)
            .map(PathBuf::from);
    }
    let ws = workspace
        .map(Path::to_path_buf)
        .or(run_workspace)
        .unwrap_or_else(|| PathBuf::from("."));
    input.workspace = resolved(&ws);
    Ok(input)
}
