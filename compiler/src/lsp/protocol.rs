//! The protocol loop: the handshake, then messages in order until `exit`, each request
//! answered after the checks of what came before it ([`Server::flush`]).
//!
//! A request the server cannot answer (an unknown method, parameters that do not parse) gets
//! an error response; a client that goes away ends the loop.

use super::handlers::{self, Refusal};
use super::server::Server;
use super::text::Encoding;
use crate::check::CheckOptions;
use lsp_server::{Connection, ErrorCode, Message, Request, Response};
use lsp_types as lsp;

/// Runs the server on `conn` until the client says `exit` (or goes away).
pub fn serve(conn: &Connection, options: CheckOptions) -> Result<(), String> {
    let (id, params) = conn.initialize_start().map_err(|e| {
        // The reader ended without an error: the client's input ended.
        if e.channel_is_disconnected() {
            "the input ended before the client's `initialize` request".to_string()
        } else {
            e.to_string()
        }
    })?;
    let init: lsp::InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let enc = negotiate(&init);
    let result = serde_json::json!({
        "capabilities": capabilities(enc),
        "serverInfo": { "name": "agc", "version": env!("CARGO_PKG_VERSION") },
    });
    conn.initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    let mut server = Server::new(options, enc);
    while let Ok(first) = conn.receiver.recv() {
        let mut next = Some(first);
        while let Some(msg) = next.take() {
            match msg {
                Message::Request(req) => {
                    if conn.handle_shutdown(&req).map_err(|e| e.to_string())? {
                        return Ok(());
                    }
                    server.flush();
                    let resp = request(&mut server, req);
                    server.out.push(resp.into());
                }
                Message::Notification(n) if n.method == "exit" => return Ok(()),
                Message::Notification(n) => server.notification(n),
                Message::Response(_) => {}
            }
            for m in server.out.drain(..) {
                conn.sender.send(m).map_err(|e| e.to_string())?;
            }
            next = conn.receiver.try_recv().ok();
        }
        server.flush();
        for m in server.out.drain(..) {
            conn.sender.send(m).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// UTF-8 when the client offers it (no conversion), else the protocol's default UTF-16.
fn negotiate(init: &lsp::InitializeParams) -> Encoding {
    let offered = init
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(list) if list.contains(&lsp::PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

fn capabilities(enc: Encoding) -> lsp::ServerCapabilities {
    lsp::ServerCapabilities {
        position_encoding: Some(match enc {
            Encoding::Utf8 => lsp::PositionEncodingKind::UTF8,
            Encoding::Utf16 => lsp::PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(
            lsp::TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(lsp::TextDocumentSyncKind::INCREMENTAL),
                save: Some(lsp::TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        document_symbol_provider: Some(lsp::OneOf::Left(true)),
        hover_provider: Some(lsp::HoverProviderCapability::Simple(true)),
        definition_provider: Some(lsp::OneOf::Left(true)),
        references_provider: Some(lsp::OneOf::Left(true)),
        rename_provider: Some(lsp::OneOf::Right(lsp::RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        completion_provider: Some(lsp::CompletionOptions {
            trigger_characters: Some(vec![".".into(), "[".into()]),
            ..Default::default()
        }),
        code_action_provider: Some(lsp::CodeActionProviderCapability::Options(
            lsp::CodeActionOptions {
                code_action_kinds: Some(vec![lsp::CodeActionKind::QUICKFIX]),
                ..Default::default()
            },
        )),
        ..Default::default()
    }
}

/// Answers one request (total: an error response for what it cannot answer).
pub fn request(server: &mut Server, req: Request) -> Response {
    let Request { id, method, params } = req;
    match handlers::handle(server, &method, params) {
        Some(Ok(value)) => Response::new_ok(id, value),
        Some(Err(Refusal::Params(message))) => {
            Response::new_err(id, ErrorCode::InvalidParams as i32, message)
        }
        Some(Err(Refusal::Failed(message))) => {
            Response::new_err(id, ErrorCode::RequestFailed as i32, message)
        }
        None => Response::new_err(
            id,
            ErrorCode::MethodNotFound as i32,
            format!("agc lsp does not handle `{method}`"),
        ),
    }
}
