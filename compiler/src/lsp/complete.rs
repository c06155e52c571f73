//! `textDocument/completion`, from the text before the cursor:
//!
//! - after `nodes.<id>.outputs.` (AGS), `nodes.<id>.output.` (agh templates and CEL): the
//!   node's outputs, from the last check that lowered (their names outlive a broken edit);
//! - after `nodes.` (`.nodes.` in a template), or as the value of a field that names a node
//!   (`depends_on`, `from`, `to`, `entrypoints`, `source`, `target`, `entry`, `default`,
//!   `join`, `compensation`, `node`): the document's node ids, from the reference index;
//! - at a key of a block mapping: the keys the dialect's JSON Schema allows there
//!   ([`super::schema_keys`]).

use super::server::Server;
use super::text::Lines;
use super::uri;
use lsp_types as lsp;

/// Fields whose value is a node id (or a list of them), in some dialect.
const NODE_FIELDS: [&str; 11] = [
    "depends_on",
    "from",
    "to",
    "entrypoints",
    "source",
    "target",
    "entry",
    "default",
    "join",
    "compensation",
    "node",
];

pub fn complete(server: &Server, at: &lsp::TextDocumentPositionParams) -> Vec<lsp::CompletionItem> {
    let Some(path) = uri::to_path(&at.text_document.uri) else {
        return Vec::new();
    };
    let (Some(doc), Some(check)) = (server.docs.get(&path), server.checks.get(&path)) else {
        return Vec::new();
    };
    let lines = Lines::new(&doc.text, server.enc);
    let offset = lines.offset(at.position);
    let line_start = doc.text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &doc.text[line_start..offset];
    // The word being typed, and what precedes it.
    let word_len = before
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-'))
        .map(char::len_utf8)
        .sum::<usize>();
    let head = &before[..before.len() - word_len];
    let item = |label: &str, kind, detail: Option<String>| lsp::CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail,
        ..Default::default()
    };
    if let Some(id) = outputs_of(head) {
        let mut out: Vec<lsp::CompletionItem> = Vec::new();
        for n in check
            .known
            .nodes
            .iter()
            .filter(|n| n.local_id == id || n.scoped_id == id)
        {
            for (name, ty, _) in &n.outputs {
                if !out.iter().any(|i| i.label == *name) {
                    out.push(item(name, lsp::CompletionItemKind::FIELD, Some(ty.clone())));
                }
            }
        }
        return out;
    }
    if head.ends_with("nodes.") || names_a_node(&doc.text[..line_start], head) {
        let mut ids: Vec<&str> = check
            .refs
            .sites
            .iter()
            .filter(|s| s.def)
            .map(|s| s.id.as_str())
            .collect();
        if ids.is_empty() {
            // A buffer that does not load has no index: the last good check's nodes.
            ids = check
                .known
                .nodes
                .iter()
                .map(|n| n.local_id.as_str())
                .collect();
        }
        ids.sort_unstable();
        ids.dedup();
        return ids
            .into_iter()
            .map(|id| {
                let detail = check
                    .known
                    .nodes
                    .iter()
                    .find(|n| n.local_id == id)
                    .map(|n| n.origin_kind.clone());
                item(id, lsp::CompletionItemKind::REFERENCE, detail)
            })
            .collect();
    }
    if head.trim_start_matches([' ', '-']).is_empty()
        && let Some(dialect) = check.dialect
    {
        let above = &doc.text[..line_start];
        return super::schema_keys::keys(dialect, above, head)
            .into_iter()
            .map(|(k, desc)| lsp::CompletionItem {
                documentation: desc.map(lsp::Documentation::String),
                ..item(&k, lsp::CompletionItemKind::PROPERTY, None)
            })
            .collect();
    }
    Vec::new()
}

/// The node id of a `nodes.<id>.outputs.` (or `.output.`) path that `head` ends with.
fn outputs_of(head: &str) -> Option<&str> {
    let rest = head
        .strip_suffix(".outputs.")
        .or_else(|| head.strip_suffix(".output."))?;
    let id_start = rest
        .rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-')))
        .map_or(0, |i| i + 1);
    let (root, id) = rest.split_at(id_start);
    root.ends_with("nodes.")
        .then_some(id)
        .filter(|id| !id.is_empty())
}

/// Whether the cursor (after `head` on its line, with `above` before the line) is where a
/// field that names a node takes its value: `from: `, `depends_on: [a, `, or an item of a
/// block list under such a field.
fn names_a_node(above: &str, head: &str) -> bool {
    let field_value = |s: &str| {
        let s = s.trim_start().trim_start_matches("- ").trim_start();
        NODE_FIELDS.iter().any(|f| {
            s.strip_prefix(f)
                .and_then(|r| r.strip_prefix(':'))
                .is_some_and(|r| {
                    let r = r.trim_start();
                    r.is_empty() || (r.starts_with('[') && !r.contains(']'))
                })
        })
    };
    let last = head.rsplit(['{', ',']).next().unwrap_or(head);
    if field_value(head) || (last.len() < head.len() && field_value(last)) {
        return true;
    }
    // `- ` items of a block list: the nearest less indented line is `depends_on:`.
    let t = head.trim_start();
    if t != "-" && t != "- " && !(t.starts_with("- ") && t[2..].trim().is_empty()) {
        return false;
    }
    let indent = head.len() - t.len();
    above
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .find(|l| l.len() - l.trim_start().len() < indent || !l.trim_start().starts_with('-'))
        .is_some_and(|l| field_value(l) && l.len() - l.trim_start().len() <= indent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_are_read_from_the_line() {
        assert_eq!(outputs_of("x: ${{ nodes.fetch.outputs."), Some("fetch"));
        assert_eq!(outputs_of("{{ .nodes.a-b.output."), Some("a-b"));
        assert_eq!(outputs_of("x.outputs."), None);
        assert!(names_a_node("", "    depends_on: ["));
        assert!(names_a_node("", "    depends_on: [a, "));
        assert!(names_a_node("", "  - { from: a, to: "));
        assert!(!names_a_node("", "    title: "));
        assert!(names_a_node("nodes:\n  a:\n    depends_on:\n", "      - "));
        assert!(!names_a_node("nodes:\n  a:\n    outputs:\n", "      - "));
    }
}
