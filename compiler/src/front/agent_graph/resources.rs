//! Resources of a Provider: YAML/JSON `agent-graph.resource.v1` descriptors (static with a
//! `path`, or dynamic `context-view`s with a `materializer`) and Markdown files with frontmatter
//! (upstream `loadResource`), each loaded once, with `resource-id-duplicate` across files.

use super::frontmatter;
use super::loader::{Loader, ResourceEntry};
use super::span_at;
use crate::diag::Diagnostic;
use crate::dialect::AgentGraphKind;
use crate::source::Span;
use crate::source::Value;
use agc_runtime::agent_graph::model;
use std::path::Path;

fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

impl Loader<'_, '_> {
    /// Loads (once) the resource at `reference`; gives its relative path.
    pub(super) fn include_resource(&mut self, reference: &str, at: Span) -> Option<String> {
        let (rel, abs) = self.resolve(reference, at)?;
        if self.resources.contains_key(&rel) {
            return Some(rel);
        }
        let entry = self.load_resource(&rel, &abs);
        let Some(entry) = entry else {
            self.resources.insert(
                rel.clone(),
                ResourceEntry {
                    id: String::new(),
                    model: None,
                    files: Vec::new(),
                    materializer: None,
                },
            );
            return None;
        };
        if let Some(first) = self.resource_ids.get(&entry.id) {
            let msg = format!(
                "the resource id `{}` is also declared by `{}`",
                entry.id,
                self.display(first)
            );
            self.diags
                .push(Diagnostic::error("resource-id-duplicate", msg).at(at));
        } else {
            self.resource_ids.insert(entry.id.clone(), rel.clone());
        }
        self.resources.insert(rel.clone(), entry);
        Some(rel)
    }

    fn load_resource(&mut self, rel: &str, abs: &Path) -> Option<ResourceEntry> {
        let ext = rel.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        let display = self.display(rel);
        let limit = self.cx.opts.limits.max_file_bytes;
        let text = self.cx.files.read_text(abs, limit).unwrap_or_default();
        if matches!(ext.as_deref(), Some("yaml" | "yml" | "json"))
            && is_resource_descriptor(&text, self.cx.opts.limits)
        {
            let doc = self.load(rel, abs, AgentGraphKind::Resource)?;
            let v = &doc.value;
            let id = str_at(v, "id").unwrap_or_default().to_string();
            let kind = str_at(v, "kind").unwrap_or_default().to_string();
            let media_type = str_at(v, "mediaType").unwrap_or_default().to_string();
            if let Some(m) = str_at(v, "materializer") {
                return Some(ResourceEntry {
                    model: Some(model::Resource {
                        path: rel.to_string(),
                        id: id.clone(),
                        kind,
                        media_type,
                        content: None,
                    }),
                    id,
                    files: vec![rel.to_string()],
                    materializer: Some((m.to_string(), span_at(&doc, "/materializer"))),
                });
            }
            let (crel, _) = self.resolve(
                str_at(v, "path").unwrap_or_default(),
                span_at(&doc, "/path"),
            )?;
            let content = self.file_ref(&crel);
            return Some(ResourceEntry {
                model: Some(model::Resource {
                    path: rel.to_string(),
                    id: id.clone(),
                    kind,
                    media_type,
                    content: Some(content),
                }),
                id,
                files: vec![rel.to_string(), crel],
                materializer: None,
            });
        }
        let limits = self.cx.opts.limits;
        let (file, meta) = match frontmatter::parse(self.cx.sources, &display, &text, limits) {
            Ok(m) => m,
            Err(d) => {
                self.diags.push(d);
                return None;
            }
        };
        let (id, kind, media_type) =
            match frontmatter::metadata(&meta, &display, Span::new(file, 0, 3)) {
                Ok(m) => m,
                Err(d) => {
                    self.diags.push(d);
                    return None;
                }
            };
        let content = self.file_ref(rel);
        Some(ResourceEntry {
            model: Some(model::Resource {
                path: rel.to_string(),
                id: id.clone(),
                kind,
                media_type,
                content: Some(content),
            }),
            id,
            files: vec![rel.to_string()],
            materializer: None,
        })
    }
}

/// Whether a YAML or JSON file is an `agent-graph.resource.v1` descriptor (a mapping whose
/// `schema` says so); anything else is read as Markdown with frontmatter, as upstream does.
fn is_resource_descriptor(text: &str, limits: crate::source::Limits) -> bool {
    let mut scratch = crate::source::SourceMap::new();
    let (_, loaded) = crate::source::load::load_str(&mut scratch, "", text.to_string(), limits);
    loaded
        .doc
        .is_some_and(|d| d.value.get("schema") == Some(&Value::from("agent-graph.resource.v1")))
}
