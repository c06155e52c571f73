//! The check driver: load → detect → schema-validate, every diagnostic of one file, sorted.
//!
//! Later phases (typed AST, semantic checks) hook in after the schema check through
//! [`check_source`], which also hands back the document and its dialect.
//!
//! Which files a directory walk picks up ([`is_candidate`]) is decided by file name only,
//! from the names the four formats use in their own repositories (see the function docs);
//! a file named on the command line is checked whatever its name.

use crate::diag::{self, Diagnostic};
use crate::dialect::{self, Dialect};
use crate::schema;
use crate::source::yaml::Loaded;
use crate::source::{Document, FileId, Limits, SourceMap, load};
use std::path::Path;

/// What the driver needs to know besides the file.
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckOptions {
    pub limits: Limits,
    /// `--dialect`: skip detection (an Agent Graph document's kind still comes from `schema:`).
    pub dialect: Option<Dialect>,
}

/// One file after the checks so far.
#[derive(Debug)]
pub struct Checked {
    pub file: FileId,
    /// The loaded document, when it could be built.
    pub doc: Option<Document>,
    /// The dialect, when it was detected (or forced).
    pub dialect: Option<Dialect>,
    /// Every diagnostic, sorted with [`diag::sort`].
    pub diags: Vec<Diagnostic>,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(Diagnostic::is_error)
    }
}

/// Checks a file given as text; `name` is how it is shown to users.
pub fn check_text(
    sources: &mut SourceMap,
    name: &str,
    text: String,
    opts: &CheckOptions,
) -> Vec<Diagnostic> {
    let (file, loaded) = load::load_str(sources, name, text, opts.limits);
    check_source(file, loaded, opts).diags
}

/// Reads and checks a file; `display` is how it is shown to users. An unreadable file gives
/// one AGC001 diagnostic with no span.
pub fn check_path(
    sources: &mut SourceMap,
    path: &Path,
    display: &str,
    opts: &CheckOptions,
) -> Vec<Diagnostic> {
    match load::load_path(sources, path, display, opts.limits) {
        Ok((file, loaded)) => check_source(file, loaded, opts).diags,
        Err(d) => vec![d],
    }
}

/// Detects and schema-checks a loaded file.
pub fn check_source(file: FileId, loaded: Loaded, opts: &CheckOptions) -> Checked {
    let Loaded { doc, mut diags } = loaded;
    let mut dialect = None;
    if let Some(doc) = &doc {
        match dialect::resolve(doc, opts.dialect) {
            Ok(d) => {
                dialect = Some(d);
                if d == Dialect::Ags {
                    for diag in &mut diags {
                        if diag.code == "AGC004" {
                            diag.code = "AG005";
                        }
                    }
                }
                diags.extend(schema::validate(d, doc));
            }
            Err(d) => diags.push(d),
        }
    }
    diag::sort(&mut diags);
    Checked {
        file,
        doc,
        dialect,
        diags,
    }
}

/// Whether a directory walk should check this file, by name:
///
/// - AGS: `*.agraph.yaml`, `*.agraph.yml`, `*.agraph.json` (the spec's extensions);
/// - AWP: `*.workflow.json` (every published example), `*.workflow.yaml`/`.yml`, and
///   `workflow*.json|yaml|yml`;
/// - agh: `loop.yaml`/`loop.yml` (the daemon's layout, `loops/<name>/loop.yaml`) and
///   `*.loop.yaml`/`.yml`;
/// - Agent Graph: `provider.yaml|yml|json`, `codes.yaml|yml|json`, and any YAML/JSON file
///   under a directory named `graphs`, `actions`, `tests` or `resources` (the provider layout).
///
/// `*.schema.json` files (JSON Schemas) are never candidates.
pub fn is_candidate(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let lower = name.to_ascii_lowercase();
    let Some((stem, ext)) = lower.rsplit_once('.') else {
        return false;
    };
    if !matches!(ext, "yaml" | "yml" | "json") || lower.ends_with(".schema.json") {
        return false;
    }
    if stem.ends_with(".agraph")
        || stem.ends_with(".workflow")
        || stem.starts_with("workflow")
        || stem == "loop"
        || stem.ends_with(".loop")
        || stem == "provider"
        || stem == "codes"
    {
        return true;
    }
    path.parent().is_some_and(|dir| {
        dir.components().any(|c| {
            matches!(
                c.as_os_str().to_str(),
                Some("graphs" | "actions" | "tests" | "resources")
            )
        })
    })
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
            "p/graphs/main.yaml",
            "p/resources/views/a.yaml",
        ] {
            assert!(is_candidate(Path::new(yes)), "{yes}");
        }
        for no in [
            "package.json",
            "p/schemas/input.schema.json",
            "p/graphs/a.schema.json",
            "README.md",
            "p/graphs/notes.md",
            "config.toml",
            "registry.yaml",
            "loop",
        ] {
            assert!(!is_candidate(Path::new(no)), "{no}");
        }
    }
}
