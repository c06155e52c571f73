//! Resolving many JSON pointers one after another, each from where it parts from the one
//! before.
//!
//! The checks and lowering look up the fields of one node after another: `/nodes/a/when`,
//! `/nodes/a/inputs/x/from`, `/nodes/a/inputs/y/from`, then `/nodes/b/...`. [`Document::at`]
//! walks every pointer from the root, and in a 100k-node graph the step through `nodes` is a
//! hash lookup in a 100k-entry mapping plus a key comparison, repeated for every field of every
//! node. A [`Walker`] keeps the cursors of the last pointer it resolved, token by token, and
//! starts the next pointer from the deepest of them the two pointers share: the fields of one
//! node walk only their own tokens.

use super::{Cursor, Document, unescape};
use crate::source::Span;

/// A pointer resolver that remembers its last walk (see the module docs). The answers are
/// exactly [`Document::at`]'s.
pub struct Walker<'d> {
    doc: &'d Document,
    /// The pointer whose cursors `stack` holds (a prefix of the last pointer asked: as far as
    /// it resolved).
    last: String,
    /// `stack[k]` is the cursor at `last[..ends[k]]`, after the pointer's `k + 1`-th token.
    ends: Vec<usize>,
    stack: Vec<Cursor<'d>>,
}

impl<'d> Walker<'d> {
    pub fn new(doc: &'d Document) -> Walker<'d> {
        Walker {
            doc,
            last: String::new(),
            ends: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// The key's span at a pointer if it is a mapping entry, else the value's span:
    /// [`Document::key_span`], with the walk shared with the pointers asked before.
    pub fn key_span(&mut self, pointer: &str) -> Span {
        match self.at(pointer) {
            Some(c) => c.node.key().unwrap_or(c.node.span),
            None => self.doc.span(pointer),
        }
    }

    /// The cursor at a JSON pointer (`""` is the root), if it exists: [`Document::at`].
    pub fn at(&mut self, pointer: &str) -> Option<Cursor<'d>> {
        if pointer.is_empty() {
            return Some(self.doc.root());
        }
        if !pointer.starts_with('/') {
            return None;
        }
        // Keep the cursors of the tokens both pointers share, whole tokens only.
        let shared = self
            .last
            .bytes()
            .zip(pointer.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let keep = self.ends.iter().rposition(|&end| {
            end <= shared && (end == pointer.len() || pointer.as_bytes()[end] == b'/')
        });
        let kept = keep.map_or(0, |k| k + 1);
        self.ends.truncate(kept);
        self.stack.truncate(kept);
        let from = self.ends.last().copied().unwrap_or(0);
        self.last.truncate(from);
        let mut c = self
            .stack
            .last()
            .copied()
            .unwrap_or_else(|| self.doc.root());
        if from == pointer.len() {
            return Some(c);
        }
        // `pointer[from..]` starts with `/`: walk its tokens, remembering each step.
        let mut end = from;
        for raw in pointer[from + 1..].split('/') {
            c = c.child(&unescape(raw))?;
            self.last.push('/');
            self.last.push_str(raw);
            end += 1 + raw.len();
            self.ends.push(end);
            self.stack.push(c);
        }
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, Limits};

    fn doc(text: &str) -> Document {
        crate::source::yaml::load(FileId(0), text, 0, Limits::default())
            .doc
            .expect("a document")
    }

    /// Every pointer of a document and many that are not in it, asked in an order that
    /// climbs up, down and sideways (and repeats itself), get [`Document::at`]'s answer.
    #[test]
    fn every_walk_matches_a_walk_from_the_root() {
        let text = "\
nodes:
  a: {when: x, inputs: {p: {from: y}, q: {template: z}}}
  a/b: {x~y: [1, {k: v}], '': empty}
  b: {inputs: {p: {from: w}}}
list: [[0, 1], {a: [2]}]
'': {'': deep}
";
        let d = doc(text);
        let pointers = [
            "",
            "/nodes",
            "/nodes/a",
            "/nodes/a/when",
            "/nodes/a/inputs/p/from",
            "/nodes/a/inputs/q/template",
            "/nodes/a/inputs/p",
            "/nodes/a/inputs/pp/from",
            "/nodes/a~1b/x~0y/1/k",
            "/nodes/a~1b/x~0y/0",
            "/nodes/a~1b/",
            "/nodes/a~1b/x~0y/2",
            "/nodes/ab",
            "/nodes/a",
            "/nodes/b/inputs/p/from",
            "/nodes/b/inputs/p/fro",
            "/nodes/b/inputs/p/from/x",
            "/list/0/1",
            "/list/01",
            "/list/1/a/0",
            "/list/1/a/0/",
            "//",
            "/",
            "nodes",
            "/nodes/",
            "/nodes/b",
        ];
        let mut walker = Walker::new(&d);
        for round in 0..3 {
            for (i, p) in pointers.iter().enumerate() {
                // Round 1 goes backwards, round 2 jumps around.
                let p = match round {
                    0 => p,
                    1 => pointers[pointers.len() - 1 - i],
                    _ => pointers[i * 7 % pointers.len()],
                };
                let want = d.at(p).map(|c| (c.value as *const _, c.node));
                let got = walker.at(p).map(|c| (c.value as *const _, c.node));
                assert_eq!(got, want, "round {round}, {p:?}");
                // Key spans too, with the nearest ancestor's span for a missing pointer.
                assert_eq!(walker.key_span(p), d.key_span(p), "round {round}, {p:?}");
            }
        }
    }
}
