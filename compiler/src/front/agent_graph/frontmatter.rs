//! Markdown resources and Skills: the YAML frontmatter between a leading `---` line and the
//! next `---` line (upstream `parseFrontmatter`, `readStaticResourceMetadata`).

use crate::diag::Diagnostic;
use crate::source::{SourceFile, SourceMap, Span, load};
use serde_json::Value;

/// Static resource kinds a Markdown file may declare.
pub(super) const STATIC_KINDS: [&str; 5] =
    ["procedure", "diagnostic", "template", "schema", "skill"];

/// Parses the frontmatter of `text` (a file shown as `display`). The file is added to `sources`
/// so findings have a place. `Err` carries `frontmatter-missing` or `frontmatter-invalid`.
pub(super) fn parse(
    sources: &mut SourceMap,
    display: &str,
    text: &str,
    limits: crate::source::Limits,
) -> Result<serde_json::Map<String, Value>, Diagnostic> {
    let normalized = text.replace("\r\n", "\n");
    if !normalized.starts_with("---\n") {
        let id = sources.add(SourceFile::new(display, text));
        return Err(Diagnostic::error(
            "frontmatter-missing",
            format!("the Markdown file `{display}` has no YAML frontmatter"),
        )
        .at(Span::new(id, 0, text.find('\n').unwrap_or(text.len())))
        .with_help("start the file with a `---` line, the YAML metadata, and another `---` line"));
    }
    // The closing line is looked for after the opening one, as upstream does (`indexOf("\n---\n",
    // 4)`): in `---\n---\n` the second line does not close anything (the search starting at 3
    // found it and sliced the header `[4..3]`, a panic).
    let Some(end) = normalized[4..].find("\n---\n").map(|i| i + 4) else {
        let id = sources.add(SourceFile::new(display, text));
        return Err(Diagnostic::error(
            "frontmatter-invalid",
            format!("the frontmatter of `{display}` is not closed by a `---` line"),
        )
        .at(Span::new(id, 0, 3)));
    };
    // The header keeps its line numbers: the opening `---` becomes a comment line.
    let header = format!("#--\n{}", &normalized[4..end]);
    let (file, loaded) = load::load_str(sources, display, header, limits);
    if let Some(d) = loaded.diags.into_iter().find(Diagnostic::is_error) {
        return Err(Diagnostic::error(
            "frontmatter-invalid",
            format!(
                "the frontmatter of `{display}` is not valid YAML: {}",
                d.message
            ),
        )
        .at(d.span.unwrap_or(Span::point(file, 0))));
    }
    match loaded.doc.map(|d| d.value) {
        Some(Value::Object(m)) => Ok(m),
        _ => Err(Diagnostic::error(
            "frontmatter-invalid",
            format!("the frontmatter of `{display}` must be a mapping"),
        )
        .at(Span::point(file, 0))),
    }
}

/// The `(id, kind, mediaType)` a static Markdown resource declares.
pub(super) fn metadata(
    meta: &serde_json::Map<String, Value>,
    display: &str,
    at: Span,
) -> Result<(String, String, String), Diagnostic> {
    let media = meta
        .get("media-type")
        .filter(|v| !v.is_null())
        .or_else(|| meta.get("mediaType").filter(|v| !v.is_null()));
    let media = match media {
        None => Some("text/markdown"),
        Some(v) => v.as_str(),
    };
    let (Some(id), Some(kind), Some(media)) = (
        meta.get("id").and_then(Value::as_str),
        meta.get("kind").and_then(Value::as_str),
        media,
    ) else {
        return Err(Diagnostic::error(
            "resource-metadata-invalid",
            format!("the resource `{display}` must declare a string `id`, `kind` and `media-type`"),
        )
        .at(at));
    };
    if !STATIC_KINDS.contains(&kind) {
        return Err(Diagnostic::error(
            "resource-kind-invalid",
            format!(
                "the static resource `{display}` has the unsupported kind `{kind}` (one of {})",
                STATIC_KINDS.join(", ")
            ),
        )
        .at(at));
    }
    Ok((id.to_string(), kind.to_string(), media.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Vec<String>, String> {
        let mut sources = SourceMap::new();
        parse(&mut sources, "r.md", text, crate::source::Limits::default())
            .map(|m| m.keys().cloned().collect())
            .map_err(|d| format!("{}: {}", d.code, d.message))
    }

    #[test]
    fn the_closing_line_is_looked_for_after_the_opening_one() {
        // Upstream reads `---\n---\n` as a frontmatter that is never closed.
        for text in ["---\n---\nbody\n", "---\r\n---\r\nbody\r\n", "---\n---\n"] {
            let err = parsed(text).unwrap_err();
            assert!(err.starts_with("frontmatter-invalid: "), "{text:?}: {err}");
            assert!(err.contains("not closed"), "{err}");
        }
        // An empty line between the two closes it, with an empty header: no mapping.
        let err = parsed("---\n\n---\nbody\n").unwrap_err();
        assert!(err.starts_with("frontmatter-invalid: "), "{err}");
        assert!(!err.contains("not closed"), "{err}");
        assert_eq!(
            parsed("---\nid: a\nkind: procedure\n---\nbody\n").unwrap(),
            ["id", "kind"]
        );
    }
}
