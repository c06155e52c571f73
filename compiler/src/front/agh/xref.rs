//! The reference index of a Loop ([`crate::front::xref`]): in every graph scope (numbered as
//! [`model::scopes`] lists them), each node's `id`, edge `from`/`to`, and the `nodes.<id>`
//! reads of its templates and conditions ([`super::Unit::node_reads`]); a link from an
//! action's tool id (`kind`) to where its extension manifest declares the tool.

use super::model;
use super::tools::Resolved;
use crate::front::xref::{self, Link, Target, Xref, narrow};
use crate::source::{SourceMap, Span};

pub fn xref(sources: &SourceMap, unit: &super::Unit) -> Xref {
    let mut x = Xref::default();
    let doc = &unit.doc;
    let (Some(text), Some(root)) = (
        crate::front::source_text(sources, doc.file),
        doc.value.as_object(),
    ) else {
        return x;
    };
    let native = model::Version::of(root).native_prefix();
    for (si, s) in model::scopes(root).iter().enumerate() {
        let si = si as u32;
        for n in &s.nodes {
            if let Some(c) = doc.at(&n.field("id")) {
                x.def_within(si, n.id, c.node.span, text);
            }
            if n.class == "action"
                && !model::RESERVED_ACTIONS.contains(&n.kind)
                && let Resolved::Declared(t) = unit.tools.resolve(n.kind, native)
                && let (Some(at), Some(c)) = (t.at, doc.at(&n.field("kind")))
            {
                x.links.push(Link {
                    span: c.node.span,
                    target: Target::At(at),
                });
            }
        }
        for e in &s.edges {
            for end in ["from", "to"] {
                xref::use_at(&mut x, doc, text, si, &format!("{}/{end}", e.ptr));
            }
        }
    }
    for (si, id, span) in &unit.node_reads {
        // After the `nodes` the path starts with: the id is the next segment.
        let Some(t) = crate::front::source_text(sources, span.file) else {
            continue;
        };
        let Some(slice) = t.get(span.start as usize..span.end as usize) else {
            continue;
        };
        let Some(at) = slice.find("nodes") else {
            continue;
        };
        let from = span.start as usize + at + "nodes".len();
        if let Some(s) = narrow(t, Span::new(span.file, from, span.end as usize), id) {
            x.used(*si, id, s);
        }
    }
    x
}
