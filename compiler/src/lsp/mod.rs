//! `agc lsp`: a Language Server Protocol server over standard input and output, for every
//! dialect agc reads.
//!
//! It is a thin layer over the [`crate::session`]: each open document is an overlay (the
//! editor's unsaved text), and a check is [`Session::check`], the very driver `agc check`
//! runs, so the server reports the same codes, severities, messages and spans. Which files a
//! check read ([`crate::check::Checked::files`]) says which documents to check again when
//! another one changes (an AGS fragment, an Agent Graph action, an agh extension manifest).
//!
//! The protocol is [`lsp_server`] (rust-analyzer's scaffold: framing, the handshake, a
//! synchronous loop over crossbeam channels) with the types of [`lsp_types`]. agc's session
//! is synchronous and a check is one call, so an async runtime (tower-lsp, async-lsp) would
//! add a dependency tree and a scheduler with nothing to schedule; with `lsp-server` the loop
//! is ours to write, which is also what lets it coalesce a burst of edits into one check
//! ([`protocol`]).
//!
//! - [`protocol`]: the loop.
//! - [`server`]: the state, the document notifications, re-checks and publishing.
//! - [`text`]: the open documents and positions (UTF-16, or UTF-8 when the client offers it).
//! - [`uri`]: `file:` URIs and paths.
//! - [`transport`]: standard input and output, framed, with bounds on what a client sends.
//! - [`diagnostics`]: agc's diagnostics as LSP's.
//! - [`index`]: the nodes of a checked document and its reference index.
//! - [`handlers`]: the requests by method (outline, hover);
//!   [`refs`]: definition, references, rename; [`complete`]: completion; [`actions`]: code
//!   actions.
//!
//! [`Session::check`]: crate::session::Session::check

mod actions;
mod complete;
mod diagnostics;
mod handlers;
mod index;
mod protocol;
mod refs;
mod schema_keys;
pub mod server;
mod text;
mod transport;
mod uri;

pub use server::Server;
pub use text::Encoding;

use crate::check::CheckOptions;
use serde_json::Value;

/// Answers request `method` with `params` from the server's state after checking what is
/// dirty, as the loop does: the result, or the error's message (an unknown method included).
/// The server without a connection: the fuzz target drives every handler so.
pub fn answer(server: &mut Server, method: &str, params: Value) -> Result<Value, String> {
    server.flush();
    let req = lsp_server::Request::new(0.into(), method.into(), params);
    let resp = protocol::request(server, req);
    resp.response_result.map_err(|e| e.message)
}

/// Serves over standard input and output until the client exits; the exit status.
pub fn run_stdio(options: CheckOptions) -> i32 {
    let limit = transport::message_limit(options.limits.max_file_bytes);
    let (conn, io) = match transport::stdio(limit) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("agc lsp: cannot start: {e}");
            return 2;
        }
    };
    let served = protocol::serve(&conn, options);
    drop(conn);
    // When the reader or the writer fails (a message over the limit, a closed output), the
    // server sees only its channel close ("disconnected channel"): the thread's error is the
    // reason, and the one said.
    let reason = match (io.join(), served) {
        (Err(e), _) => e.to_string(),
        (Ok(()), Err(e)) => e,
        (Ok(()), Ok(())) => return 0,
    };
    eprintln!("agc lsp: {reason}");
    1
}
