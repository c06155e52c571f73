//! The YAML loader proper: saphyr's events turned into the value and span tree (see the
//! module docs of [`super`]), on one thread or with the parser on a second, and the joint
//! where a split load's middle (module `split`) is spliced back in.

use super::build::{Builder, Built};
use super::resolve::{kind_of, resolve_plain};
use crate::diag::Diagnostic;
use crate::source::tree::{Document, ScalarStyle, SpanNode};
use crate::source::value::{Str, Value};
use crate::source::{FileId, Limits, Span};
use saphyr_parser::{Event, Parser, ScalarStyle as YStyle, ScanError, Tag};
use serde_json::Number;
use std::borrow::Cow;

use crate::source::tree::Node;
use std::sync::mpsc::Receiver;

/// Converts saphyr's char indices to byte offsets.
///
/// saphyr's positions are char indices, but not always within the text: after an unknown
/// directive (`%b\x01...` with no document following) its syntax error can point a few
/// positions past the last char (fuzz finding `fuzz/regressions/load/crash-6879...`: index
/// 34 in a 31-char file, which became byte 37 of 34). Indices at or past the end map to the
/// end of the text, so every span stays inside its file.
struct CharToByte {
    /// `(char_index, extra_bytes)`: from `char_index` + 1 on, byte = char + extra.
    steps: Vec<(usize, usize)>,
    /// The text's length in chars and in bytes.
    chars: usize,
    bytes: usize,
}

impl CharToByte {
    fn new(text: &str) -> CharToByte {
        let mut steps = Vec::new();
        let mut extra = 0;
        if !text.is_ascii() {
            for (ci, ch) in text.chars().enumerate() {
                let w = ch.len_utf8();
                if w > 1 {
                    extra += w - 1;
                    steps.push((ci, extra));
                }
            }
        }
        CharToByte {
            steps,
            chars: text.len() - extra,
            bytes: text.len(),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        if char_index >= self.chars {
            return self.bytes;
        }
        // Number of steps whose char index is < char_index.
        let n = self.steps.partition_point(|&(ci, _)| ci < char_index);
        char_index + if n == 0 { 0 } else { self.steps[n - 1].1 }
    }
}

/// An anchored node, kept for its aliases (its span node shares the anchor's children).
struct Anchored {
    value: Value,
    spans: SpanNode,
    count: usize,
}

pub(super) struct Loader<'a> {
    file: FileId,
    text: &'a str,
    conv: CharToByte,
    limits: Limits,
    pub(super) diags: Vec<Diagnostic>,
    pub(super) tree: Builder,
    anchors: Vec<Option<Anchored>>,
    alias_nodes: usize,
    /// Byte offset where the previous event ended (bound for locating block scalar indicators).
    pub(super) prev_end: usize,
    /// `(at, len)`: the parsed text lacks the file's `len` bytes from body byte `at` on (the
    /// middle another thread loads, module `split`); `(usize::MAX, 0)` when it lacks none.
    pub(super) gap: (usize, usize),
    /// Where the middle's part joins this document (module `split`).
    pub(super) joint: Option<Joint<'a>>,
    /// Loading a middle on its own: an anchor, alias or tag there could mean something else
    /// in the whole file, so meeting one stops the load.
    pub(super) context_free: bool,
    /// The most collections open at once.
    pub(super) max_open: usize,
    /// A middle's `(end, next)`: an event ending at the middle's end (a block scalar) ends at
    /// `next` in the whole file, where the token after the middle starts; an empty one there
    /// (an empty value) starts at `next` too.
    pub(super) ends_at: Option<(usize, usize)>,
}

/// The spaces a text starts with.
pub(super) fn indentation(text: &str) -> usize {
    text.bytes().take_while(|&c| c == b' ').count()
}

/// Result of loading: the document, if one could be built, and every diagnostic.
pub struct Loaded {
    pub doc: Option<Document>,
    pub diags: Vec<Diagnostic>,
}

/// One item of saphyr's event stream.
type Next<'t> = Result<(Event<'t>, saphyr_parser::Span), ScanError>;

/// Events handed from the parsing thread to the building one at a time: one channel message
/// per batch, so the hand-over costs little beside parsing them.
pub(super) const BATCH: usize = 2048;

pub(super) fn load_with(
    file: FileId,
    text: &str,
    offset: usize,
    limits: Limits,
    pipelined: bool,
) -> Loaded {
    let body = &text[offset..];
    let mut l = Loader::new(file, text, body, offset, limits);
    let mut documents = 0usize;
    let fatal = if pipelined {
        std::thread::scope(|s| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Next<'_>>>(4);
            let (back, returned) = std::sync::mpsc::sync_channel::<Vec<Next<'_>>>(RETURNED);
            let parsing = std::thread::Builder::new()
                .name("agc-yaml".into())
                .spawn_scoped(s, move || produce(body, &tx, &returned));
            match parsing {
                Ok(_) => Some(l.run_batches(offset, &rx, &back, &mut documents)),
                Err(_) => None,
            }
        })
    } else {
        None
    };
    let fatal = fatal.unwrap_or_else(|| {
        let mut parser = Parser::new_from_str(body);
        std::iter::from_fn(|| parser.next_event())
            .any(|mut next| l.step(offset, &mut next, &mut documents))
    });
    l.finish(offset, fatal)
}

/// Room for batches handed back to the parsing thread (see [`produce`]): no more than six
/// batches ever exist (four in the channel, one being read, one being filled), so handing
/// one back never waits.
pub(super) const RETURNED: usize = 8;

/// The parsing thread: every event of `body`, in batches, up to the first error. Stops early
/// when the building thread has (a fatal diagnostic drops the receiver).
///
/// The building thread hands each batch back through `returned` once read, with the scalars'
/// buffers it did not keep still in it: they are freed here, where they were allocated, and
/// the batch's own buffer is filled again. Freed on the building thread, each went back to
/// this thread's allocator pages through mimalloc's cross-thread free list, which this
/// thread then had to walk to allocate its next scalar (a sixth of its time at 10k nodes).
pub(super) fn produce<'t>(
    body: &'t str,
    tx: &std::sync::mpsc::SyncSender<Vec<Next<'t>>>,
    returned: &std::sync::mpsc::Receiver<Vec<Next<'t>>>,
) {
    let fresh = || match returned.try_recv() {
        Ok(mut used) => {
            used.clear();
            used
        }
        Err(_) => Vec::with_capacity(BATCH),
    };
    let mut parser = Parser::new_from_str(body);
    let mut batch = fresh();
    while let Some(next) = parser.next_event() {
        let failed = next.is_err();
        batch.push(next);
        if failed || batch.len() == BATCH {
            let full = std::mem::replace(&mut batch, fresh());
            // An error ends the stream: the builder stops at it.
            if tx.send(full).is_err() || failed {
                return;
            }
        }
    }
    let _ = tx.send(batch);
}

impl<'a> Loader<'a> {
    /// A loader of `body` (parsed text whose first byte is the file's byte `offset`).
    pub(super) fn new(
        file: FileId,
        text: &'a str,
        body: &str,
        offset: usize,
        limits: Limits,
    ) -> Loader<'a> {
        Loader {
            file,
            text,
            conv: CharToByte::new(body),
            limits,
            diags: Vec::new(),
            tree: Builder::default(),
            anchors: Vec::new(),
            alias_nodes: 0,
            prev_end: offset,
            gap: (usize::MAX, 0),
            joint: None,
            context_free: false,
            max_open: 0,
            ends_at: None,
        }
    }

    /// Where an event spanning body bytes `s..e` of the parsed text is in the file; `None`
    /// when it spans the gap (the cut was not between two nodes).
    ///
    /// A block scalar ends where the next token starts, after the next line's indentation: one
    /// that ends at the text after the gap ends, in the whole file, at the middle's first
    /// token; and one that ends at the end of a middle parsed alone ends at the token after
    /// the middle, where an empty one there (an empty value) starts too (module `split`).
    fn place(&self, s: usize, e: usize, offset_fix: usize) -> Option<(usize, usize)> {
        let (at, len) = self.gap;
        let f = offset_fix;
        let placed = if s >= at {
            (s + len + f, e + len + f)
        } else if let Some(cut) = self.joint.as_ref().map(Joint::cut)
            && e == at + indentation(&self.text[cut.end..])
        {
            (s + f, cut.split + cut.col)
        } else if e <= at {
            (s + f, e + f)
        } else {
            return None;
        };
        Some(match self.ends_at {
            // An empty value (after `? key` or `key:`) at the middle's end starts there too;
            // one stream places it at that token (a fuzz finding).
            Some((middle_end, next)) if placed == (middle_end, middle_end) => (next, next),
            Some((middle_end, next)) if placed.1 == middle_end => (placed.0, next),
            _ => placed,
        })
    }

    /// Builds the document from the batches of [`produce`], handing each back once read;
    /// whether a fatal error stopped it.
    pub(super) fn run_batches<'t>(
        &mut self,
        offset_fix: usize,
        batches: &std::sync::mpsc::Receiver<Vec<Next<'t>>>,
        back: &std::sync::mpsc::SyncSender<Vec<Next<'t>>>,
        documents: &mut usize,
    ) -> bool {
        for mut batch in batches {
            if batch
                .iter_mut()
                .any(|next| self.step(offset_fix, next, documents))
            {
                return true;
            }
            // Never waits (see RETURNED); a batch that cannot go back is freed here.
            let _ = back.try_send(batch);
        }
        false
    }

    /// Adds one event to the document (`documents`: how many have started); whether it was
    /// fatal. A scalar's buffer is taken out of the event only where the document keeps it.
    pub(super) fn step(
        &mut self,
        offset_fix: usize,
        next: &mut Next<'_>,
        documents: &mut usize,
    ) -> bool {
        let l = self;
        let (file, text) = (l.file, l.text);
        let (event, span) = match next {
            Ok((event, span)) => (event, *span),
            Err(e) => {
                let at = l.conv.byte(e.marker().index());
                let at = l.place(at, at, offset_fix).map_or(at + offset_fix, |p| p.0);
                let end = next_char_end(text, at);
                let d = if e.info().contains("recursion limit") {
                    // saphyr's own guard on flow nesting (its scanner looks ahead, so it can
                    // trip before our depth check sees the events); same meaning as ours.
                    Diagnostic::error("AGC013", "nesting is too deep for the YAML parser")
                } else if e.info().contains("unknown anchor") {
                    Diagnostic::error("AGC015", "this alias names no anchor defined before it")
                } else {
                    Diagnostic::error("AGC003", format!("YAML syntax error: {}", e.info()))
                };
                l.diags.push(d.at(Span::new(file, at, end)));
                return true;
            }
        };
        let s = l.conv.byte(span.start.index());
        // An event across the gap, or a wrong one after it: the split does not hold, and the
        // load stops as if fatal (module `split` then loads the file in one stream).
        let Some((start, end)) = l.place(s, l.conv.byte(span.end.index()), offset_fix) else {
            return true;
        };
        let is_map = matches!(event, Event::MappingStart(..));
        if s >= l.gap.0 && l.joint.as_ref().is_some_and(|j| !j.done) {
            let close = matches!(event, Event::SequenceEnd | Event::MappingEnd);
            if !(close && l.at_joint(start)) {
                return true;
            }
        }
        if l.context_free && context_bound(event) {
            return true;
        }
        match event {
            Event::DocumentStart(_) => {
                *documents += 1;
                if *documents > 1 {
                    let span = Span::new(file, start, end.max(start + 3).min(text.len()));
                    l.diags.push(
                        Diagnostic::error("AGC008", "a second document starts here")
                            .at(span)
                            .with_help(
                                "a workflow file holds exactly one document; split the \
                                 stream into files",
                            ),
                    );
                    return true;
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                l.scalar(value, *style, *anchor, tag.as_deref(), start, end);
            }
            Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag) => {
                let anchor = *anchor;
                if let Some(tag) = tag.as_deref() {
                    let ok = if is_map { "map" } else { "seq" };
                    l.check_tag(tag, &[ok], start, end);
                }
                if l.tree.depth() >= l.limits.max_depth {
                    l.diags.push(
                        Diagnostic::error(
                            "AGC013",
                            format!("nesting is deeper than {} levels", l.limits.max_depth),
                        )
                        .at(Span::new(
                            file,
                            start,
                            next_char_end(text, start),
                        )),
                    );
                    return true;
                }
                l.tree.open(is_map, start, end, anchor);
                l.max_open = l.max_open.max(l.tree.depth());
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (built, anchor) = l.tree.close(file, text, start);
                if anchor != 0 {
                    l.remember(anchor, &built);
                }
                l.tree.push(built, &mut l.diags);
            }
            Event::Alias(id) => {
                if l.alias(*id, start, end).is_err() {
                    return true;
                }
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
        }
        l.prev_end = end;
        false
    }

    /// The loaded document (unless the stream failed or held none) and every diagnostic.
    pub(super) fn finish(mut self, offset: usize, fatal: bool) -> Loaded {
        if fatal {
            return Loaded {
                doc: None,
                diags: self.diags,
            };
        }
        let Some(root) = self
            .tree
            .root
            .take()
            .filter(|b| !(b.plain && b.value.is_null()))
        else {
            self.diags.push(
                Diagnostic::error("AGC009", "the document is empty")
                    .at(Span::point(self.file, offset))
                    .with_help("a workflow document is a mapping of fields"),
            );
            return Loaded {
                doc: None,
                diags: self.diags,
            };
        };
        Loaded {
            doc: Some(Document::new(
                self.file,
                root.value,
                root.spans,
                self.tree.nodes,
            )),
            diags: self.diags,
        }
    }
}

/// AGC011: a plain number that JSON cannot hold (the JSON reader reports it alike).
pub(crate) fn unrepresentable(raw: &str, why: &str, span: Span) -> Diagnostic {
    Diagnostic::error("AGC011", format!("`{raw}` {why}"))
        .at(span)
        .with_help("quote the value if a string is meant")
}

fn next_char_end(text: &str, at: usize) -> usize {
    text[at.min(text.len())..]
        .chars()
        .next()
        .map_or(at.min(text.len()), |c| at + c.len_utf8())
}

impl Loader<'_> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    /// Checks a tag; returns the core-schema suffix when it is one agc accepts.
    fn check_tag<'t>(
        &mut self,
        tag: &'t Tag,
        allowed: &[&str],
        start: usize,
        end: usize,
    ) -> Option<&'t str> {
        if tag.is_yaml_core_schema() && allowed.contains(&tag.suffix.as_str()) {
            return Some(tag.suffix.as_str());
        }
        if tag.handle == "!" && tag.suffix.is_empty() {
            // The non-specific tag `!`: "a string", per YAML 1.2.
            return Some("str");
        }
        let span = self.tag_span(start, end);
        self.diags.push(
            Diagnostic::error("AGC006", format!("tag `{tag}` is not supported here"))
                .at(span)
                .with_help("only YAML core schema tags that fit the value are accepted (for example `!!str`)"),
        );
        None
    }

    /// The span of the tag written just before a node, or the node's own span.
    fn tag_span(&self, start: usize, end: usize) -> Span {
        let before = &self.text[self.prev_end.min(start)..start];
        match before.rfind('!') {
            Some(i) => {
                let s = self.prev_end.min(start) + i;
                let len = self.text[s..]
                    .find(|c: char| c.is_whitespace())
                    .unwrap_or(self.text.len() - s);
                self.span(s, s + len)
            }
            None => self.span(start, end),
        }
    }

    fn scalar(
        &mut self,
        raw: &mut Cow<'_, str>,
        style: YStyle,
        anchor: usize,
        tag: Option<&Tag>,
        start: usize,
        end: usize,
    ) {
        let style = match style {
            YStyle::Plain => ScalarStyle::Plain,
            YStyle::SingleQuoted => ScalarStyle::SingleQuoted,
            YStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
            YStyle::Literal => ScalarStyle::Literal,
            YStyle::Folded => ScalarStyle::Folded,
        };
        let mut start = start;
        if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
            // saphyr starts block scalars at their content; point at the `|`/`>` indicator.
            let lo = self.prev_end.min(start);
            if let Some(i) = self.text[lo..start].rfind(['|', '>']) {
                start = lo + i;
            }
        }
        let span = self.span(start, end);
        let forced = match tag {
            Some(tag) => self.check_tag(tag, &["str", "int", "float", "bool", "null"], start, end),
            None if style == ScalarStyle::Plain => None,
            None => Some("str"),
        };
        let value = match forced {
            Some("str") => Value::String(owned(raw)),
            Some(kind) => match resolve_plain(raw) {
                Ok(Some(v)) if kind_of(&v) == kind || (kind == "float" && v.is_number()) => {
                    if kind == "float" {
                        v.as_f64()
                            .and_then(Number::from_f64)
                            .map_or(v, Value::Number)
                    } else {
                        v
                    }
                }
                Ok(_) | Err(_) => {
                    self.diags.push(
                        Diagnostic::error("AGC003", format!("`{raw}` is not a valid !!{kind}"))
                            .at(span),
                    );
                    Value::String(owned(raw))
                }
            },
            None => match resolve_plain(raw) {
                Ok(Some(v)) => v,
                Ok(None) => Value::String(owned(raw)),
                Err(why) => {
                    self.diags.push(unrepresentable(raw, why, span));
                    Value::Null
                }
            },
        };
        let built = Built {
            value,
            spans: SpanNode::leaf(span, style),
            count: 1,
            plain: style == ScalarStyle::Plain && tag.is_none(),
        };
        if anchor != 0 {
            self.remember(anchor, &built);
        }
        self.tree.push(built, &mut self.diags);
    }

    fn remember(&mut self, anchor: usize, built: &Built) {
        if self.anchors.len() <= anchor {
            self.anchors.resize_with(anchor + 1, || None);
        }
        self.anchors[anchor] = Some(Anchored {
            value: built.value.clone(),
            spans: built.spans,
            count: built.count,
        });
    }

    fn alias(&mut self, id: usize, start: usize, end: usize) -> Result<(), ()> {
        let span = self.span(start, end);
        let Some(Some(a)) = self.anchors.get(id) else {
            let d = if self.tree.anchor_is_open(id) {
                Diagnostic::error(
                    "AGC015",
                    "this alias is inside the node its anchor names: the value would contain \
                     itself",
                )
                .with_help("YAML values cannot be recursive; write the repeated part out")
            } else {
                Diagnostic::error("AGC015", "this alias names no anchor")
            };
            self.diags.push(d.at(span));
            return Err(());
        };
        self.alias_nodes += a.count;
        if self.alias_nodes > self.limits.max_alias_nodes {
            self.diags.push(
                Diagnostic::error(
                    "AGC014",
                    format!(
                        "alias expansion would copy more than {} nodes",
                        self.limits.max_alias_nodes
                    ),
                )
                .at(span)
                .with_help("nested aliases multiply; write the repeated content out"),
            );
            return Err(());
        }
        let mut spans = a.spans;
        spans.span = span;
        let built = Built {
            value: a.value.clone(),
            spans,
            count: a.count,
            plain: false,
        };
        self.tree.push(built, &mut self.diags);
        Ok(())
    }
}

/// The scalar's text as a [`Str`]: inline when short, else in an allocation of its own size.
/// saphyr hands over the buffer it grew (at least 32 bytes); a fresh exact copy is smaller than
/// shrinking it in place, which malloc often cannot do for short strings. A buffer of exactly
/// the text's size is taken out of the event; any other stays in it, to be freed by the
/// parsing thread with its batch (see [`produce`]) and serve the parser's next scalar.
fn owned(raw: &mut Cow<'_, str>) -> Str {
    match raw {
        Cow::Owned(s) if s.capacity() == s.len() => Str::from(std::mem::take(s)),
        raw => Str::from(&**raw),
    }
}

/// Where a file is cut: the middle `split..end` holds entries of a block collection `level`
/// collections deep (the root is level 0), at column `col`, whose first entry starts at byte
/// `target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Cut {
    pub split: usize,
    pub end: usize,
    pub level: usize,
    pub col: usize,
    pub is_map: bool,
    pub target: usize,
}

/// The middle's part, built on its own.
pub(super) struct Part {
    pub(super) root: Built,
    pub(super) nodes: Vec<Node>,
    pub(super) max_open: usize,
    pub(super) prev_end: usize,
}

/// Where the middle's part joins the rest (a field of the rest's [`Loader`]).
pub(super) struct Joint<'a> {
    pub(super) cut: Cut,
    pub(super) part: &'a Receiver<Option<Part>>,
    /// The part is in place.
    pub(super) done: bool,
}

impl Joint<'_> {
    pub(super) fn cut(&self) -> Cut {
        self.cut
    }
}

impl Loader<'_> {
    /// At a close (starting at byte `start`) that is the first event after the gap or
    /// follows it: whether the split still holds. Closes of the collections inside the cut
    /// collection go through; before that collection's own close, the middle's part is
    /// spliced in.
    pub(super) fn at_joint(&mut self, start: usize) -> bool {
        let Some(joint) = self.joint.as_mut() else {
            return false;
        };
        let cut = joint.cut;
        let Some((is_map, at)) = self.tree.frame(cut.level) else {
            return false;
        };
        // A flow collection's bracket would end a collection here that the middle holds.
        if is_map != cut.is_map
            || at != cut.target
            || self.text[start.min(self.text.len())..].starts_with([']', '}'])
        {
            return false;
        }
        if self.tree.depth() > cut.level + 1 {
            return true;
        }
        let Ok(Some(part)) = joint.part.recv() else {
            return false;
        };
        if cut.level + part.max_open > self.limits.max_depth {
            return false;
        }
        if !self
            .tree
            .splice(self.file, part.root, part.nodes, &mut self.diags)
        {
            return false;
        }
        self.prev_end = part.prev_end;
        joint.done = true;
        true
    }
}

/// Whether an event's meaning may depend on text before it: an anchor (an alias after the
/// middle may name it, and a later anchor of the same name replaces it), an alias, a tag (its
/// handle may come from a directive).
pub(super) fn context_bound(event: &Event<'_>) -> bool {
    match event {
        Event::Scalar(_, _, anchor, tag) => *anchor != 0 || tag.is_some(),
        Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag) => {
            *anchor != 0 || tag.is_some()
        }
        Event::Alias(_) => true,
        _ => false,
    }
}
