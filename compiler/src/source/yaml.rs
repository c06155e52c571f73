//! YAML 1.2 (and JSON, its subset) → [`Document`], driven from saphyr-parser's event stream.
//!
//! We build the tree ourselves from events, with an explicit stack, so that:
//! - nesting depth is checked before it can cost recursion anywhere (AGC013);
//! - alias expansion is charged against a node budget (AGC014), so a "billion laughs" document is
//!   refused in milliseconds;
//! - every key and value gets an exact byte span (saphyr counts chars; we convert);
//! - duplicate keys (AGC004), non-string keys (AGC005), custom tags (AGC006), merge keys
//!   (AGC007), extra documents (AGC008), empty documents (AGC009) and non-JSON numbers (AGC011)
//!   are each a diagnostic, and loading goes on where it safely can, so all are reported.
//!
//! Scalars resolve by the YAML 1.2 core schema: `yes`/`on`/`no`/`off` stay strings, `0o17` is
//! octal, `017` is decimal 17, timestamps stay strings.

use super::tree::{Children, Document, ScalarStyle, SpanNode};
use super::{FileId, Limits, Span};
use crate::diag::Diagnostic;
use indexmap::IndexMap;
use saphyr_parser::{Event, Parser, ScalarStyle as YStyle, Tag};
use serde_json::{Map, Number, Value};

/// Converts saphyr's char indices to byte offsets.
struct CharToByte {
    /// `(char_index, extra_bytes)`: from `char_index` + 1 on, byte = char + extra.
    steps: Vec<(usize, usize)>,
}

impl CharToByte {
    fn new(text: &str) -> CharToByte {
        let mut steps = Vec::new();
        if !text.is_ascii() {
            let mut extra = 0;
            for (ci, ch) in text.chars().enumerate() {
                let w = ch.len_utf8();
                if w > 1 {
                    extra += w - 1;
                    steps.push((ci, extra));
                }
            }
        }
        CharToByte { steps }
    }

    fn byte(&self, char_index: usize) -> usize {
        // Number of steps whose char index is < char_index.
        let n = self.steps.partition_point(|&(ci, _)| ci < char_index);
        char_index + if n == 0 { 0 } else { self.steps[n - 1].1 }
    }
}

enum Frame {
    Seq {
        items: Vec<Value>,
        spans: Vec<SpanNode>,
        start: usize,
        end: usize,
        anchor: usize,
        count: usize,
    },
    Map {
        map: Map<String, Value>,
        spans: IndexMap<String, SpanNode>,
        /// `Some(Some(key))` when a key waits for its value; `Some(None)` when the key was
        /// rejected and the value is to be dropped.
        key: Option<Option<(String, Span)>>,
        start: usize,
        end: usize,
        anchor: usize,
        count: usize,
    },
}

struct Anchored {
    value: Value,
    spans: SpanNode,
    count: usize,
}

/// One finished node on its way to its parent.
struct Built {
    value: Value,
    spans: SpanNode,
    count: usize,
    plain: bool,
}

struct Loader<'a> {
    file: FileId,
    text: &'a str,
    conv: CharToByte,
    limits: Limits,
    diags: Vec<Diagnostic>,
    stack: Vec<Frame>,
    anchors: Vec<Option<Anchored>>,
    alias_nodes: usize,
    root: Option<Built>,
    /// Byte offset where the previous event ended (bound for locating block scalar indicators).
    prev_end: usize,
}

/// Result of loading: the document, if one could be built, and every diagnostic.
pub struct Loaded {
    pub doc: Option<Document>,
    pub diags: Vec<Diagnostic>,
}

/// Parses `text` (the whole file; a leading BOM is skipped by the caller passing `offset`).
pub fn load(file: FileId, text: &str, offset: usize, limits: Limits) -> Loaded {
    let body = &text[offset..];
    let mut l = Loader {
        file,
        text,
        conv: CharToByte::new(body),
        limits,
        diags: Vec::new(),
        stack: Vec::new(),
        anchors: Vec::new(),
        alias_nodes: 0,
        root: None,
        prev_end: offset,
    };
    let offset_fix = offset;
    let mut parser = Parser::new_from_str(body);
    let mut documents = 0usize;
    let fatal = loop {
        let Some(next) = parser.next_event() else {
            break false;
        };
        let (event, span) = match next {
            Ok(ev) => ev,
            Err(e) => {
                let at = l.conv.byte(e.marker().index()) + offset_fix;
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
                break true;
            }
        };
        let start = l.conv.byte(span.start.index()) + offset_fix;
        let end = l.conv.byte(span.end.index()) + offset_fix;
        match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    l.diags.push(
                        Diagnostic::error("AGC008", "a second document starts here")
                            .at(Span::new(file, start, end.max(start + 3).min(text.len())))
                            .with_help("a workflow file holds exactly one document; split the stream into files"),
                    );
                    break true;
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                if let Err(()) = l.scalar(&value, style, anchor, tag.as_deref(), start, end) {
                    break true;
                }
            }
            Event::SequenceStart(anchor, ref tag) | Event::MappingStart(anchor, ref tag) => {
                let is_map = matches!(event, Event::MappingStart(..));
                if let Some(tag) = tag.as_deref() {
                    let ok = if is_map { "map" } else { "seq" };
                    l.check_tag(tag, &[ok], start, end);
                }
                if l.stack.len() >= l.limits.max_depth {
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
                    break true;
                }
                l.stack.push(if is_map {
                    Frame::Map {
                        map: Map::new(),
                        spans: IndexMap::new(),
                        key: None,
                        start,
                        end,
                        anchor,
                        count: 1,
                    }
                } else {
                    Frame::Seq {
                        items: Vec::new(),
                        spans: Vec::new(),
                        start,
                        end,
                        anchor,
                        count: 1,
                    }
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let frame = l.stack.pop().expect("parser balances collection events");
                let built = l.finish(frame, start);
                if l.push(built).is_err() {
                    break true;
                }
            }
            Event::Alias(id) => {
                if l.alias(id, start, end).is_err() {
                    break true;
                }
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
        }
        l.prev_end = end;
    };
    if fatal {
        return Loaded {
            doc: None,
            diags: l.diags,
        };
    }
    let root = match l.root {
        Some(b) if !(b.plain && b.value.is_null()) => b,
        _ => {
            l.diags.push(
                Diagnostic::error("AGC009", "the document is empty")
                    .at(Span::point(file, offset))
                    .with_help("a workflow document is a mapping of fields"),
            );
            return Loaded {
                doc: None,
                diags: l.diags,
            };
        }
    };
    Loaded {
        doc: Some(Document {
            file,
            value: root.value,
            spans: root.spans,
        }),
        diags: l.diags,
    }
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
        raw: &str,
        style: YStyle,
        anchor: usize,
        tag: Option<&Tag>,
        start: usize,
        end: usize,
    ) -> Result<(), ()> {
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
            Some("str") => Value::String(raw.to_string()),
            Some(kind) => match resolve_plain(raw) {
                Ok(v) if kind_of(&v) == kind || (kind == "float" && v.is_number()) => {
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
                    Value::String(raw.to_string())
                }
            },
            None => match resolve_plain(raw) {
                Ok(v) => v,
                Err(why) => {
                    self.diags.push(
                        Diagnostic::error("AGC011", format!("`{raw}` {why}"))
                            .at(span)
                            .with_help("quote the value if a string is meant"),
                    );
                    Value::Null
                }
            },
        };
        let spans = SpanNode {
            span,
            key: None,
            style,
            children: Children::None,
        };
        let built = Built {
            value,
            spans,
            count: 1,
            plain: style == ScalarStyle::Plain && tag.is_none(),
        };
        if anchor != 0 {
            self.remember(anchor, &built);
        }
        self.push(built)
    }

    fn remember(&mut self, anchor: usize, built: &Built) {
        if self.anchors.len() <= anchor {
            self.anchors.resize_with(anchor + 1, || None);
        }
        self.anchors[anchor] = Some(Anchored {
            value: built.value.clone(),
            spans: built.spans.clone(),
            count: built.count,
        });
    }

    fn alias(&mut self, id: usize, start: usize, end: usize) -> Result<(), ()> {
        let span = self.span(start, end);
        let Some(Some(a)) = self.anchors.get(id) else {
            self.diags
                .push(Diagnostic::error("AGC015", "this alias names no anchor").at(span));
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
        let mut spans = a.spans.clone();
        spans.span = span;
        let built = Built {
            value: a.value.clone(),
            spans,
            count: a.count,
            plain: false,
        };
        self.push(built)
    }

    fn finish(&mut self, frame: Frame, end_start: usize) -> Built {
        let (value, children, start, open_end, anchor, count, is_map) = match frame {
            Frame::Seq {
                items,
                spans,
                start,
                end,
                anchor,
                count,
            } => (
                Value::Array(items),
                Children::Seq(spans),
                start,
                end,
                anchor,
                count,
                false,
            ),
            Frame::Map {
                map,
                spans,
                start,
                end,
                anchor,
                count,
                ..
            } => (
                Value::Object(map),
                Children::Map(spans),
                start,
                end,
                anchor,
                count,
                true,
            ),
        };
        // Flow collections end at their closing bracket (the end event's token); block ones at
        // their last child.
        let close = if is_map { '}' } else { ']' };
        let end = if self.text[end_start.min(self.text.len())..].starts_with(close) {
            end_start + 1
        } else {
            let last = match &children {
                Children::Seq(items) => items.last(),
                Children::Map(map) => map.last().map(|(_, n)| n),
                Children::None => None,
            };
            last.map_or(open_end, |c| c.span.end as usize).max(open_end)
        };
        let built = Built {
            value,
            spans: SpanNode {
                span: self.span(start, end),
                key: None,
                style: ScalarStyle::Plain,
                children,
            },
            count,
            plain: false,
        };
        if anchor != 0 {
            self.remember(anchor, &built);
        }
        built
    }

    /// Attaches a finished node to its parent (or makes it the root).
    fn push(&mut self, built: Built) -> Result<(), ()> {
        let file = self.file;
        let Some(top) = self.stack.last_mut() else {
            self.root = Some(built);
            return Ok(());
        };
        match top {
            Frame::Seq {
                items,
                spans,
                count,
                ..
            } => {
                *count += built.count;
                items.push(built.value);
                spans.push(built.spans);
            }
            Frame::Map {
                map,
                spans,
                key,
                count,
                ..
            } => match key.take() {
                None => {
                    let kspan = built.spans.span;
                    match built.value {
                        Value::String(k) if built.plain && k == "<<" => {
                            self.diags.push(
                                Diagnostic::error("AGC007", "merge keys (`<<`) are not supported")
                                    .at(kspan)
                                    .with_help("YAML 1.2 has no merge keys; write the fields out"),
                            );
                            *key = Some(None);
                        }
                        Value::String(k) => {
                            if let Some(prev) = spans.get(&k) {
                                let first = prev.key.unwrap_or(prev.span);
                                self.diags.push(
                                    Diagnostic::error("AGC004", format!("duplicate key `{k}`"))
                                        .at(kspan)
                                        .with_label(first, "first defined here")
                                        .with_help("keys of a mapping must be unique; remove or rename one"),
                                );
                                *key = Some(None);
                            } else {
                                *key = Some(Some((k, kspan)));
                            }
                        }
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
                            self.diags.push(
                                Diagnostic::error(
                                    "AGC005",
                                    format!("mapping key is {what}, not a string"),
                                )
                                .at(Span::new(file, kspan.start as usize, kspan.end as usize))
                                .with_help(help),
                            );
                            *key = Some(None);
                        }
                    }
                }
                Some(None) => {}
                Some(Some((k, kspan))) => {
                    *count += built.count;
                    let mut node = built.spans;
                    node.key = Some(kspan);
                    map.insert(k.clone(), built.value);
                    spans.insert(k, node);
                }
            },
        }
        Ok(())
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "seq",
        Value::Object(_) => "map",
    }
}

/// Resolves a plain scalar by the YAML 1.2 core schema. `Err` when it is a number that JSON
/// cannot hold.
fn resolve_plain(s: &str) -> Result<Value, &'static str> {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Value::Null),
        "true" | "True" | "TRUE" => return Ok(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Ok(Value::Bool(false)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF" => {
            return Err("is infinite, which JSON cannot represent");
        }
        ".nan" | ".NaN" | ".NAN" => return Err("is not a number, which JSON cannot represent"),
        _ => {}
    }
    let bytes = s.as_bytes();
    let (neg, digits) = match bytes.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return int_value(neg, digits, 10);
    }
    if let Some(oct) = s.strip_prefix("0o")
        && !oct.is_empty()
        && oct.bytes().all(|b| (b'0'..=b'7').contains(&b))
    {
        return int_value(false, oct, 8);
    }
    if let Some(hex) = s.strip_prefix("0x")
        && !hex.is_empty()
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return int_value(false, hex, 16);
    }
    if is_float(digits) {
        let f: f64 = s.parse().map_err(|_| "is not a valid number")?;
        return match Number::from_f64(f) {
            Some(n) if f.is_finite() => Ok(Value::Number(n)),
            _ => Err("is out of the range of a 64-bit float"),
        };
    }
    Ok(Value::String(s.to_string()))
}

fn int_value(neg: bool, digits: &str, radix: u32) -> Result<Value, &'static str> {
    const TOO_BIG: &str = "is beyond the 64-bit integer range";
    let mag = u128::from_str_radix(digits, radix).map_err(|_| TOO_BIG)?;
    if neg {
        if mag <= i64::MAX as u128 + 1 {
            Ok(Value::Number(Number::from((-(mag as i128)) as i64)))
        } else {
            Err(TOO_BIG)
        }
    } else if mag <= u64::MAX as u128 {
        Ok(Value::Number(Number::from(mag as u64)))
    } else {
        Err(TOO_BIG)
    }
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` (sign already stripped).
fn is_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            frac_digits += 1;
        }
    } else if int_digits == 0 {
        return false;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == b.len()
}
