//! A large YAML document loaded by two parsers at once.
//!
//! saphyr parses on one thread, and that thread bounds the load of a large file (the other
//! core builds the tree from its events and waits for them half the time). So a large file is
//! cut in three: the middle is the second part of the largest block collection's entries (a
//! workflow's `nodes`), at line starts where one entry ends and the next begins; a third
//! thread parses and builds it on its own, while the usual pair loads the file without it
//! (the text before the middle and the text after it, as one string), and the middle's part
//! is spliced into its collection where that collection ends.
//!
//! The cut is found by looking at indentation only (module docs of [`plan`]), which a block
//! scalar, a multi-line quoted string or a flow collection can fool; so nothing is taken on
//! trust. The split load is kept only when every one of these holds, and otherwise the file is
//! loaded again in one stream, as if the split had not been tried:
//!
//! - the middle, parsed alone, is one block collection of the expected kind with no anchor,
//!   alias, tag or diagnostic (their meaning can depend on the text before it);
//! - in the rest, no event spans the gap, and the first event after it closes collections down
//!   to the expected one, which is open, at the expected depth and start;
//! - the nesting stays within the depth limit once the middle is in place;
//! - neither parse stops on an error.
//!
//! These do not see the middle's first line in the light of the lines before it, so the plan
//! only starts a middle at a line that is an entry in one stream whatever precedes it
//! (`Lines::entry`: not indented on in tabs, not a property, alias, explicit key's value or
//! flow collection; three fuzz findings, each with its test).
//!
//! Then the events the sequential parse gives are exactly the rest's before the gap, the
//! middle's inside its collection, and the rest's after it: the middle starts at a line start
//! in block context, and everything it holds is indented at least as deep as its entries. The
//! tree comes out the same, arena order included (tested on every corpus document, cut at
//! every entry of its largest collection).

use super::loader::{Cut, Joint, Loaded, Loader, Part, RETURNED, indentation, produce};
use crate::source::{FileId, Limits};
use saphyr_parser::Parser;
use std::sync::atomic::{AtomicBool, Ordering};

/// Files from this size on are cut (smaller ones are not worth a third thread).
pub(super) const SPLIT_FROM: usize = 1024 * 1024;

/// The middle's share of the file, in percent: its thread parses and builds, while the other
/// two share the rest's parse and build.
const SHARE: usize = 45;

/// Fewest bytes in a middle.
const MIN_MIDDLE: usize = 64 * 1024;

/// Deepest collection [`plan`] looks into: each level down reads its region's lines again, so
/// a bound on levels keeps the plan linear in the file (a file of 10,000 keys each nested in
/// the last took minutes without it). Workflows keep their large collection a level or two down.
const MAX_LEVEL: usize = 8;

/// Loads `text` from `offset` cut at `cut`; `None` when the split does not hold (see the
/// module docs), for the caller to load it in one stream.
pub(super) fn load(
    file: FileId,
    text: &str,
    offset: usize,
    limits: Limits,
    cut: Cut,
) -> Option<Loaded> {
    let (part_tx, part_rx) = std::sync::mpsc::sync_channel::<Option<Part>>(1);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let stop = &stop;
        std::thread::Builder::new()
            .name("agc-yaml-middle".into())
            .spawn_scoped(s, move || {
                let _ = part_tx.send(middle(file, text, cut, limits, stop));
            })
            .ok()?;
        // Copied while the middle's thread starts on its part.
        let rest = [&text[offset..cut.split], &text[cut.end..]].concat();
        let mut l = Loader::new(file, text, &rest, offset, limits);
        l.gap = (cut.split - offset, cut.end - cut.split);
        l.joint = Some(Joint {
            cut,
            part: &part_rx,
            done: false,
        });
        let mut documents = 0usize;
        let fatal = std::thread::scope(|s| {
            let (tx, rx) = std::sync::mpsc::sync_channel(4);
            let (back, returned) = std::sync::mpsc::sync_channel(RETURNED);
            let rest = &rest;
            let parsing = std::thread::Builder::new()
                .name("agc-yaml".into())
                .spawn_scoped(s, move || produce(rest, &tx, &returned));
            parsing
                .ok()
                .map(|_| l.run_batches(offset, &rx, &back, &mut documents))
        });
        // Whatever happened, the middle is of no more use once the rest is done. A split that
        // does not hold stopped the rest's load as fatal.
        stop.store(true, Ordering::Relaxed);
        let joint = l.joint.take()?;
        if fatal? || !joint.done {
            return None;
        }
        Some(l.finish(offset, false))
    })
}

/// Parses and builds the middle on its own; `None` when it cannot stand alone.
fn middle(file: FileId, text: &str, cut: Cut, limits: Limits, stop: &AtomicBool) -> Option<Part> {
    let body = &text[cut.split..cut.end];
    let mut l = Loader::new(file, text, body, cut.split, limits);
    l.context_free = true;
    l.ends_at = Some((cut.end, cut.end + indentation(&text[cut.end..])));
    let mut parser = Parser::new_from_str(body);
    let mut documents = 0usize;
    let mut events = 0u32;
    while let Some(mut next) = parser.next_event() {
        if l.step(cut.split, &mut next, &mut documents) {
            return None;
        }
        events = events.wrapping_add(1);
        if events.is_multiple_of(1024) && stop.load(Ordering::Relaxed) {
            return None;
        }
    }
    if !l.diags.is_empty() || documents != 1 {
        return None;
    }
    Some(Part {
        root: l.tree.root.take()?,
        nodes: std::mem::take(&mut l.tree.nodes),
        max_open: l.max_open,
        prev_end: l.prev_end,
    })
}

/// The lines of a text, read for their indentation.
pub(super) struct Lines<'t> {
    pub(super) b: &'t [u8],
    pub(super) starts: &'t [u32],
    pub(super) offset: usize,
}

impl Lines<'_> {
    fn start(&self, i: usize) -> usize {
        (self.starts[i] as usize).max(self.offset)
    }

    /// Line `i`'s indentation, when it holds more than spaces and a comment.
    fn indent(&self, i: usize) -> Option<usize> {
        let s = self.start(i);
        let rest = &self.b[s..];
        let n = rest.iter().take_while(|&&c| c == b' ').count();
        (!blank(&rest[n..])).then_some(n)
    }

    /// Line `i`'s indentation as far as it matters against column `col`: past `col` it is
    /// any number above it (the line is not read further, nor is a line of spaces told apart);
    /// `None` for a blank or comment line. Most lines of a large file are deeper than the
    /// collections the cut looks at, so this reads a few bytes of each.
    fn depth(&self, i: usize, col: usize) -> Option<usize> {
        let rest = &self.b[self.start(i)..];
        let n = rest
            .iter()
            .take(col + 1)
            .take_while(|&&c| c == b' ')
            .count();
        if n > col {
            return Some(n);
        }
        (!blank(&rest[n..])).then_some(n)
    }

    /// Line `i` from its indentation `n` on, to its end (no line break).
    fn content(&self, i: usize, n: usize) -> &[u8] {
        let s = self.start(i) + n;
        let e = self.starts.get(i + 1).map_or(self.b.len(), |&e| e as usize);
        let line = &self.b[s..e.max(s)];
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        line.strip_suffix(b"\r").unwrap_or(line)
    }

    /// Whether line `i`, indented `n`, starts a sequence entry (`- ` or a lone `-`).
    fn dash(&self, i: usize, n: usize) -> bool {
        let c = self.content(i, n);
        c == b"-" || c.starts_with(b"- ")
    }
}

/// Whether a line's text after its indentation (to the end of the text) leaves the line blank
/// for YAML: nothing, or tabs and spaces, then the line's end or a comment. A line of tabs is
/// blank, not content at column 0 (a fuzz finding: the middle ended before it, and a value
/// ending the middle ended there in the split load but past the tabs in one stream).
fn blank(rest: &[u8]) -> bool {
    let n = rest
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    matches!(rest.get(n), None | Some(b'\n' | b'\r' | b'#'))
}

/// Where to cut `text` (its body from `offset`; `starts`: its line starts), if anywhere.
///
/// From the root mapping down, the entry holding the file's middle line is taken while it is
/// a `key:` line whose block collection below holds more than half of the collection it is
/// in; the last collection reached (at least one level down) is cut. The middle starts at an
/// entry of it, about [`SHARE`] percent of the file before that collection's end, and ends
/// where a line is indented less than its entries (or, in a sequence, as deep but not `-`).
pub(super) fn plan(text: &str, offset: usize, starts: &[u32]) -> Option<Cut> {
    let len = text.len().checked_sub(offset)?;
    if len < SPLIT_FROM {
        return None;
    }
    let lines = Lines {
        b: text.as_bytes(),
        starts,
        offset,
    };
    let t = target(&lines)?;
    let aim = lines.line_of(lines.end_byte(t.hi).saturating_sub(len * SHARE / 100));
    let cut = (aim.max(t.lo + 1)..t.hi).find_map(|i| cut_at(&lines, &t, i))?;
    (cut.end - cut.split >= MIN_MIDDLE).then_some(cut)
}

/// The block collection a file is cut in: its entries are at column `col` on lines
/// `lo..hi`, `level` collections deep.
#[derive(Clone, Copy, Debug)]
pub(super) struct Target {
    pub(super) lo: usize,
    pub(super) hi: usize,
    col: usize,
    level: usize,
    is_map: bool,
}

impl Lines<'_> {
    fn line_of(&self, byte: usize) -> usize {
        self.starts.partition_point(|&s| s as usize <= byte).max(1) - 1
    }

    /// Where line `i` starts, or the text's end for the line after the last.
    fn end_byte(&self, i: usize) -> usize {
        if i >= self.starts.len() {
            self.b.len()
        } else {
            self.start(i)
        }
    }

    /// Whether line `i` is an entry of a collection whose entries are at `col`. Never a line
    /// that starts with
    /// - a tab (its indentation goes on in tabs): after a plain scalar, one stream reads it as
    ///   the scalar going on and stops on the tab, while the line alone is a collection (a
    ///   fuzz finding);
    /// - a node property or an alias (`&`, `!`, `*`): on a line of its own, the collection it
    ///   names is on the lines below, indented further (another); a middle holding one gives
    ///   up anyway;
    /// - `:`: an explicit key's value (the `? key` line before it is the entry; a middle
    ///   starting at the value gives up, so the line is not worth a try);
    /// - `{` or `[`: a flow collection, a key missing its `:` in one stream, while the line
    ///   alone is a collection whose events are a block collection's (a third finding).
    fn entry(&self, i: usize, col: usize, is_map: bool) -> bool {
        self.depth(i, col) == Some(col)
            && !matches!(
                self.content(i, col).first(),
                Some(b'\t' | b'&' | b'!' | b'*' | b':' | b'{' | b'[')
            )
            && self.dash(i, col) != is_map
    }
}

/// The collection to cut (see [`plan`]).
pub(super) fn target(lines: &Lines<'_>) -> Option<Target> {
    let n = lines.starts.len();
    if n == 0 {
        return None;
    }
    let len = lines.b.len() - lines.offset;
    let mid = lines.line_of(lines.offset + len / 2);
    let mut t = Target {
        lo: 0,
        hi: n,
        col: 0,
        level: 0,
        is_map: true,
    };
    loop {
        // The entry holding the middle line, and the line after its last.
        let mut e = mid.max(t.lo);
        while !lines.entry(e, t.col, t.is_map) {
            if e == t.lo || lines.depth(e, t.col).is_some_and(|d| d < t.col) {
                return None;
            }
            e -= 1;
        }
        let end = (e + 1..t.hi)
            .find(|&i| {
                lines.depth(i, t.col).is_some_and(|d| d < t.col) || lines.entry(i, t.col, t.is_map)
            })
            .unwrap_or(t.hi);
        let key_line = t.is_map && lines.content(e, t.col).trim_ascii_end().ends_with(b":");
        let whole = lines.end_byte(t.hi) - lines.start(t.lo);
        let part = lines.end_byte(end) - lines.start(e);
        if !(key_line && part * 2 > whole) || t.level == MAX_LEVEL {
            break;
        }
        let first = (e + 1..end).find(|&i| lines.indent(i).is_some())?;
        let k = lines.indent(first)?;
        if k <= t.col {
            return None;
        }
        let is_map = !lines.dash(first, k);
        // The collection's first line is where it starts (not a property above it).
        if !lines.entry(first, k, is_map) {
            return None;
        }
        t = Target {
            lo: first,
            hi: end,
            col: k,
            level: t.level + 1,
            is_map,
        };
    }
    (t.level > 0).then_some(t)
}

/// The cut whose middle starts at line `i`, when `i` is an entry of `t` after its first: the
/// middle ends where a line is indented less than `t`'s entries (or, in a sequence, as deep
/// but not `-`).
pub(super) fn cut_at(lines: &Lines<'_>, t: &Target, i: usize) -> Option<Cut> {
    if i <= t.lo || i >= t.hi || !lines.entry(i, t.col, t.is_map) {
        return None;
    }
    let stop = (i + 1..t.hi)
        .find(|&j| {
            lines
                .depth(j, t.col)
                .is_some_and(|d| d < t.col || (d == t.col && !t.is_map && !lines.dash(j, d)))
        })
        .unwrap_or(t.hi);
    Some(Cut {
        split: lines.start(i),
        end: lines.end_byte(stop),
        level: t.level,
        col: t.col,
        is_map: t.is_map,
        target: lines.start(t.lo) + t.col,
    })
}

#[cfg(test)]
mod tests;
