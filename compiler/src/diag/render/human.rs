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
//! - ariadne is given byte spans (`IndexType::Byte`) over a *display copy* of each file in which
//!   every character that ariadne would take as a line break but [`SourceFile::line_col`] does not
//!   (lone CR, VT, FF, NEL, LS, PS), every other control character, and the bidirectional
//!   override characters are replaced by a character of the same UTF-8 length. Line numbers in
//!   the snippet therefore agree with the JSON/SARIF output, byte offsets stay valid, and a file
//!   cannot send escape sequences to the terminal. When the file ends in a newline, the copy gets
//!   one extra space so that a span at the very end (an "unexpected end of file") lands on the
//!   empty last line, as `line_col` says, instead of past the end of the previous one.
//! - Messages, labels and help are shown with control characters other than newline and tab
//!   escaped (`\u{1b}`), for the same reason.
//! - A zero-width span is drawn as a label arrow without an underline, at its position.
//! - Colour only with [`Options::color`]; without it the output is plain text, which is what
//!   the snapshot tests read. Trailing spaces are removed from every line.

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::ops::Range;

use ariadne::{Color, Config, Fmt, IndexType, Label, Report, ReportKind, Source};

use super::{Options, file_of, locate, primary_label};
use crate::diag::{Diagnostic, Severity};
use crate::source::{FileId, SourceFile, SourceMap};

/// An ariadne span: a file and a byte range in it.
type AriadneSpan = (FileId, Range<usize>);

pub(super) fn render(diags: &[Diagnostic], sources: &SourceMap, opts: Options) -> String {
    let mut files = Files {
        map: sources,
        loaded: HashMap::new(),
    };
    let mut out = String::new();
    for (i, d) in diags.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        render_one(&mut out, d, &mut files, opts);
    }
    out
}

fn render_one(out: &mut String, d: &Diagnostic, files: &mut Files<'_>, opts: Options) {
    let color = severity_color(d.severity);
    let head = format!("{}[{}]", d.severity.as_str(), clean(d.code));
    if opts.color {
        let _ = writeln!(out, "{}: {}", head.fg(color), clean(&d.message));
    } else {
        let _ = writeln!(out, "{head}: {}", clean(&d.message));
    }
    if let Some(snippet) = snippet(d, files, opts) {
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

/// The ariadne box for a located diagnostic, without ariadne's header line.
fn snippet(d: &Diagnostic, files: &mut Files<'_>, opts: Options) -> Option<String> {
    let primary = locate(files.map, d.span?)?;
    let primary_span: AriadneSpan = (primary.span.file, primary.span.range());

    // (file rank, start, end, label) — sorted, then numbered as ariadne's label order.
    let mut file_rank: Vec<FileId> = vec![primary.span.file];
    let mut labels: Vec<(usize, usize, usize, Label<AriadneSpan>)> = Vec::new();
    let mut main = Label::new(primary_span.clone()).with_message(clean(primary_label(d)));
    if opts.color {
        main = main.with_color(severity_color(d.severity));
    }
    labels.push((
        0,
        primary.span.start as usize,
        primary.span.end as usize,
        main,
    ));
    for l in &d.labels {
        let Some(at) = locate(files.map, l.span) else {
            continue;
        };
        let rank = match file_rank.iter().position(|f| *f == at.span.file) {
            Some(r) => r,
            None => {
                file_rank.push(at.span.file);
                file_rank.len() - 1
            }
        };
        let mut label = Label::new((at.span.file, at.span.range())).with_message(clean(&l.message));
        if opts.color {
            label = label.with_color(Color::Blue);
        }
        labels.push((rank, at.span.start as usize, at.span.end as usize, label));
    }
    // Stable: the primary label stays ahead of a secondary one with the same span.
    labels.sort_by_key(|(rank, start, end, _)| (*rank, *start, *end));

    let config = Config::new()
        .with_index_type(IndexType::Byte)
        .with_color(opts.color);
    let report = Report::build(ReportKind::Error, primary_span)
        .with_config(config)
        .with_labels(
            labels
                .into_iter()
                .enumerate()
                .map(|(i, (.., label))| label.with_order(i as i32)),
        )
        .finish();
    let mut buf = Vec::new();
    report.write(&mut *files, &mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf);
    // Drop ariadne's own header line (`Error: `); ours is already written.
    let body = text.split_once('\n').map_or("", |(_, rest)| rest);
    Some(body.to_string())
}

fn severity_color(severity: Severity) -> Color {
    match severity {
        Severity::Error => Color::Red,
        Severity::Warning => Color::Yellow,
        Severity::Note => Color::Cyan,
    }
}

/// Text for the terminal: control characters other than newline and tab escaped.
fn clean(text: &str) -> String {
    if !text.chars().any(is_unsafe_in_message) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe_in_message(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

fn is_unsafe_in_message(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The copy of a file's text that ariadne draws (see the module docs): same byte length, same
/// line breaks as [`SourceFile::line_col`], nothing a terminal would interpret.
fn display_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 1);
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' if bytes.get(i + 1) == Some(&b'\n') => out.push('\r'),
            // One UTF-8 byte: C0 controls (lone CR, VT, FF, ESC, ...) and DEL.
            '\0'..='\u{1F}' | '\u{7F}' => out.push(' '),
            // Two bytes: C1 controls, NEL among them.
            '\u{80}'..='\u{9F}' => out.push('\u{A0}'),
            // Three bytes: line/paragraph separators and bidi overrides.
            '\u{2028}' | '\u{2029}' => out.push('\u{2002}'),
            c if is_bidi_control(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    if text.ends_with('\n') {
        out.push(' ');
    }
    out
}

/// ariadne's view of the [`SourceMap`]: display copies, made on first use.
struct Files<'m> {
    map: &'m SourceMap,
    loaded: HashMap<FileId, Source<String>>,
}

impl ariadne::Cache<FileId> for Files<'_> {
    type Storage = String;

    fn fetch(&mut self, id: &FileId) -> Result<&Source<String>, impl fmt::Debug> {
        let Some(file) = file_of(self.map, *id) else {
            return Err(format!("no file {id:?} in the source map"));
        };
        Ok(self
            .loaded
            .entry(*id)
            .or_insert_with(|| Source::from(display_text(&file.text))))
    }

    fn display<'a>(&self, id: &'a FileId) -> Option<impl fmt::Display + 'a> {
        file_of(self.map, *id).map(|f: &SourceFile| clean(&f.name))
    }
}
