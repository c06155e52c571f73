//! Schema validation: a document against its dialect's JSON Schema, errors mapped to codes and
//! to the exact characters.
//!
//! The schemas are the official ones, embedded verbatim ([`embedded`]); agh has none, so agc
//! checks it against its own (`schemas/agh-loop-v1.schema.json`). Validators are compiled once
//! per process and never touch the network.
//!
//! How a jsonschema error becomes a diagnostic ([`report`] flattens, [`rules`] picks the code,
//! [`message`] writes the text):
//!
//! - **Unknown field** (`additionalProperties`, `unevaluatedProperties`, or a property whose
//!   schema is `false`): one diagnostic per field, at the **key**, with the closest allowed name
//!   when one is near. AGS `AG003`; Agent Graph `schema-invalid`; agh `AGC022`. (AWP: every
//!   schema failure is `schema`, with the failing keyword in the message.)
//! - **Enum / const**: at the value, listing the allowed values. AGS `AG004`; Agent Graph
//!   `schema-invalid`; AWP and agh `AGC023`, or the agh linter's own code where the rule is
//!   exactly one of its rules (`unknown_control_kind`, `unknown_terminal_state`, ...).
//! - **AGS rules with their own codes**, recognised by the failing rule's schema path: AG101
//!   (a node's type block: the `if type == X then required X else not required X` rules),
//!   AG102 (`intelligence` on a gate), AG103 (`when` on a sequence edge), AG104 (more than one of
//!   `from` / `template` / `value`). Everything else is AG001 (Agent Graph `schema-invalid`,
//!   others `AGC021`).
//! - **Missing required field**: on the object, at its key if it has one, else at its first key
//!   (one line rather than the whole object).
//! - **`oneOf` / `anyOf`**: never a wall of text. Branches whose discriminator (`const`) fails
//!   are set aside; of the rest, the branch with the fewest errors is reported as if it were the
//!   only one. If every branch fails on its discriminator, the report is one enum-style message
//!   listing the discriminator values. A `oneOf` of single `required` fields (AGS `loop`: `body`
//!   or `use`) is reported as "takes exactly one of".
//! - AGS `ags_version` other than exactly `"1.0"` is AG002 at the value (fail closed: `"1.1"`
//!   passes the schema's pattern, but its features are unknown), and schema errors about that
//!   value are dropped.
//!
//! AWP signature blocks (`document.signature`, top-level `signature`) are left out of the
//! validation, as the AWP transport strips them before validating.
//!
//! Every finding is reported once: findings with the same code, span and message are merged.
//! Formats are checked for Agent Graph only, as its reference loader does (Ajv with
//! ajv-formats); the AGS and AWP reference validators leave formats as annotations.

pub mod doc_json;
pub mod embedded;
mod message;
mod report;
mod rules;
mod unique;

use crate::diag::Diagnostic;
use crate::dialect::Dialect;
use crate::source::{Document, Map, Value};
use std::collections::HashSet;

/// Validates `doc` against the schema of `dialect`. Returns every finding, each once, unsorted.
pub fn validate(dialect: Dialect, doc: &Document) -> Vec<Diagnostic> {
    let compiled = match embedded::compiled(dialect) {
        Ok(c) => c,
        Err(msg) => {
            return vec![
                Diagnostic::error(rules::generic_code(dialect), format!("internal: {msg}"))
                    .at(doc.spans.span),
            ];
        }
    };
    let mut out = Vec::new();
    // AG002 stands beside the schema's own finding on `ags_version` (AG001: a `2.0` fails the
    // pattern `^1\.[0-9]+$`, a number the type), as the reference validators report both.
    if dialect == Dialect::Ags
        && let Some(d) = rules::ags_version(doc)
    {
        out.push(d);
    }
    let stripped = (dialect == Dialect::Awp)
        .then(|| awp_without_signature(&doc.value))
        .flatten();
    let value = stripped.as_ref().unwrap_or(&doc.value);
    for error in compiled.validator.iter_errors(value) {
        for finding in report::flatten(&compiled.schema, value, &error) {
            let mut d = rules::diagnose(dialect, &compiled.schema, doc, &finding);
            if dialect == Dialect::Awp {
                awp_schema_code(&mut d, &finding);
            }
            // A missing type block: agc's AG101, and the reference validators' AG001 (the
            // schema's `required`) beside it.
            if d.code == "AG101" && matches!(finding.kind, report::Kind::Required { .. }) {
                let mut reference = d.clone();
                reference.code = "AG001";
                reference.help = Some(
                    "the same finding under the code the AGS reference validators give it \
(the schema's `required`); see `agc explain AG101`"
                        .into(),
                );
                out.push(d);
                out.push(reference);
                continue;
            }
            out.push(d);
        }
    }
    if dialect == Dialect::Ags {
        drop_type_cascades(&mut out);
    }
    dedup(out)
}

/// A node whose `type` is not a known one (AG004 at `/nodes/x/type`, `type: gat`) fails the
/// schema's per-type rules too: "a `gat` node cannot have a `gate:` block" (AG101) and the
/// like (AG102) only repeat that the type is wrong, so they are dropped for that node.
fn drop_type_cascades(out: &mut Vec<Diagnostic>) {
    let bad_types: Vec<String> = out
        .iter()
        .filter(|d| d.code == "AG004")
        .filter_map(|d| {
            d.pointer
                .as_deref()?
                .strip_suffix("/type")
                .map(str::to_string)
        })
        .collect();
    if bad_types.is_empty() {
        return;
    }
    out.retain(|d| {
        !(matches!(d.code, "AG101" | "AG102")
            && d.pointer.as_deref().is_some_and(|p| {
                bad_types.iter().any(|n| {
                    p == n
                        || p.strip_prefix(n.as_str())
                            .is_some_and(|r| r.starts_with('/'))
                })
            }))
    });
}

/// The AWP transport strips a definition's signature block (`document.signature`, or the
/// transitional top-level `signature`) before schema validation; so does agc. `None` when there
/// is none (the usual case: no copy is made).
fn awp_without_signature(value: &Value) -> Option<Value> {
    let top = value.get("signature").is_some();
    let inner = value
        .get("document")
        .and_then(|d| d.get("signature"))
        .is_some();
    if !top && !inner {
        return None;
    }
    let without = |m: &Map, f: &dyn Fn(&str, &Value) -> Value| -> Value {
        Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "signature")
                .map(|(k, v)| (k.clone(), f(k, v)))
                .collect(),
        )
    };
    let root = value.as_object()?;
    Some(without(root, &|k, v| match v.as_object() {
        Some(doc) if k == "document" => without(doc, &|_, v| v.clone()),
        _ => v.clone(),
    }))
}

/// AWP reports every schema failure under one code, `schema` (its engine has one,
/// `VALIDATION_ERROR`), naming the failing keyword (the last step of the schema path, as Ajv's
/// `keyword`) in the message. The pointer is Ajv's `instancePath`: for an unknown or missing
/// field, the object that holds it (the span stays on the field's key); so the upstream
/// conformance vectors' `{instancePath, keyword}` pairs can be compared with agc's findings.
fn awp_schema_code(d: &mut Diagnostic, finding: &report::Finding) {
    d.code = "schema";
    let keyword = finding.schema_path.rsplit('/').next().unwrap_or_default();
    if !keyword.is_empty() {
        d.message = format!("{} (schema keyword `{keyword}`)", d.message);
    }
    if matches!(
        finding.kind,
        report::Kind::Unknown { .. } | report::Kind::Required { .. }
    ) {
        d.pointer = Some(finding.pointer.clone());
    }
}

fn dedup(diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut seen = HashSet::new();
    diags
        .into_iter()
        .filter(|d| seen.insert((d.code, d.span, d.message.clone())))
        .collect()
}

#[cfg(test)]
mod tests;
