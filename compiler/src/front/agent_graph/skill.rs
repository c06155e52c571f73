//! Skill bindings: a SKILL.md whose frontmatter `metadata` names the Provider, graph and entry
//! an Agent follows (upstream `readSkillBinding`, `resolveSkillBinding`,
//! `readProviderRegistry`):
//!
//! ```yaml
//! metadata:
//!   agent-graph: path:../../provider.yaml    # or provider:<id>, looked up in a registry
//!   agent-graph.graph: release
//!   agent-graph.entry: default
//! ```
//!
//! The three keys are required, as non-blank strings (trimmed): else `skill-binding-missing`.
//! A `path:` locator is relative to the SKILL.md (`skill-locator-absolute` otherwise; empty:
//! `skill-locator-invalid`); a `provider:<id>` locator needs the id in the registry
//! (`provider-unresolved`); any other locator is `skill-locator-invalid`. Once the Provider is
//! loaded, a `provider:` id must be the Provider's (`provider-id-mismatch`), and the graph and
//! entry must exist (`skill-graph-missing`, `skill-entry-missing`): [`Binding::verify`].
//!
//! A registry file is `{providers: {<id>: <manifest path>}}` or the flat map, paths relative
//! to the registry file; anything else is `registry-invalid`.

use super::frontmatter;
use agc_runtime::agent_graph::Error;
use agc_runtime::agent_graph::model::Provider;
use indexmap::IndexMap;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A Provider registry: ids to absolute manifest paths.
pub type Registry = IndexMap<String, PathBuf>;

/// A resolved binding (`agent-graph.skill-binding.v1` less the Provider id, known once loaded).
#[derive(Clone, Debug)]
pub struct Binding {
    pub skill_path: PathBuf,
    pub locator: String,
    pub graph: String,
    pub entry: String,
    pub manifest_path: PathBuf,
}

fn file_missing(label: &str, p: &Path) -> Error {
    Error::new(
        "file-missing",
        format!("{label} does not exist: {}", p.display()),
    )
}

/// Reads a registry file (JSON for `.json`, YAML otherwise).
pub fn read_registry(
    path: &Path,
    parse: impl Fn(&str, &str) -> Result<Value, Error>,
) -> Result<Registry, Error> {
    let abs = super::absolute(path);
    let text = crate::fsio::read_text(&abs, crate::fsio::DEFAULT_MAX_BYTES).map_err(|e| {
        Error::new(
            "file-read-failed",
            format!("Cannot read {}", e.message(&abs.to_string_lossy())),
        )
    })?;
    let v = parse(&text, &abs.to_string_lossy())?;
    let Value::Object(root) = &v else {
        return Err(Error::new(
            "registry-invalid",
            format!("Provider registry must be an object: {}", path.display()),
        ));
    };
    let candidate = match root.get("providers") {
        Some(p) if !p.is_null() => p,
        _ => &v,
    };
    let Value::Object(map) = candidate else {
        return Err(Error::new(
            "registry-invalid",
            format!(
                "Provider registry providers must be an object: {}",
                path.display()
            ),
        ));
    };
    let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut out = Registry::new();
    for (id, manifest) in map {
        let Some(m) = manifest.as_str() else {
            return Err(Error::new(
                "registry-invalid",
                format!("Provider {id} must map to a manifest path"),
            ));
        };
        out.insert(id.clone(), super::absolute(&dir.join(m)));
    }
    Ok(out)
}

/// Whether a locator reference is absolute: a leading `/` (or `\`), or a drive (`C:/`, `C:\`).
fn absolute_reference(r: &str) -> bool {
    let b = r.as_bytes();
    r.starts_with('/')
        || r.starts_with('\\')
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'/' | b'\\'))
}

/// Reads the binding of the SKILL.md at `skill` and finds its Provider manifest.
pub fn resolve(skill: &Path, registry: Option<&Registry>) -> Result<Binding, Error> {
    let abs = super::absolute(skill);
    let shown = abs.display().to_string();
    let text =
        crate::fsio::read_text(&abs, crate::fsio::DEFAULT_MAX_BYTES).map_err(|e| match e {
            crate::fsio::read::ReadError::Io(io) if io.kind() == std::io::ErrorKind::NotFound => {
                file_missing("file", &abs)
            }
            // A FIFO, a folder, a file over the limit or unreadable exists: say what it is.
            e => Error::new(
                "file-read-failed",
                format!("Cannot read {}", e.message(&shown)),
            ),
        })?;
    let mut scratch = crate::source::SourceMap::new();
    let meta = frontmatter::parse(
        &mut scratch,
        &shown,
        &text,
        crate::source::Limits::default(),
    )
    .map(|(_, m)| m)
    .map_err(|d| Error::new(d.code, d.message))?;
    let missing = |what: &str| {
        Error::new(
            "skill-binding-missing",
            format!("Skill {shown} does not declare {what}"),
        )
    };
    let Some(crate::source::Value::Object(values)) = meta.get("metadata") else {
        return Err(missing("Agent Graph metadata"));
    };
    let field = |key: &str| -> Result<String, Error> {
        values
            .get(key)
            .and_then(crate::source::Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .ok_or_else(|| missing(&format!("metadata.{key}")))
    };
    let locator = field("agent-graph")?;
    let graph = field("agent-graph.graph")?;
    let entry = field("agent-graph.entry")?;
    let manifest_path = if let Some(reference) = locator.strip_prefix("path:") {
        if reference.is_empty() {
            return Err(Error::new(
                "skill-locator-invalid",
                format!("Skill path locator is empty: {shown}"),
            ));
        }
        if absolute_reference(reference) {
            return Err(Error::new(
                "skill-locator-absolute",
                format!("Skill path locator must be relative: {shown}"),
            ));
        }
        let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
        super::absolute(&dir.join(reference))
    } else if let Some(id) = locator.strip_prefix("provider:") {
        match registry.and_then(|r| r.get(id)) {
            Some(p) => p.clone(),
            None => {
                return Err(Error::new(
                    "provider-unresolved",
                    format!(
                        "Provider {id} is not available; supply a host BundleResolver or --registry"
                    ),
                ));
            }
        }
    } else {
        return Err(Error::new(
            "skill-locator-invalid",
            format!("Unsupported agent-graph locator in {shown}: {locator}"),
        ));
    };
    if !manifest_path.is_file() {
        return Err(file_missing("skill provider manifest", &manifest_path));
    }
    Ok(Binding {
        skill_path: abs,
        locator,
        graph,
        entry,
        manifest_path,
    })
}

impl Binding {
    /// The checks that need the loaded Provider: its id (for `provider:` locators), the graph
    /// and the entry.
    pub fn verify(&self, provider: &Provider) -> Result<(), Error> {
        let shown = self.skill_path.display();
        if let Some(id) = self.locator.strip_prefix("provider:")
            && provider.id != id
        {
            return Err(Error::new(
                "provider-id-mismatch",
                format!("Registry key {id} resolved to Provider {}", provider.id),
            ));
        }
        let Some(graph) = provider.graphs.get(&self.graph) else {
            return Err(Error::new(
                "skill-graph-missing",
                format!("Skill {shown} selects missing Graph {}", self.graph),
            ));
        };
        if !graph.entrypoints.contains_key(&self.entry) {
            return Err(Error::new(
                "skill-entry-missing",
                format!(
                    "Skill {shown} selects missing Entry {}#{}",
                    self.graph, self.entry
                ),
            ));
        }
        Ok(())
    }
}
