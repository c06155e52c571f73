//! The agh.loop/v1 front end (and its renamed successor compozy.loop/v1): the upstream
//! linter's and reference checker's codes, typed `{{ }}` templates and CEL conditions, and
//! lowering into the IR and into agh's own resolved form.
//!
//! Pipeline (research notes `agh.md` §5, §6):
//! 1. The driver has loaded the Loop and checked it against agc's agh schema, which already
//!    reports, under the linter's codes, the rules a schema can state (`node_id_invalid`,
//!    the closed control/source kinds, terminal states, `file-import` parse, `watch.kind`).
//!    The semantic passes run only on a schema-valid Loop, so no finding is reported twice.
//! 2. [`tools`]: the extension manifests that declare tool schemas (beside the Loop or named
//!    with `--extension`).
//! 3. [`lint`] (+ [`goal`], [`shape`]): the structural passes, every graph (root and
//!    `sub-loop` bodies).
//! 4. [`check_refs`] (+ [`refs`], [`namespace`], [`events`]): the references pass.
//! 5. [`lower`]: the IR; [`resolved`]: upstream's resolved form (`agc build --agh-resolved`).
//!
//! Version drift (§8) is normalised: `no_op` reads as `no-op`, `md_tasks` is accepted in
//! agh.loop/v1 (and refused in compozy.loop/v1), the template functions follow the version,
//! `model_defaults` vs `runtime_*` is the schema's business.

mod actions;
mod check_refs;
pub mod events;
mod goal;
mod lint;
pub mod lower;
pub mod model;
pub mod namespace;
mod read_order;
pub mod refs;
pub mod resolved;
mod shape;
pub mod tools;
mod unit;
mod xref;

use super::{Context, FrontEnd, Lowered};
use crate::diag::Diagnostic;
use crate::source::{Document, SourceMap};
use std::collections::BTreeMap;

pub use actions::go_duration_seconds;
pub use lint::{FAN_OUT_CEILING, GATE_REVISIONS_CEILING};
pub use unit::{Unit, Unit0};

/// Runs every semantic check of a schema-valid Loop.
pub fn check_loop(doc: &Document, text: &str, tools: &tools::Tools) -> (Vec<Diagnostic>, Unit0) {
    let Some(root) = doc.value.as_object() else {
        return (Vec::new(), Unit0::default());
    };
    let scopes = model::scopes(root);
    let mut l = lint::Linter::new(doc, text, root, tools, &scopes);
    l.structure();
    l.references();
    l.read_order();
    (
        l.diags,
        Unit0 {
            exprs: l.exprs,
            reads: l.reads,
            node_reads: l.node_reads,
            sources: l.sources,
        },
    )
}

/// The agh.loop/v1 front end (see [`FrontEnd`]).
pub struct Agh;

impl FrontEnd for Agh {
    type Unit = Unit;
    type Early = ();

    fn check(&self, cx: &mut Context<'_>, doc: Document, _: Option<()>) -> (Unit, Vec<Diagnostic>) {
        if !cx.schema_ok {
            let unit = Unit {
                doc,
                tools: tools::Tools::default(),
                exprs: BTreeMap::new(),
                reads: Vec::new(),
                node_reads: Vec::new(),
                sources: BTreeMap::new(),
            };
            return (unit, Vec::new());
        }
        let (tools, mut diags) = tools::load(cx);
        let (more, u0) = check_loop(&doc, cx.text(), &tools);
        diags.extend(more);
        let unit = Unit {
            doc,
            tools,
            exprs: u0.exprs,
            reads: u0.reads,
            node_reads: u0.node_reads,
            sources: u0.sources,
        };
        (unit, diags)
    }

    fn lower(
        &self,
        sources: &SourceMap,
        unit: &Unit,
        digest: bool,
    ) -> (Vec<Lowered>, Vec<Diagnostic>) {
        let ((graph, diags), digest) =
            super::lower_with_digest(digest, &unit.doc.value, || lower::lower(unit));
        let lowered = Lowered {
            graph,
            digest,
            display: sources.get(unit.doc.file).name.clone(),
        };
        (vec![lowered], diags)
    }

    fn xref(&self, sources: &SourceMap, unit: &Unit) -> crate::front::xref::Xref {
        xref::xref(sources, unit)
    }

    fn into_root(unit: Unit) -> Document {
        unit.doc
    }
}
