//! A loaded document: a `serde_json::Value` plus a span tree of the same shape.
//!
//! The span tree mirrors the value node for node (mapping entries keyed and in the same order),
//! so a JSON pointer resolves in `O(depth)`, with no per-node pointer strings kept in memory.

use super::{FileId, Span};
use indexmap::IndexMap;
use serde_json::Value;

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

/// Spans of one value and, when it is a mapping entry, of its key.
#[derive(Clone, Debug, Default)]
pub struct SpanNode {
    /// The value's span (for collections, from the first to the last character).
    pub span: Span,
    /// The key's span, when this value is the value of a mapping entry.
    pub key: Option<Span>,
    /// The scalar style, for scalars.
    pub style: ScalarStyle,
    /// Children: sequence items, or mapping entries in key order.
    pub children: Children,
}

/// The span nodes below a collection.
#[derive(Clone, Debug, Default)]
pub enum Children {
    #[default]
    None,
    Seq(Vec<SpanNode>),
    Map(IndexMap<String, SpanNode>),
}

impl SpanNode {
    /// The child at one (unescaped) pointer token.
    pub fn child(&self, token: &str) -> Option<&SpanNode> {
        match &self.children {
            Children::None => None,
            Children::Seq(items) => items.get(token.parse::<usize>().ok()?),
            Children::Map(map) => map.get(token),
        }
    }
}

/// A document loaded from YAML or JSON.
#[derive(Clone, Debug)]
pub struct Document {
    pub file: FileId,
    pub value: Value,
    pub spans: SpanNode,
}

/// Decodes one RFC 6901 reference token.
pub fn unescape_token(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// Encodes one RFC 6901 reference token.
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

impl Document {
    /// The span node at a JSON pointer (`""` is the root), if it exists.
    pub fn node(&self, pointer: &str) -> Option<&SpanNode> {
        if pointer.is_empty() {
            return Some(&self.spans);
        }
        let mut node = &self.spans;
        for raw in pointer.strip_prefix('/')?.split('/') {
            node = node.child(&unescape_token(raw))?;
        }
        Some(node)
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
            Some(n) => n.key.unwrap_or(n.span),
            None => self.span(pointer),
        }
    }

    /// Pointer of a child: `parent` + `/` + escaped token.
    pub fn child_pointer(parent: &str, token: &str) -> String {
        format!("{parent}/{}", escape_token(token))
    }
}
