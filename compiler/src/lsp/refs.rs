//! Requests answered from the reference index ([`super::index::Refs`], which the front ends
//! fill: [`crate::front::xref`]): go to definition, find references, and rename.
//!
//! - `textDocument/definition`: on a node id (its declaration, a structural use, a read in an
//!   expression or template), the node's declaration; on a link (`subgraph.ref.uri`, `use`,
//!   an Agent Graph action, an agh tool id), where it leads.
//! - `textDocument/references`: every site of the node under the cursor, its declaration
//!   when the client asks for it.
//! - `textDocument/prepareRename`: the id's range when the cursor is on one, an error (which
//!   editors show) when not.
//! - `textDocument/rename`: one workspace edit replacing every site. Refused, with a message
//!   the editor shows, when the new name is not an id (empty, spaces, quotes), when it is
//!   already a node of the scope, or when the renamed document checks with errors the
//!   original does not have (the dialect's own rule on ids: the same check `agc check` runs,
//!   on the renamed text, with the old text restored afterwards).

use super::index::{Refs, Site};
use super::server::Server;
use super::text::Lines;
use super::uri;
use lsp_types as lsp;
use std::collections::{BTreeMap, HashMap};

/// The document at `uri`, its reference index and the site at `pos`.
fn site_at<'s>(
    server: &'s Server,
    uri: &lsp::Uri,
    pos: lsp::Position,
) -> Option<(Lines<'s>, &'s Refs, Option<&'s Site>, usize)> {
    let path = uri::to_path(uri)?;
    let doc = server.docs.get(&path)?;
    let check = server.checks.get(&path)?;
    let lines = Lines::new(&doc.text, server.enc);
    let offset = lines.offset(pos);
    let site = check.refs.site_at(offset);
    Some((lines, &check.refs, site, offset))
}

/// The declaration of the node under the cursor, or where the link there leads.
pub fn definition(server: &Server, uri: &lsp::Uri, pos: lsp::Position) -> Vec<lsp::Location> {
    let Some((lines, refs, site, offset)) = site_at(server, uri, pos) else {
        return Vec::new();
    };
    if let Some(site) = site {
        return refs
            .same_node(site)
            .filter(|s| s.def)
            .map(|s| lsp::Location::new(uri.clone(), lines.range(s.start, s.end)))
            .collect();
    }
    refs.links
        .iter()
        .filter(|l| l.0 <= offset && offset <= l.1)
        .min_by_key(|l| l.1 - l.0)
        .and_then(|(_, _, path, range)| Some(lsp::Location::new(uri::from_path(path)?, *range)))
        .into_iter()
        .collect()
}

/// Every site of the node under the cursor.
pub fn references(server: &Server, p: &lsp::ReferenceParams) -> Vec<lsp::Location> {
    let at = &p.text_document_position;
    let Some((lines, refs, Some(site), _)) = site_at(server, &at.text_document.uri, at.position)
    else {
        return Vec::new();
    };
    let uri = &at.text_document.uri;
    refs.same_node(site)
        .filter(|s| p.context.include_declaration || !s.def)
        .map(|s| lsp::Location::new(uri.clone(), lines.range(s.start, s.end)))
        .collect()
}

/// The range of the id under the cursor, for the editor's rename box.
pub fn prepare_rename(
    server: &Server,
    p: &lsp::TextDocumentPositionParams,
) -> Result<lsp::PrepareRenameResponse, String> {
    match site_at(server, &p.text_document.uri, p.position) {
        Some((lines, _, Some(site), _)) => Ok(lsp::PrepareRenameResponse::RangeWithPlaceholder {
            range: lines.range(site.start, site.end),
            placeholder: site.id.clone(),
        }),
        _ => Err("agc renames node ids: the cursor is not on one".into()),
    }
}

/// One edit renaming the node under the cursor everywhere in its document.
pub fn rename(server: &mut Server, p: &lsp::RenameParams) -> Result<lsp::WorkspaceEdit, String> {
    let at = &p.text_document_position;
    let uri = at.text_document.uri.clone();
    let new = p.new_name.as_str();
    let (edits, renamed, site) = {
        let Some((lines, refs, Some(site), _)) = site_at(server, &uri, at.position) else {
            return Err("agc renames node ids: the cursor is not on one".into());
        };
        if new == site.id {
            return Ok(lsp::WorkspaceEdit::default());
        }
        if new.is_empty()
            || new
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || "\"'`{}[],:#&*!|>%@".contains(c))
        {
            return Err(format!("`{new}` cannot be a node id"));
        }
        if refs
            .sites
            .iter()
            .any(|s| s.def && s.scope == site.scope && s.id == new)
        {
            return Err(format!("`{new}` is already a node of this scope"));
        }
        let sites: Vec<&Site> = refs.same_node(site).collect();
        let edits: Vec<lsp::TextEdit> = sites
            .iter()
            .map(|s| lsp::TextEdit::new(lines.range(s.start, s.end), new.to_string()))
            .collect();
        // The renamed text, sites replaced from the last.
        let path = uri::to_path(&uri).ok_or("not a file")?;
        let mut text = server.docs.get(&path).ok_or("not open")?.text.clone();
        for s in sites.iter().rev() {
            if text.is_char_boundary(s.start) && text.is_char_boundary(s.end) {
                text.replace_range(s.start..s.end, new);
            }
        }
        (edits, text, site.id.clone())
    };
    if let Some(why) = refused(server, &uri, renamed) {
        return Err(format!(
            "renaming `{site}` to `{new}` would not check: {why}"
        ));
    }
    Ok(one_file_edit(uri, edits))
}

/// A workspace edit of one document.
// `lsp_types::Uri` counts as a mutable key (it caches its parse); the protocol's type is a map
// keyed by it all the same, and nothing mutates a key here.
#[allow(clippy::mutable_key_type)]
pub fn one_file_edit(uri: lsp::Uri, edits: Vec<lsp::TextEdit>) -> lsp::WorkspaceEdit {
    let mut changes = HashMap::new();
    changes.insert(uri, edits);
    lsp::WorkspaceEdit {
        changes: Some(changes),
        ..Default::default()
    }
}

/// The first error the renamed text has that the document's last check did not (by code),
/// checked as the document with its text replaced for this one check.
fn refused(server: &mut Server, uri: &lsp::Uri, renamed: String) -> Option<String> {
    let path = uri::to_path(uri)?;
    let before = errors_by_code(server.checks.get(&path)?.diags.get(&path)?);
    let original = server.docs.get(&path)?.text.clone();
    server.session.set_overlay(&path, renamed);
    let check = server.check(&path);
    server.session.set_overlay(&path, original);
    let after = check.diags.get(&path)?;
    let counts = errors_by_code(after);
    let code = counts
        .iter()
        .find(|(c, n)| before.get(*c).copied().unwrap_or(0) < **n)?
        .0;
    after
        .iter()
        .find(|d| d.severity == Some(lsp::DiagnosticSeverity::ERROR) && code_of(d) == *code)
        .map(|d| format!("{} ({code})", d.message.lines().next().unwrap_or_default()))
}

fn errors_by_code(diags: &[lsp::Diagnostic]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for d in diags {
        if d.severity == Some(lsp::DiagnosticSeverity::ERROR) {
            *out.entry(code_of(d)).or_insert(0) += 1;
        }
    }
    out
}

fn code_of(d: &lsp::Diagnostic) -> String {
    match &d.code {
        Some(lsp::NumberOrString::String(s)) => s.clone(),
        Some(lsp::NumberOrString::Number(n)) => n.to_string(),
        None => String::new(),
    }
}
