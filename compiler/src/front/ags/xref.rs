//! The reference index of an AGS workspace ([`crate::front::xref`]): in every scope of every
//! document (numbered as [`scope::collect`] lists them), the node keys, `entrypoints`, edge
//! ends, `depends_on`, `failure.compensation`, and the reads the expression checks resolved
//! ([`super::Reads`]); links from `use` to its fragment and from `subgraph.ref.uri` to the
//! file it loaded.

use super::refs::Workspace;
use super::scope;
use crate::front::xref::{self, Link, Target, Xref};
use crate::source::{Document, Field, SourceMap, Span, Value};

pub fn xref(sources: &SourceMap, ws: &Workspace) -> Xref {
    let mut x = Xref::default();
    for (di, doc) in ws.docs.iter().enumerate() {
        let Some(text) = crate::front::source_text(sources, doc.file) else {
            continue;
        };
        let Some(root) = doc.value.as_object() else {
            continue;
        };
        for (si, s) in scope::collect(root).iter().enumerate() {
            scope_sites(&mut x, doc, text, si as u32, s);
            links(&mut x, ws, di, doc, s);
        }
    }
    for (si, id, span) in &ws.reads {
        if let Some(text) = crate::front::source_text(sources, span.file)
            && let Some(at) = read_id(text, *span, id)
        {
            x.used(*si, id, at);
        }
    }
    x
}

fn scope_sites(x: &mut Xref, doc: &Document, text: &str, si: u32, s: &scope::Scope<'_>) {
    let p = &s.ptr;
    xref::keys_at(x, doc, text, si, &format!("{p}/nodes"));
    xref::uses_at(x, doc, text, si, &format!("{p}/entrypoints"));
    for (i, _) in s.edges() {
        for end in ["from", "to"] {
            xref::use_at(x, doc, text, si, &format!("{p}/edges/{i}/{end}"));
        }
    }
    for (id, node) in s.nodes() {
        let np = s.node_ptr(id);
        if node.field("depends_on").is_some() {
            xref::uses_at(x, doc, text, si, &format!("{np}/depends_on"));
        }
        if node.field("failure").is_some() {
            xref::use_at(x, doc, text, si, &format!("{np}/failure/compensation"));
        }
    }
}

/// `use: fragment` to the fragment's key; `ref.uri` to the start of the file it loaded.
fn links(x: &mut Xref, ws: &Workspace, di: usize, doc: &Document, s: &scope::Scope<'_>) {
    for (id, node) in s.nodes() {
        for block in ["loop", "map", "subgraph"] {
            let Some(b) = node.field(block) else { continue };
            let bptr = format!("{}/{block}", s.node_ptr(id));
            if let Some(name) = b.field("use").and_then(Value::as_str) {
                let frag = format!("/subgraphs/{}", crate::source::tree::escape_token(name));
                if let (Some(from), Some(to)) = (doc.node(&format!("{bptr}/use")), doc.node(&frag))
                {
                    x.links.push(Link {
                        span: from.span,
                        target: Target::At(to.key().unwrap_or(to.span)),
                    });
                }
            }
            if let Some(&t) = ws.refs.get(&(di, bptr.clone()))
                && let (Some(from), Some(to)) =
                    (doc.node(&format!("{bptr}/ref/uri")), ws.docs.get(t))
            {
                x.links.push(Link {
                    span: from.span,
                    target: Target::At(crate::front::file_start(to.file)),
                });
            }
        }
    }
}

/// The id's bytes in a read written `nodes.<id>…`, `nodes["<id>"]…` or `f("<id>", …)` (the
/// node-state functions); `self.outputs.x` names its node without writing it: nothing.
fn read_id(text: &str, span: Span, id: &str) -> Option<Span> {
    let (start, end) = (span.start as usize, span.end as usize);
    let slice = text.get(start..end)?;
    let at = if let Some(rest) = slice.strip_prefix("nodes.") {
        rest.starts_with(id).then_some(6)?
    } else if let Some(rest) = slice.strip_prefix("nodes[") {
        let q = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        rest[1..].starts_with(id).then_some(6 + q.len_utf8())?
    } else {
        let open = slice.find('(')?;
        let rest = &slice[open + 1..];
        let q = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        rest[q.len_utf8()..]
            .starts_with(id)
            .then_some(open + 1 + q.len_utf8())?
    };
    let after = slice[at + id.len()..].chars().next();
    if after.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-') {
        return None;
    }
    Some(Span::new(span.file, start + at, start + at + id.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    #[test]
    fn a_read_narrows_to_the_written_id() {
        let f = FileId(0);
        let cut = |text: &str, id: &str| {
            let s = read_id(text, Span::new(f, 0, text.len()), id)?;
            Some(text[s.start as usize..s.end as usize].to_string() + "@" + &s.start.to_string())
        };
        assert_eq!(cut("nodes.a.outputs.b", "a").as_deref(), Some("a@6"));
        assert_eq!(cut("nodes[\"a\"].status", "a").as_deref(), Some("a@7"));
        assert_eq!(cut("output('a', 'x')", "a").as_deref(), Some("a@8"));
        assert_eq!(cut("self.outputs.a", "a"), None);
        assert_eq!(cut("nodes.ab.outputs", "a"), None);
    }
}
