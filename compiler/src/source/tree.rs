//! A loaded document: a [`Value`] plus a span tree of the same shape.
//!
//! The span tree mirrors the value node for node: a collection's [`SpanNode`] has one child per
//! sequence item or mapping entry, in the value's order (a [`super::Map`] keeps its entries in
//! document order). The children of each collection lie side by side in one arena owned by the
//! [`Document`], so a node costs no allocation of its own. The arena holds `Node`s of 24 bytes:
//! no file (the document has it), and a scalar's style where a collection keeps its first
//! child's index. Readers get a [`SpanNode`], the node with its file, by value. Mapping keys
//! are not stored again: a key's position is found in the value's map, which is why lookups
//! walk the value and the span tree together. A JSON pointer resolves in `O(depth)`
//! (times a short scan of small mappings), with no per-node pointer strings kept in memory.

pub mod walk;

use super::value::Value;

pub(crate) use super::pointer::unescape;
pub use super::pointer::{escape_token, unescape_token};
use super::{FileId, Span};

/// How a scalar was written; expression spans inside strings need it (escapes, folding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScalarStyle {
    #[default]
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

/// `key_start` of a node that is no mapping entry's value (no file reaches 4 GiB: spans are
/// `u32` offsets).
const NO_KEY: u32 = u32::MAX;

/// Spans of one value and, when it is a mapping entry, of its key: a node of the arena as
/// readers see it, with the document's file.
///
/// Its children (sequence items or mapping entries, in the value's order) are the arena slice
/// `first..first + len` of the [`Document`]; reach them through [`Document::children`] or a
/// [`Cursor`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpanNode {
    /// The value's span (for collections, from the first to the last character).
    pub span: Span,
    /// The key's byte range when this value is a mapping entry's; `key_start == NO_KEY` if not.
    key_start: u32,
    key_end: u32,
    first: u32,
    len: u32,
    /// The scalar style, for scalars.
    pub style: ScalarStyle,
}

impl Default for SpanNode {
    fn default() -> SpanNode {
        SpanNode::leaf(Span::default(), ScalarStyle::Plain)
    }
}

impl SpanNode {
    /// A node without children or key.
    pub(crate) fn leaf(span: Span, style: ScalarStyle) -> SpanNode {
        SpanNode::collection(span, 0, 0).with_style(style)
    }

    /// A collection node whose children are the arena slice `first..first + len` (`first` is
    /// kept only when there are children: `Node` has no room for it otherwise).
    pub(crate) fn collection(span: Span, first: u32, len: u32) -> SpanNode {
        SpanNode {
            span,
            key_start: NO_KEY,
            key_end: 0,
            first: if len > 0 { first } else { 0 },
            len,
            style: ScalarStyle::Plain,
        }
    }

    fn with_style(mut self, style: ScalarStyle) -> SpanNode {
        self.style = style;
        self
    }

    /// This node as the value of a mapping entry whose key is at `key`.
    pub(crate) fn with_key(mut self, key: Span) -> SpanNode {
        debug_assert_eq!(key.file, self.span.file);
        self.key_start = key.start;
        self.key_end = key.end;
        self
    }

    /// The key's span, when this value is the value of a mapping entry.
    pub fn key(&self) -> Option<Span> {
        (self.key_start != NO_KEY).then_some(Span {
            file: self.span.file,
            start: self.key_start,
            end: self.key_end,
        })
    }

    /// Where the node's children are in its arena.
    pub(in crate::source) fn arena_range(&self) -> std::ops::Range<usize> {
        let first = self.first as usize;
        first..first + self.len as usize
    }

    /// How many children the node has (items or entries; 0 for scalars).
    pub fn child_count(&self) -> usize {
        self.len as usize
    }
}

/// A [`SpanNode`] as the arena stores it: 24 bytes, one per value of the document.
///
/// The file is the document's. A node without children needs no child index, so `first` holds
/// its [`ScalarStyle`] then (a collection's style is always `Plain`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::source) struct Node {
    start: u32,
    end: u32,
    /// The key's byte range when this value is a mapping entry's; `key_start == NO_KEY` if not.
    key_start: u32,
    key_end: u32,
    /// The first child's arena index when `len > 0`, else the style (`ScalarStyle as u32`).
    first: u32,
    len: u32,
}

impl Node {
    /// The arena form of `n`, whose file must be the document's.
    pub(in crate::source) fn pack(n: &SpanNode) -> Node {
        debug_assert!(n.len == 0 || n.style == ScalarStyle::Plain);
        Node {
            start: n.span.start,
            end: n.span.end,
            key_start: n.key_start,
            key_end: n.key_end,
            first: if n.len > 0 { n.first } else { n.style as u32 },
            len: n.len,
        }
    }

    /// The node with the document's `file`.
    pub(in crate::source) fn view(&self, file: FileId) -> SpanNode {
        let (first, style) = if self.len > 0 {
            (self.first, ScalarStyle::Plain)
        } else {
            (0, ScalarStyle::from_index(self.first))
        };
        SpanNode {
            span: Span {
                file,
                start: self.start,
                end: self.end,
            },
            key_start: self.key_start,
            key_end: self.key_end,
            first,
            len: self.len,
            style,
        }
    }

    /// The node of an arena appended at `base` of another: its children's index moved along.
    pub(in crate::source) fn rebased(mut self, base: u32) -> Node {
        if self.len > 0 {
            self.first += base;
        }
        self
    }

    /// Where the value ends (byte offset).
    pub(in crate::source) fn end(&self) -> u32 {
        self.end
    }
}

impl ScalarStyle {
    /// The style of index `i` (`style as u32`); only ever given an index taken from a style.
    fn from_index(i: u32) -> ScalarStyle {
        const ALL: [ScalarStyle; 5] = [
            ScalarStyle::Plain,
            ScalarStyle::SingleQuoted,
            ScalarStyle::DoubleQuoted,
            ScalarStyle::Literal,
            ScalarStyle::Folded,
        ];
        debug_assert!((i as usize) < ALL.len());
        ALL.get(i as usize).copied().unwrap_or_default()
    }
}

/// A document loaded from YAML or JSON.
///
/// Invariant: `value` and `spans` are as the loader built them; span lookups walk both, so a
/// changed `value` would misplace spans (never panic).
#[derive(Clone, Debug)]
pub struct Document {
    pub file: FileId,
    pub value: Value,
    /// The root's span node.
    pub spans: SpanNode,
    /// The arena: every collection's children, one contiguous slice per collection.
    nodes: Box<[Node]>,
}

/// A position in a [`Document`]: a value and its span node, moved down one token at a time.
#[derive(Clone, Copy, Debug)]
pub struct Cursor<'d> {
    doc: &'d Document,
    pub value: &'d Value,
    pub node: SpanNode,
}

impl<'d> Cursor<'d> {
    /// The child at one (unescaped) pointer token: a sequence index or a mapping key.
    pub fn child(&self, token: &str) -> Option<Cursor<'d>> {
        let (i, value) = match self.value {
            Value::Array(items) => {
                let i = token.parse::<usize>().ok()?;
                (i, items.get(i)?)
            }
            Value::Object(map) => map.get_full(token)?,
            _ => return None,
        };
        Some(Cursor {
            doc: self.doc,
            value,
            node: self.doc.arena(&self.node).get(i)?.view(self.doc.file),
        })
    }
}

impl Document {
    /// Assembles a document; `nodes` must be the arena `spans` and `value` were built with.
    pub(in crate::source) fn new(
        file: FileId,
        value: Value,
        spans: SpanNode,
        nodes: Vec<Node>,
    ) -> Document {
        Document {
            file,
            value,
            spans,
            nodes: nodes.into_boxed_slice(),
        }
    }

    /// The root's cursor.
    pub fn root(&self) -> Cursor<'_> {
        Cursor {
            doc: self,
            value: &self.value,
            node: self.spans,
        }
    }

    /// The cursor at a JSON pointer (`""` is the root), if it exists.
    pub fn at(&self, pointer: &str) -> Option<Cursor<'_>> {
        let mut c = self.root();
        if pointer.is_empty() {
            return Some(c);
        }
        for raw in pointer.strip_prefix('/')?.split('/') {
            c = c.child(&unescape(raw))?;
        }
        Some(c)
    }

    /// The children of a node of this document (items or entries, in the value's order).
    pub fn children(
        &self,
        node: &SpanNode,
    ) -> impl DoubleEndedIterator<Item = SpanNode> + ExactSizeIterator + '_ {
        self.arena(node).iter().map(|n| n.view(self.file))
    }

    /// A node's children as the arena stores them.
    fn arena(&self, node: &SpanNode) -> &[Node] {
        let first = node.first as usize;
        self.nodes
            .get(first..first + node.len as usize)
            .unwrap_or_default()
    }

    /// The span node at a JSON pointer (`""` is the root), if it exists.
    pub fn node(&self, pointer: &str) -> Option<SpanNode> {
        self.at(pointer).map(|c| c.node)
    }

    /// The value's span at a pointer; falls back to the nearest existing ancestor.
    pub fn span(&self, pointer: &str) -> Span {
        let mut p = pointer;
        loop {
            if let Some(n) = self.node(p) {
                return n.span;
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return self.spans.span,
            }
        }
    }

    /// The key's span at a pointer if it is a mapping entry, else the value's span.
    pub fn key_span(&self, pointer: &str) -> Span {
        match self.node(pointer) {
            Some(n) => n.key().unwrap_or(n.span),
            None => self.span(pointer),
        }
    }

    /// Pointer of a child: `parent` + `/` + escaped token.
    pub fn child_pointer(parent: &str, token: &str) -> String {
        format!("{parent}/{}", escape_token(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arena_node_is_24_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 24);
    }

    /// Packing drops only the file, which the view takes back: every style of scalar, with and
    /// without a key, and collections with and without children come back as they were.
    #[test]
    fn a_packed_node_comes_back_whole() {
        let file = FileId(7);
        let span = Span::new(file, 10, 20);
        let key = Span::new(file, 3, 8);
        let styles = [
            ScalarStyle::Plain,
            ScalarStyle::SingleQuoted,
            ScalarStyle::DoubleQuoted,
            ScalarStyle::Literal,
            ScalarStyle::Folded,
        ];
        let mut nodes: Vec<SpanNode> = styles.iter().map(|&s| SpanNode::leaf(span, s)).collect();
        nodes.push(SpanNode::collection(span, 0, 0));
        nodes.push(SpanNode::collection(span, 5, 0));
        nodes.push(SpanNode::collection(span, 0, 3));
        nodes.push(SpanNode::collection(span, u32::MAX - 1, 1));
        nodes.push(SpanNode::collection(span, 4, u32::MAX));
        for n in nodes.clone() {
            nodes.push(n.with_key(key));
        }
        for n in nodes {
            let back = Node::pack(&n).view(file);
            assert_eq!(back, n);
            assert_eq!(
                (back.span, back.key(), back.style),
                (n.span, n.key(), n.style)
            );
        }
    }
}
