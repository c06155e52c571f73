//! `textDocument/codeAction`: a quick fix for each diagnostic in the range that carries one.
//!
//! The fix is data on agc's diagnostic ([`crate::diag::Fix`]: the front end that wrote the
//! help "did you mean `x`?" or "add `depends_on: [x]`" also recorded the edit), placed in the
//! file when the diagnostic is converted ([`super::diagnostics::fix_data`]) and carried in the LSP diagnostic's
//! `data`; this handler turns the diagnostics at the requested range into code actions. It
//! reads the server's own copy of the diagnostics, so a client that does not send `data` back
//! gets the fixes too.

use super::server::Server;
use super::uri;
use lsp_types as lsp;

/// The quick fixes of the diagnostics of the document that touch the requested range.
pub fn actions(server: &Server, p: &lsp::CodeActionParams) -> Vec<lsp::CodeAction> {
    let uri = &p.text_document.uri;
    let Some(path) = uri::to_path(uri) else {
        return Vec::new();
    };
    let Some(diags) = server
        .checks
        .values()
        .find_map(|c| c.diags.get(&path).filter(|d| !d.is_empty()))
    else {
        return Vec::new();
    };
    let key = |p: lsp::Position| (p.line, p.character);
    let r = p.range;
    let mut out = Vec::new();
    for d in diags {
        if key(d.range.end) < key(r.start) || key(r.end) < key(d.range.start) {
            continue;
        }
        let Some(fix) = d.data.as_ref().and_then(|v| v.get("fix")) else {
            continue;
        };
        let Ok(edits) = serde_json::from_value::<Vec<lsp::TextEdit>>(fix["edits"].clone()) else {
            continue;
        };
        let title = fix["title"]
            .as_str()
            .unwrap_or("apply agc's fix")
            .to_string();
        out.push(lsp::CodeAction {
            title,
            kind: Some(lsp::CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![d.clone()]),
            edit: Some(super::refs::one_file_edit(uri.clone(), edits)),
            is_preferred: Some(true),
            ..Default::default()
        });
    }
    out
}
