//! The reference index of Agent Graph documents ([`crate::front::xref`]): in each graph file
//! (the one checked alone, or every graph its Provider lists), each node's `id`, edge
//! `from`/`to` and the `entrypoints` targets (one scope per file); and links from a node's
//! `action` to the action file and from a Provider's graph list to each graph file, where
//! the check loaded them.

use crate::front::xref::{self, Link, Xref};
use crate::source::{Document, SourceMap, Value};

pub fn xref(sources: &SourceMap, unit: &super::Unit) -> Xref {
    let mut x = Xref::default();
    let mut docs: Vec<&Document> = vec![&unit.root];
    if let Some(p) = &unit.provider {
        docs.extend(
            p.graphs
                .iter()
                .map(|g| &g.doc)
                .filter(|d| d.file != unit.root.file),
        );
    }
    for doc in docs {
        graph(&mut x, sources, doc);
    }
    x
}

fn graph(x: &mut Xref, sources: &SourceMap, doc: &Document) {
    let Some(text) = crate::front::source_text(sources, doc.file) else {
        return;
    };
    let v = &doc.value;
    let Some(nodes) = v.get("nodes").and_then(Value::as_array) else {
        return;
    };
    for (i, n) in nodes.iter().enumerate() {
        if let (Some(id), Some(c)) = (
            n.get("id").and_then(Value::as_str),
            doc.at(&format!("/nodes/{i}/id")),
        ) {
            x.def_within(0, id, c.node.span, text);
        }
        if let (Some(action), Some(c)) = (
            n.get("action").and_then(Value::as_str),
            doc.at(&format!("/nodes/{i}/action")),
        ) && let Some(target) = loaded(sources, &sources.get(doc.file).name, action)
        {
            x.links.push(Link {
                span: c.node.span,
                target: crate::front::file_start(target),
            });
        }
    }
    let edges = v.get("edges").and_then(Value::as_array);
    for i in 0..edges.map_or(0, |e| e.len()) {
        for end in ["from", "to"] {
            xref::use_at(x, doc, text, 0, &format!("/edges/{i}/{end}"));
        }
    }
    if let Some(eps) = v.get("entrypoints").and_then(Value::as_object) {
        for (name, _) in eps {
            let ptr = Document::child_pointer("/entrypoints", name);
            xref::use_at(x, doc, text, 0, &ptr);
        }
    }
}

/// The loaded file a graph's relative `path` names: one whose name is the graph's folder's
/// parent (the Provider's folder) joined with it, or the graph's own folder joined with it.
fn loaded(sources: &SourceMap, graph: &str, path: &str) -> Option<crate::source::FileId> {
    let here = std::path::Path::new(graph).parent()?;
    let wanted: Vec<std::path::PathBuf> = [here.parent(), Some(here)]
        .into_iter()
        .flatten()
        .map(|d| crate::session::normal(&d.join(path)))
        .collect();
    (0..sources.len())
        .map(|i| crate::source::FileId(i as u32))
        .find(|&f| {
            let name = crate::session::normal(std::path::Path::new(&sources.get(f).name));
            wanted.contains(&name)
        })
}
