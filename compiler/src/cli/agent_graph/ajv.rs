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
//! on where each rule's evaluation path leads in the schema file.

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
    // The validator reads document values; these inputs are small files read as JSON.
    let instance = crate::source::Value::from(value);
    let mut found: Vec<(Vec<usize>, usize, Value)> = Vec::new();
    for (n, error) in compiled.validator.iter_errors(&instance).enumerate() {
        let rank = schema_rank(text, &compiled.schema, error.evaluation_path().as_str());
        for d in diagnostics(&compiled.schema, value, &error, path) {
            found.push((rank.clone(), n, d));
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    found.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    Err(Invalid {
        message,
        diagnostics: found.into_iter().map(|(_, _, d)| d).collect(),
    })
}

/// Where a rule sits in Ajv's walk: for each stretch of the evaluation path between `$ref`s, the
/// offset in the schema text its steps lead to (a `$ref` continues at its target). Keys compare
/// as Ajv orders its findings for these schemas: at each object its own rules, then its
/// properties in the schema's order.
fn schema_rank(text: &str, schema: &Value, evaluation_path: &str) -> Vec<usize> {
    let mut key = Vec::new();
    let mut at = 0;
    let mut node = schema;
    for step in evaluation_path.split('/').filter(|s| !s.is_empty()) {
        let step = step.replace("~1", "/").replace("~0", "~");
        if step == "$ref" {
            key.push(at);
            let target = node.get("$ref").and_then(Value::as_str).unwrap_or("#");
            let pointer = target.trim_start_matches('#');
            at = walk(text, 0, pointer);
            node = schema.pointer(pointer).unwrap_or(schema);
            continue;
        }
        node = match step.parse::<usize>() {
            Ok(i) => node.get(i),
            Err(_) => node.get(step.as_str()),
        }
        .unwrap_or(node);
        at = walk(text, at, &format!("/{step}"));
    }
    key.push(at);
    key
}

/// The offset the object keys of `pointer` lead to in `text`, from `from`.
fn walk(text: &str, from: usize, pointer: &str) -> usize {
    let mut at = from;
    for step in pointer.split('/').filter(|s| !s.is_empty()) {
        if step.parse::<usize>().is_ok() {
            continue;
        }
        let key = format!("\"{step}\"");
        match text.get(at..).and_then(|t| t.find(&key)) {
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

fn diagnostics(
    schema: &Value,
    root: &Value,
    error: &ValidationError<'_>,
    path: &str,
) -> Vec<Value> {
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
            // From the input itself: the error's instance is a placeholder for a list
            // (`schema::doc_json`).
            let items = root.pointer(error.instance_path().as_str());
            let (i, j) = items.and_then(duplicate).unwrap_or((0, 0));
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
                .flat_map(|e| diagnostics(schema, root, e, path))
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
