//! How a plan is laid out as text: the one layout the compiler writes and [`super::Plan`]
//! writes back, so that both give the same bytes.
//!
//! A plan is kept as a golden file and reviewed in diffs, so it stays line-oriented, but it is
//! not pretty-printed all the way down (that made plans eight times their input). The rule:
//!
//! - the top-level object and the value of each top-level key break one entry per line;
//! - each entry of `nodes` and of `regions` breaks one field per line, and so do a region's
//!   fields that are objects or arrays, and a node's fields that are arrays (`inputs`,
//!   `outputs`): one input or output per line;
//! - everything deeper, and each entry of `edges`, `links`, `params` and `outputs`, sits on one
//!   line, written compactly: `{"key":value,"key":value}`.
//!
//! Indentation is two spaces a level; the file ends with a newline. `agc build --compact`
//! writes the same document without any line breaks or spaces (serde_json's compact form).

use serde_json::ser::Formatter;
use std::io::{self, Write};

/// One open array or object.
struct Open {
    broken: bool,
    has_value: bool,
}

/// A `serde_json` formatter for the plan layout described in the module documentation.
#[derive(Default)]
pub struct PlanFormatter {
    stack: Vec<Open>,
    /// The top-level key being written or last written.
    top_key: Vec<u8>,
    in_top_key: bool,
}

impl PlanFormatter {
    pub fn new() -> PlanFormatter {
        PlanFormatter::default()
    }

    /// A formatter placed where the value of the top-level key `key` is written: what it
    /// writes is laid out as in the whole document.
    fn at_top(key: &str) -> PlanFormatter {
        PlanFormatter {
            stack: vec![Open {
                broken: true,
                has_value: true,
            }],
            top_key: key.as_bytes().to_vec(),
            in_top_key: false,
        }
    }

    /// A formatter placed where one element of the array value of the top-level key `key` is
    /// written (such arrays break one element a line).
    pub fn element_of(key: &str) -> PlanFormatter {
        let mut f = PlanFormatter::at_top(key);
        f.stack.push(Open {
            broken: true,
            has_value: true,
        });
        f
    }

    /// Whether a container opened now, at the current depth, breaks its entries over lines.
    fn breaks(&self, is_array: bool) -> bool {
        let depth = self.stack.len() + 1;
        let body = matches!(self.top_key.as_slice(), b"nodes" | b"regions");
        match depth {
            1 | 2 => self.stack.iter().all(|o| o.broken),
            3 => body,
            4 => match self.top_key.as_slice() {
                b"nodes" => is_array,
                b"regions" => true,
                _ => false,
            },
            _ => false,
        }
    }

    fn open<W: ?Sized + Write>(&mut self, w: &mut W, is_array: bool) -> io::Result<()> {
        let broken = self.breaks(is_array);
        self.stack.push(Open {
            broken,
            has_value: false,
        });
        w.write_all(if is_array { b"[" } else { b"{" })
    }

    fn close<W: ?Sized + Write>(&mut self, w: &mut W, is_array: bool) -> io::Result<()> {
        if let Some(o) = self.stack.pop()
            && o.broken
            && o.has_value
        {
            w.write_all(b"\n")?;
            indent(w, self.stack.len())?;
        }
        w.write_all(if is_array { b"]" } else { b"}" })
    }

    fn entry<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        let depth = self.stack.len();
        let broken = self.stack.last().is_some_and(|o| o.broken);
        match (first, broken) {
            (true, true) => w.write_all(b"\n")?,
            (false, true) => w.write_all(b",\n")?,
            (true, false) => {}
            (false, false) => w.write_all(b",")?,
        }
        if broken {
            indent(w, depth)?;
        }
        Ok(())
    }

    fn entry_done(&mut self) {
        if let Some(o) = self.stack.last_mut() {
            o.has_value = true;
        }
    }
}

fn indent<W: ?Sized + Write>(w: &mut W, depth: usize) -> io::Result<()> {
    for _ in 0..depth {
        w.write_all(b"  ")?;
    }
    Ok(())
}

impl Formatter for PlanFormatter {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, true)
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, true)
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.entry(w, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.entry_done();
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, false)
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, false)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if self.stack.len() == 1 {
            self.top_key.clear();
            self.in_top_key = true;
        }
        self.entry(w, first)
    }

    fn end_object_key<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.in_top_key = false;
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if self.in_top_key {
            self.top_key.extend_from_slice(fragment.as_bytes());
        }
        w.write_all(fragment.as_bytes())
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        let broken = self.stack.last().is_some_and(|o| o.broken);
        w.write_all(if broken { b": " } else { b":" })
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.entry_done();
        Ok(())
    }
}

/// Writes `value` in the plan layout, followed by a newline.
pub fn write_plan_layout<W: Write, T: serde::Serialize + ?Sized>(
    out: &mut W,
    value: &T,
) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(&mut *out, PlanFormatter::new());
    value.serialize(&mut ser)?;
    out.write_all(b"\n")
}

/// Writes a plan's top-level object one entry at a time, in the layout [`write_plan_layout`]
/// gives the whole document, for writers that produce some arrays element by element
/// themselves (the compiler formats `nodes` on two threads). The same entries give the same
/// bytes as [`write_plan_layout`].
pub struct TopLevel<'w, W: Write> {
    out: &'w mut W,
    first: bool,
}

impl<'w, W: Write> TopLevel<'w, W> {
    pub fn start(out: &'w mut W) -> io::Result<TopLevel<'w, W>> {
        out.write_all(b"{")?;
        Ok(TopLevel { out, first: true })
    }

    fn key(&mut self, key: &str) -> io::Result<()> {
        self.out
            .write_all(if self.first { b"\n  " } else { b",\n  " })?;
        self.first = false;
        serde_json::to_writer(&mut *self.out, key)?;
        self.out.write_all(b": ")
    }

    /// One entry, its value serialized here.
    pub fn entry<T: serde::Serialize + ?Sized>(&mut self, key: &str, value: &T) -> io::Result<()> {
        self.key(key)?;
        let f = PlanFormatter::at_top(key);
        value.serialize(&mut serde_json::Serializer::with_formatter(
            &mut *self.out,
            f,
        ))?;
        Ok(())
    }

    /// One entry whose value is an array of `len` elements, written by `write_elements`
    /// given the writer: it writes [`element_separator`]`(i)` and then element `i`, laid
    /// out by a [`PlanFormatter::element_of`] `key`, for each `i` in order.
    pub fn array_entry(
        &mut self,
        key: &str,
        len: usize,
        write_elements: impl FnOnce(&mut W) -> io::Result<()>,
    ) -> io::Result<()> {
        self.key(key)?;
        if len == 0 {
            return self.out.write_all(b"[]");
        }
        self.out.write_all(b"[")?;
        write_elements(self.out)?;
        self.out.write_all(b"\n  ]")
    }

    /// Closes the object and ends the file with a newline.
    pub fn finish(self) -> io::Result<()> {
        self.out
            .write_all(if self.first { b"}\n" } else { b"\n}\n" })
    }
}

/// What comes before element `i` of a top-level array written through
/// [`TopLevel::array_entry`].
pub fn element_separator(i: usize) -> &'static [u8] {
    if i == 0 { b"\n    " } else { b",\n    " }
}
