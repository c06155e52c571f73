//! `agc run --resume D --decide NAME=OUTCOME [--outputs NAME=JSON|NAME=@FILE]`: the human
//! answers given on the command line (local and Restate resumes read them the same way).
//!
//! Decision: outputs are their own repeatable option, naming the same `NAME` as a
//! `--decide`, rather than packed into `--decide` (`NAME=approved:{...}`): JSON holds `=`
//! and `:` freely, and a file (`@out.json`) keeps long edits out of the shell.

use crate::diag::Diagnostic;
use agc_runtime::run::{GateOutcome, HumanAnswer};
use serde_json::{Map, Value};
use std::path::Path;

/// `--decide NAME=OUTCOME` and `--outputs NAME=JSON|NAME=@FILE` as answers, in `--decide`
/// order. Each `--outputs` must name (exactly) a `--decide`d approval, once; its value is a
/// JSON object.
pub(super) fn parse(
    decide: &[String],
    outputs: &[String],
    limit: usize,
) -> Result<Vec<HumanAnswer>, String> {
    let mut answers: Vec<HumanAnswer> = Vec::new();
    for d in decide {
        let parsed = d
            .split_once('=')
            .and_then(|(g, o)| Some((g.trim(), GateOutcome::parse(o.trim())?)));
        match parsed {
            Some((name, outcome)) if !name.is_empty() => {
                answers.push(HumanAnswer::new(name, outcome))
            }
            _ => {
                return Err(format!(
                    "--decide takes NAME=approved or NAME=rejected, not `{d}`"
                ));
            }
        }
    }
    let mut given: Vec<&str> = Vec::new();
    for o in outputs {
        let Some((name, value)) = o.split_once('=').map(|(n, v)| (n.trim(), v.trim())) else {
            return Err(format!(
                "--outputs takes NAME=JSON or NAME=@FILE, not `{o}`"
            ));
        };
        let Some(answer) = answers.iter_mut().find(|a| a.name == name) else {
            return Err(format!(
                "--outputs names `{name}`, which no --decide names (give --decide {name}=approved too)"
            ));
        };
        if answer.outcome != GateOutcome::Approved {
            return Err(format!(
                "--outputs for `{name}`: outputs go with an approval, and `{name}` is rejected"
            ));
        }
        if given.contains(&name) {
            return Err(format!("--outputs names `{name}` twice"));
        }
        given.push(name);
        let (text, from) = match value.strip_prefix('@') {
            Some(path) => (
                crate::fsio::read_text(std::path::Path::new(path), limit)
                    .map_err(|e| format!("--outputs for `{name}`: {}", e.message(path)))?,
                format!("`{path}`"),
            ),
            None => (value.to_string(), "the value".to_string()),
        };
        let map = match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => m,
            Ok(other) => {
                return Err(format!(
                    "--outputs for `{name}`: {from} must be a JSON object of outputs by name, not {}",
                    json_kind(&other)
                ));
            }
            Err(e) => return Err(format!("--outputs for `{name}`: {from} is not JSON: {e}")),
        };
        *answer = answer.clone().with_outputs(map);
    }
    Ok(answers)
}

/// `--params P.json`: a JSON object, read by the bounded reader.
pub(super) fn read_params(path: &Path, limit: usize) -> Result<Map<String, Value>, Diagnostic> {
    let text =
        crate::fsio::read_text(path, limit).map_err(|e| e.diagnostic(&path.to_string_lossy()))?;
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(Diagnostic::error(
            "AGC301",
            format!("`{}` must hold a JSON object of params", path.display()),
        )),
        Err(e) => Err(Diagnostic::error(
            "AGC301",
            format!("`{}` is not JSON: {e}", path.display()),
        )),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
