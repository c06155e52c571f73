//! A test client: `agc lsp` as a child process, spoken to over its standard input and output
//! with the protocol's Content-Length framing ([`lsp_server::Message`]'s reader and writer,
//! the same framing an editor's client writes). Every wait has a deadline, so a server that
//! hangs fails the test instead of hanging it.

use lsp_server::{Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// How long any one answer may take before the test fails (a debug build checking a document).
const DEADLINE: Duration = Duration::from_secs(120);

pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Message>,
    next_id: i32,
    /// The last diagnostics published for each URI.
    pub diagnostics: BTreeMap<String, Value>,
    /// The `initialize` result.
    pub init: Value,
}

impl Client {
    /// Starts `agc lsp` in `cwd` and does the handshake; `utf8`: offer UTF-8 positions.
    pub fn start(cwd: &Path, utf8: bool) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agc"))
            .arg("lsp")
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("agc lsp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Ok(Some(msg)) = Message::read(&mut r) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        let mut c = Client {
            stdin: child.stdin.take(),
            child,
            rx,
            next_id: 0,
            diagnostics: BTreeMap::new(),
            init: Value::Null,
        };
        let encodings = if utf8 {
            json!(["utf-8", "utf-16"])
        } else {
            json!(["utf-16"])
        };
        c.init = c.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": null,
                "capabilities": { "general": { "positionEncodings": encodings } },
            }),
        );
        c.notify("initialized", json!({}));
        c
    }

    pub fn send(&mut self, msg: Message) {
        msg.write(self.stdin.as_mut().expect("stdin open"))
            .expect("the server reads its input");
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(Notification::new(method.into(), params).into());
    }

    /// Sends a request and waits for its response: the result (an error response panics).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let resp = self.request_raw(method, params);
        match resp.response_result {
            Ok(v) => v,
            Err(e) => panic!("`{method}` failed: {} ({})", e.message, e.code),
        }
    }

    /// Sends a request and waits for its response, error or not.
    pub fn request_raw(&mut self, method: &str, params: Value) -> Response {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.send(Request::new(id.clone(), method.into(), params).into());
        loop {
            match self.recv() {
                Message::Response(r) if r.id == id => return r,
                Message::Response(r) => panic!("a response to another request: {r:?}"),
                Message::Notification(n) => self.note(n),
                Message::Request(r) => panic!("the server asked something: {r:?}"),
            }
        }
    }

    /// Waits until every notification sent so far is handled: the server checks what it
    /// was sent before answering any request (one it does not handle included).
    pub fn sync(&mut self) {
        let resp = self.request_raw("agc/sync", Value::Null);
        assert!(
            resp.response_result.is_err(),
            "agc/sync is no method: {resp:?}"
        );
    }

    fn recv(&mut self) -> Message {
        match self.rx.recv_timeout(DEADLINE) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => panic!("agc lsp said nothing for {DEADLINE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("agc lsp closed its output"),
        }
    }

    fn note(&mut self, n: Notification) {
        if n.method == "textDocument/publishDiagnostics" {
            let uri = n.params["uri"].as_str().unwrap_or_default().to_string();
            self.diagnostics.insert(uri, n.params);
        }
    }

    /// The diagnostics last published for `uri` (after [`Client::sync`]).
    pub fn diags(&self, uri: &str) -> Vec<Value> {
        self.diagnostics
            .get(uri)
            .and_then(|p| p["diagnostics"].as_array().cloned())
            .unwrap_or_default()
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": {
                "uri": uri, "languageId": "yaml", "version": 1, "text": text } }),
        );
    }

    /// Replaces the whole text (`version` must grow).
    pub fn replace(&mut self, uri: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version },
                    "contentChanges": [{ "text": text }] }),
        );
    }

    /// `shutdown` then `exit`; the server's exit status.
    pub fn shutdown(mut self) -> i32 {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        self.stdin.take();
        let status = self.child.wait().expect("agc lsp exits");
        status.code().unwrap_or(-1)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // A failed test: the server goes with it.
        if self.stdin.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The `file:` URI of an absolute path (test paths are plain ASCII).
pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}
