//! Reading a file from disk into the [`SourceMap`] and loading its document.

use super::json;
use super::yaml::{self, Loaded};
use super::{FileId, Limits, SourceFile, SourceMap, Span};
use crate::diag::Diagnostic;
use std::path::Path;

const BOM: &str = "\u{feff}";

/// Reads `path` (shown to users as `display`), then loads it. I/O failures give `Err` with an
/// AGC001 diagnostic at the start of the file, which is added to `sources` empty (so that
/// every format can name the file: SARIF results need a location); everything else is
/// reported in [`Loaded::diags`].
pub fn load_path(
    sources: &mut SourceMap,
    path: &Path,
    display: &str,
    limits: Limits,
) -> Result<(FileId, Loaded), Diagnostic> {
    let bytes = match crate::fsio::read::read_file(path, limits.max_file_bytes) {
        Ok(b) => b,
        Err(e) => return refused(sources, display, &e),
    };
    Ok(load_bytes_at(sources, path, display, bytes, limits))
}

/// Loads the bytes of the file at `path` (read from disk or given by an editor), shown as
/// `display`, as [`load_path`] does once it has read them.
pub fn load_bytes_at(
    sources: &mut SourceMap,
    path: &Path,
    display: &str,
    bytes: Vec<u8>,
    limits: Limits,
) -> (FileId, Loaded) {
    let (id, mut loaded) = load_bytes(sources, display, bytes, limits);
    markdown_is_no_workflow(path, id, &mut loaded);
    (id, loaded)
}

/// A file the bounded reader refused: too large is a finding about the file (`Ok`, AGC012 in
/// its diagnostics), like a syntax error; a file that cannot be read or is not a regular file
/// (AGC001, AGC017) is an I/O failure (`Err`). Either is placed at the start of an empty file
/// of that name.
fn refused(
    sources: &mut SourceMap,
    display: &str,
    e: &crate::fsio::ReadError,
) -> Result<(FileId, Loaded), Diagnostic> {
    let id = sources.add(SourceFile::new(display, String::new()));
    let d = e.diagnostic(display).at(Span::point(id, 0));
    match e {
        crate::fsio::ReadError::TooLarge { .. } => Ok((
            id,
            Loaded {
                doc: None,
                diags: vec![d],
            },
        )),
        _ => Err(d),
    }
}

/// A Markdown file with YAML frontmatter (an Agent Graph Skill or resource) read as YAML is a
/// stream whose second document starts at the closing `---` (AGC008). Named `.md`, it was given
/// as a workflow document by mistake: say that (AGC020, the format is not one agc checks
/// alone) instead of pointing at its `---` line. The format is still never read from the name:
/// this only replaces the message of a file that failed to load.
fn markdown_is_no_workflow(path: &Path, id: crate::source::FileId, loaded: &mut Loaded) {
    let markdown = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"));
    if !markdown || !loaded.diags.iter().any(|d| d.code == "AGC008") {
        return;
    }
    loaded.doc = None;
    loaded.diags = vec![
        Diagnostic::error(
            "AGC020",
            "a Markdown file is not a workflow document agc checks on its own",
        )
        .at(Span::point(id, 0))
        .with_help(
            "a Skill (SKILL.md) or a Markdown resource is checked with its Agent Graph \
             Provider: `agc check PROVIDER_FOLDER`; a Skill's binding with `agc evaluate \
             --skill SKILL.md`",
        ),
    ];
}

/// How a document read from standard input is named in diagnostics and plans.
pub const STDIN_NAME: &str = "<stdin>";

/// Whether a path given on the command line is `-`: the document is read from standard input.
pub use crate::fsio::read::is_stdin;

/// A document named on the command line: standard input for `-` (shown as [`STDIN_NAME`]),
/// else the file, as [`load_path`] reads it. Only the commands' own arguments go through
/// here; a file a document refers to is always read from disk, whatever its name.
pub fn load_input(
    sources: &mut SourceMap,
    path: &Path,
    display: &str,
    limits: Limits,
) -> Result<(FileId, Loaded), Diagnostic> {
    if !is_stdin(path) {
        return load_path(sources, path, display, limits);
    }
    load_reader(sources, &mut std::io::stdin().lock(), limits)
}

/// Reads a whole stream as the document [`STDIN_NAME`]: at most one byte past the size limit
/// (AGC012 then, like a file that is too large), so a stream without end cannot exhaust memory.
pub fn load_reader(
    sources: &mut SourceMap,
    reader: &mut dyn std::io::Read,
    limits: Limits,
) -> Result<(FileId, Loaded), Diagnostic> {
    match crate::fsio::read::read_stream(reader, limits.max_file_bytes) {
        Ok(bytes) => Ok(load_bytes(sources, STDIN_NAME, bytes, limits)),
        Err(e) => refused(sources, STDIN_NAME, &e),
    }
}

/// AGC001 for a path that cannot be read, at the start of an empty file of that name.
pub fn unreadable(sources: &mut SourceMap, display: &str, e: &dyn std::fmt::Display) -> Diagnostic {
    let id = sources.add(SourceFile::new(display, String::new()));
    Diagnostic::error("AGC001", format!("cannot read `{display}`: {e}")).at(Span::point(id, 0))
}

/// Loads in-memory bytes as a file named `display`.
pub fn load_bytes(
    sources: &mut SourceMap,
    display: &str,
    bytes: Vec<u8>,
    limits: Limits,
) -> (FileId, Loaded) {
    if bytes.len() > limits.max_file_bytes {
        let id = sources.add(SourceFile::new(display, String::new()));
        let d = Diagnostic::error(
            "AGC012",
            format!(
                "`{display}` is {} bytes, more than the limit of {} bytes",
                bytes.len(),
                limits.max_file_bytes
            ),
        )
        .at(Span::point(id, 0));
        return (
            id,
            Loaded {
                doc: None,
                diags: vec![d],
            },
        );
    }
    match String::from_utf8(bytes) {
        Ok(text) => load_str(sources, display, text, limits),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bad = e.as_bytes()[at];
            // Keep the valid prefix as the file's text so the position can be shown.
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let id = sources.add(SourceFile::new(display, text));
            // In the lossy text, the first bad byte became U+FFFD (3 bytes) at the same offset.
            let d = Diagnostic::error(
                "AGC002",
                format!("invalid UTF-8: byte 0x{bad:02X} at offset {at} does not start or continue a valid sequence"),
            )
            .at(Span::new(id, at, at + 3))
            .with_help("save the file as UTF-8");
            (
                id,
                Loaded {
                    doc: None,
                    diags: vec![d],
                },
            )
        }
    }
}

/// Loads a string as a file named `display`.
pub fn load_str(
    sources: &mut SourceMap,
    display: &str,
    text: String,
    limits: Limits,
) -> (FileId, Loaded) {
    let id = sources.add(SourceFile::new(display, text));
    let text = &sources.get(id).text;
    let mut pre = Vec::new();
    let offset = if text.starts_with(BOM) {
        pre.push(
            Diagnostic::warning("AGC010", "the file starts with a UTF-8 byte order mark")
                .at(Span::new(id, 0, BOM.len()))
                .with_help("remove the byte order mark; JSON and AGS forbid it"),
        );
        BOM.len()
    } else {
        0
    };
    // JSON documents take the fast path; what it does not take, the YAML loader reads.
    let fast = json::applies(&text[offset..])
        .then(|| json::load(id, text, offset, limits))
        .flatten();
    let strict = fast.is_some();
    let lines = sources.get(id).line_starts();
    let mut loaded = fast.unwrap_or_else(|| yaml::load_lines(id, text, offset, limits, lines));
    if !strict
        && is_json_name(display)
        && !loaded.diags.iter().any(Diagnostic::is_error)
        && let Some(d) = not_strict_json(id, &text[offset..], offset)
    {
        pre.push(d);
    }
    pre.append(&mut loaded.diags);
    loaded.diags = pre;
    (id, loaded)
}

fn is_json_name(display: &str) -> bool {
    Path::new(display)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// AGC016: a file named `.json` that agc could read only as YAML (comments, trailing commas,
/// single quotes, bare keys): agc accepts it, as YAML 1.2, but other tools and the formats'
/// own harnesses parse `.json` files as RFC 8259 JSON and refuse it. The span is where a strict
/// JSON parser stops. `None` when the text is strict JSON after all (the fast path leaves some
/// strict documents to the YAML loader, such as duplicate keys or very deep nesting).
fn not_strict_json(id: FileId, body: &str, offset: usize) -> Option<Diagnostic> {
    let e = serde_json::from_str::<serde::de::IgnoredAny>(body).err()?;
    if !e.is_syntax() || e.to_string().contains("recursion limit") {
        return None;
    }
    // serde_json counts lines from 1 and columns in bytes from 1.
    let line_start: usize = body
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let at = (offset + line_start + e.column().saturating_sub(1)).min(offset + body.len());
    let at = (0..=at)
        .rev()
        .find(|&i| body.is_char_boundary(i.saturating_sub(offset)))?;
    let why = e.to_string();
    let why = why.split(" at line ").next().unwrap_or(&why);
    Some(
        Diagnostic::warning(
            "AGC016",
            format!("this `.json` file is not strict JSON ({why}); agc read it as YAML 1.2"),
        )
        .at(Span::point(id, at))
        .with_help(
            "other tools read `.json` files as RFC 8259 JSON and will refuse it: remove \
             comments and trailing commas, quote keys and strings with `\"`, or name the file \
             `.yaml`",
        ),
    )
}
