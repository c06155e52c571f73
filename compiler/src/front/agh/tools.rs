//! Tool schemas from extension manifests: agc's stand-in for agh's `ToolSchemaSource`.
//!
//! An action whose kind is not reserved is a tool id. agh resolves it through a snapshot of
//! the daemon's tool registry; agc has no daemon, so it reads the registry's static source,
//! the extension manifests (`extension.json` or `extension.toml`) that declare
//! `resources.tools.<name>` with `input_schema` and `output_schema`. The tool id of
//! `resources.tools.<tool>` in extension `<ext>` is `ext__<ext with - as _>__<tool>`.
//!
//! Where manifests come from:
//! - every `--extension FILE` given on the command line (an unreadable or malformed one is
//!   `AGC222`);
//! - the manifest found beside the Loop ([`beside`]): the Loop's folder and up to three
//!   folders above it, nearest first, each as long as it is inside the workspace root; and,
//!   whatever the root, the folder of the extension that owns the Loop by the daemon's layout
//!   `<ext>/loops/<name>/loop.yaml` (usually under `extensions/`). The extension a Loop
//!   belongs to is part of the Loop's meaning (its `ext__` tools are declared there), so its
//!   manifest is read even when the root is the Loop's own folder: a copy outside any VCS
//!   checkout, an unpacked release, a read-only mount (issue 41). Reading that one manifest
//!   is not following a reference: references stay contained in the root.
//!
//!   Either way the manifest must lie, symbolic links resolved, inside the folder that
//!   allowed it (the root, or the extension's folder for the layout): an `extension.json`
//!   that is a link leading out is refused with `AGC222` and not read (issue 47), so a
//!   document cannot make agc read a file of its choosing. An unparsable discovered manifest
//!   is `AGC222` too. `--extension FILE` is the user's own choice and is read wherever it is.
//!
//! Resolution (see [`Tools::resolve`]): `ext__…` ids must be declared by a loaded manifest,
//! else `unknown_action_kind` (as upstream with a snapshot that lacks them). Native tool ids
//! (`agh__…` in agh.loop/v1, `compozy__…` in compozy.loop/v1) and MCP tool ids (`mcp__…`)
//! live in the daemon's registry, which no file describes: agc accepts them with an unknown
//! output schema (paths into their output are then "cannot be proven" warnings). Upstream
//! without a registry snapshot refuses every tool id; agc deliberately does not, since a
//! static checker could otherwise accept no Loop that calls a native tool.

use crate::diag::Diagnostic;
use crate::front::{Context, file_start};
use crate::source::Value;
use crate::source::{FileId, SourceFile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One tool's schemas.
#[derive(Clone, Debug, Default)]
pub struct ToolSchema {
    pub input: Option<Value>,
    pub output: Option<Value>,
    /// The manifest that declared it, as shown to users.
    pub manifest: String,
    /// Where the manifest writes the tool's name (for go to definition), when found.
    pub at: Option<crate::source::Span>,
}

/// Every tool declared by the loaded manifests, by tool id.
#[derive(Clone, Debug, Default)]
pub struct Tools {
    pub by_id: BTreeMap<String, ToolSchema>,
    /// Extension names (with `-` as `_`) whose manifests were loaded.
    pub extensions: Vec<String>,
}

/// What a tool id resolves to.
pub enum Resolved<'t> {
    /// Declared by a loaded manifest.
    Declared(&'t ToolSchema),
    /// A native or MCP tool: accepted, schema unknown.
    Native,
    /// Not resolvable.
    Unknown,
}

impl Tools {
    /// Resolves an action kind that is not a reserved kind. `native` is the version's prefix of
    /// native tool ids (`agh__` or `compozy__`).
    pub fn resolve(&self, kind: &str, native: &str) -> Resolved<'_> {
        if let Some(t) = self.by_id.get(kind) {
            return Resolved::Declared(t);
        }
        let named = |p: &str| kind.strip_prefix(p).is_some_and(|rest| rest.len() > 1);
        if named(native) || named("mcp__") {
            Resolved::Native
        } else {
            Resolved::Unknown
        }
    }

    /// Adds a manifest's tools; the ids and names of those it added.
    fn add_manifest(
        &mut self,
        value: &Value,
        display: &str,
    ) -> Result<Vec<(String, String)>, String> {
        let obj = value.as_object().ok_or("a manifest is an object")?;
        let name = obj
            .get("extension")
            .and_then(|e| e.get("name"))
            .and_then(Value::as_str)
            .ok_or("the manifest has no `extension.name`")?;
        let ext = name.replace('-', "_");
        if !self.extensions.contains(&ext) {
            self.extensions.push(ext.clone());
        }
        let tools = obj
            .get("resources")
            .and_then(|r| r.get("tools"))
            .and_then(Value::as_object);
        let mut added = Vec::new();
        for (tool, decl) in tools.into_iter().flatten() {
            let id = format!("ext__{ext}__{tool}");
            // The first manifest that declares an id wins (flags come before discovery).
            if let std::collections::btree_map::Entry::Vacant(slot) = self.by_id.entry(id) {
                added.push((slot.key().clone(), tool.to_string()));
                slot.insert(ToolSchema {
                    input: decl.get("input_schema").cloned(),
                    output: decl.get("output_schema").cloned(),
                    manifest: display.to_string(),
                    at: None,
                });
            }
        }
        Ok(added)
    }
}

/// Loads the manifests of a compilation: the `--extension` ones, then the one beside the Loop.
pub fn load(cx: &mut Context<'_>) -> (Tools, Vec<Diagnostic>) {
    let mut tools = Tools::default();
    let mut diags = Vec::new();
    let named: Vec<PathBuf> = cx.opts.extensions.clone();
    for p in &named {
        let display = p.to_string_lossy().replace('\\', "/");
        load_one(cx, p, &display, &mut tools, &mut diags);
    }
    match beside(cx) {
        Some(Ok(found)) => {
            let display = found.to_string_lossy().replace('\\', "/");
            if !named.iter().any(|n| same_file(n, &found)) {
                load_one(cx, &found, &display, &mut tools, &mut diags);
            }
        }
        Some(Err(d)) => diags.push(d),
        None => {}
    }
    (tools, diags)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The manifest of the extension the Loop belongs to (see the module docs): the nearest
/// `extension.json`/`extension.toml` in the Loop's folder or up to three above it, each
/// folder inside the workspace root or the extension's folder by the daemon's layout
/// (`<ext>/loops/<name>/loop.yaml`). `Err` when the one found leads out of the folder that
/// allowed it through a symbolic link (it is not read).
fn beside(cx: &Context<'_>) -> Option<Result<PathBuf, Diagnostic>> {
    let root = cx.workspace_root().canonicalize().ok();
    let parent = cx.path?.parent()?;
    let here = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    // Real folders decide (the Loop's own path may be relative, or reached through links);
    // shown paths stay as the user wrote them (`..` appended where they run out).
    let real = here.canonicalize().ok()?;
    let layout = real
        .parent()
        .filter(|loops| loops.file_name().is_some_and(|n| n == "loops"))
        .and_then(Path::parent);
    let mut shown = parent.to_path_buf();
    for (level, folder) in real.ancestors().take(4).enumerate() {
        // Up one: drop the last name, or climb with `..` once none is left to drop.
        if level > 0 && (shown.file_name().is_none() || !shown.pop()) {
            shown.push("..");
        }
        let allowed = if root.as_deref().is_some_and(|r| folder.starts_with(r)) {
            root.as_deref()?
        } else if Some(folder) == layout {
            folder
        } else {
            continue;
        };
        for name in ["extension.json", "extension.toml"] {
            if !folder.join(name).is_file() {
                continue;
            }
            let found = shown.join(name);
            let inside = folder
                .join(name)
                .canonicalize()
                .is_ok_and(|p| p.starts_with(allowed));
            if !inside {
                let display = found.to_string_lossy().replace('\\', "/");
                return Some(Err(Diagnostic::error(
                    "AGC222",
                    format!(
                        "the extension manifest `{display}` is a symbolic link that leads out of `{}`: it is not read",
                        allowed.display()
                    ),
                )
                .with_help(
                    "a manifest found beside the Loop must lie inside the root (or its extension's folder); name one elsewhere with `--extension FILE`",
                )));
            }
            return Some(Ok(found));
        }
    }
    None
}

fn load_one(
    cx: &mut Context<'_>,
    path: &Path,
    display: &str,
    tools: &mut Tools,
    diags: &mut Vec<Diagnostic>,
) {
    let text = match cx.files.read_text(path, cx.opts.limits.max_file_bytes) {
        Ok(t) => t,
        Err(e) => {
            diags.push(
                Diagnostic::error(
                    "AGC222",
                    format!("{} (an extension manifest)", e.message(display)),
                )
                .with_help("`--extension` names an `extension.json` or `extension.toml` file"),
            );
            return;
        }
    };
    let toml = path.extension().is_some_and(|e| e == "toml");
    let parsed: Result<Value, String> = if toml {
        basic_toml::from_str::<serde_json::Value>(&text)
            .map(Value::from)
            .map_err(|e| e.to_string())
    } else {
        serde_json::from_str::<serde_json::Value>(&text)
            .map(Value::from)
            .map_err(|e| e.to_string())
    };
    let file: FileId = cx.sources.add(SourceFile::new(display, text));
    let result = parsed.and_then(|v| tools.add_manifest(&v, display));
    if let Ok(added) = &result {
        let text = &cx.sources.get(file).text;
        let json = (!toml)
            .then(|| crate::source::yaml::load(file, text, 0, cx.opts.limits).doc)
            .flatten();
        for (id, name) in added {
            if let Some(t) = tools.by_id.get_mut(id) {
                t.at = declared_at(text, file, json.as_ref(), name);
            }
        }
    }
    if let Err(e) = result {
        diags.push(
            Diagnostic::error(
                "AGC222",
                format!("the extension manifest `{display}` cannot be used: {e}"),
            )
            .at(file_start(file)),
        );
    }
}

/// Where a manifest declares tool `name`: in the key `resources.tools.<name>` of a JSON manifest
/// (read with its spans, `json`); in a TOML one, the name in its table header
/// (`[resources.tools.<name>]`, the name bare or quoted), else its first occurrence after
/// `tools`.
fn declared_at(
    text: &str,
    file: FileId,
    json: Option<&crate::source::Document>,
    name: &str,
) -> Option<crate::source::Span> {
    use crate::source::tree::escape_token;
    if let Some(doc) = json {
        let ptr = format!("/resources/tools/{}", escape_token(name));
        let key = doc.at(&ptr).and_then(|c| c.node.key())?;
        return crate::front::xref::narrow(text, key, name).or(Some(key));
    }
    let header = [
        format!("[resources.tools.{name}]"),
        format!("[resources.tools.\"{name}\"]"),
    ]
    .iter()
    .find_map(|h| text.find(h.as_str()));
    let from = header.or_else(|| text.find("tools")).unwrap_or(0);
    let within = crate::source::Span::new(file, from, text.len());
    crate::front::xref::narrow(text, within, name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The link of a tool id lands on the tool's own declaration, not on an earlier mention
    /// of its name (a description, another tool's schema).
    #[test]
    fn a_tool_is_declared_at_its_key_or_table_header() {
        let f = FileId(0);
        let json = r#"{"extension": {"name": "e"}, "resources": {"tools": {
  "helper": {"description": "runs push first"},
  "push": {"output_schema": {"type": "object"}}}}}"#;
        let doc = crate::source::yaml::load(f, json, 0, Default::default()).doc;
        let at = declared_at(json, f, doc.as_ref(), "push").unwrap();
        assert_eq!(&json[at.start as usize..at.end as usize], "push");
        assert_eq!(json[..at.start as usize].matches('\n').count(), 2);
        let toml = "[extension]\nname = \"e\"\n[resources.tools.helper]\ndescription = \"runs push first\"\n[resources.tools.push]\n";
        let at = declared_at(toml, f, None, "push").unwrap();
        assert_eq!(&toml[at.start as usize..at.end as usize], "push");
        assert!(toml[..at.start as usize].ends_with("[resources.tools."));
    }

    #[test]
    fn tool_ids_follow_the_extension_name() {
        let mut t = Tools::default();
        let m = json!({"extension": {"name": "dev-cycle"}, "resources": {"tools": {
            "git_push": {"output_schema": {"type": "object"}}}}});
        t.add_manifest(&Value::from(m), "x").unwrap();
        assert!(matches!(
            t.resolve("ext__dev_cycle__git_push", "agh__"),
            Resolved::Declared(_)
        ));
        assert!(matches!(
            t.resolve("ext__dev_cycle__nope", "agh__"),
            Resolved::Unknown
        ));
        assert!(matches!(
            t.resolve("agh__network_send", "agh__"),
            Resolved::Native
        ));
        assert!(matches!(
            t.resolve("agh__network_send", "compozy__"),
            Resolved::Unknown
        ));
        assert!(matches!(
            t.resolve("channel-post", "agh__"),
            Resolved::Unknown
        ));
        assert!(
            t.add_manifest(&Value::from(json!({"resources": {}})), "y")
                .is_err()
        );
    }
}
