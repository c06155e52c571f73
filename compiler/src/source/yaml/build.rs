//! Assembling values and span nodes from finished nodes, bottom up.
//!
//! Open collections keep their children on three shared stacks (span nodes, sequence items,
//! mapping entries), each frame from its own base on. Closing a collection moves its children
//! out in one piece: the values into an exactly sized `Vec` or `Map`, the span nodes to the end
//! of the document's arena, so every collection's children are contiguous there and the value
//! and span orders agree.
//!
//! A mapping refuses a duplicate key (AGC004; the later entry is dropped), a merge key (AGC007)
//! and a non-string key (AGC005); a refused key's value is dropped too. So the value map and the
//! span children always hold the same entries in the same order.

use crate::diag::Diagnostic;
use crate::source::tree::{Node, SpanNode};
use crate::source::value::map::key_hash;
use crate::source::value::{LINEAR_MAX, Map, Str, Value};
use crate::source::{FileId, Span};
use hashbrown::HashTable;

/// One finished node on its way to its parent.
pub(in crate::source) struct Built {
    pub value: Value,
    pub spans: SpanNode,
    /// Nodes in the subtree (charged again for each alias of it).
    pub count: usize,
    /// A plain scalar without a tag (`<<` is a merge key only then).
    pub plain: bool,
}

/// A mapping's state between a key and its value.
enum Slot {
    /// The next node is a key.
    Key,
    /// The key was accepted; the next node is its value.
    Value(Str, Span),
    /// The key was refused (and reported); the next node is dropped.
    Drop,
}

enum Kind {
    /// Items from `base` on in `Builder::items`.
    Seq { base: usize },
    /// Entries from `base` on in `Builder::entries`; `seen` indexes them (positions relative to
    /// `base`) once there are more than [`LINEAR_MAX`].
    Map {
        base: usize,
        slot: Slot,
        seen: Option<HashTable<u32>>,
    },
}

struct Frame {
    kind: Kind,
    /// Child span nodes from here on in `Builder::spans`.
    spans_base: usize,
    start: usize,
    /// Where the opening event ended.
    open_end: usize,
    /// Anchor id (0 for none).
    anchor: usize,
    /// Nodes in the subtree so far.
    count: usize,
}

/// The tree under construction.
///
/// Invariant: for each open mapping, `entries[base..]` and `spans[spans_base..]` are its accepted
/// entries, one span node per entry, in the same order (a sequence likewise with `items`).
#[derive(Default)]
pub(in crate::source) struct Builder {
    /// Open collections, outermost first.
    stack: Vec<Frame>,
    /// Span nodes of the open collections' children.
    spans: Vec<Node>,
    /// Items of the open sequences.
    items: Vec<Value>,
    /// Entries of the open mappings.
    entries: Vec<(Str, Value)>,
    /// The arena: children of closed collections, one contiguous slice per collection.
    pub nodes: Vec<Node>,
    /// The finished top-level node.
    pub root: Option<Built>,
}

impl Builder {
    /// Open collections.
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Whether anchor `id` (not 0) is on a collection still open: an alias to it would be
    /// inside the node it names.
    pub fn anchor_is_open(&self, id: usize) -> bool {
        id != 0 && self.stack.iter().any(|f| f.anchor == id)
    }

    /// The open collection `i` levels in (0: the outermost): whether it is a mapping, and the
    /// byte it starts at.
    pub fn frame(&self, i: usize) -> Option<(bool, usize)> {
        self.stack
            .get(i)
            .map(|f| (matches!(f.kind, Kind::Map { .. }), f.start))
    }

    /// Appends to the innermost open collection the children of `part`: a collection of the
    /// same kind that another builder finished from the text that follows (module `split`),
    /// whose arena is `nodes`. Its arena goes to the end of this one, as the sequential load
    /// would have closed those collections here, and its children go through [`Builder::push`]
    /// (a mapping's keys are checked against the entries before them). `false`, changing
    /// nothing, when the kinds differ or `part` was not the last collection its builder closed.
    pub fn splice(
        &mut self,
        file: FileId,
        part: Built,
        mut nodes: Vec<Node>,
        diags: &mut Vec<Diagnostic>,
    ) -> bool {
        let Some(top) = self.stack.last() else {
            return false;
        };
        let range = part.spans.arena_range();
        let fits = match (&top.kind, &part.value) {
            (Kind::Seq { .. }, Value::Array(items)) => items.len() == range.len(),
            (Kind::Map { .. }, Value::Object(map)) => map.len() == range.len(),
            _ => false,
        };
        if !fits || range.end != nodes.len() || part.count == 0 {
            return false;
        }
        let children = nodes.split_off(range.start);
        let base = u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes");
        self.nodes
            .extend(nodes.into_iter().map(|n| n.rebased(base)));
        let view = |n: Node| n.rebased(base).view(file);
        match part.value {
            Value::Array(items) => {
                for (value, n) in items.into_vec().into_iter().zip(children) {
                    let spans = view(n);
                    self.push(built(value, spans), diags);
                }
            }
            Value::Object(map) => {
                for ((name, value), n) in map.into_entries().into_vec().into_iter().zip(children) {
                    let spans = view(n);
                    let at = spans.key().unwrap_or(spans.span);
                    let key = SpanNode::leaf(at, crate::source::tree::ScalarStyle::Plain);
                    self.push(built(Value::String(name), key), diags);
                    self.push(built(value, spans), diags);
                }
            }
            _ => unreachable!("checked above"),
        }
        // The children came in without their subtrees' counts; the part's frame had them.
        if let Some(top) = self.stack.last_mut() {
            top.count += part.count - 1;
        }
        true
    }

    pub fn open(&mut self, is_map: bool, start: usize, open_end: usize, anchor: usize) {
        let kind = if is_map {
            Kind::Map {
                base: self.entries.len(),
                slot: Slot::Key,
                seen: None,
            }
        } else {
            Kind::Seq {
                base: self.items.len(),
            }
        };
        self.stack.push(Frame {
            kind,
            spans_base: self.spans.len(),
            start,
            open_end,
            anchor,
            count: 1,
        });
    }

    /// Closes the innermost collection, whose end event starts at `end_start`; returns it and
    /// its anchor id (0 for none).
    pub fn close(&mut self, file: FileId, text: &str, end_start: usize) -> (Built, usize) {
        let frame = self.stack.pop().expect("parser balances collection events");
        let first = u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes");
        let children = &self.spans[frame.spans_base..];
        let len = children.len() as u32;
        // Flow collections end at their closing bracket (the end event's token); block ones at
        // their last child.
        let is_map = matches!(frame.kind, Kind::Map { .. });
        let close = if is_map { '}' } else { ']' };
        let end = if text[end_start.min(text.len())..].starts_with(close) {
            end_start + 1
        } else {
            children
                .last()
                .map_or(frame.open_end, |c| c.end() as usize)
                .max(frame.open_end)
        };
        self.move_to_arena(frame.spans_base);
        // The outermost open collection of its kind owns its stack from 0: the stack becomes
        // its value (shrunk in place) rather than being copied, so a large collection is not
        // held twice at its close.
        let value = match frame.kind {
            Kind::Seq { base: 0 } => Value::Array(std::mem::take(&mut self.items).into()),
            Kind::Seq { base } => Value::Array(self.items.drain(base..).collect()),
            Kind::Map { base: 0, seen, .. } => Value::Object(Map::with_table(
                std::mem::take(&mut self.entries).into(),
                seen,
            )),
            Kind::Map { base, seen, .. } => {
                Value::Object(Map::with_table(self.entries.drain(base..).collect(), seen))
            }
        };
        let built = Built {
            value,
            spans: SpanNode::collection(Span::new(file, frame.start, end), first, len),
            count: frame.count,
            plain: false,
        };
        (built, frame.anchor)
    }

    /// Moves the span nodes from `base` on (a closing collection's children) to the end of the
    /// arena. When they outnumber the arena and what lies below them on the stack, the stack
    /// becomes the arena instead: the arena's nodes move in front of the children, in place
    /// when the stack has room, and the few nodes below go to a fresh stack. So a large
    /// collection's span nodes are never held twice (a flow list of 1M scalars held 24 MB on
    /// the stack and 24 MB in the arena at its close). Linear: each time, the arena at least
    /// doubles and the nodes copied are at most three times the children moved.
    fn move_to_arena(&mut self, base: usize) {
        let moved = self.spans.len() - base;
        if moved >= SWAP_MIN && moved > self.nodes.len() && moved > base {
            let below = self.spans[..base].to_vec();
            let mut stack = std::mem::replace(&mut self.spans, below);
            stack.drain(..base);
            stack.splice(0..0, self.nodes.drain(..));
            self.nodes = stack;
        } else {
            self.nodes.extend(self.spans.drain(base..));
            shrink(&mut self.spans);
        }
    }

    /// Attaches a finished node to the innermost collection (or makes it the root).
    pub fn push(&mut self, built: Built, diags: &mut Vec<Diagnostic>) {
        let Some(top) = self.stack.last_mut() else {
            self.root = Some(built);
            return;
        };
        match &mut top.kind {
            Kind::Seq { .. } => {
                top.count += built.count;
                self.items.push(built.value);
                self.spans.push(Node::pack(&built.spans));
            }
            Kind::Map { base, slot, seen } => match std::mem::replace(slot, Slot::Key) {
                Slot::Key => {
                    *slot = match key_slot(built, diags) {
                        Slot::Value(k, kspan) => {
                            let entries = &self.entries[*base..];
                            let dup = match seen {
                                None => entries.iter().position(|e| e.0 == k),
                                Some(seen) => seen
                                    .find(key_hash(&k), |&i| entries[i as usize].0 == k)
                                    .map(|&i| i as usize),
                            };
                            match dup {
                                Some(i) => {
                                    let prev = self.spans[top.spans_base + i].view(kspan.file);
                                    diags.push(
                                        Diagnostic::error("AGC004", format!("duplicate key `{k}`"))
                                            .at(kspan)
                                            .with_label(prev.key().unwrap_or(prev.span), "first defined here")
                                            .with_help("keys of a mapping must be unique; remove or rename one"),
                                    );
                                    Slot::Drop
                                }
                                None => Slot::Value(k, kspan),
                            }
                        }
                        other => other,
                    }
                }
                Slot::Drop => {}
                Slot::Value(k, kspan) => {
                    top.count += built.count;
                    self.spans.push(Node::pack(&built.spans.with_key(kspan)));
                    self.entries.push((k, built.value));
                    let entries = &self.entries[*base..];
                    let hash = |i: &u32| key_hash(&entries[*i as usize].0);
                    if let Some(seen) = seen {
                        let i = entries.len() as u32 - 1;
                        seen.insert_unique(hash(&i), i, hash);
                    } else if entries.len() > LINEAR_MAX {
                        let mut table = HashTable::with_capacity(entries.len() * 2);
                        for i in 0..entries.len() as u32 {
                            table.insert_unique(hash(&i), i, hash);
                        }
                        *seen = Some(table);
                    }
                }
            },
        }
    }
}

/// A spliced child: its subtree's count is charged to its collection as a whole.
fn built(value: Value, spans: SpanNode) -> Built {
    Built {
        value,
        spans,
        count: 0,
        plain: false,
    }
}

/// What a node in key position makes of the mapping's slot: `Value` for an acceptable key,
/// `Drop` (reported) for a merge key or a key that is not a string.
fn key_slot(built: Built, diags: &mut Vec<Diagnostic>) -> Slot {
    let kspan = built.spans.span;
    match built.value {
        Value::String(k) if built.plain && k == "<<" => {
            diags.push(
                Diagnostic::error("AGC007", "merge keys (`<<`) are not supported")
                    .at(kspan)
                    .with_help("YAML 1.2 has no merge keys; write the fields out"),
            );
            Slot::Drop
        }
        Value::String(k) => Slot::Value(k, kspan),
        other => {
            let what = match other {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                Value::Array(_) => "a sequence",
                Value::Object(_) => "a mapping",
                Value::String(_) => unreachable!(),
            };
            let help = if matches!(other, Value::Array(_) | Value::Object(_)) {
                "use a string key"
            } else {
                "quote the key to make it a string"
            };
            diags.push(
                Diagnostic::error("AGC005", format!("mapping key is {what}, not a string"))
                    .at(kspan)
                    .with_help(help),
            );
            Slot::Drop
        }
    }
}

/// Children from which a closing collection's span stack may become the arena (below this,
/// copying them is cheaper than rearranging).
const SWAP_MIN: usize = 4096;

/// Gives back the memory of a stack that held a large collection's children: it is kept for
/// reuse only while it is at most four times what is left on it (and a few pages).
fn shrink<T>(stack: &mut Vec<T>) {
    let keep = stack.len().max(4096);
    if stack.capacity() > 4 * keep {
        stack.shrink_to(keep);
    }
}
