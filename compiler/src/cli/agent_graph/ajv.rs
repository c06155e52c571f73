//! Schema checks of the CLI's own inputs (`--state` Run files, `--resource-receipts`), reported
//! as upstream reports them: `schema-invalid` with the message `<place> does not match
//! <name>.schema.json` and one diagnostic per failing rule in Ajv's shape (`code:
//! schema.<keyword>`, `message: <instancePath or "/"> <Ajv's text>`, `path`, `detail:
//! {schemaPath, params}`).
//!
//! The rules are the embedded official schemas, checked by the same validator as every other
//! Agent Graph document ([`crate::schema::embedded`]). The texts and `params` are Ajv's for the
//! keywords these schemas use; the findings are ordered as Ajv walks a schema (at each object
//! its own rules, then its properties in the schema's order), which agc approximates by sorting
//! on the schema path's order within the schema file.

use crate::dialect::{AgentGraphKind, Dialect};
use crate::schema::embedded;
use jsonschema::error::{TypeKind, ValidationError, ValidationErrorKind};
use serde_json::{Value, json};

/// Upstream's `schema-invalid` failure: the message and the per-rule diagnostics.
pub(crate) struct Invalid {
    pub message: String,
    pub diagnostics: Vec<Value>,
}

/// Checks `value` against the schema of `kind` (upstream's `validateSchema(name, value, path)`).
pub(crate) fn validate(
    kind: AgentGraphKind,
    name: &str,
    value: &Value,
    path: &str,
) -> Result<(), Invalid> {
    let message = format!("{path} does not match {name}.schema.json");
    let compiled = match embedded::compiled(Dialect::AgentGraph(kind)) {
        Ok(c) => c,
        Err(e) => {
            return Err(Invalid {
                message,
                diagnostics: vec![
                    json!({"code": "schema-compile-failed", "severity": "error", "message": e}),
                ],
            });
        }
    };
    let text = embedded::source(Dialect::AgentGraph(kind)).text;
    let mut found: Vec<(usize, usize, Value)> = Vec::new();
    for (n, error) in compiled.validator.iter_errors(value).enumerate() {
        let rank = schema_rank(text, error.schema_path().as_str());
        for d in diagnostics(&compiled.schema, &error, path) {
            found.push((rank, n, d));
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    found.sort_by_key(|(rank, n, _)| (*rank, *n));
    Err(Invalid {
        message,
        diagnostics: found.into_iter().map(|(_, _, d)| d).collect(),
    })
}

/// Where a schema path's keyword sits in the schema text: the offset of its last step, found by
/// walking the path's steps through the text in order (a rough stand-in for Ajv's walk, exact
/// for schemas whose keys are unique along each path, as these are).
fn schema_rank(text: &str, schema_path: &str) -> usize {
    let mut at = 0;
    for step in schema_path.split('/').filter(|s| !s.is_empty()) {
        let key = format!("\"{}\"", step.replace("~1", "/").replace("~0", "~"));
        if step.parse::<usize>().is_ok() {
            continue;
        }
        match text[at..].find(&key) {
            Some(i) => at += i + key.len(),
            None => return usize::MAX,
        }
    }
    at
}

/// Ajv's `schemaPath`: a rule inside a `$defs` entry that itself holds a `$ref` is compiled as a
/// function of its own, so its path starts again at `#`; other `$defs` entries are inlined and
/// keep their place (`#/$defs/outcome/enum`).
fn ajv_schema_path(schema: &Value, canonical: &str) -> String {
    if let Some(rest) = canonical.strip_prefix("/$defs/") {
        let (name, tail) = rest.split_once('/').unwrap_or((rest, ""));
        let own_function = schema
            .pointer(&format!("/$defs/{name}"))
            .is_some_and(|d| d.to_string().contains("\"$ref\""));
        if own_function {
            return format!("#/{tail}");
        }
    }
    format!("#{canonical}")
}

fn diagnostics(schema: &Value, error: &ValidationError<'_>, path: &str) -> Vec<Value> {
    let place = match error.instance_path().as_str() {
        "" => "/".to_string(),
        p => p.to_string(),
    };
    let schema_path = ajv_schema_path(schema, error.schema_path().as_str());
    let one = |keyword: &str, text: String, params: Value| {
        json!({
            "code": format!("schema.{keyword}"),
            "severity": "error",
            "message": format!("{place} {text}"),
            "path": path,
            "detail": {"schemaPath": schema_path, "params": params},
        })
    };
    let single = |keyword: &str, text: String, params: Value| vec![one(keyword, text, params)];
    match error.kind() {
        ValidationErrorKind::Required { property } => single(
            "required",
            format!(
                "must have required property '{}'",
                property.as_str().unwrap_or_default()
            ),
            json!({"missingProperty": property}),
        ),
        ValidationErrorKind::AdditionalProperties { unexpected } => unexpected
            .iter()
            .map(|field| {
                one(
                    "additionalProperties",
                    "must NOT have additional properties".to_string(),
                    json!({"additionalProperty": field}),
                )
            })
            .collect(),
        ValidationErrorKind::Pattern { pattern } => single(
            "pattern",
            format!("must match pattern \"{pattern}\""),
            json!({"pattern": pattern}),
        ),
        ValidationErrorKind::Constant { expected_value } => single(
            "const",
            "must be equal to constant".to_string(),
            json!({"allowedValue": expected_value}),
        ),
        ValidationErrorKind::Enum { options } => single(
            "enum",
            "must be equal to one of the allowed values".to_string(),
            json!({"allowedValues": options}),
        ),
        ValidationErrorKind::Type { kind } => {
            let names = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            };
            single("type", format!("must be {names}"), json!({"type": names}))
        }
        ValidationErrorKind::Format { format } => single(
            "format",
            format!("must match format \"{format}\""),
            json!({"format": format}),
        ),
        ValidationErrorKind::MinLength { limit } => single(
            "minLength",
            format!("must NOT have fewer than {limit} characters"),
            json!({"limit": limit}),
        ),
        ValidationErrorKind::MaxLength { limit } => single(
            "maxLength",
            format!("must NOT have more than {limit} characters"),
            json!({"limit": limit}),
        ),
        ValidationErrorKind::Minimum { limit } => single(
            "minimum",
            format!("must be >= {limit}"),
            json!({"comparison": ">=", "limit": limit}),
        ),
        ValidationErrorKind::UniqueItems => {
            let (i, j) = duplicate(error.instance()).unwrap_or((0, 0));
            single(
                "uniqueItems",
                format!("must NOT have duplicate items (items ## {j} and {i} are identical)"),
                json!({"i": i, "j": j}),
            )
        }
        ValidationErrorKind::OneOfNotValid { context } => {
            // Ajv lists each branch's findings, then the `oneOf` itself.
            let mut out: Vec<Value> = context
                .iter()
                .flatten()
                .flat_map(|e| diagnostics(schema, e, path))
                .collect();
            out.push(one(
                "oneOf",
                "must match exactly one schema in oneOf".to_string(),
                json!({"passingSchemas": null}),
            ));
            out
        }
        other => single(
            other.keyword(),
            format!("must pass \"{}\" keyword validation", other.keyword()),
            json!({}),
        ),
    }
}

/// Ajv's `uniqueItems` finding: scanning from the end, the first item equal to a later one (`i`)
/// and that later item's index (`j`).
fn duplicate(array: &Value) -> Option<(usize, usize)> {
    let items = array.as_array()?;
    for i in (0..items.len()).rev() {
        if let Some(j) = (i + 1..items.len()).find(|&j| items[j] == items[i]) {
            return Some((i, j));
        }
    }
    None
}
