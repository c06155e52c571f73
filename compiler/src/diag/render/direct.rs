//! The commonest report drawn directly, without ariadne: one label, on one short line of plain
//! ASCII text, no colour. It is the shape of nearly every diagnostic a large graph produces (a
//! 100k-node graph's 92k advisories), and ariadne's general layout (label groups, line tables,
//! arrows that cross) costs several times what the box itself does.
//!
//! The bytes are ariadne's own, after the human renderer's trimming of trailing spaces: for a
//! label on line `L` (`W` digits) from column `c` over `w` characters, with `m = w / 2`,
//!
//! ```text
//! {W+2 spaces}╭─[ name:L:c ]
//! {W+2 spaces}│
//!  {L} │ {the line}
//! {W+2 spaces}│ {c-1 spaces}{m × ─}┬{w-m-1 × ─}
//! {W+2 spaces}│ {c-1+m spaces}╰{w-m+1 × ─} {label}
//! {W+2 × ─}╯
//! ```
//!
//! Anything else (a second label, colour, a tab or any character outside printable ASCII on
//! the line, a zero-width span, a span over a line break, a label of several lines or none)
//! goes to ariadne. The tests in `tests/human.rs` draw thousands of such reports both ways and
//! compare the bytes.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::{Options, locate, primary_label};
use crate::diag::Diagnostic;
use crate::source::SourceMap;

/// The box for `d` when it has the simple shape (see the module docs), trimmed line by line
/// as the human renderer trims ariadne's; `None` otherwise. `label` is the primary label
/// already made safe for the terminal, `name` the file's name likewise.
pub(super) fn simple_box(
    d: &Diagnostic,
    sources: &SourceMap,
    opts: Options,
    clean: impl Fn(&str) -> Cow<'_, str>,
) -> Option<String> {
    if opts.color || !d.labels.is_empty() {
        return None;
    }
    let at = locate(sources, d.span?)?;
    let (start, end) = (at.span.start as usize, at.span.end as usize);
    if start >= end || at.start.line != at.end.line {
        return None;
    }
    let file = at.file;
    let range = file.line_range(at.start.line);
    let line = &file.text[range.clone()];
    let line = line.strip_suffix('\n').unwrap_or(line);
    // Within the line's content (not its line break), printable ASCII throughout, and short
    // enough that the whole line is shown (long lines are cut by the excerpt).
    if end > range.start + line.len()
        || line.len() > super::excerpt::LONG_LINE
        || !line.bytes().all(|b| (0x20..0x7f).contains(&b))
    {
        return None;
    }
    let label = clean(primary_label(d));
    if label.is_empty() || label.contains('\n') {
        return None;
    }
    let digits = at.start.line.to_string();
    let pad = " ".repeat(digits.len() + 2);
    let col = start - range.start;
    let width = end - start;
    let mid = width / 2;
    let mut out = String::with_capacity(256 + line.len() + label.len());
    let _ = writeln!(
        out,
        "{pad}╭─[ {}:{}:{} ]",
        clean(&file.name),
        at.start.line,
        at.start.column
    );
    let _ = writeln!(out, "{pad}│");
    let _ = writeln!(out, " {digits} │ {}", line.trim_end());
    out.push_str(&pad);
    out.push_str("│ ");
    out.extend(std::iter::repeat_n(' ', col));
    out.extend(std::iter::repeat_n('─', mid));
    out.push('┬');
    out.extend(std::iter::repeat_n('─', width - mid - 1));
    out.push('\n');
    out.push_str(&pad);
    out.push_str("│ ");
    out.extend(std::iter::repeat_n(' ', col + mid));
    // ariadne's arrow runs to two columns past the span's end, the last one a space.
    out.push('╰');
    out.extend(std::iter::repeat_n('─', width - mid + 1));
    out.push(' ');
    out.push_str(label.trim_end());
    out.push('\n');
    out.extend(std::iter::repeat_n('─', digits.len() + 2));
    out.push_str("╯\n");
    Some(out)
}
