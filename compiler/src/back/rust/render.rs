//! The askama templates (`templates/rust/`) and the structs they render from.

use super::model::{DefView, HandlerView, Model};
use askama::Template;

#[derive(Template)]
#[template(path = "rust/Cargo.toml", escape = "none")]
struct CargoToml<'a> {
    crate_name: &'a str,
    runtime_dep: &'a str,
}

#[derive(Template)]
#[template(path = "rust/lib.rs", escape = "none")]
struct LibRs<'a> {
    title_inner: &'a [String],
    source_md: &'a str,
    dialect: &'a str,
    graph_id_md: &'a str,
    graph_id_lit: &'a str,
    digest_lit: &'a Option<String>,
}

#[derive(Template)]
#[template(path = "rust/types.rs", escape = "none")]
struct TypesRs<'a> {
    uses_map: bool,
    types: &'a [DefView],
}

#[derive(Template)]
#[template(path = "rust/handler.rs", escape = "none")]
struct HandlerRs<'a> {
    handlers: &'a [HandlerView],
    /// Tasks and decisions (the runtime's `task` and `decision` calls).
    calls: Vec<&'a HandlerView>,
    gates: Vec<&'a HandlerView>,
    /// Calls answered with no outputs (AWP `start`), as literals.
    idle: &'a [String],
    /// The `use agc_runtime::typed::{..};` line: only what the file uses.
    typed_use: String,
}

#[derive(Template)]
#[template(path = "rust/README.md", escape = "none")]
struct Readme<'a> {
    crate_name: &'a str,
    graph_id_md: &'a str,
    title_md: &'a str,
    source_md: &'a str,
    dialect: &'a str,
    handlers: &'a [HandlerView],
    runtime_nodes: &'a [(String, String)],
}

/// Renders one template; rendering into a `String` fails only if a `Display` impl fails,
/// which ours do not.
fn text<T: Template>(t: &T) -> String {
    let mut s = t.render().unwrap_or_default();
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// The crate's files (path relative to the crate root, contents), plan excluded.
pub fn files(m: &Model) -> Vec<(&'static str, String)> {
    let title_inner: Vec<String> = m
        .title_doc
        .iter()
        .map(|l| format!("//!{}", &l[3..]))
        .collect();
    let by_kind = |kinds: &[&str]| -> Vec<&HandlerView> {
        m.handlers
            .iter()
            .filter(|h| kinds.contains(&h.kind.as_str()))
            .collect()
    };
    let typed_use = {
        let (any, gates) = (!m.handlers.is_empty(), !by_kind(&["gate"]).is_empty());
        let names: Vec<&str> = [
            (any, "self"),
            (gates, "Answer"),
            (true, "Context"),
            (true, "Dispatch"),
            (true, "Hooks"),
            (any, "Reply"),
        ]
        .into_iter()
        .filter_map(|(used, n)| used.then_some(n))
        .collect();
        format!("use agc_runtime::typed::{{{}}};", names.join(", "))
    };
    vec![
        (
            "Cargo.toml",
            text(&CargoToml {
                crate_name: &m.crate_name,
                runtime_dep: &m.runtime_dep,
            }),
        ),
        (
            "README.md",
            text(&Readme {
                crate_name: &m.crate_name,
                graph_id_md: &m.graph_id_md,
                title_md: &m.title_md,
                source_md: &m.source_md,
                dialect: &m.dialect,
                handlers: &m.handlers,
                runtime_nodes: &m.runtime_nodes,
            }),
        ),
        (
            "src/handler.rs",
            text(&HandlerRs {
                handlers: &m.handlers,
                calls: by_kind(&["task", "external", "decision"]),
                gates: by_kind(&["gate"]),
                idle: &m.idle,
                typed_use,
            }),
        ),
        (
            "src/lib.rs",
            text(&LibRs {
                title_inner: &title_inner,
                source_md: &m.source_md,
                dialect: &m.dialect,
                graph_id_md: &m.graph_id_md,
                graph_id_lit: &m.graph_id_lit,
                digest_lit: &m.digest_lit,
            }),
        ),
        (
            "src/types.rs",
            text(&TypesRs {
                uses_map: m.uses_map,
                types: &m.types,
            }),
        ),
    ]
}
