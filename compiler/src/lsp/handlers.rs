//! Requests by method: each parses its parameters and answers from the server's state (the
//! open document's text and its last check, fresh: the loop checks before answering).
//!
//! - `textDocument/documentSymbol`: the outline, nodes nested in the regions (loop, map,
//!   subgraph bodies) that hold them.
//! - `textDocument/hover`: at a diagnostic, its code's explanation (`agc explain`); on a
//!   node, its kind, title and inputs and outputs with their types.
//! - `textDocument/definition`, `references`, `prepareRename`, `rename`: from the reference
//!   index ([`super::refs`]).
//! - `textDocument/completion`: [`super::complete`].
//! - `textDocument/codeAction`: [`super::actions`].

use super::index::{Index, NodeInfo};
use super::server::{Check, Server, parse};
use super::text::{Doc, Lines};
use super::uri;
use super::{actions, complete, refs};
use lsp_types as lsp;
use serde_json::Value;

/// Why a request has no answer: parameters that do not parse (`InvalidParams`), or a request
/// the server refuses with a message for the user (`RequestFailed`: a rename it will not do).
pub enum Refusal {
    Params(String),
    Failed(String),
}

/// The answer to request `method`: `None` for a method the server does not handle.
pub fn handle(server: &mut Server, method: &str, params: Value) -> Option<Result<Value, Refusal>> {
    let answer = match method {
        "textDocument/documentSymbol" => params_of::<lsp::DocumentSymbolParams>(method, params)
            .map(|p| {
                let symbols = open(server, &p.text_document.uri).map(|(doc, check)| {
                    let lines = Lines::new(&doc.text, server.enc);
                    outline(&check.index, &lines)
                });
                to_value(symbols.unwrap_or_default())
            }),
        "textDocument/hover" => params_of::<lsp::HoverParams>(method, params).map(|p| {
            let at = p.text_document_position_params;
            to_value(hover(server, &at.text_document.uri, at.position))
        }),
        "textDocument/definition" => {
            params_of::<lsp::GotoDefinitionParams>(method, params).map(|p| {
                let at = p.text_document_position_params;
                to_value(refs::definition(server, &at.text_document.uri, at.position))
            })
        }
        "textDocument/references" => params_of::<lsp::ReferenceParams>(method, params)
            .map(|p| to_value(refs::references(server, &p))),
        "textDocument/prepareRename" => {
            params_of::<lsp::TextDocumentPositionParams>(method, params).and_then(|p| {
                refs::prepare_rename(server, &p)
                    .map(to_value)
                    .map_err(Refusal::Failed)
            })
        }
        "textDocument/rename" => params_of::<lsp::RenameParams>(method, params).and_then(|p| {
            refs::rename(server, &p)
                .map(to_value)
                .map_err(Refusal::Failed)
        }),
        "textDocument/completion" => params_of::<lsp::CompletionParams>(method, params)
            .map(|p| to_value(complete::complete(server, &p.text_document_position))),
        "textDocument/codeAction" => params_of::<lsp::CodeActionParams>(method, params)
            .map(|p| to_value(actions::actions(server, &p))),
        _ => return None,
    };
    Some(answer)
}

fn params_of<T: serde::de::DeserializeOwned>(method: &str, params: Value) -> Result<T, Refusal> {
    parse::<T>(params)
        .ok_or_else(|| Refusal::Params(format!("`{method}`: the parameters do not parse")))
}

fn to_value<T: serde::Serialize>(v: T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The open document at `uri` and its last check.
fn open<'s>(server: &'s Server, uri: &lsp::Uri) -> Option<(&'s Doc, &'s Check)> {
    let path = uri::to_path(uri)?;
    Some((server.docs.get(&path)?, server.checks.get(&path)?))
}

/// The nodes as nested document symbols. Built bottom-up, deepest nodes first, so that region
/// nesting never becomes recursion depth.
#[allow(deprecated)] // `DocumentSymbol::deprecated`: a field the type still has.
fn outline(index: &Index, lines: &Lines<'_>) -> Vec<lsp::DocumentSymbol> {
    let n = index.nodes.len();
    let mut depth = vec![0usize; n];
    for (i, d) in depth.iter_mut().enumerate() {
        let mut at = index.nodes[i].parent;
        while let Some(p) = at.filter(|_| *d < n) {
            *d += 1;
            at = index.nodes[p].parent;
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(depth[i]), i));
    let mut children: Vec<Vec<lsp::DocumentSymbol>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for i in order {
        let node = &index.nodes[i];
        let range = lines.range(node.start, node.end);
        let mut kids = std::mem::take(&mut children[i]);
        kids.sort_by_key(|s| (s.range.start.line, s.range.start.character));
        let symbol = lsp::DocumentSymbol {
            name: node.local_id.clone(),
            detail: Some(match &node.title {
                Some(t) => format!("{}: {t}", node.origin_kind),
                None => node.origin_kind.clone(),
            }),
            kind: symbol_kind(node),
            tags: None,
            deprecated: None,
            range,
            selection_range: lsp::Range::new(range.start, range.start),
            children: (!kids.is_empty()).then_some(kids),
        };
        match node.parent {
            Some(p) => children[p].push(symbol),
            None => roots.push(symbol),
        }
    }
    roots.sort_by_key(|s| (s.range.start.line, s.range.start.character));
    roots
}

fn symbol_kind(node: &NodeInfo) -> lsp::SymbolKind {
    use crate::ir::NodeKind as K;
    match node.kind {
        K::Loop | K::Map | K::Subgraph => lsp::SymbolKind::MODULE,
        K::Decision | K::Fork | K::Join => lsp::SymbolKind::OPERATOR,
        K::Gate | K::Wait => lsp::SymbolKind::EVENT,
        K::Terminal => lsp::SymbolKind::CONSTANT,
        _ => lsp::SymbolKind::FUNCTION,
    }
}

/// The explanation of every diagnostic code at `pos`, then the node there.
fn hover(server: &Server, uri: &lsp::Uri, pos: lsp::Position) -> Option<lsp::Hover> {
    let (doc, check) = open(server, uri)?;
    let path = uri::to_path(uri)?;
    let mut parts: Vec<String> = Vec::new();
    let mut codes: Vec<&str> = Vec::new();
    for d in check.diags.get(&path).into_iter().flatten() {
        if !contains(d.range, pos) {
            continue;
        }
        if let Some(lsp::NumberOrString::String(code)) = &d.code
            && !codes.contains(&code.as_str())
            && let Some(info) = crate::diag::lookup(code)
        {
            codes.push(code);
            parts.push(format!(
                "**{}** ({}, {}): {}\n\n{}",
                info.code,
                info.origin,
                info.severity.as_str(),
                info.summary,
                info.explanation
            ));
        }
    }
    let lines = Lines::new(&doc.text, server.enc);
    let offset = lines.offset(pos);
    if let Some(node) = check.index.node_at(offset) {
        parts.push(describe(node));
    }
    (!parts.is_empty()).then(|| lsp::Hover {
        contents: lsp::HoverContents::Markup(lsp::MarkupContent {
            kind: lsp::MarkupKind::Markdown,
            value: parts.join("\n\n---\n\n"),
        }),
        range: None,
    })
}

fn contains(r: lsp::Range, p: lsp::Position) -> bool {
    let key = |p: lsp::Position| (p.line, p.character);
    key(r.start) <= key(p) && key(p) <= key(r.end)
}

/// A node's kind, title and ports, as Markdown.
fn describe(node: &NodeInfo) -> String {
    let mut s = format!("`{}`: {}", node.scoped_id, node.origin_kind);
    if let Some(t) = &node.title {
        s.push_str(&format!(" — {t}"));
    }
    for (head, ports) in [("inputs", &node.inputs), ("outputs", &node.outputs)] {
        if ports.is_empty() {
            continue;
        }
        s.push_str(&format!("\n\n{head}:"));
        for (name, ty, required) in ports {
            let opt = if *required { "" } else { " (optional)" };
            s.push_str(&format!("\n- `{name}`: {ty}{opt}"));
        }
    }
    s
}
