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
