//! The compile driver: from a document to its compiled graphs ([`Session::compile`], on top
//! of the check driver, [`crate::check`]), and from a compiled graph to its plan.

use crate::back::plan::{self, PlanInput};
use crate::check::{CheckOptions, Early, How, Unit};
use crate::diag::Diagnostic;
use crate::session::Session;
use crate::source::SourceMap;
use std::path::{Path, PathBuf};

pub use crate::analysis::{Compiled, analyse};

/// What the plan back end needs to render a compiled graph. The plan's `source.path` is the
/// graph's own file (`c.display`: an Agent Graph Provider's graphs each have theirs), `path`
/// (the file the command was given) only when that is unknown.
pub fn plan_input<'a>(c: &'a Compiled, sources: &'a SourceMap, path: &'a str) -> PlanInput<'a> {
    PlanInput {
        graph: &c.graph,
        order: &c.order,
        bounds: &c.bounds,
        sources,
        path: if c.display.is_empty() {
            path
        } else {
            &c.display
        },
        digest: c.digest.as_deref(),
        eval_limits: Default::default(),
    }
}

/// The plan of a compiled graph, as bytes-stable JSON text.
pub fn plan_text(c: &Compiled, sources: &SourceMap, path: &str) -> String {
    plan::to_string(&plan_input(c, sources, path))
}

/// Streams the plan of a compiled graph to `out`: the bytes of [`plan_text`], without holding
/// them in memory. `out` gets many small writes; give it a buffer.
pub fn write_plan(
    c: &Compiled,
    sources: &SourceMap,
    path: &str,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    plan::write(&plan_input(c, sources, path), out)
}

/// What compiling one document gives ([`Session::compile`]).
#[derive(Debug)]
pub struct Output {
    /// The graphs (one for most dialects, one per graph of an Agent Graph Provider, the one
    /// `--graph` names when given), none when any error was found.
    pub compiled: Vec<Compiled>,
    /// Every diagnostic.
    pub diags: Vec<Diagnostic>,
    /// The checked unit of the document compiled (for a graph file compiled through its
    /// Provider, the Provider's), when it loaded and its dialect is known.
    pub unit: Option<Unit>,
    /// Every file read (see [`crate::check::Checked::files`]).
    pub files: Vec<PathBuf>,
}

impl Session {
    /// Loads, checks and compiles the document at `path` (standard input for `-`; a folder
    /// holding an Agent Graph manifest stands for its Provider), shown as `display`, with the
    /// session's options and overlays.
    pub fn compile(&mut self, path: &Path, display: &str) -> Output {
        let opts = self.options.clone();
        self.compile_with(path, display, &opts)
    }

    /// [`Session::compile`] with other options.
    pub fn compile_with(&mut self, path: &Path, display: &str, opts: &CheckOptions) -> Output {
        // A folder holding an Agent Graph manifest stands for its Provider.
        let manifest = provider_manifest(path);
        let manifest_display = manifest.as_ref().map(|m| {
            let name = m
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            format!("{}/{name}", display.trim_end_matches('/'))
        });
        let (path, display) = match (&manifest, &manifest_display) {
            (Some(m), Some(d)) => (m.as_path(), d.as_str()),
            _ => (path, display),
        };
        let how = How {
            early: Early::After,
            compiling: true,
        };
        let checked = self.check_with(path, display, opts, how);
        let mut out = Output {
            compiled: Vec::new(),
            diags: checked.diags,
            unit: checked.unit,
            files: checked.files,
        };
        let Some(dialect) = checked.dialect.filter(|_| out.unit.is_some()) else {
            return out;
        };
        if out.diags.iter().any(Diagnostic::is_error) {
            return out;
        }
        match checked.compiled_with {
            // The document is compiled through another (an Agent Graph graph file through its
            // Provider), whose check covers it again: its own warnings are not repeated.
            Some(Err(d)) => {
                out.diags = vec![d];
                return out;
            }
            Some(Ok(with)) => {
                crate::discard::discard(out.unit.take());
                let mut o = opts.clone();
                o.graph = Some(with.graph);
                let mut inner = self.compile_with(&with.path, &with.display, &o);
                out.files.append(&mut inner.files);
                inner.files = out.files;
                return inner;
            }
            None => {}
        }
        let file = checked.file;
        if checked.compiled.is_empty() {
            // An error-free document that holds no graph (an Agent Graph action, resource, ...).
            out.diags.push(
                Diagnostic::error(
                    "AGC084",
                    format!(
                        "this {} document describes no graph to compile; give the workflow itself (for Agent Graph, the Provider or one of its graph files)",
                        dialect.title()
                    ),
                )
                .at(crate::source::Span::point(file, 0)),
            );
        }
        out.compiled = match &opts.graph {
            None => checked.compiled,
            Some(id) => {
                let ids: Vec<String> = checked
                    .compiled
                    .iter()
                    .map(|c| c.graph.id.clone())
                    .collect();
                let picked: Vec<Compiled> = checked
                    .compiled
                    .into_iter()
                    .filter(|c| &c.graph.id == id)
                    .collect();
                if picked.is_empty() && !ids.is_empty() {
                    out.diags.push(
                        Diagnostic::error(
                            "AGC206",
                            format!(
                                "`{display}` has no graph `{id}` (it has {})",
                                ids.join(", ")
                            ),
                        )
                        .at(crate::source::Span::point(file, 0)),
                    );
                }
                picked
            }
        };
        out
    }
}

/// Loads, checks and compiles one file: [`Session::compile`] for a caller without a session
/// (its files are added to `sources`; the checked unit is dropped).
pub fn compile_file(
    sources: &mut SourceMap,
    path: &Path,
    display: &str,
    opts: &CheckOptions,
) -> (Vec<Compiled>, Vec<Diagnostic>) {
    let mut session = Session {
        sources: std::mem::take(sources),
        ..Session::default()
    };
    let out = session.compile_with(path, display, opts);
    *sources = session.sources;
    crate::discard::discard(out.unit);
    (out.compiled, out.diags)
}

/// `DIR/provider.yaml` (or `.yml`, `.json`) when `path` is a folder holding one; a built
/// bundle's `DIR/manifest.json` first, so that the bundle is verified.
pub fn provider_manifest(path: &Path) -> Option<PathBuf> {
    if !path.is_dir() {
        return None;
    }
    [
        "manifest.json",
        "provider.yaml",
        "provider.yml",
        "provider.json",
    ]
    .iter()
    .map(|n| path.join(n))
    .find(|p| {
        p.is_file()
            && (!p.ends_with("manifest.json") || crate::front::agent_graph::is_bundle_manifest(p))
    })
}

/// The one graph of a compiled file, or an AGC086 error naming the graphs when it holds
/// several (commands that write one plan or diagram need one).
pub fn single(mut compiled: Vec<Compiled>, display: &str) -> Result<Option<Compiled>, Diagnostic> {
    match compiled.len() {
        0 => Ok(None),
        1 => Ok(compiled.pop()),
        _ => {
            let ids: Vec<&str> = compiled.iter().map(|c| c.graph.id.as_str()).collect();
            Err(Diagnostic::error(
                "AGC086",
                format!(
                    "`{display}` holds {} graphs ({}); this command takes one",
                    ids.len(),
                    ids.join(", ")
                ),
            ))
        }
    }
}

/// Loads, checks and compiles one file of one graph into plan text. `None` when any error was
/// found.
pub fn build_file(
    sources: &mut SourceMap,
    path: &Path,
    display: &str,
    opts: &CheckOptions,
) -> (Option<String>, Vec<Diagnostic>) {
    let (compiled, mut diags) = compile_file(sources, path, display, opts);
    let compiled = match single(compiled, display) {
        Ok(c) => c,
        Err(d) => {
            diags.push(d);
            None
        }
    };
    let text = compiled.map(|c| {
        let text = plan_text(&c, sources, display);
        crate::discard::discard(c);
        text
    });
    (text, diags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::Lowered;
    use crate::ir::Graph;

    fn compiled(id: &str) -> Compiled {
        let l = Lowered {
            graph: Graph::new("agent-graph", id.to_string()),
            digest: None,
            display: "p/provider.yaml".into(),
        };
        analyse(l).0.expect("an empty graph analyses")
    }

    #[test]
    fn a_command_that_takes_one_graph_names_them_all_when_given_several() {
        assert!(single(Vec::new(), "x").unwrap().is_none());
        assert_eq!(
            single(vec![compiled("a")], "x").unwrap().unwrap().graph.id,
            "a"
        );
        let e = single(vec![compiled("a"), compiled("b")], "p").unwrap_err();
        assert_eq!(e.code, "AGC086");
        assert!(e.message.contains("holds 2 graphs (a, b)"), "{}", e.message);
    }
}
