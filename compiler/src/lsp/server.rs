//! The server's state: the session with the open documents as overlays, the last check of
//! each, and the document notifications.
//!
//! Notifications that change text (open, change, close, save, watched files) only mark paths
//! dirty; [`Server::flush`] checks them, which the loop ([`super::protocol`]) calls once the
//! queue of messages already received is empty and before any request is answered. A burst
//! of keystrokes is thus one check, and an answer always sees the text the editor sent
//! before asking. Every handler is total: parameters that do not parse, a document that is
//! not open or not a workflow are ignored; nothing is unwrapped on what a client sends.

use super::diagnostics::{self, ByFile};
use super::index::{Index, Refs};
use super::text::{Doc, Encoding};
use super::uri;
use crate::check::CheckOptions;
use crate::session::Session;
use lsp_server::{Message, Notification};
use lsp_types as lsp;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// What the server knows: the session (with the open documents as overlays), the open
/// documents, and the last check of each.
pub struct Server {
    pub(super) session: Session,
    pub(super) enc: Encoding,
    pub(super) docs: BTreeMap<PathBuf, Doc>,
    pub(super) checks: BTreeMap<PathBuf, Check>,
    dirty: BTreeSet<PathBuf>,
    /// Messages to send, in order.
    pub(super) out: Vec<Message>,
}

/// The last check of one open document.
pub struct Check {
    /// Its diagnostics, by file (the document's own and those of the files it pulls in).
    pub diags: ByFile,
    /// Every file the check read, normalised: a change to any of them re-checks the document.
    pub files: Vec<PathBuf>,
    /// The document's nodes, when it lowered.
    pub index: Index,
    /// The nodes of the last check that lowered (this one's, or an earlier one's while the
    /// document has errors): their names and ports, for completion only (their places may be
    /// stale).
    pub known: Index,
    /// The reference index: node ids and links written in the document.
    pub refs: Refs,
    /// The check's dialect.
    pub dialect: Option<crate::dialect::Dialect>,
}

impl Server {
    pub fn new(options: CheckOptions, enc: Encoding) -> Server {
        let options = CheckOptions {
            // As `agc check`: no plan is written, so no digest is computed.
            no_digest: true,
            // Definition, references and rename read the reference index.
            xref: true,
            ..options
        };
        Server {
            session: Session::new(options),
            enc,
            docs: BTreeMap::new(),
            checks: BTreeMap::new(),
            dirty: BTreeSet::new(),
            out: Vec::new(),
        }
    }

    /// Handles the notification `method` with `params`, then checks what it made dirty: the
    /// server without a connection (the fuzz target of the change handler drives it so).
    pub fn notify(&mut self, method: &str, params: Value) {
        self.notification(Notification::new(method.into(), params));
        self.flush();
    }

    /// The text of the open document at `uri` (`file:` URIs).
    pub fn text(&self, uri: &str) -> Option<&str> {
        let path = uri::to_path(&uri.parse().ok()?)?;
        self.docs.get(&path).map(|d| d.text.as_str())
    }

    /// The messages queued for the client as JSON, taken.
    pub fn take_output(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.out)
            .into_iter()
            .filter_map(|m| serde_json::to_value(m).ok())
            .collect()
    }

    /// Handles one notification (total: unknown ones and bad parameters are ignored).
    pub fn notification(&mut self, n: Notification) {
        let params = n.params;
        match n.method.as_str() {
            "textDocument/didOpen" => {
                if let Some(p) = parse::<lsp::DidOpenTextDocumentParams>(params) {
                    let doc = p.text_document;
                    self.open(doc.uri, doc.text, doc.version);
                }
            }
            "textDocument/didChange" => {
                if let Some(p) = parse::<lsp::DidChangeTextDocumentParams>(params) {
                    self.change(p);
                }
            }
            "textDocument/didClose" => {
                if let Some(p) = parse::<lsp::DidCloseTextDocumentParams>(params) {
                    self.close(&p.text_document.uri);
                }
            }
            "textDocument/didSave" => {
                if let Some(p) = parse::<lsp::DidSaveTextDocumentParams>(params)
                    && let Some(path) = uri::to_path(&p.text_document.uri)
                {
                    self.dirty.insert(path);
                }
            }
            "workspace/didChangeWatchedFiles" => {
                if let Some(p) = parse::<lsp::DidChangeWatchedFilesParams>(params) {
                    for change in p.changes {
                        if let Some(path) = uri::to_path(&change.uri) {
                            self.dirty.insert(path);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    pub fn open(&mut self, uri: lsp::Uri, text: String, version: i32) {
        let Some(path) = uri::to_path(&uri) else {
            return;
        };
        self.session.set_overlay(&path, text.clone());
        self.docs.insert(path.clone(), Doc { uri, text, version });
        self.dirty.insert(path);
    }

    pub fn change(&mut self, p: lsp::DidChangeTextDocumentParams) {
        let Some(path) = uri::to_path(&p.text_document.uri) else {
            return;
        };
        let Some(doc) = self.docs.get_mut(&path) else {
            return;
        };
        doc.apply(p.content_changes, self.enc);
        doc.version = p.text_document.version;
        self.session.set_overlay(&path, doc.text.clone());
        self.dirty.insert(path);
    }

    fn close(&mut self, uri: &lsp::Uri) {
        let Some(path) = uri::to_path(uri) else {
            return;
        };
        if self.docs.remove(&path).is_some() {
            self.session.remove_overlay(&path);
            self.dirty.insert(path);
        }
    }

    /// Checks every open document that a dirty path may change (the path itself, or one its
    /// last check read), then publishes the diagnostics of every file whose set changed.
    pub fn flush(&mut self) {
        if self.dirty.is_empty() {
            return;
        }
        let dirty = std::mem::take(&mut self.dirty);
        let mut touched: BTreeSet<PathBuf> = BTreeSet::new();
        // Closed documents: their diagnostics go.
        let closed: Vec<PathBuf> = self
            .checks
            .keys()
            .filter(|p| !self.docs.contains_key(*p))
            .cloned()
            .collect();
        for p in closed {
            if let Some(old) = self.checks.remove(&p) {
                touched.extend(old.diags.into_keys());
            }
        }
        let targets: Vec<PathBuf> = self
            .docs
            .keys()
            .filter(|p| {
                dirty.contains(*p)
                    || self
                        .checks
                        .get(*p)
                        .is_some_and(|c| c.files.iter().any(|f| dirty.contains(f)))
            })
            .cloned()
            .collect();
        for path in targets {
            let mut check = self.check(&path);
            if check.known.nodes.is_empty()
                && let Some(old) = self.checks.get_mut(&path)
            {
                check.known = std::mem::take(&mut old.known);
            }
            touched.extend(check.diags.keys().cloned());
            if let Some(old) = self.checks.insert(path, check) {
                touched.extend(old.diags.into_keys());
            }
        }
        for path in touched {
            self.publish(&path);
        }
    }

    /// Checks one open document as `agc check` would, its unsaved text and the unsaved
    /// texts of the files it pulls in included.
    pub(super) fn check(&mut self, path: &Path) -> Check {
        self.session.clear_sources();
        let display = path.to_string_lossy().into_owned();
        let checked = self.session.check(path, &display);
        let workflow = checked.dialect.is_some() || crate::check::is_candidate(path);
        let diags = if workflow {
            diagnostics::convert(&self.session.sources, &checked.diags, path, self.enc)
        } else {
            // Not a workflow document (a YAML file the editor sent along): nothing to say.
            ByFile::new()
        };
        let index = Index::new(checked.compiled.iter().map(|c| &c.graph), checked.file);
        let refs = Refs::new(&checked.xref, checked.file, &self.session.sources, self.enc);
        let mut files: Vec<PathBuf> = checked.files.iter().map(|p| uri::normal(p)).collect();
        files.sort();
        files.dedup();
        Check {
            diags,
            files,
            known: index.clone(),
            index,
            refs,
            dialect: checked.dialect,
        }
    }

    /// Publishes the diagnostics of `path`: those every open document's check found in it,
    /// each once.
    fn publish(&mut self, path: &Path) {
        let Some(uri) = self
            .docs
            .get(path)
            .map(|d| d.uri.clone())
            .or_else(|| uri::from_path(path))
        else {
            return;
        };
        let mut seen = HashSet::new();
        let mut diagnostics = Vec::new();
        for c in self.checks.values() {
            for d in c.diags.get(path).into_iter().flatten() {
                let r = d.range;
                let key = (
                    (r.start.line, r.start.character, r.end.line, r.end.character),
                    d.code.clone().map(|c| format!("{c:?}")),
                    d.message.clone(),
                );
                if seen.insert(key) {
                    diagnostics.push(d.clone());
                }
            }
        }
        let version = self.docs.get(path).map(|d| d.version);
        let params = lsp::PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.out
            .push(Notification::new("textDocument/publishDiagnostics".into(), params).into());
    }
}

/// Parameters of type `T`, or `None` when they do not parse.
pub fn parse<T: serde::de::DeserializeOwned>(params: Value) -> Option<T> {
    serde_json::from_value(params).ok()
}
