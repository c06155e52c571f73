//! `agc lsp` end to end, driven over standard input and output as an editor drives it.

mod client;
#[path = "../common/mod.rs"]
mod common;
mod edit;

use client::{Client, uri};
use common::TempDir;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn workspace(name: &str) -> TempDir {
    let dir = TempDir::new(&format!("agc-lsp-{name}-")).canonical();
    // The workspace root, for `subgraph.ref` and friends.
    std::fs::write(dir.join(".agc-root"), "").unwrap();
    dir
}

/// `agc check --format json` of `path`: (code, severity, message, label, line, column, end
/// line, end column), 1-based as that format is.
fn agc_check(path: &Path) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(["check", "--format", "json"])
        .arg(path)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).expect("json output");
    v["diagnostics"].as_array().cloned().unwrap_or_default()
}

/// The fields both outputs carry, from `agc check`'s JSON: LSP's 0-based positions.
fn from_check(d: &Value) -> Value {
    let severity = match d["severity"].as_str() {
        Some("error") => 1,
        Some("warning") => 2,
        _ => 3,
    };
    let mut message = d["message"].as_str().unwrap().to_string();
    if let Some(label) = d["label"].as_str().filter(|l| *l != message) {
        message = format!("{message}\n{label}");
    }
    let n = |k: &str| d[k].as_u64().unwrap() - 1;
    json!({
        "code": d["code"], "severity": severity, "message": message,
        "range": { "start": { "line": n("line"), "character": n("column") },
                   "end": { "line": n("end_line"), "character": n("end_column") } },
    })
}

fn from_lsp(d: &Value) -> Value {
    json!({ "code": d["code"], "severity": d["severity"], "message": d["message"],
            "range": d["range"] })
}

const FIXTURES: [&str; 5] = [
    "tests/fixtures/ags/ag114-typo-dependency.agraph.yaml",
    "tests/fixtures/ags/ag111-three-node-cycle.agraph.yaml",
    "tests/fixtures/awp/agc061.yaml",
    "tests/fixtures/agh/node_id_invalid.yaml",
    "examples/ags/changelog-release.agraph.yaml",
];

#[test]
fn diagnostics_are_agc_checks_on_every_dialect() {
    let ws = workspace("same");
    let mut c = Client::start(&ws, false);
    let mut compared = 0;
    for (i, fixture) in FIXTURES.iter().enumerate() {
        let text = std::fs::read_to_string(fixture).unwrap();
        assert!(text.is_ascii(), "{fixture}: columns are compared as ASCII");
        let name = Path::new(fixture).file_name().unwrap();
        let path = ws.join(format!("{i}")).join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        let want: Vec<Value> = agc_check(&path).iter().map(from_check).collect();
        c.open(&uri(&path), &text);
        c.sync();
        let got: Vec<Value> = c.diags(&uri(&path)).iter().map(from_lsp).collect();
        assert_eq!(got, want, "{fixture}");
        compared += want.len();
    }
    assert!(compared >= 4, "the fixtures have diagnostics to compare");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn the_unsaved_buffer_is_checked_and_each_change_republishes() {
    let ws = workspace("buffer");
    let text = std::fs::read_to_string(FIXTURES[0]).unwrap();
    let fixed = text.replace("[fecth]", "[fetch]");
    let path = ws.join("wf.agraph.yaml");
    // The disk holds the fixed document; the editor the typo.
    std::fs::write(&path, &fixed).unwrap();
    assert!(agc_check(&path).is_empty());
    let u = uri(&path);
    let mut c = Client::start(&ws, false);
    c.open(&u, &text);
    c.sync();
    let diags = c.diags(&u);
    // The typo, and the node it leaves unreachable (a warning).
    assert_eq!(codes(&diags), ["AG903", "AG114"], "{diags:?}");
    let d = &diags[1];
    assert_eq!(d["source"], "agc");
    assert_eq!(d["codeDescription"]["href"], "agc-explain:AG114");
    // The help is related information at the diagnostic's own place.
    let related = d["relatedInformation"]
        .as_array()
        .expect("related information");
    assert!(
        related.iter().any(|r| r["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("help: ") && m.contains("fetch"))
            && r["location"]["range"] == d["range"]),
        "{related:?}"
    );
    assert_eq!(c.diagnostics[&u]["version"], 1);
    // An incremental edit fixes the typo: the diagnostics go, for version 2.
    let at = d["range"].clone();
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": u, "version": 2 },
                "contentChanges": [{ "range": at, "text": "fetch" }] }),
    );
    c.sync();
    assert_eq!(c.diags(&u), Vec::<Value>::new());
    assert_eq!(c.diagnostics[&u]["version"], 2);
    assert_eq!(c.shutdown(), 0);
}

pub(crate) fn child(id: &str) -> String {
    format!(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: {id}\ntitle: Child\nobjective: Be referenced.\nconstraints: {{max_cost_usd: 1}}\nentrypoints: [work]\nnodes:\n  work:\n    title: Work\n    description: The child's only node.\n    outputs:\n      result: {{type: string, description: The result.}}\noutputs:\n  result: {{type: string, description: Out., from: nodes.work.outputs.result}}\n"
    )
}

pub(crate) const PARENT: &str = "ags_version: \"1.0\"\nkind: AgenticGraph\nid: parent\ntitle: Parent\nobjective: Reference a child.\nconstraints: {max_cost_usd: 1}\nentrypoints: [run]\nnodes:\n  run:\n    type: subgraph\n    title: Run\n    description: Runs the child.\n    subgraph:\n      ref:\n        uri: \"./sub/child.agraph.yaml\"\n        expected_id: kid\n";

fn codes(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_change_to_a_referenced_file_rechecks_the_documents_using_it() {
    let ws = workspace("deps");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    let child_path = ws.join("sub/child.agraph.yaml");
    std::fs::write(&child_path, child("kid")).unwrap();
    let parent_path = ws.join("parent.agraph.yaml");
    std::fs::write(&parent_path, PARENT).unwrap();
    let (pu, cu) = (uri(&parent_path), uri(&child_path));
    let mut c = Client::start(&ws, false);
    c.open(&pu, PARENT);
    c.sync();
    assert_eq!(codes(&c.diags(&pu)), Vec::<String>::new());
    // The child's unsaved buffer gets another id: the parent's `expected_id` fails.
    c.open(&cu, &child("other"));
    c.sync();
    assert_eq!(codes(&c.diags(&pu)), ["RT052"]);
    // Closed unsaved: the disk's text counts again.
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": cu } }),
    );
    c.sync();
    assert_eq!(codes(&c.diags(&pu)), Vec::<String>::new());
    // Changed on disk, not open: the client's file watcher says so.
    std::fs::write(&child_path, child("renamed")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": cu, "type": 2 }] }),
    );
    c.sync();
    assert_eq!(codes(&c.diags(&pu)), ["RT052"]);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn utf8_positions_when_the_client_offers_them() {
    let ws = workspace("utf8");
    let text = std::fs::read_to_string(FIXTURES[0])
        .unwrap()
        .replace("title: Parse,", "title: Pårsé 𝄞,");
    let path = ws.join("wf.agraph.yaml");
    let u = uri(&path);
    let at = text.find("fecth").unwrap();
    let col8 = at - text[..at].rfind('\n').unwrap() - 1;
    let line_text = &text[at - col8..at];
    let col16 = line_text.encode_utf16().count();
    assert_ne!(col8, col16);
    for (utf8, col, enc) in [(true, col8, "utf-8"), (false, col16, "utf-16")] {
        let mut c = Client::start(&ws, utf8);
        assert_eq!(c.init["capabilities"]["positionEncoding"], enc);
        c.open(&u, &text);
        c.sync();
        let diags = c.diags(&u);
        let d = diags.iter().find(|d| d["code"] == "AG114").unwrap();
        assert_eq!(d["range"]["start"]["character"], col as u64, "{enc}");
        assert_eq!(c.shutdown(), 0);
    }
}

#[test]
fn every_prefix_of_a_document_being_typed_gets_an_answer() {
    let ws = workspace("typing");
    let text = std::fs::read_to_string("examples/ags/changelog-release.agraph.yaml").unwrap();
    let path = ws.join("wf.agraph.yaml");
    let u = uri(&path);
    let mut c = Client::start(&ws, false);
    c.open(&u, "");
    // Every 97th prefix, cut anywhere (mid-key, mid-expression, mid-quote): one check each.
    let mut version = 1;
    for end in (0..text.len()).step_by(97).chain([text.len()]) {
        version += 1;
        c.replace(&u, version, &text[..end]);
        c.sync();
        assert_eq!(
            c.diagnostics[&u]["version"], version,
            "prefix of {end} bytes"
        );
    }
    // Garbage a client might send: no crash, an error response or nothing.
    c.notify("textDocument/didChange", json!({ "nonsense": true }));
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": u, "version": 99 },
                "contentChanges": [{ "range": { "start": { "line": 999, "character": 5 },
                "end": { "line": 0, "character": 0 } }, "text": "\u{1F600}" }] }),
    );
    let r = c.request_raw("textDocument/hover", json!({ "bad": 1 }));
    assert!(r.response_result.is_err());
    c.sync();
    assert_eq!(c.diagnostics[&u]["version"], 99);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_raw_content_length_frame_gets_a_framed_answer() {
    use std::io::{BufRead, Read, Write};
    let ws = workspace("raw");
    let mut child = Command::new(env!("CARGO_BIN_EXE_agc"))
        .arg("lsp")
        .current_dir(&*ws)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#;
    let mut stdin = child.stdin.take().unwrap();
    write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    stdin.flush().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut header = String::new();
    out.read_line(&mut header).unwrap();
    let len: usize = header
        .strip_prefix("Content-Length: ")
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("a Content-Length header: {header:?}"));
    let mut blank = String::new();
    out.read_line(&mut blank).unwrap();
    assert_eq!(blank, "\r\n");
    let mut json = vec![0; len];
    out.read_exact(&mut json).unwrap();
    let v: Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["id"], 1);
    assert_eq!(v["result"]["serverInfo"]["name"], "agc");
    // The client goes away without `exit`: the server ends.
    drop(stdin);
    assert!(child.wait().unwrap().code().is_some());
}

/// A `Content-Length` far over the limit is refused before anything is allocated for it: the
/// server ends with an error that names the limit, where it aborted on memory (issue 47).
#[test]
fn a_message_over_the_size_limit_ends_the_server_with_the_limit_named() {
    use std::io::Write;
    let ws = workspace("huge");
    let mut child = Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(["lsp", "--max-file-size", "1000000"])
        .current_dir(&*ws)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    write!(stdin, "Content-Length: 99999999999\r\n\r\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("a message of 99999999999 bytes is over the limit of 2000000 bytes"),
        "{err}"
    );
    // Only the reason: not first the server's view of it (its channel closed).
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("disconnected"), "{err}");
}

/// An input that ends before `initialize` says so (exit 1), not the server's view of it.
#[test]
fn an_input_that_ends_before_initialize_says_so() {
    let out = Command::new(env!("CARGO_BIN_EXE_agc"))
        .arg("lsp")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err.trim_end(),
        "agc lsp: the input ended before the client's `initialize` request"
    );
}

/// The line and character of the first `needle` after the first `after` in `text` (ASCII).
fn at(text: &str, after: &str, needle: &str) -> Value {
    let from = text.find(after).unwrap();
    let i = from + text[from..].find(needle).unwrap();
    let line = text[..i].matches('\n').count();
    let character = i - text[..i].rfind('\n').map_or(0, |n| n + 1);
    json!({ "line": line, "character": character })
}

#[test]
fn outline_hover_and_definition_of_nodes() {
    let ws = workspace("nodes");
    let text = std::fs::read_to_string("examples/ags/changelog-release.agraph.yaml").unwrap();
    let path = ws.join("wf.agraph.yaml");
    let u = uri(&path);
    let mut c = Client::start(&ws, false);
    c.open(&u, &text);
    let doc = json!({ "textDocument": { "uri": u } });
    let symbols = c.request("textDocument/documentSymbol", doc.clone());
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "collect_changes",
            "draft_notes",
            "review_length",
            "trim_notes",
            "approve"
        ]
    );
    // Go to definition from the `depends_on` entry and from inside an expression.
    let draft = at(&text, "\n  draft_notes:", "draft_notes");
    for (after, needle) in [
        ("depends_on: [draft_notes]", "draft_notes"),
        ("from: nodes.draft_notes", "draft_notes"),
    ] {
        let mut pos = at(&text, after, needle);
        pos["character"] = json!(pos["character"].as_u64().unwrap() + 3);
        let defs = c.request(
            "textDocument/definition",
            json!({ "textDocument": { "uri": u }, "position": pos }),
        );
        let defs = defs.as_array().unwrap();
        assert_eq!(defs.len(), 1, "{after}: {defs:?}");
        assert_eq!(defs[0]["uri"], u.as_str());
        // The node's place starts at its id.
        assert_eq!(defs[0]["range"]["start"], draft);
    }
    // Hover on a node: kind, title, outputs with types.
    let pos = at(&text, "\n  collect_changes:", "changes");
    let hover = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": u }, "position": pos }),
    );
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(md.starts_with("`collect_changes`: "), "{md}");
    assert!(
        md.contains("outputs:") && md.contains("`entries`: array"),
        "{md}"
    );
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn hover_on_a_diagnostic_explains_its_code() {
    let ws = workspace("explain");
    let text = std::fs::read_to_string(FIXTURES[0]).unwrap();
    let path = ws.join("wf.agraph.yaml");
    let u = uri(&path);
    let mut c = Client::start(&ws, false);
    c.open(&u, &text);
    let pos = at(&text, "depends_on: [", "fecth");
    let hover = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": u }, "position": pos }),
    );
    let md = hover["contents"]["value"].as_str().unwrap();
    let info = agc::diag::lookup("AG114").unwrap();
    assert!(md.starts_with("**AG114** (ags, error)"), "{md}");
    assert!(md.contains(info.explanation), "{md}");
    // Nowhere near a diagnostic or a node (the document has errors: no IR): no hover.
    let none = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": u }, "position": { "line": 0, "character": 0 } }),
    );
    assert_eq!(none, Value::Null);
    assert_eq!(c.shutdown(), 0);
}

/// A real editor's client: Neovim's built-in LSP client, headless, opens a document and reads
/// its diagnostics (`tests/lsp/neovim.lua`). Skipped with a notice when `nvim` is absent (CI
/// installs Debian's package in `.ci/run`).
#[test]
fn neovim_reads_the_diagnostics() {
    if Command::new("nvim").arg("--version").output().is_err() {
        eprintln!("note: nvim is not installed; the Neovim client test is skipped");
        return;
    }
    let ws = workspace("neovim");
    let path = ws.join("wf.agraph.yaml");
    std::fs::copy(FIXTURES[0], &path).unwrap();
    let out = ws.join("diagnostics.txt");
    let script = std::fs::canonicalize("tests/lsp/neovim.lua").unwrap();
    let mut nvim = Command::new("nvim")
        .args(["--headless", "--clean", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("AGC_BIN", env!("CARGO_BIN_EXE_agc"))
        .env("AGC_DIR", &*ws)
        .env("AGC_FILE", &path)
        .env("AGC_OUT", &out)
        .current_dir(&*ws)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Neovim's own wait gives up after a minute; this one only keeps a stuck editor from
    // hanging the test.
    let start = std::time::Instant::now();
    while nvim.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(120) {
            let _ = nvim.kill();
            panic!("nvim did not finish");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let got = std::fs::read_to_string(&out).expect("the script wrote the diagnostics");
    let mut lines: Vec<&str> = got.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "AG114 13 75 `depends_on` names `fecth`, which is not a node of this scope",
            "AG903 13 2 no path from an entrypoint reaches `parse`",
        ],
        "{got}"
    );
}
