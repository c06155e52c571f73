//! Building a bundle of an error-free Provider (upstream `buildProviderBundle`): a folder
//! holding a copy of every file the Provider reads, its manifest rewritten as `provider.yaml`,
//! and `manifest.json` (`agent-graph.bundle.v1`) listing the files, the graphs, actions,
//! resources and schemas with their digests, the graph dependencies, and the digest of all
//! that. The result is deterministic (no timestamps; every list sorted as upstream sorts it)
//! and relocatable (no absolute path of the source inside).
//!
//! The output is built in a temporary folder beside `DIR` and swapped in at the end
//! ([`crate::fsio::folder::replace_with`]), so a failure leaves `DIR` as it was; refused with
//! upstream's codes when it would overlap the sources (`build-output-overlaps-source`) or when
//! a copied file or the manifest would carry the source root's absolute path
//! (`build-absolute-path-leak`). Whether `DIR` may be replaced at all (empty, or a bundle agc
//! wrote: [`is_own_bundle`]) is the command's decision, taken before.
//!
//! `provider.yaml` is agc's own YAML rendering of the manifest (upstream's is the npm `yaml`
//! package's): block mappings and sequences, strings double-quoted. Both parse to the same
//! manifest, so the bundles verify the same; their bytes, hence the bundle digests, differ.

use super::bundle::dependencies;
use super::inventory::Inventory;
use crate::source;
use agc_runtime::agent_graph::Error;
use agc_runtime::agent_graph::canon::{digest_bytes, digest_value, locale_compare, utf16_compare};
use serde_json::{Value, json};
use std::path::Path;

/// The name of the Provider manifest inside a bundle.
pub const PROVIDER_MANIFEST: &str = "provider.yaml";

fn io(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::new(
        "unexpected-error",
        format!("Cannot {what} {}: {e}", path.display()),
    )
}

/// Builds the bundle of `inv` into `output`; gives the bundle manifest.
pub fn build(inv: &Inventory, output: &Path) -> Result<Value, Error> {
    overlap(inv, output)?;
    let destination = super::absolute(output);
    crate::fsio::folder::replace_with(
        &destination,
        |working| write_bundle(inv, working),
        |p, e| io("replace", p, e),
    )
}

/// `build-output-overlaps-source`: `output` is the Provider root, or holds one of its files.
pub fn overlap(inv: &Inventory, output: &Path) -> Result<(), Error> {
    let destination = super::absolute(output);
    let root = &inv.root;
    let inside = |file: &Path| file.starts_with(&destination);
    if destination == *root
        || inside(&inv.manifest_path)
        || inv.files.iter().any(|f| inside(&root.join(f)))
    {
        return Err(Error::new(
            "build-output-overlaps-source",
            "Build output must not replace the provider root or any referenced source file"
                .to_string(),
        ));
    }
    Ok(())
}

/// Whether `dir` holds a bundle agc wrote and nothing else: its `manifest.json` is a bundle
/// manifest, and the files there are exactly the manifest and the files it lists. A user's
/// file added beside them makes it not agc's to replace (`Err` names the first such file).
pub fn is_own_bundle(dir: &Path) -> Result<(), Option<String>> {
    let manifest = dir.join("manifest.json");
    if !super::is_bundle_manifest(&manifest) {
        return Err(None);
    }
    let Ok(text) = crate::fsio::read_text(&manifest, crate::fsio::DEFAULT_MAX_BYTES) else {
        return Err(None);
    };
    let Ok(v) = serde_json::from_str::<Value>(&text) else {
        return Err(None);
    };
    let mut listed: Vec<String> = v
        .get("files")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|f| f.get("path").and_then(Value::as_str).map(String::from))
        .collect();
    listed.push("manifest.json".to_string());
    let found = crate::fsio::folder::files_below(dir).ok_or(None)?;
    match found.into_iter().find(|f| !listed.contains(f)) {
        Some(stranger) => Err(Some(stranger)),
        None => Ok(()),
    }
}

/// Writes the bundle of `inv` into the empty folder `working`; gives the bundle manifest.
fn write_bundle(inv: &Inventory, working: &Path) -> Result<Value, Error> {
    let root = &inv.root;
    let mut sources: Vec<&String> = inv.files.iter().collect();
    sources.sort_by(|a, b| locale_compare(a, b));
    let root_text = root.to_string_lossy().into_owned();
    let mut bodies = Vec::with_capacity(sources.len());
    for rel in &sources {
        let src = root.join(rel);
        let bytes = crate::fsio::read::read_file(&src, crate::fsio::DEFAULT_MAX_BYTES)
            .map_err(|e| Error::new("unexpected-error", e.message(&src.to_string_lossy())))?;
        if !root_text.is_empty() && contains(&bytes, root_text.as_bytes()) {
            return Err(Error::new(
                "build-absolute-path-leak",
                format!("Referenced file contains the source Provider absolute path: {rel}"),
            ));
        }
        bodies.push(bytes);
    }
    for (rel, bytes) in sources.iter().zip(&bodies) {
        let target = working.join(rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io("create", parent, e))?;
        }
        std::fs::write(&target, bytes).map_err(|e| io("write", &target, e))?;
    }
    let manifest_text = yaml(&inv.manifest);
    let target = working.join(PROVIDER_MANIFEST);
    std::fs::write(&target, &manifest_text).map_err(|e| io("write", &target, e))?;

    let digest_of = |rel: &str| -> String {
        digest_bytes(&std::fs::read(working.join(rel)).unwrap_or_default())
    };
    let entries = |list: &[(String, String)]| -> Value {
        let mut v: Vec<&(String, String)> = list.iter().collect();
        v.sort_by(|a, b| locale_compare(&a.0, &b.0));
        Value::from(
            v.into_iter()
                .map(|(id, p)| json!({"id": id, "path": p, "digest": digest_of(p)}))
                .collect::<Vec<_>>(),
        )
    };
    let mut schemas: Vec<&(String, String)> = inv.schemas.iter().collect();
    schemas.sort_by(|a, b| locale_compare(&a.1, &b.1));
    let schemas: Vec<Value> = schemas
        .into_iter()
        .map(|(id, p)| json!({"id": id, "path": p, "digest": digest_of(p)}))
        .collect();
    let mut copied: Vec<String> = vec![PROVIDER_MANIFEST.to_string()];
    copied.extend(inv.files.iter().cloned());
    copied.sort_by(|a, b| utf16_compare(a, b));
    let files: Vec<Value> = copied
        .iter()
        .map(|p| json!({"path": p, "digest": digest_of(p)}))
        .collect();
    let mut manifest = json!({
        "schema": "agent-graph.bundle.v1",
        "provider": {
            "id": inv.manifest["id"].to_json(),
            "version": inv.manifest["version"].to_json(),
        },
        "providerManifest": PROVIDER_MANIFEST,
        "graphs": entries(&inv.graphs),
        "actions": entries(&inv.actions),
        "resources": entries(&inv.resources),
        "schemas": schemas,
        "files": files,
        "graphDependencies": dependencies(inv),
    });
    let digest = digest_value(&manifest);
    manifest["digest"] = Value::from(digest);
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n";
    if !root_text.is_empty() && text.contains(&root_text) {
        return Err(Error::new(
            "build-absolute-path-leak",
            "Generated bundle contains the source provider absolute path".to_string(),
        ));
    }
    let target = working.join("manifest.json");
    std::fs::write(&target, text).map_err(|e| io("write", &target, e))?;
    Ok(manifest)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// A document value as block YAML: mappings and sequences in block style (empty ones in flow
/// style), strings double-quoted (a JSON string is a YAML double-quoted scalar), keys plain
/// when they are plain-safe.
pub fn yaml(v: &source::Value) -> String {
    let mut out = String::new();
    block(v, 0, &mut out);
    out
}

fn key(k: &str) -> String {
    let plain = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && !k.starts_with(['-', '.', '/']);
    if plain {
        k.to_string()
    } else {
        serde_json::to_string(k).unwrap_or_default()
    }
}

fn scalar(v: &source::Value) -> String {
    match v {
        source::Value::Object(m) if m.is_empty() => "{}".to_string(),
        source::Value::Array(a) if a.is_empty() => "[]".to_string(),
        _ => serde_json::to_string(v).unwrap_or_default(),
    }
}

fn is_block(v: &source::Value) -> bool {
    match v {
        source::Value::Object(m) => !m.is_empty(),
        source::Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

/// Writes a non-empty container (or a scalar line) at `indent`. Depth follows the manifest's
/// own nesting, which its schema bounds (the deepest is `compatibility.agentGraph`).
fn block(v: &source::Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match v {
        source::Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                if is_block(x) {
                    out.push_str(&format!("{pad}{}:\n", key(k)));
                    let inner = if x.is_array() { indent } else { indent + 2 };
                    block(x, inner, out);
                } else {
                    out.push_str(&format!("{pad}{}: {}\n", key(k), scalar(x)));
                }
            }
        }
        source::Value::Array(a) if !a.is_empty() => {
            for x in a {
                if is_block(x) {
                    out.push_str(&format!("{pad}-\n"));
                    block(x, indent + 2, out);
                } else {
                    out.push_str(&format!("{pad}- {}\n", scalar(x)));
                }
            }
        }
        _ => out.push_str(&format!("{pad}{}\n", scalar(v))),
    }
}
