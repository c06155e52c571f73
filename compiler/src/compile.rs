//! From a checked document to outputs: lower, analyse, and build the plan.

use crate::analysis::{bounds, order};
use crate::back::plan::{self, PlanInput};
use crate::diag::Diagnostic;
use crate::front::ags::refs::Workspace;
use crate::ir::Graph;
use crate::source::{Document, SourceMap};
use serde_json::Value;

/// A lowered and analysed graph.
#[derive(Debug)]
pub struct Compiled {
    pub graph: Graph,
    pub order: Vec<crate::ir::NodeId>,
    pub bounds: bounds::Bounds,
    /// The root document's `sha256-` digest of its RFC 8785 canonical form (AGS `graph_digest`).
    pub digest: Option<String>,
}

/// Lowers a checked AGS workspace (the document and the files it references) and runs the
/// analyses, with the bound warnings.
///
/// The digest (a pass over the whole document) runs on a second thread beside lowering.
pub fn compile_ags(ws: &Workspace, sources: &SourceMap) -> (Option<Compiled>, Vec<Diagnostic>) {
    let doc = &ws.docs[0];
    let ((graph, mut diags), digest) = std::thread::scope(|s| {
        let digest = s.spawn(|| crate::canon::graph_digest(&doc.value).ok());
        let lowered = crate::front::ags::lower::lower(ws, sources);
        // A panic in the digest thread is a bug; it then counts as "no digest".
        (lowered, digest.join().ok().flatten())
    });
    if diags.iter().any(Diagnostic::is_error) {
        return (None, diags);
    }
    let Some(order) = order::topological(&graph) else {
        // Checked graphs are acyclic (AG111); reaching here is a bug, reported, not a panic.
        diags.push(Diagnostic::error(
            "AGC080",
            "internal: the lowered graph has a cycle",
        ));
        return (None, diags);
    };
    let b = bounds::compute(&graph, &order);
    diags.extend(bound_warnings(doc, &graph, &b));
    (
        Some(Compiled {
            graph,
            order,
            bounds: b,
            digest,
        }),
        diags,
    )
}

fn bound_warnings(doc: &Document, g: &Graph, b: &bounds::Bounds) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let limit = |k: &str| g.constraints.get(k).and_then(Value::as_f64);
    let mut check = |code: &'static str, key: &str, figure: f64, what: &str| {
        if let Some(max) = limit(key)
            && figure > max
        {
            let ptr = format!("/constraints/{key}");
            out.push(
                Diagnostic::warning(code, format!("{what} is {figure}, above `{key}: {max}`"))
                    .at(doc.span(&ptr))
                    .with_pointer(ptr),
            );
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

/// What the plan back end needs to render a compiled graph.
pub fn plan_input<'a>(c: &'a Compiled, sources: &'a SourceMap, path: &'a str) -> PlanInput<'a> {
    PlanInput {
        graph: &c.graph,
        order: &c.order,
        bounds: &c.bounds,
        sources,
        path,
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

/// Loads, checks and compiles one file. `None` when any error was found.
pub fn compile_file(
    sources: &mut SourceMap,
    path: &std::path::Path,
    display: &str,
    opts: &crate::check::CheckOptions,
) -> (Option<Compiled>, Vec<Diagnostic>) {
    let (file, loaded) = match crate::source::load::load_path(sources, path, display, opts.limits) {
        Ok(x) => x,
        Err(d) => return (None, vec![d]),
    };
    let checked = crate::check::check_source(sources, file, loaded, opts, Some(path));
    let mut diags = checked.diags;
    let (Some(doc), Some(dialect)) = (checked.doc, checked.dialect) else {
        return (None, diags);
    };
    if diags.iter().any(Diagnostic::is_error) {
        return (None, diags);
    }
    if checked.compiled.is_some() {
        crate::discard::discard(doc);
        return (checked.compiled, diags);
    }
    if dialect != crate::dialect::Dialect::Ags {
        diags.push(
            Diagnostic::error(
                "AGC084",
                format!("{} documents are checked but not yet compiled; `build` and `graph` take AGS 1.0 for now", dialect.title()),
            )
            .at(crate::source::Span::point(doc.file, doc.spans.span.start as usize)),
        );
        return (None, diags);
    }
    // Error-free AGS documents are compiled by the check itself; reaching here means the
    // lowering reported an error of its own.
    (None, diags)
}

/// Loads, checks and compiles one file into plan text. `None` when any error was found.
pub fn build_file(
    sources: &mut SourceMap,
    path: &std::path::Path,
    display: &str,
    opts: &crate::check::CheckOptions,
) -> (Option<String>, Vec<Diagnostic>) {
    let (compiled, diags) = compile_file(sources, path, display, opts);
    let text = compiled.map(|c| {
        let text = plan_text(&c, sources, display);
        crate::discard::discard(c);
        text
    });
    (text, diags)
}
