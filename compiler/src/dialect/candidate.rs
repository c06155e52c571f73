//! Which files a directory walk picks up, by name: the names the four formats use in their own
//! repositories (see [`is_candidate`]). Detection never reads names; this is only for walks.

use std::path::Path;

/// Whether a directory walk should check this file, by name:
///
/// - AGS: `*.agraph.yaml`, `*.agraph.yml`, `*.agraph.json` (the spec's extensions);
/// - AWP: `*.workflow.json` (every published example), `*.workflow.yaml`/`.yml`,
///   `workflow.json`, and `workflow*.yaml|yml` (not `workflow*.json`: the AWP repository names
///   its JSON Schemas `workflow-definition*.json`);
/// - agh: `loop.yaml`/`loop.yml` (the daemon's layout, `loops/<name>/loop.yaml`) and
///   `*.loop.yaml`/`.yml`;
/// - Agent Graph: `provider.yaml|yml|json`, `codes.yaml|yml|json`, and any YAML/JSON file
///   under a directory named `graphs`, `actions`, `tests` or `resources` **of a Provider**: a
///   folder whose parent holds a `provider.yaml|yml|json` manifest (the provider layout).
///
/// A folder argument means "every workflow document below it, by these names". The layout
/// folder names count only inside a Provider, because `tests/` and `resources/` are common
/// folder names in any repository: a project's `tests/ci.yaml` or `resources/config.json` is
/// not a workflow document. (Inside a Provider, the manifest's check covers those files, except
/// the route tests under `tests/`, which a folder walk checks one by one; a walk started inside
/// a Provider's `graphs/` checks them one by one.) This is the one rule that looks at the disk
/// (a manifest beside the folder) rather than the name alone.
///
/// `*.schema.json` and `*-schema.json` files (JSON Schemas) are never candidates.
pub fn is_candidate(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let lower = name.to_ascii_lowercase();
    let Some((stem, ext)) = lower.rsplit_once('.') else {
        return false;
    };
    if !matches!(ext, "yaml" | "yml" | "json")
        || lower.ends_with(".schema.json")
        || lower.ends_with("-schema.json")
    {
        return false;
    }
    let yaml = ext != "json";
    if stem.ends_with(".agraph")
        || stem.ends_with(".workflow")
        || stem == "workflow"
        || (yaml && stem.starts_with("workflow"))
        || stem == "loop"
        || stem.ends_with(".loop")
        || stem == "provider"
        || stem == "codes"
    {
        return true;
    }
    path.ancestors().skip(1).any(|dir| {
        matches!(
            dir.file_name().and_then(|n| n.to_str()),
            Some("graphs" | "actions" | "tests" | "resources")
        ) && dir.parent().is_some_and(has_provider_manifest)
    })
}

/// Whether `dir` holds an Agent Graph Provider manifest.
fn has_provider_manifest(dir: &Path) -> bool {
    ["provider.yaml", "provider.yml", "provider.json"]
        .iter()
        .any(|m| dir.join(m).is_file())
}

/// Whether a walk picks `path` for a dialect other than Agent Graph (AGS, AWP or agh names).
pub fn is_candidate_outside_agent_graph(path: &Path) -> bool {
    let lower = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let Some((stem, ext)) = lower.rsplit_once('.') else {
        return false;
    };
    let yaml = ext != "json";
    matches!(ext, "yaml" | "yml" | "json")
        && (stem.ends_with(".agraph")
            || stem.ends_with(".workflow")
            || stem == "workflow"
            || (yaml && stem.starts_with("workflow"))
            || stem == "loop"
            || stem.ends_with(".loop"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_by_name() {
        for yes in [
            "x/minimal.agraph.yaml",
            "a.agraph.json",
            "examples/r2.workflow.json",
            "workflow.yaml",
            "loops/review/loop.yaml",
            "p/provider.yaml",
            "p/codes.yaml",
        ] {
            assert!(is_candidate(Path::new(yes)), "{yes}");
        }
        // The provider layout folders count only beside a manifest.
        let tmp = tempfile::Builder::new()
            .prefix("agc-candidates-")
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        let p = dir.join("p");
        std::fs::create_dir_all(p.join("graphs")).unwrap();
        std::fs::write(p.join("provider.yaml"), "name: p\n").unwrap();
        for yes in ["graphs/main.yaml", "resources/views/a.yaml", "tests/t.json"] {
            assert!(is_candidate(&p.join(yes)), "{yes}");
        }
        for no in ["tests/ci.yaml", "resources/config.json", "graphs/main.yaml"] {
            assert!(!is_candidate(&dir.join("project").join(no)), "{no}");
        }
        tmp.close().unwrap();
        for no in [
            "package.json",
            "p/schemas/input.schema.json",
            "p/graphs/a.schema.json",
            "README.md",
            "p/graphs/notes.md",
            "config.toml",
            "registry.yaml",
            "schemas/workflow-definition.json",
            "assets/workflow-definition-schema.json",
            "loop",
        ] {
            assert!(!is_candidate(Path::new(no)), "{no}");
        }
    }
}
