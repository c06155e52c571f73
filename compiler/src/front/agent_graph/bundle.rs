//! Built bundles: an `agent-graph.bundle.v1` `manifest.json` in place of the Provider manifest
//! (upstream `resolveBundleManifest` and the completeness checks at the end of `loadProvider`).
//!
//! Upstream's order, with every finding reported instead of the first:
//!
//! 1. the manifest's own digest (`bundle-digest-mismatch`: `digest` is the digest value of the
//!    manifest without `digest`);
//! 2. each listed file: listed once (`bundle-file-duplicate`), contained in the bundle folder
//!    (the path codes, `file-missing`), and with the listed digest (`bundle-file-digest-mismatch`);
//! 3. the graph, action, resource and schema catalogs name listed files with the listed digest
//!    (`bundle-catalog-mismatch`), and the Provider manifest is listed (`bundle-provider-unlisted`);
//! 4. the Provider manifest is loaded (its schema), and names the Provider the bundle names
//!    (`bundle-provider-mismatch`); then the Provider is loaded as any other;
//! 5. when it loaded without error and steps 1–3 found nothing (upstream would not get here
//!    otherwise, and a broken listing would only be reported again as incomplete): the
//!    catalogs list exactly the Provider's definitions
//!    (`bundle-catalog-mismatch`), the files exactly the files it reads
//!    (`bundle-files-mismatch`), and the graph dependencies its subgraph calls
//!    (`bundle-dependencies-mismatch`).
//!
//! `bundle-invalid` (no `providerManifest` string) is reported with the schema's findings: the
//! bundle schema already requires it, so upstream reports `schema-invalid` alone there.

use super::inventory::Inventory;
use super::paths;
use super::provider::LoadedProvider;
use super::spans::{key_span_at, span_at};
use crate::diag::Diagnostic;
use crate::dialect::{AgentGraphKind, Dialect};
use crate::front::Context;
use crate::source::{Document, Map, Value};
use agc_runtime::agent_graph::canon::{digest_bytes, digest_value, locale_compare, utf16_compare};
use indexmap::IndexMap;
use std::path::Path;

fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// The four catalogs of a bundle, in upstream's order.
pub(crate) const CATALOGS: [&str; 4] = ["graphs", "actions", "resources", "schemas"];

/// `bundle-invalid` for a bundle manifest without a `providerManifest` string (reported next
/// to the schema's own findings).
pub(super) fn invalid(doc: &Document) -> Vec<Diagnostic> {
    if doc
        .value
        .get("providerManifest")
        .is_some_and(Value::is_string)
    {
        return Vec::new();
    }
    vec![
        Diagnostic::error(
            "bundle-invalid",
            "the bundle does not declare its `providerManifest`",
        )
        .at(span_at(doc, "/providerManifest"))
        .with_help("a bundle names the Provider manifest it carries: `\"providerManifest\": \"provider.yaml\"`"),
    ]
}

/// Verifies the bundle `doc` (schema-valid) at `path`, then loads the Provider it names.
pub(super) fn check(
    cx: &mut Context<'_>,
    doc: &Document,
    path: &Path,
) -> (Option<LoadedProvider>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let v = &doc.value;
    let dir = paths::absolute(path)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let shown = cx.display();
    let base = match shown.rfind('/') {
        Some(i) => shown[..=i].to_string(),
        None => String::new(),
    };

    // 1. The manifest's digest (a manifest is a small file: it is digested as JSON).
    let mut unsigned = v.as_object().map(Map::to_json_map).unwrap_or_default();
    unsigned.remove("digest");
    let expected = digest_value(&serde_json::Value::Object(unsigned));
    if str_at(v, "digest") != Some(expected.as_str()) {
        diags.push(
            Diagnostic::error(
                "bundle-digest-mismatch",
                format!(
                    "the bundle manifest's digest does not match its content (it is {expected})"
                ),
            )
            .at(span_at(doc, "/digest")),
        );
    }

    // 2. The listed files.
    let mut recorded: IndexMap<String, String> = IndexMap::new();
    let files = v["files"].as_array().unwrap_or_default();
    for (i, f) in files.iter().enumerate() {
        let p = str_at(f, "path").unwrap_or_default();
        let listed = str_at(f, "digest").unwrap_or_default();
        let at = span_at(doc, &format!("/files/{i}/path"));
        if recorded.contains_key(p) {
            diags.push(
                Diagnostic::error(
                    "bundle-file-duplicate",
                    format!("the bundle lists `{p}` more than once"),
                )
                .at(at),
            );
            continue;
        }
        recorded.insert(p.to_string(), listed.to_string());
        match paths::contained_file(&dir, p) {
            Err((code, message)) => diags.push(Diagnostic::error(code, message).at(at)),
            Ok((_, abs)) => {
                let bytes = cx.files.read(&abs, crate::fsio::DEFAULT_MAX_BYTES);
                let actual = digest_bytes(&bytes.unwrap_or_default());
                if actual != listed {
                    diags.push(
                        Diagnostic::error(
                            "bundle-file-digest-mismatch",
                            format!("the bundle file `{p}` has changed (its digest is {actual})"),
                        )
                        .at(span_at(doc, &format!("/files/{i}/digest"))),
                    );
                }
            }
        }
    }

    // 3. Catalog entries against the listing; the Provider manifest is listed.
    for list in CATALOGS {
        for (i, item) in v[list].as_array().unwrap_or_default().iter().enumerate() {
            let p = str_at(item, "path").unwrap_or_default();
            let d = str_at(item, "digest").unwrap_or_default();
            let (at, why) = match recorded.get(p) {
                None => (format!("/{list}/{i}/path"), "is not a listed file"),
                Some(listed) if listed != d => (
                    format!("/{list}/{i}/digest"),
                    "has another digest than its file listing",
                ),
                Some(_) => continue,
            };
            diags.push(
                Diagnostic::error(
                    "bundle-catalog-mismatch",
                    format!("the bundle's `{list}` entry `{p}` {why}"),
                )
                .at(span_at(doc, &at)),
            );
        }
    }
    let manifest_ref = str_at(v, "providerManifest").unwrap_or_default();
    if !recorded.contains_key(manifest_ref) {
        diags.push(
            Diagnostic::error(
                "bundle-provider-unlisted",
                format!("the bundle's Provider manifest `{manifest_ref}` is not listed in `files`"),
            )
            .at(span_at(doc, "/providerManifest")),
        );
    }

    let verified = !diags.iter().any(Diagnostic::is_error);

    // 4. The Provider manifest.
    let (rel, abs) = match paths::contained_file(&dir, manifest_ref) {
        Ok(r) => r,
        Err((code, message)) => {
            diags.push(Diagnostic::error(code, message).at(span_at(doc, "/providerManifest")));
            return (None, diags);
        }
    };
    let display = format!("{base}{rel}");
    let expect = Dialect::AgentGraph(AgentGraphKind::Provider);
    let mut loaded = cx.load_document(&abs, &display, Some(expect));
    crate::session::agent_graph_parse_codes(&mut loaded.diags);
    diags.extend(loaded.diags);
    let Some(pdoc) = loaded.doc else {
        return (None, diags);
    };
    if loaded.dialect != Some(expect) || !loaded.schema_ok {
        if loaded.dialect != Some(expect) {
            diags.push(
                Diagnostic::error(
                    "schema-invalid",
                    format!("`{display}` must be an `agent-graph.provider.v1` manifest"),
                )
                .at(span_at(&pdoc, "/schema")),
            );
        }
        return (None, diags);
    }
    let named = (
        v.pointer("/provider/id").and_then(Value::as_str),
        v.pointer("/provider/version").and_then(Value::as_str),
    );
    let actual = (str_at(&pdoc.value, "id"), str_at(&pdoc.value, "version"));
    if named != actual {
        diags.push(
            Diagnostic::error(
                "bundle-provider-mismatch",
                format!(
                    "the bundle identifies {}@{}, but its Provider manifest identifies {}@{}",
                    named.0.unwrap_or_default(),
                    named.1.unwrap_or_default(),
                    actual.0.unwrap_or_default(),
                    actual.1.unwrap_or_default()
                ),
            )
            .at(key_span_at(doc, "/provider")),
        );
    }
    let mut provider = super::provider::load(cx, &pdoc, &abs, &display);
    diags.append(&mut provider.diags);

    // 5. Completeness, when the listing itself verified: a listing found broken above (a
    // duplicate, an unlisted manifest) would only be reported again as incomplete.
    if verified && let Some(inv) = &provider.inventory {
        diags.extend(completeness(doc, inv));
    }
    (Some(provider), diags)
}

/// `id\0path` of each entry, sorted as upstream compares them.
fn identities(entries: impl Iterator<Item = (String, String)>) -> Vec<String> {
    let mut v: Vec<String> = entries.map(|(id, p)| format!("{id}\0{p}")).collect();
    v.sort_by(|a, b| utf16_compare(a, b));
    v
}

/// What is in `expected` and not in `actual` (as multisets), shown.
fn missing(expected: &[String], actual: &[String]) -> Vec<String> {
    let mut left: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for a in actual {
        *left.entry(a.as_str()).or_default() += 1;
    }
    let mut out = Vec::new();
    for e in expected {
        match left.get_mut(e.as_str()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(format!("`{}`", e.replace('\0', "` at `"))),
        }
    }
    out
}

fn differences(expected: &[String], actual: &[String]) -> String {
    let mut parts = Vec::new();
    let absent = missing(expected, actual);
    if !absent.is_empty() {
        parts.push(format!("missing {}", absent.join(", ")));
    }
    let extra = missing(actual, expected);
    if !extra.is_empty() {
        parts.push(format!("not in the Provider {}", extra.join(", ")));
    }
    parts.join("; ")
}

/// Step 8: the bundle lists exactly what the loaded Provider holds.
fn completeness(doc: &Document, inv: &Inventory) -> Vec<Diagnostic> {
    let v = &doc.value;
    let mut diags = Vec::new();
    for (list, expected) in
        CATALOGS
            .iter()
            .zip([&inv.graphs, &inv.actions, &inv.resources, &inv.schemas])
    {
        let actual = identities(v[*list].as_array().unwrap_or_default().iter().map(|e| {
            (
                str_at(e, "id").unwrap_or_default().to_string(),
                str_at(e, "path").unwrap_or_default().to_string(),
            )
        }));
        let expected = identities(expected.iter().cloned());
        if actual != expected {
            diags.push(
                Diagnostic::error(
                    "bundle-catalog-mismatch",
                    format!(
                        "the bundle's `{list}` catalog does not match the Provider's definitions: {}",
                        differences(&expected, &actual)
                    ),
                )
                .at(key_span_at(doc, &format!("/{list}"))),
            );
        }
    }
    let mut expected: Vec<String> = vec![str_at(v, "providerManifest").unwrap_or_default().into()];
    expected.extend(inv.files.iter().cloned());
    expected.sort_by(|a, b| utf16_compare(a, b));
    let mut actual: Vec<String> = v["files"]
        .as_array()
        .unwrap_or_default()
        .iter()
        .map(|f| str_at(f, "path").unwrap_or_default().to_string())
        .collect();
    actual.sort_by(|a, b| utf16_compare(a, b));
    if actual != expected {
        diags.push(
            Diagnostic::error(
                "bundle-files-mismatch",
                format!(
                    "the bundle's files do not match the files the Provider reads: {}",
                    differences(&expected, &actual)
                ),
            )
            .at(key_span_at(doc, "/files")),
        );
    }
    let deps = dependencies(inv);
    if digest_value(&v["graphDependencies"].to_json()) != digest_value(&deps) {
        diags.push(
            Diagnostic::error(
                "bundle-dependencies-mismatch",
                format!(
                    "the bundle's graph dependencies do not match the subgraph calls: expected {}",
                    serde_json::to_string(&deps).unwrap_or_default()
                ),
            )
            .at(key_span_at(doc, "/graphDependencies")),
        );
    }
    diags
}

/// `graphDependencies` as upstream writes it: graph ids (by `localeCompare`) to their callees
/// (JavaScript's default sort).
pub(crate) fn dependencies(inv: &Inventory) -> serde_json::Value {
    let mut keys: Vec<&(String, Vec<String>)> = inv.dependencies.iter().collect();
    keys.sort_by(|a, b| locale_compare(&a.0, &b.0));
    let mut out = serde_json::Map::new();
    for (id, children) in keys {
        let mut c = children.clone();
        c.sort_by(|a, b| utf16_compare(a, b));
        out.insert(id.clone(), serde_json::Value::from(c));
    }
    serde_json::Value::Object(out)
}
