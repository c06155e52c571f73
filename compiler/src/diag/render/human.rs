//! Human output: rustc/Gleam-style reports drawn by ariadne.
//!
//! ```text
//! error[AG003]: unknown key `stpes`
//!    ╭─[ flow.yaml:3:1 ]
//!    │
//!  3 │ stpes:
//!    │ ──┬──
//!    │   ╰──── not a key of a workflow
//! ───╯
//! help: did you mean `steps`?
//! ```
//!
//! Layout decisions:
//!
//! - The header `severity[CODE]: message` and the `help:` line are written here, not by ariadne
//!   (ariadne writes `[CODE] Error:` and a boxed `Help:`); ariadne draws only the snippet box, and
//!   its own header line is dropped. A diagnostic without a location is the header (and help)
//!   alone, so every report has the same shape.
//! - The primary label says the diagnostic's `label`, or its message when it has none. Labels are
//!   ordered so that each file is one snippet: the primary span's file first, then the other
//!   files in the order their labels appear; within a file, by position.
//! - ariadne is given byte spans (`IndexType::Byte`) over an [`Excerpt`] of each file the report
//!   touches: only the labelled lines' range, long lines cut down around the labels, control
//!   characters neutralised (see [`super::excerpt`]). Line numbers in the snippet agree with the
//!   JSON/SARIF output, and a file cannot send escape sequences to the terminal.
//! - ariadne computes the `╭─[ file:line:col ]` position on the excerpt, where a cut line has
//!   fewer columns; it is given a placeholder for the file name, and the position is then
//!   rewritten from the original text.
//! - Messages, labels and help are shown with control characters other than newline and tab
//!   escaped (`\u{1b}`), for the same reason.
//! - A zero-width span is drawn as a label arrow without an underline, at its position.
//! - A report of the commonest shape (one label on one short line of plain ASCII, no colour) is
//!   drawn by [`super::direct`] in ariadne's exact layout, at a fraction of ariadne's cost;
//!   tests compare the two over thousands of generated reports.
//! - Colour only with [`Options::color`]; without it the output is plain text, which is what
//!   the snapshot tests read. Trailing spaces are removed from every line.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::ops::Range;

use ariadne::{Color, Config, Fmt, IndexType, Label, Report, ReportKind, Source};

use super::direct;
use super::excerpt::{Excerpt, is_bidi_control};
use super::{Located, Options, file_of, locate, primary_label};
use crate::diag::{Diagnostic, Severity};
use crate::source::{FileId, SourceMap};
use std::sync::{Arc, OnceLock};

/// An ariadne span: a file and a byte range in it.
type AriadneSpan = (FileId, Range<usize>);

/// Lists at least this long are drawn on several threads.
const PARALLEL_FROM: usize = 2048;

pub(super) fn render(diags: &[Diagnostic], sources: &SourceMap, opts: Options) -> String {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    render_on(diags, sources, opts, threads, PARALLEL_FROM)
}

/// Each report is drawn from its diagnostic and the sources alone, so a long list is split
/// into `threads` consecutive runs drawn side by side and joined in order: the same bytes as
/// one thread (a 100k-node graph's 92k advisories took 0.7 s on one). Lists shorter than
/// `parallel_from` stay on the caller's thread.
pub(super) fn render_on(
    diags: &[Diagnostic],
    sources: &SourceMap,
    opts: Options,
    threads: usize,
    parallel_from: usize,
) -> String {
    let whole = &Whole((0..sources.len()).map(|_| OnceLock::new()).collect());
    if threads < 2 || diags.len() < parallel_from.max(2) {
        return render_run(diags, sources, opts, whole);
    }
    let parts: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = diags
            .chunks(diags.len().div_ceil(threads))
            .map(|run| s.spawn(move || render_run(run, sources, opts, whole)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut out = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(part);
    }
    out
}

/// An excerpt and ariadne's source over it.
type Shared = Arc<(Excerpt, Source<String>)>;

/// The whole-file excerpts, by file id: built once (a large file's line table is costly) and
/// shared by every report and thread.
struct Whole(Vec<OnceLock<Shared>>);

/// One thread's run of reports, separated by blank lines.
fn render_run(diags: &[Diagnostic], sources: &SourceMap, opts: Options, whole: &Whole) -> String {
    let mut out = String::new();
    for (i, d) in diags.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        render_one(&mut out, d, sources, opts, whole);
    }
    out
}

fn render_one(out: &mut String, d: &Diagnostic, sources: &SourceMap, opts: Options, whole: &Whole) {
    let color = severity_color(d.severity);
    let head = format!("{}[{}]", d.severity.as_str(), clean(d.code));
    if opts.color {
        let _ = writeln!(out, "{}: {}", head.fg(color), clean(&d.message));
    } else {
        let _ = writeln!(out, "{head}: {}", clean(&d.message));
    }
    // A file with no text (it could not be read, or is empty) has no line to show: its name
    // alone, not an empty box at `:1:1`.
    if let Some(span) = d.span
        && d.labels.is_empty()
        && (span.file.0 as usize) < sources.len()
        && sources.get(span.file).text.is_empty()
    {
        let _ = writeln!(out, "  --> {}", clean(&sources.get(span.file).name));
    } else if let Some(snippet) =
        direct::simple_box(d, sources, opts, clean).or_else(|| snippet(d, sources, opts, whole))
    {
        for line in snippet.lines() {
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    if let Some(help) = &d.help {
        let help = clean(help);
        let mut lines = help.lines();
        let first = lines.next().unwrap_or("");
        if opts.color {
            let _ = writeln!(out, "{}: {first}", "help".fg(Color::Cyan));
        } else {
            let _ = writeln!(out, "help: {first}");
        }
        for line in lines {
            let _ = writeln!(out, "      {line}");
        }
    }
}

/// The ariadne boxes for `diags` as the renderer draws them when [`direct`] does not: for
/// tests that compare the two.
#[cfg(test)]
pub(super) fn ariadne_boxes(
    diags: &[(Diagnostic, Options)],
    sources: &SourceMap,
) -> Vec<Option<String>> {
    let whole = &Whole((0..sources.len()).map(|_| OnceLock::new()).collect());
    diags
        .iter()
        .map(|(d, opts)| snippet(d, sources, *opts, whole))
        .collect()
}

/// The ariadne box for a located diagnostic, without ariadne's header line.
fn snippet(d: &Diagnostic, sources: &SourceMap, opts: Options, whole: &Whole) -> Option<String> {
    let primary = locate(sources, d.span?)?;
    // Located labels in order: primary first, then the others whose file exists.
    let mut located: Vec<(Located<'_>, String, Option<Color>)> = vec![(
        primary,
        clean(primary_label(d)).into_owned(),
        opts.color.then(|| severity_color(d.severity)),
    )];
    for l in &d.labels {
        if let Some(at) = locate(sources, l.span) {
            located.push((
                at,
                clean(&l.message).into_owned(),
                opts.color.then_some(Color::Blue),
            ));
        }
    }

    // Files in order of first appearance (the primary's first), each with its excerpt.
    let mut files: Vec<FileId> = Vec::new();
    for (at, ..) in &located {
        if !files.contains(&at.span.file) {
            files.push(at.span.file);
        }
    }
    let mut cache = Excerpts {
        loaded: HashMap::new(),
    };
    for &id in &files {
        let file = file_of(sources, id)?;
        let points: Vec<usize> = located
            .iter()
            .filter(|(at, ..)| at.span.file == id)
            .flat_map(|(at, ..)| [at.span.start as usize, at.span.end as usize])
            .collect();
        let entry = if Excerpt::all_lines_short(file, &points) {
            whole
                .0
                .get(id.0 as usize)?
                .get_or_init(|| {
                    let excerpt = Excerpt::whole(file);
                    let source = Source::from(excerpt.text.clone());
                    Arc::new((excerpt, source))
                })
                .clone()
        } else {
            let excerpt = Excerpt::new(file, &points);
            let source = Source::from(excerpt.text.clone());
            Arc::new((excerpt, source))
        };
        cache.loaded.insert(id, entry);
    }
    let span_of = |at: &Located<'_>| -> AriadneSpan {
        let excerpt = &cache.loaded[&at.span.file].0;
        let range = excerpt.map(at.span.start as usize)..excerpt.map(at.span.end as usize);
        (at.span.file, range)
    };

    // Each file one snippet: sort by (file rank, position); the sort is stable, so the
    // primary label stays ahead of a secondary one with the same span.
    let mut order: Vec<usize> = (0..located.len()).collect();
    order.sort_by_key(|&i| {
        let at = &located[i].0;
        let rank = files.iter().position(|f| *f == at.span.file);
        (rank, at.span.start, at.span.end)
    });
    let labels: Vec<Label<AriadneSpan>> = order
        .iter()
        .enumerate()
        .map(|(n, &i)| {
            let (at, message, color) = &located[i];
            let mut label = Label::new(span_of(at))
                .with_message(message)
                .with_order(n as i32);
            if let Some(c) = color {
                label = label.with_color(*c);
            }
            label
        })
        .collect();

    let config = Config::new()
        .with_index_type(IndexType::Byte)
        .with_color(opts.color);
    let report = Report::build(ReportKind::Error, span_of(&primary))
        .with_config(config)
        .with_labels(labels)
        .finish();
    let mut buf = Vec::new();
    report.write(&mut cache, &mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf);
    // Drop ariadne's own header line (`Error: `); ours is already written.
    let body = text.split_once('\n').map_or("", |(_, rest)| rest);
    let mut fixed = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        match fix_position(line, sources, &cache) {
            Some(line) => fixed.push_str(&line),
            None => fixed.push_str(line),
        }
    }
    Some(fixed)
}

/// Marks where ariadne writes a file name, so that the position after it can be rewritten.
const NAME_MARK: char = '\u{1}';

/// Rewrites a box header `╭─[ \u{1}ID\u{1}:LINE:COL ]` (position in the excerpt) into
/// `╭─[ name:LINE:COL ]` (position in the file); `None` for any other line.
fn fix_position(line: &str, sources: &SourceMap, cache: &Excerpts) -> Option<String> {
    let (before, rest) = line.split_once(NAME_MARK)?;
    let (id, rest) = rest.split_once(NAME_MARK)?;
    let id = FileId(id.parse().ok()?);
    let rest = rest.strip_prefix(':')?;
    let (line_no, rest) = rest.split_once(':')?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (col, after) = rest.split_at(digits);
    let (line_no, col): (usize, usize) = (line_no.parse().ok()?, col.parse().ok()?);

    let file = file_of(sources, id)?;
    let excerpt = &cache.loaded.get(&id)?.0;
    let line_start = if line_no <= 1 {
        0
    } else if excerpt.whole {
        // The whole file: its own line index answers in O(log n).
        file.line_start(line_no as u32)
    } else {
        excerpt.line_start(line_no)
    };
    let disp = excerpt.text[line_start..]
        .char_indices()
        .nth(col.saturating_sub(1))
        .map_or(excerpt.text.len(), |(i, _)| line_start + i);
    let at = file.line_col(excerpt.unmap(disp) as u32);
    Some(format!(
        "{before}{}:{}:{}{after}",
        clean(&file.name),
        at.line,
        at.column
    ))
}

fn severity_color(severity: Severity) -> Color {
    match severity {
        Severity::Error => Color::Red,
        Severity::Warning => Color::Yellow,
        Severity::Note => Color::Cyan,
    }
}

/// Text for the terminal: control characters other than newline and tab escaped (borrowed
/// when there are none, as in nearly every message: 92k advisories of a 100k-node graph
/// asked for half a million copies).
pub(super) fn clean(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe_in_message) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe_in_message(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn is_unsafe_in_message(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
}

/// ariadne's view of the files of one report: their excerpts.
struct Excerpts {
    loaded: HashMap<FileId, Shared>,
}

impl ariadne::Cache<FileId> for Excerpts {
    type Storage = String;

    fn fetch(&mut self, id: &FileId) -> Result<&Source<String>, impl fmt::Debug> {
        match self.loaded.get(id) {
            Some(entry) => Ok(&entry.1),
            None => Err(format!("no excerpt of {id:?}")),
        }
    }

    fn display<'a>(&self, id: &'a FileId) -> Option<impl fmt::Display + 'a> {
        Some(format!("{NAME_MARK}{}{NAME_MARK}", id.0))
    }
}
