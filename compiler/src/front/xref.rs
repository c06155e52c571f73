//! The reference index of a checked document ([`Xref`]): where each node id is declared and
//! every place it is used, on the exact bytes of the id.
//!
//! Each front end fills it from what its checks already walked and parsed
//! ([`super::FrontEnd::xref`]): declarations (node keys, `id:` fields), structural uses (edges,
//! `depends_on`, `from`, entrypoints, switch targets, branches, region bodies) and the reads
//! its expression parsers resolved (AGX `${{ }}`, CEL, `{{ }}` templates, fact checks), whose
//! spans the parsers give per core node. A read's span covers its whole path
//! (`nodes.a.outputs.b`); [`Xref::used_within`] narrows it to the id's own bytes when they
//! are written there as the id (not escaped), so that a rename can replace exactly them.
//!
//! Ids live in scopes (an AGS fragment or region body, an agh nested graph): a [`Site`]'s
//! `scope` is the front end's number for it within its file, and two sites name the same
//! node when file, scope and id agree. [`Link`]s are the other references a document makes:
//! a `subgraph.ref` file, an Agent Graph action or graph, an agh tool id, each with the place
//! it leads to (in another file, or the same) or the file it names.
//!
//! The index is built whether or not the document has errors: an editor renames and
//! navigates while typing. Nothing here panics on a malformed document.

use crate::source::{Document, Span};

/// One place a node id is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// The front end's number of the scope the id lives in (within `span.file`).
    pub scope: u32,
    pub id: Box<str>,
    /// The id's own bytes.
    pub span: Span,
    /// Whether this is the declaration (a node's key or `id:` value).
    pub def: bool,
}

/// A reference to something other than a node id: where it is written and where it leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub span: Span,
    pub target: Target,
}

/// Where a [`Link`] leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A place in a file the check loaded.
    At(Span),
    /// A file the check did not load (an Agent Graph action named by a graph checked on its
    /// own): the first of these paths that is a file, as resolved against the folders the
    /// dialect looks in.
    File(Vec<std::path::PathBuf>),
}

/// The reference index of one check: every [`Site`] and [`Link`], in no particular order.
#[derive(Clone, Debug, Default)]
pub struct Xref {
    pub sites: Vec<Site>,
    pub links: Vec<Link>,
}

impl Xref {
    /// Declares `id` in `scope` at `span` (the id's own bytes).
    pub fn def(&mut self, scope: u32, id: &str, span: Span) {
        self.push(scope, id, span, true);
    }

    /// A use of `id` in `scope` at `span`.
    pub fn used(&mut self, scope: u32, id: &str, span: Span) {
        self.push(scope, id, span, false);
    }

    fn push(&mut self, scope: u32, id: &str, span: Span, def: bool) {
        if id.is_empty() || span.start > span.end {
            return;
        }
        self.sites.push(Site {
            scope,
            id: id.into(),
            span,
            def,
        });
    }

    /// A use of `id` somewhere inside `within` (an expression's path, a quoted scalar) of
    /// `text`: recorded at the first place the id is written there whole (not part of a longer
    /// name); nothing when it is not written as such (escaped, or `self.outputs`, which names
    /// the node without writing its id).
    pub fn used_within(&mut self, scope: u32, id: &str, within: Span, text: &str) {
        if let Some(span) = narrow(text, within, id) {
            self.used(scope, id, span);
        }
    }

    /// A declaration whose id is written somewhere inside `within` (a key, quoted or not).
    pub fn def_within(&mut self, scope: u32, id: &str, within: Span, text: &str) {
        if let Some(span) = narrow(text, within, id) {
            self.def(scope, id, span);
        }
    }

    /// The site whose bytes hold `offset` of `file` (its end included, where a cursor after
    /// the last character is).
    pub fn site_at(&self, file: crate::source::FileId, offset: usize) -> Option<&Site> {
        let offset = offset as u32;
        self.sites
            .iter()
            .filter(|s| s.span.file == file && s.span.start <= offset && offset <= s.span.end)
            .min_by_key(|s| (s.span.end - s.span.start, !s.def))
    }

    /// The link whose bytes hold `offset` of `file`.
    pub fn link_at(&self, file: crate::source::FileId, offset: usize) -> Option<&Link> {
        let offset = offset as u32;
        self.links
            .iter()
            .filter(|l| l.span.file == file && l.span.start <= offset && offset <= l.span.end)
            .min_by_key(|l| l.span.end - l.span.start)
    }

    /// Every site naming the node `site` names (itself included), in file order.
    pub fn same_node(&self, site: &Site) -> Vec<&Site> {
        let mut all: Vec<&Site> = self
            .sites
            .iter()
            .filter(|s| s.span.file == site.span.file && s.scope == site.scope && s.id == site.id)
            .collect();
        all.sort_by_key(|s| (s.span.start, s.span.end));
        all.dedup_by_key(|s| (s.span.start, s.span.end));
        all
    }

    /// The declarations in `scope` of `file`.
    pub fn defs_in(
        &self,
        file: crate::source::FileId,
        scope: u32,
    ) -> impl Iterator<Item = &Site> + '_ {
        self.sites
            .iter()
            .filter(move |s| s.def && s.span.file == file && s.scope == scope)
    }
}

/// The bytes of `id` inside `within` of `text`: all of it when it is exactly the id, its
/// inside when it is the id quoted, else the first occurrence of the id as a whole name.
pub fn narrow(text: &str, within: Span, id: &str) -> Option<Span> {
    let (start, end) = (within.start as usize, within.end as usize);
    let slice = text.get(start..end)?;
    if id.is_empty() {
        return None;
    }
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let mut from = 0;
    while let Some(i) = slice[from..].find(id) {
        let at = from + i;
        let before = slice[..at].chars().next_back();
        let after = slice[at + id.len()..].chars().next();
        if !before.is_some_and(is_name) && !after.is_some_and(is_name) {
            let s = start + at;
            return Some(Span::new(within.file, s, s + id.len()));
        }
        from = at + id.len().max(1);
        if from >= slice.len() {
            break;
        }
    }
    None
}

/// Records the string at `ptr` of `doc` as a use of its value (a node id) in `scope`.
pub fn use_at(x: &mut Xref, doc: &Document, text: &str, scope: u32, ptr: &str) {
    if let Some(c) = doc.at(ptr)
        && let Some(id) = c.value.as_str()
    {
        x.used_within(scope, id, c.node.span, text);
    }
}

/// Records every string item of the array at `ptr` as a use.
pub fn uses_at(x: &mut Xref, doc: &Document, text: &str, scope: u32, ptr: &str) {
    let Some(c) = doc.at(ptr) else { return };
    let Some(items) = c.value.as_array() else {
        // A single string where a list is allowed.
        if let Some(id) = c.value.as_str() {
            x.used_within(scope, id, c.node.span, text);
        }
        return;
    };
    for (v, n) in items.iter().zip(doc.children(&c.node)) {
        if let Some(id) = v.as_str() {
            x.used_within(scope, id, n.span, text);
        }
    }
}

/// Records every key of the mapping at `ptr` as a declaration in `scope`.
pub fn keys_at(x: &mut Xref, doc: &Document, text: &str, scope: u32, ptr: &str) {
    let Some(c) = doc.at(ptr) else { return };
    let Some(map) = c.value.as_object() else {
        return;
    };
    for ((k, _), n) in map.iter().zip(doc.children(&c.node)) {
        if let Some(key) = n.key() {
            x.def_within(scope, k, key, text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    #[test]
    fn narrowing_finds_the_whole_id_only() {
        let text = "x: nodes.ab.outputs.a + nodes.a.outputs.b";
        let all = Span::new(FileId(0), 3, text.len());
        let s = narrow(text, all, "a").unwrap();
        assert_eq!(&text[s.start as usize..s.end as usize], "a");
        // The first whole `a`: not inside `ab`.
        assert_eq!(s.start as usize, text.find(".a ").unwrap() + 1);
        assert!(narrow(text, all, "zz").is_none());
        // A span past the text is nothing, not a panic.
        assert!(narrow(text, Span::new(FileId(0), 3, 999), "a").is_none());
    }

    #[test]
    fn the_same_node_is_file_scope_and_id() {
        let mut x = Xref::default();
        let f = FileId(0);
        x.def(0, "a", Span::new(f, 0, 1));
        x.used(0, "a", Span::new(f, 10, 11));
        x.used(1, "a", Span::new(f, 20, 21));
        x.used(0, "b", Span::new(f, 30, 31));
        let at = x.site_at(f, 11).unwrap().clone();
        let same: Vec<u32> = x.same_node(&at).iter().map(|s| s.span.start).collect();
        assert_eq!(same, [0, 10]);
    }
}
