//! Markdown resources and Skills: the YAML frontmatter between a leading `---` line and the
//! next `---` line (upstream `parseFrontmatter`, `readStaticResourceMetadata`).

use crate::diag::Diagnostic;
use crate::source::{FileId, Map, SourceFile, SourceMap, Span, Value};

/// Static resource kinds a Markdown file may declare.
pub(super) const STATIC_KINDS: [&str; 5] =
    ["procedure", "diagnostic", "template", "schema", "skill"];

/// Parses the frontmatter of `text` (a file shown as `display`). The file is added to `sources`
/// as it is, so findings point into it (the header is parsed in place, at its own lines and
/// columns); its id comes back with the metadata. `Err` carries `frontmatter-missing` or
/// `frontmatter-invalid`.
pub(super) fn parse(
    sources: &mut SourceMap,
    display: &str,
    text: &str,
    limits: crate::source::Limits,
) -> Result<(FileId, Map), Diagnostic> {
    let id = sources.add(SourceFile::new(display, text));
    let Some(first) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .map(|rest| text.len() - rest.len())
    else {
        return Err(Diagnostic::error(
            "frontmatter-missing",
            format!("the Markdown file `{display}` has no YAML frontmatter"),
        )
        .at(Span::new(id, 0, text.find('\n').unwrap_or(text.len())))
        .with_help("start the file with a `---` line, the YAML metadata, and another `---` line"));
    };
    let Some(header_end) = closing_line(text, first) else {
        return Err(Diagnostic::error(
            "frontmatter-invalid",
            format!("the frontmatter of `{display}` is not closed by a `---` line"),
        )
        .at(Span::new(id, 0, 3)));
    };
    let loaded = crate::source::yaml::load(id, &sources.get(id).text[..header_end], first, limits);
    if let Some(d) = loaded.diags.into_iter().find(Diagnostic::is_error) {
        return Err(Diagnostic::error(
            "frontmatter-invalid",
            format!(
                "the frontmatter of `{display}` is not valid YAML: {}",
                d.message
            ),
        )
        .at(d.span.unwrap_or(Span::point(id, 0))));
    }
    match loaded.doc.map(|d| d.value) {
        Some(Value::Object(m)) => Ok((id, m)),
        _ => Err(Diagnostic::error(
            "frontmatter-invalid",
            format!("the frontmatter of `{display}` must be a mapping"),
        )
        .at(Span::new(id, 0, 3))),
    }
}

/// Where the header that starts at byte `first` ends: the newline before the first `---` line
/// (a `\r\n` ending counts as `\n`) that ends with a newline and is not the header's first
/// line. Upstream looks for `\n---\n` from offset 4 of the text with `\r\n` turned into `\n`,
/// so in `---\n---\n` the second line closes nothing.
fn closing_line(text: &str, first: usize) -> Option<usize> {
    let mut at = first;
    for (line_no, line) in text[first..].split_inclusive('\n').enumerate() {
        let body = line
            .strip_suffix('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l));
        if line_no > 0 && body == Some("---") {
            return Some(at - 1);
        }
        at += line.len();
    }
    None
}

/// The `(id, kind, mediaType)` a static Markdown resource declares.
pub(super) fn metadata(
    meta: &Map,
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
    let id = meta.get("id").and_then(Value::as_str);
    let kind = meta.get("kind").and_then(Value::as_str);
    let (Some(id), Some(kind), Some(media)) = (id, kind, media) else {
        // Name what is wrong: a missing or non-string `id` or `kind` (both required), or a
        // `media-type` that is not a string (optional: `text/markdown` when absent).
        let mut wrong = Vec::new();
        for (key, ok) in [("id", id.is_some()), ("kind", kind.is_some())] {
            if !ok {
                wrong.push(match meta.get(key) {
                    None => format!("`{key}` is missing"),
                    Some(_) => format!("`{key}` is not a string"),
                });
            }
        }
        if media.is_none() {
            wrong.push("`media-type` is not a string".to_string());
        }
        return Err(Diagnostic::error(
            "resource-metadata-invalid",
            format!(
                "the resource `{display}` needs a string `id` and `kind` (and, if given, \
                 `media-type`): {}",
                wrong.join(", ")
            ),
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
            .map(|(_, m)| m.keys().map(|k| k.to_string()).collect())
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

    #[test]
    fn findings_point_into_the_file_as_written() {
        // The header is parsed in place: a YAML error's span is a byte range of the real
        // file (CRLF endings included), and the source shown is the file itself.
        for nl in ["\n", "\r\n"] {
            let text = format!("---{nl}id: a{nl}kind: [x{nl}---{nl}body{nl}");
            let mut sources = SourceMap::new();
            let err = parse(
                &mut sources,
                "r.md",
                &text,
                crate::source::Limits::default(),
            )
            .unwrap_err();
            assert_eq!(err.code, "frontmatter-invalid");
            let span = err.span.unwrap();
            assert_eq!(sources.get(span.file).text, text);
            // Within the header's third line (`kind: [x`) or at its end, never before it.
            assert!(
                span.start as usize >= text.find("kind").unwrap(),
                "{nl:?} {span:?}"
            );
            assert!(
                span.start as usize <= text.rfind("---").unwrap(),
                "{nl:?} {span:?}"
            );
        }
        let text = "---\r\nid: a\r\nkind: procedure\r\n---\r\nbody\r\n";
        let mut sources = SourceMap::new();
        let (id, m) = parse(&mut sources, "r.md", text, crate::source::Limits::default()).unwrap();
        assert_eq!(m.get("kind").unwrap(), "procedure");
        assert_eq!(sources.get(id).text, text);
    }

    #[test]
    fn metadata_findings_name_the_key_at_fault() {
        let at = Span::point(FileId(0), 0);
        let meta = |yaml: serde_json::Value| Value::from(yaml).as_object().unwrap().clone();
        let err = |m| metadata(&m, "r.md", at).unwrap_err().message;
        let m = meta(serde_json::json!({"kind": "procedure"}));
        assert!(err(m).ends_with(": `id` is missing"));
        let m = meta(serde_json::json!({"id": 3, "media-type": 1}));
        assert!(
            err(m).ends_with(
                ": `id` is not a string, `kind` is missing, `media-type` is not a string"
            )
        );
        // `media-type` is optional.
        let m = meta(serde_json::json!({"id": "a", "kind": "procedure"}));
        assert_eq!(metadata(&m, "r.md", at).unwrap().2, "text/markdown");
    }
}
