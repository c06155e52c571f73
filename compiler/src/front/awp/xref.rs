//! The reference index of an AWP document ([`crate::front::xref`]): one flat scope, each
//! node's `id`, edge `source`/`target`, switch case `target`s and `default`, parallel branch
//! `entry`. jq programs read the state, never node ids, so they add nothing.

use super::model::Model;
use crate::front::xref::{self, Xref};
use crate::source::{Document, SourceMap};

pub fn xref(sources: &SourceMap, doc: &Document) -> Xref {
    let mut x = Xref::default();
    let (Some(text), Some(root)) = (
        crate::front::source_text(sources, doc.file),
        doc.value.as_object(),
    ) else {
        return x;
    };
    let m = Model::new(root);
    for (i, n) in m.nodes.iter().enumerate() {
        let p = n.ptr();
        if let Some(c) = doc.at(&format!("{p}/id")) {
            x.def_within(0, n.id, c.node.span, text);
        }
        for (ptr, _) in m.switch_targets(i) {
            xref::use_at(&mut x, doc, text, 0, &ptr);
        }
        for b in m.branches(i) {
            xref::use_at(
                &mut x,
                doc,
                text,
                0,
                &format!("{p}/config/branches/{}/entry", b.index),
            );
        }
    }
    for e in &m.edges {
        for end in ["source", "target"] {
            xref::use_at(&mut x, doc, text, 0, &format!("/edges/{}/{end}", e.index));
        }
    }
    x
}
