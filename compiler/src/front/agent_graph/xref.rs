//! The reference index of Agent Graph documents ([`crate::front::xref`]): in each graph file
//! (the one checked alone, or every graph its Provider lists), each node's `id`, edge
//! `from`/`to` and the `entrypoints` targets (one scope per file); links from a node's
//! `action` to the action file and from a Provider's `graphs` to each graph file.
//!
//! The files a link names are resolved as the Provider resolves them, against its folder: for
//! a graph, the folder above the graph's own (`graphs/x.yaml` beside `actions/`), then the
//! graph's own folder; the index names the candidates ([`Target::File`]), since a graph
//! checked on its own loads no action.

use crate::front::xref::{self, Link, Target, Xref};
use crate::source::{Document, SourceMap, Value};
use std::path::{Path, PathBuf};

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
    provider_links(&mut x, sources, &unit.root);
    x
}

/// The folder of file `file` of `sources` (its name is its path).
fn folder(sources: &SourceMap, file: crate::source::FileId) -> Option<PathBuf> {
    let name = &crate::front::source_text(sources, file).map(|_| &sources.get(file).name)?;
    Some(Path::new(name).parent()?.to_path_buf())
}

fn graph(x: &mut Xref, sources: &SourceMap, doc: &Document) {
    let Some(text) = crate::front::source_text(sources, doc.file) else {
        return;
    };
    let v = &doc.value;
    let Some(nodes) = v.get("nodes").and_then(Value::as_array) else {
        return;
    };
    let here = folder(sources, doc.file);
    for (i, n) in nodes.iter().enumerate() {
        if let (Some(id), Some(c)) = (
            n.get("id").and_then(Value::as_str),
            doc.at(&format!("/nodes/{i}/id")),
        ) {
            x.def_within(0, id, c.node.span, text);
        }
        if let (Some(action), Some(c), Some(here)) = (
            n.get("action").and_then(Value::as_str),
            doc.at(&format!("/nodes/{i}/action")),
            &here,
        ) {
            let candidates = [here.parent(), Some(here.as_path())]
                .into_iter()
                .flatten()
                .map(|d| d.join(action))
                .collect();
            x.links.push(Link {
                span: c.node.span,
                target: Target::File(candidates),
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

/// A Provider manifest's `graphs`: each to its file, beside the manifest.
fn provider_links(x: &mut Xref, sources: &SourceMap, doc: &Document) {
    if doc.value.get("schema").and_then(Value::as_str) != Some("agent-graph.provider.v1") {
        return;
    }
    let (Some(here), Some(c)) = (folder(sources, doc.file), doc.at("/graphs")) else {
        return;
    };
    let Some(items) = c.value.as_array() else {
        return;
    };
    for (v, n) in items.iter().zip(doc.children(&c.node)) {
        if let Some(rel) = v.as_str() {
            x.links.push(Link {
                span: n.span,
                target: Target::File(vec![here.join(rel)]),
            });
        }
    }
}
