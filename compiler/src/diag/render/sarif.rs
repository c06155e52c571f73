//! SARIF 2.1.0 output (one run; `tool.driver` is agc with its rules).
//!
//! - `rules` holds one entry per distinct code in the output, sorted by code, described from the
//!   code registry ([`crate::diag::codes::lookup`]): `shortDescription` is the summary,
//!   `fullDescription` and `help` the explanation, `defaultConfiguration.level` the registered
//!   severity. A code missing from the registry (a bug the registry test catches) still gets a
//!   rule with its `id` only. Results point at their rule by `ruleId` and `ruleIndex`.
//! - `level` is `error`, `warning` or `note`. `message.text` is the message; the primary label
//!   (when the diagnostic has its own) is the message of the location; labels are
//!   `relatedLocations` (ids from 1) with their messages. `help` and `pointer` go into the
//!   result's property bag, because SARIF results have no field for them.
//! - `region` has `startLine`, `startColumn`, `endLine`, `endColumn` (end exclusive, as SARIF
//!   specifies) in the run's `columnKind: "unicodeCodePoints"`, plus `byteOffset`/`byteLength`.
//! - `artifactLocation.uri` is the file name as given (relative), percent-encoded except for
//!   unreserved characters and `/`; on Windows, `\` separators become `/` first.
//! - Every result has one location, because code-scanning uploads (GitHub's) refuse results
//!   without one. agc gives every diagnostic about a file a span (an unreadable file is AGC001
//!   at the start of an empty file of that name); a diagnostic that still has none (about no
//!   file at all) is placed at line 1 of `.`, the folder agc ran in, since SARIF has no way to
//!   say "nowhere".
//! - The output is valid against the official SARIF 2.1.0 JSON Schema, kept verbatim in
//!   `schemas/sarif/` (the tests validate every shape this module emits against it).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Located, locate};
use crate::diag::{Diagnostic, Severity, codes};
use crate::source::SourceMap;

/// The SARIF 2.1.0 JSON schema.
pub const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

pub(super) fn render(diags: &[Diagnostic], sources: &SourceMap) -> String {
    let codes: BTreeMap<&str, usize> = {
        let mut set: Vec<&str> = diags.iter().map(|d| d.code).collect();
        set.sort_unstable();
        set.dedup();
        set.into_iter().enumerate().map(|(i, c)| (c, i)).collect()
    };
    let rules: Vec<Value> = codes.keys().map(|code| rule(code)).collect();
    let results: Vec<Value> = diags
        .iter()
        .map(|d| result(d, codes.get(d.code).copied().unwrap_or(0), sources))
        .collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "agc",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

fn rule(code: &str) -> Value {
    match codes::lookup(code) {
        Some(info) => json!({
            "id": code,
            "shortDescription": { "text": info.summary },
            "fullDescription": { "text": info.explanation },
            "help": { "text": info.explanation },
            "defaultConfiguration": { "level": level(info.severity) },
            "properties": { "origin": info.origin },
        }),
        None => json!({ "id": code }),
    }
}

fn result(d: &Diagnostic, rule_index: usize, sources: &SourceMap) -> Value {
    let mut result = json!({
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": level(d.severity),
        "message": { "text": d.message },
    });
    let mut location = match d.span.and_then(|s| locate(sources, s)) {
        Some(at) => json!({ "physicalLocation": physical(&at) }),
        None => json!({
            "physicalLocation": {
                "artifactLocation": { "uri": "." },
                "region": { "startLine": 1 },
            }
        }),
    };
    if let Some(label) = &d.label {
        location["message"] = json!({ "text": label });
    }
    result["locations"] = json!([location]);
    let related: Vec<Value> = d
        .labels
        .iter()
        .filter_map(|l| Some((l, locate(sources, l.span)?)))
        .enumerate()
        .map(|(i, (l, at))| {
            json!({
                "id": i + 1,
                "physicalLocation": physical(&at),
                "message": { "text": l.message },
            })
        })
        .collect();
    if !related.is_empty() {
        result["relatedLocations"] = Value::Array(related);
    }
    let mut properties = serde_json::Map::new();
    if let Some(help) = &d.help {
        properties.insert("help".into(), json!(help));
    }
    if let Some(pointer) = &d.pointer {
        properties.insert("pointer".into(), json!(pointer));
    }
    if !properties.is_empty() {
        result["properties"] = Value::Object(properties);
    }
    result
}

fn physical(at: &Located<'_>) -> Value {
    json!({
        "artifactLocation": { "uri": uri(&at.file.name) },
        "region": {
            "startLine": at.start.line,
            "startColumn": at.start.column,
            "endLine": at.end.line,
            "endColumn": at.end.column,
            "byteOffset": at.span.start,
            "byteLength": at.span.len(),
        }
    })
}

/// A relative URI reference for a file name: every byte but unreserved characters and `/`
/// percent-encoded.
pub(crate) fn uri(name: &str) -> String {
    let name = if cfg!(windows) {
        name.replace('\\', "/")
    } else {
        name.to_string()
    };
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
