//! From a checked document to outputs: lower, analyse, and build the plan.

use crate::analysis::{bounds, order};
use crate::back::plan::{self, PlanInput};
use crate::diag::Diagnostic;
use crate::dialect::{AgentGraphKind, Dialect};
use crate::front::Lowered;
use crate::ir::Graph;
use crate::source::SourceMap;
use serde_json::Value;

/// A lowered and analysed graph.
#[derive(Debug)]
pub struct Compiled {
    pub graph: Graph,
    pub order: Vec<crate::ir::NodeId>,
    pub bounds: bounds::Bounds,
    /// The source document's `sha256-` digest of its RFC 8785 canonical form (AGS
    /// `graph_digest`).
    pub digest: Option<String>,
    /// The file the graph comes from, as shown to users.
    pub display: String,
}

/// Runs the analyses on a lowered graph (order, static bounds) with the bound warnings.
pub fn analyse(l: Lowered) -> (Option<Compiled>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let Some(order) = order::topological(&l.graph) else {
        // Checked graphs are acyclic but for bounded back edges; reaching here is a bug,
        // reported, not a panic.
        diags.push(Diagnostic::error(
            "AGC080",
            "internal: the lowered graph has a cycle",
        ));
        return (None, diags);
    };
    let b = bounds::compute(&l.graph, &order);
    diags.extend(bound_warnings(&l.graph, &b));
    (
        Some(Compiled {
            graph: l.graph,
            order,
            bounds: b,
            digest: l.digest,
            display: l.display,
        }),
        diags,
    )
}

fn bound_warnings(g: &Graph, b: &bounds::Bounds) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let limit = |k: &str| g.constraints.get(k).and_then(Value::as_f64);
    let mut check = |code: &'static str, key: &str, figure: f64, what: &str| {
        if let Some(max) = limit(key)
            && figure > max
        {
            let mut d =
                Diagnostic::warning(code, format!("{what} is {figure}, above `{key}: {max}`"));
            if let Some(&span) = g.spans.constraints.get(key) {
                d = d.at(span);
            }
            out.push(d.with_pointer(format!("/constraints/{key}")));
        }
    };
    check(
        "AGC090",
        "max_node_executions",
        b.max_node_executions,
        "the worst-case number of node executions",
    );
    check(
        "AGC091",
        "max_cost_usd",
        b.projected_cost_usd,
        "the projected worst-case cost (USD)",
    );
    check(
        "AGC092",
        "max_wall_clock_seconds",
        b.projected_wall_clock_seconds,
        "the projected worst-case time (s)",
    );
    out
}

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

/// Loads, checks and compiles one file: its graphs (one for most dialects, one per graph of an
/// Agent Graph Provider), none when any error was found.
pub fn compile_file(
    sources: &mut SourceMap,
    path: &std::path::Path,
    display: &str,
    opts: &crate::check::CheckOptions,
) -> (Vec<Compiled>, Vec<Diagnostic>) {
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
    use crate::source::load;
    let (file, loaded) = match load::load_input(sources, path, display, opts.limits) {
        Ok(x) => x,
        Err(d) => return (Vec::new(), vec![d]),
    };
    let stdin = load::is_stdin(path);
    let checked = crate::check::check_source(sources, file, loaded, opts, (!stdin).then_some(path));
    let mut diags = checked.diags;
    let (Some(doc), Some(dialect)) = (checked.doc, checked.dialect) else {
        return (Vec::new(), diags);
    };
    if diags.iter().any(Diagnostic::is_error) {
        return (Vec::new(), diags);
    }
    // An Agent Graph graph file is compiled with the Provider that lists it.
    let lone_graph = (dialect == Dialect::AgentGraph(AgentGraphKind::Graph))
        .then(|| {
            doc.value
                .get("id")
                .and_then(crate::source::Value::as_str)
                .map(str::to_string)
        })
        .flatten();
    crate::discard::discard(doc);
    if let (true, Some(id)) = (checked.compiled.is_empty(), lone_graph) {
        if stdin {
            let d = Diagnostic::error(
                "AGC084",
                format!(
                    "graph `{id}` read from standard input has no Provider to be compiled with"
                ),
            )
            .at(crate::source::Span::point(file, 0))
            .with_help("give the graph's file or its Provider's folder instead of `-`");
            return (Vec::new(), vec![d]);
        }
        return through_provider(sources, path, display, file, &id, opts);
    }
    if checked.compiled.is_empty() {
        // An error-free document that holds no graph (an Agent Graph action, resource, ...).
        diags.push(
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
    let compiled = match &opts.graph {
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
                diags.push(
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
    (compiled, diags)
}

/// Compiles the Agent Graph graph file `path` (graph `id`, error-free on its own) with the
/// Provider that lists it, taking that graph; AGC084 when no Provider up to the workspace root
/// lists it. The Provider's check covers the graph again, so the lone check's warnings are not
/// repeated.
fn through_provider(
    sources: &mut SourceMap,
    path: &std::path::Path,
    display: &str,
    file: crate::source::FileId,
    id: &str,
    opts: &crate::check::CheckOptions,
) -> (Vec<Compiled>, Vec<Diagnostic>) {
    use crate::front::agent_graph::enclosing;
    let at = crate::source::Span::point(file, 0);
    if let Some(want) = opts.graph.as_deref().filter(|w| *w != id) {
        let msg = format!("`{display}` has no graph `{want}` (it has {id})");
        return (Vec::new(), vec![Diagnostic::error("AGC206", msg).at(at)]);
    }
    // Without `--root` or a root marker the default root would be the graph's own folder,
    // which never holds its Provider: the search then goes up without a bound.
    let root = opts
        .root
        .clone()
        .or_else(|| crate::front::marked_root(path));
    let Some((manifest, up)) = enclosing::enclosing_provider(path, root.as_deref()) else {
        let d = Diagnostic::error(
            "AGC084",
            format!(
                "graph `{id}` is compiled with the Provider that lists it, and no Provider up to the workspace root lists `{display}`"
            ),
        )
        .at(at)
        .with_help(
            "list the file under `graphs` in its Provider's `provider.yaml` and give the command the \
             Provider's folder or this file; `agc check` checks the graph on its own",
        );
        return (Vec::new(), vec![d]);
    };
    let shown = enclosing::manifest_display(display, up, &manifest);
    let mut o = opts.clone();
    o.graph = Some(id.to_string());
    compile_file(sources, &manifest, &shown, &o)
}

/// `DIR/provider.yaml` (or `.yml`, `.json`) when `path` is a folder holding one; a built
/// bundle's `DIR/manifest.json` first, so that the bundle is verified.
pub fn provider_manifest(path: &std::path::Path) -> Option<std::path::PathBuf> {
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
    path: &std::path::Path,
    display: &str,
    opts: &crate::check::CheckOptions,
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
