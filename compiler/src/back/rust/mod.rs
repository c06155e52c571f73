//! The Rust back end: `agc gen rust` turns a plan into a typed runner crate.
//!
//! Pipeline (one direction): the typed plan (`agc_runtime::plan::Plan`, read back from the
//! `agc.plan/v5` text the crate embeds) → [`model`] (a view-model: sanitised
//! names, the declared types as the language-neutral type space of `back::runner` spelt and
//! printed in Rust by [`names`] and [`types`], lines laid out for rustfmt) →
//! [`render`] (askama templates in `templates/rust/`) → files. The generated code is a view of
//! the plan: it embeds the plan and calls `agc-runtime` for every decision the plan makes, so
//! it never carries a second semantics. Names and text from the document reach the code only
//! through [`names`].

mod facts;
pub mod include;
pub mod model;
pub mod names;
mod render;
pub mod types;

use agc_runtime::plan::Plan;
pub use model::Runtime;
use std::path::{Component, Path};

/// One generated file: its path relative to the crate root and its contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenFile {
    pub path: &'static str,
    pub contents: String,
}

/// The files of the crate generated from `plan` (its JSON text `plan_text` is embedded as
/// `src/plan.json`), in a fixed order. Same input, same bytes.
pub fn generate(plan_text: &str, plan: &Plan, crate_name: &str, runtime: &Runtime) -> Vec<GenFile> {
    let model = model::build(
        plan,
        &model::Options {
            crate_name,
            runtime,
        },
    );
    let mut files: Vec<GenFile> = render::files(&model)
        .into_iter()
        .map(|(path, contents)| GenFile { path, contents })
        .collect();
    files.push(GenFile {
        path: "src/plan.json",
        contents: plan_text.to_string(),
    });
    files
}

/// The path of `to` as seen from the folder `from`, `/`-separated (`../../ags/x.agraph.yaml`):
/// how a generated crate names the document it was generated from, the same bytes in every
/// checkout. Both paths are absolute and lexically normal; when they share no root (two
/// Windows drives), `to`'s file name.
pub fn relative_path(from: &Path, to: &Path) -> String {
    let (a, b): (Vec<Component>, Vec<Component>) =
        (from.components().collect(), to.components().collect());
    if a.first() != b.first() {
        return to
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    }
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
    parts.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Whether `name` is a valid Cargo package name for the generated crate: ASCII letters,
/// digits, `-` and `_`, starting with a letter, at most 64 characters.
pub fn valid_crate_name(name: &str) -> bool {
    name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The default crate name: the last `/` segment of the graph id, as kebab-case ASCII, plus
/// `-runner` (`agc-examples/changelog-release` → `changelog-release-runner`).
pub fn default_crate_name(graph_id: &str) -> String {
    let last = graph_id.rsplit('/').next().unwrap_or(graph_id);
    let base = names::snake(last)
        .trim_start_matches("r#")
        .replace('_', "-");
    let base = base.trim_matches('-');
    let base = if base.starts_with(|c: char| c.is_ascii_alphabetic()) {
        base.to_string()
    } else {
        format!("graph-{base}")
    };
    format!("{base}-runner")
}
