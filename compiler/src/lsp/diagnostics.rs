//! agc's diagnostics as LSP diagnostics, grouped by the file they point into.
//!
//! The conversion adds nothing and drops nothing that `agc check` prints: the same code,
//! severity, message and span (the label, when it says more than the message, is appended
//! as `agc check`'s human output shows it under the caret). Secondary labels become related
//! information at their own places (in any file), and the help becomes related information at
//! the diagnostic's own place, `help: …`, as LSP has no field of its own for it. The code
//! links to `agc-explain:CODE` (the explanation `agc explain CODE` prints; the VS Code
//! extension opens it, and hover shows it in every editor: [`super::handlers`]).
//!
//! A check of one document also reports on the files it pulls in (a `subgraph.ref` fragment,
//! an Agent Graph graph file): those diagnostics are published on those files.

use super::text::{Encoding, Lines};
use super::uri;
use crate::diag::{Diagnostic, Fix, Severity};
use crate::source::{FileId, SourceMap};
use lsp_types as lsp;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The LSP diagnostics of one check, by the (normalised) path of the file they are in.
pub type ByFile = BTreeMap<PathBuf, Vec<lsp::Diagnostic>>;

/// The path of a loaded file: its display name, which the server makes absolute when it
/// checks a document (the front ends join the names of the files a document pulls in to it).
pub fn file_path(sources: &SourceMap, file: FileId) -> Option<PathBuf> {
    let name = &source(sources, file)?.name;
    Some(uri::normal(Path::new(name)))
}

/// The file `id` of `sources`, when it is one (ids of an earlier session mean nothing).
pub fn source(sources: &SourceMap, id: FileId) -> Option<&crate::source::SourceFile> {
    ((id.0 as usize) < sources.len()).then(|| sources.get(id))
}

/// Converts the diagnostics of the check of `root` (those without a place go on `root`).
pub fn convert(sources: &SourceMap, diags: &[Diagnostic], root: &Path, enc: Encoding) -> ByFile {
    let mut out = ByFile::new();
    out.entry(root.to_path_buf()).or_default();
    let mut lines: HashMap<FileId, Lines<'_>> = HashMap::new();
    let mut place = |span: Option<crate::source::Span>| -> (PathBuf, lsp::Range) {
        let found = span.and_then(|s| {
            let path = file_path(sources, s.file)?;
            let text = &source(sources, s.file)?.text;
            let l = lines.entry(s.file).or_insert_with(|| Lines::new(text, enc));
            Some((path, l.range(s.start as usize, s.end as usize)))
        });
        found.unwrap_or_else(|| (root.to_path_buf(), lsp::Range::default()))
    };
    // (file, index there, diagnostic) of those with a fix, placed once every file's lines
    // are known.
    let mut fixes = Vec::new();
    for d in diags {
        let (path, range) = place(d.span);

        let mut related = Vec::new();
        for label in &d.labels {
            let (p, r) = place(Some(label.span));
            if let Some(uri) = uri::from_path(&p) {
                related.push(lsp::DiagnosticRelatedInformation {
                    location: lsp::Location::new(uri, r),
                    message: label.message.clone(),
                });
            }
        }
        if let (Some(help), Some(uri)) = (&d.help, uri::from_path(&path)) {
            related.push(lsp::DiagnosticRelatedInformation {
                location: lsp::Location::new(uri, range),
                message: format!("help: {help}"),
            });
        }
        let message = match &d.label {
            Some(label) if label != &d.message => format!("{}\n{label}", d.message),
            _ => d.message.clone(),
        };
        out.entry(path.clone()).or_default().push(lsp::Diagnostic {
            range,
            severity: Some(severity(d.severity)),
            code: Some(lsp::NumberOrString::String(d.code.to_string())),
            code_description: explain_uri(d.code).map(|href| lsp::CodeDescription { href }),
            source: Some("agc".into()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            tags: None,
            data: None,
        });
        if d.fix.is_some() {
            let list = &out[&path];
            fixes.push((path, list.len() - 1, d));
        }
    }
    for (path, i, d) in fixes {
        let Some(l) = d.span.and_then(|s| lines.get(&s.file)) else {
            continue;
        };
        let data = fix_data(sources, d, l);
        if let Some(x) = out.get_mut(&path).and_then(|v| v.get_mut(i)) {
            x.data = data;
        }
    }
    out
}

/// The LSP `data` of a diagnostic with a fix: `{"fix": {"title", "edits": [{range, newText}]}}`
/// (edits in the diagnostic's own file); `None` when the fix cannot be placed.
pub fn fix_data(
    sources: &SourceMap,
    d: &crate::diag::Diagnostic,
    lines: &Lines<'_>,
) -> Option<Value> {
    let span = d.span?;
    let text = &source(sources, span.file)?.text;
    let (title, start, end, new) = match d.fix.as_deref()? {
        Fix::Replace { wrong, right } => {
            let at = crate::front::xref::narrow(text, span, wrong)?;
            (
                format!("replace `{wrong}` with `{right}`"),
                at.start,
                at.end,
                right.clone(),
            )
        }
        Fix::Insert { at, text, title } if at.file == span.file => {
            (title.clone(), at.start, at.end, text.clone())
        }
        Fix::Insert { .. } => return None,
    };
    let range = lines.range(start as usize, end as usize);
    Some(json!({ "fix": { "title": title, "edits": [{ "range": range, "newText": new }] } }))
}

fn severity(s: Severity) -> lsp::DiagnosticSeverity {
    match s {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Note => lsp::DiagnosticSeverity::INFORMATION,
    }
}

/// `agc-explain:CODE` for a registered code.
pub fn explain_uri(code: &str) -> Option<lsp::Uri> {
    crate::diag::lookup(code)?;
    format!("agc-explain:{code}").parse().ok()
}
