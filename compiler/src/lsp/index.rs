//! What a check tells about the nodes of the document it checked, kept for the requests:
//! each node's ids, kind, title, ports with their types, place in the file and enclosing
//! region, from the lowered IR ([`crate::ir::Graph`] and its span side table).
//!
//! The IR exists only for a document that checks without errors, so the outline and hover on
//! a node answer for such a document; while it has errors they answer nothing rather than from
//! a stale check whose byte offsets no longer match the text.
//!
//! [`Refs`] is the check's reference index ([`crate::front::xref`]) in the document's own
//! bytes, with its links placed in the files they lead to: what definition, references and
//! rename answer from, errors or not.

use crate::ir::{Graph, NodeKind};
use crate::source::FileId;

/// One node of the document, in IR order.
#[derive(Clone, Debug)]
pub struct NodeInfo {
    pub scoped_id: String,
    pub local_id: String,
    pub kind: NodeKind,
    /// The dialect's own name for the kind.
    pub origin_kind: String,
    pub title: Option<String>,
    /// `(name, type, required)`.
    pub inputs: Vec<(String, String, bool)>,
    pub outputs: Vec<(String, String, bool)>,
    /// The node's bytes in the document.
    pub start: usize,
    pub end: usize,
    /// The node owning the region this node is in (an index into [`Index::nodes`]).
    pub parent: Option<usize>,
}

/// The nodes of one checked document.
#[derive(Clone, Debug, Default)]
pub struct Index {
    pub nodes: Vec<NodeInfo>,
}

impl Index {
    /// The nodes of `graphs` written in `file` (a node pulled in from another file, a
    /// `subgraph.ref` body, is not in this document).
    pub fn new<'g>(graphs: impl IntoIterator<Item = &'g Graph>, file: FileId) -> Index {
        let mut nodes = Vec::new();
        for g in graphs {
            let base = nodes.len();
            // IR node id → index in `nodes`, for the parents.
            let mut at = vec![None; g.nodes.len()];
            for (i, n) in g.nodes.iter().enumerate() {
                let span = g.spans.nodes[i];
                if span.file != file {
                    continue;
                }
                at[i] = Some(nodes.len());
                let ports = |ps: &mut dyn Iterator<Item = (String, String, bool)>| ps.collect();
                nodes.push(NodeInfo {
                    scoped_id: n.scoped_id.to_string(),
                    local_id: n.local_id.to_string(),
                    kind: n.kind,
                    origin_kind: n.origin_kind.to_string(),
                    title: n.title.as_deref().map(str::to_string),
                    inputs: ports(
                        &mut n
                            .inputs
                            .iter()
                            .map(|p| (p.name.to_string(), p.ty.to_string(), p.required)),
                    ),
                    outputs: ports(
                        &mut n
                            .outputs
                            .iter()
                            .map(|p| (p.name.to_string(), p.ty.to_string(), p.required)),
                    ),
                    start: span.start as usize,
                    end: span.end as usize,
                    parent: None,
                });
            }
            for (i, n) in g.nodes.iter().enumerate() {
                let (Some(me), Some(r)) = (at[i], n.region) else {
                    continue;
                };
                let owner = g.regions[r.index()].owner.index();
                nodes[me].parent = at.get(owner).copied().flatten();
            }
            debug_assert!(nodes[base..].iter().all(|n| n.start <= n.end));
        }
        Index { nodes }
    }

    /// The innermost node whose bytes hold `offset`.
    pub fn node_at(&self, offset: usize) -> Option<&NodeInfo> {
        self.nodes
            .iter()
            .filter(|n| n.start <= offset && offset < n.end.max(n.start + 1))
            .min_by_key(|n| n.end - n.start)
    }

    /// The nodes whose id (local or scoped) is `word`, in IR order.
    pub fn named<'a>(&'a self, word: &'a str) -> impl Iterator<Item = &'a NodeInfo> + 'a {
        self.nodes
            .iter()
            .filter(move |n| n.local_id == word || n.scoped_id == word)
    }
}

/// One place a node id is written in the document (from [`crate::front::xref`]).
#[derive(Clone, Debug)]
pub struct Site {
    pub scope: u32,
    pub id: String,
    pub start: usize,
    pub end: usize,
    pub def: bool,
}

/// The reference index of one checked document, in its own bytes: the node id sites written
/// in it and its links, each with where it leads (in any file).
#[derive(Clone, Debug, Default)]
pub struct Refs {
    pub sites: Vec<Site>,
    /// `(start, end, path, range there)`.
    pub links: Vec<(usize, usize, std::path::PathBuf, lsp_types::Range)>,
}

impl Refs {
    /// The sites and links of `xref` written in `file`; link targets placed with `sources`.
    pub fn new(
        xref: &crate::front::xref::Xref,
        file: FileId,
        sources: &crate::source::SourceMap,
        enc: super::text::Encoding,
    ) -> Refs {
        let mut sites: Vec<Site> = xref
            .sites
            .iter()
            .filter(|s| s.span.file == file)
            .map(|s| Site {
                scope: s.scope,
                id: s.id.to_string(),
                start: s.span.start as usize,
                end: s.span.end as usize,
                def: s.def,
            })
            .collect();
        sites.sort_by_key(|s| (s.start, s.end, !s.def));
        sites.dedup_by_key(|s| (s.start, s.end));
        let mut links = Vec::new();
        for l in xref.links.iter().filter(|l| l.span.file == file) {
            let (start, end) = (l.span.start as usize, l.span.end as usize);
            match &l.target {
                crate::front::xref::Target::At(t) => {
                    let (Some(path), Some(src)) = (
                        super::diagnostics::file_path(sources, t.file),
                        super::diagnostics::source(sources, t.file),
                    ) else {
                        continue;
                    };
                    let lines = super::text::Lines::new(&src.text, enc);
                    let range = lines.range(t.start as usize, t.end as usize);
                    links.push((start, end, path, range));
                }
                crate::front::xref::Target::File(paths) => {
                    if let Some(p) = paths.iter().find(|p| p.is_file()) {
                        let path = crate::session::normal(p);
                        links.push((start, end, path, lsp_types::Range::default()));
                    }
                }
            }
        }
        Refs { sites, links }
    }

    /// The site holding byte `offset` (its end included: a cursor just after an id).
    pub fn site_at(&self, offset: usize) -> Option<&Site> {
        self.sites
            .iter()
            .filter(|s| s.start <= offset && offset <= s.end)
            .min_by_key(|s| (s.end - s.start, !s.def))
    }

    /// Every site naming the node `site` names, in document order.
    pub fn same_node<'a>(&'a self, site: &'a Site) -> impl Iterator<Item = &'a Site> + 'a {
        self.sites
            .iter()
            .filter(move |s| s.scope == site.scope && s.id == site.id)
    }
}
