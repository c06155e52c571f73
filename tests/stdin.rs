//! `-` reads the document from standard input (`agc check -`, `agc build -`, `agc graph -`):
//! shown as `<stdin>`, references resolved from the current folder, the size limit applied to
//! the stream, and the documents that need their own file (an Agent Graph Provider, a lone
//! graph file) reported rather than passed.

mod common;

use common::TempDir;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const EXAMPLE: &str = "examples/ags/changelog-release.agraph.yaml";

/// Runs agc in `dir` with `input` on its standard input.
fn agc_in(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("agc runs");
    // A command that stops reading early closes the pipe: a failed write is its business.
    let _ = child.stdin.take().expect("a pipe").write_all(input);
    child.wait_with_output().expect("agc ends")
}

fn agc(args: &[&str], input: &[u8]) -> Output {
    agc_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, input)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn example() -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read(root.join(EXAMPLE)).unwrap()
}

#[test]
fn check_reads_standard_input_and_names_it() {
    let o = agc(&["check", "-"], &example());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    let mut broken = example();
    broken.extend_from_slice(b"nodes: {}\n");
    let o = agc(&["check", "-", "--format", "json"], &broken);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(
        out.contains("\"<stdin>\"") && out.contains("AG005"),
        "{out}"
    );
    // A file and standard input in one run: both checked, each under its own name.
    let o = agc(&["check", EXAMPLE, "-"], b"nodes: [\n");
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        out.contains("[ <stdin>:2:1 ]") && out.contains("AGC003"),
        "{out}"
    );
}

#[test]
fn build_from_standard_input_writes_the_files_plan_with_its_name() {
    let from_file = agc(&["build", EXAMPLE], b"");
    let from_stdin = agc(&["build", "-"], &example());
    assert_eq!(
        from_stdin.status.code(),
        Some(0),
        "{}",
        text(&from_stdin.stderr)
    );
    let expected = text(&from_file.stdout)
        .replace(&format!("\"path\": \"{EXAMPLE}\""), "\"path\": \"<stdin>\"");
    assert_ne!(
        expected,
        text(&from_file.stdout),
        "the plan names its source"
    );
    assert_eq!(text(&from_stdin.stdout), expected);
    let o = agc(&["graph", "-"], &example());
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).contains("flowchart"), "{}", text(&o.stdout));
}

#[test]
fn references_from_standard_input_resolve_from_the_current_folder() {
    let ws = TempDir::new("agc-stdin-refs-");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::write(
        ws.join("sub/child.agraph.yaml"),
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: kid\ntitle: Child\nobjective: Be referenced.\nconstraints: {max_cost_usd: 1}\nentrypoints: [work]\nnodes:\n  work:\n    title: Work\n    description: The only node.\n    outputs:\n      result: {type: string, description: The result.}\noutputs:\n  result: {type: string, description: Out., from: nodes.work.outputs.result}\n",
    )
    .unwrap();
    let parent = |uri: &str| {
        format!(
            "ags_version: \"1.0\"\nkind: AgenticGraph\nid: parent\ntitle: Parent\nobjective: Reference a child.\nconstraints: {{max_cost_usd: 1}}\nentrypoints: [run]\nnodes:\n  run:\n    type: subgraph\n    title: Run\n    description: Runs the child.\n    subgraph:\n      ref:\n        uri: \"{uri}\"\n        expected_id: kid\n"
        )
    };
    let o = agc_in(
        &ws,
        &["check", "-"],
        parent("./sub/child.agraph.yaml").as_bytes(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    let o = agc_in(
        &ws,
        &["check", "-"],
        parent("./sub/none.agraph.yaml").as_bytes(),
    );
    assert_eq!(o.status.code(), Some(1), "a missing file is still reported");
    // The current folder is the workspace root: a reference out of it is refused.
    let o = agc_in(
        &ws.join("sub"),
        &["check", "-"],
        parent("../sub/child.agraph.yaml").as_bytes(),
    );
    assert!(text(&o.stdout).contains("AGC081"), "{}", text(&o.stdout));
}

#[test]
fn the_size_limit_bounds_what_is_read() {
    let o = agc(&["check", "--max-file-size", "100", "-"], &example());
    // A refused input is an I/O failure (exit 2), not a finding in a document (1).
    assert_eq!(o.status.code(), Some(2));
    let out = text(&o.stdout);
    assert!(
        out.contains("AGC012") && out.contains("`<stdin>` holds more than the limit of 100 bytes"),
        "{out}"
    );
}

#[test]
fn a_provider_or_a_lone_graph_from_standard_input_is_reported() {
    let provider =
        "schema: agent-graph.provider.v1\nid: p\nversion: 1.0.0\ngraphs:\n  - graphs/main.yaml\n";
    let o = agc(&["check", "-"], provider.as_bytes());
    let out = text(&o.stdout);
    assert!(
        out.contains("warning[AGC207]"),
        "not passed silently: {out}"
    );
    assert!(out.contains("read without its folder"), "{out}");
    assert_eq!(o.status.code(), Some(0), "a warning: {out}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph =
        std::fs::read(root.join("examples/agent-graph/release/graphs/release.yaml")).unwrap();
    let o = agc(&["build", "-"], &graph);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("AGC084") && err.contains("read from standard input"),
        "{err}"
    );
}

#[test]
fn standard_input_is_named_once() {
    let o = agc(&["check", "-", EXAMPLE, "-"], &example());
    assert_eq!(o.status.code(), Some(2), "a usage error");
    let err = text(&o.stderr);
    assert!(
        err.contains("`-` (standard input) is given 2 times"),
        "{err}"
    );
    assert!(o.stdout.is_empty(), "nothing checked: {}", text(&o.stdout));
}

/// `agc eval --lang jq` reads its input from standard input when `--input` is absent, as jq
/// does: each JSON value in turn; no value at all is `null`, as without input.
#[test]
fn eval_jq_reads_standard_input() {
    let o = agc(&["eval", "--lang", "jq", ".a+1"], b"{\"a\":41}\n");
    assert_eq!((o.status.code(), text(&o.stdout)), (Some(0), "42\n".into()));
    let o = agc(&["eval", "--lang", "jq", ". * 2"], b"1 2\n3");
    assert_eq!(text(&o.stdout), "2\n4\n6\n");
    let o = agc(&["eval", "--lang", "jq", "1+1"], b"");
    assert_eq!(text(&o.stdout), "2\n");
    let o = agc(&["eval", "--lang", "jq", "."], b"{\"a\":");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("`<stdin>` is not JSON"));
    // The size limit bounds standard input too.
    let o = agc(
        &["eval", "--lang", "jq", ".", "--max-file-size", "3"],
        b"[1,2,3]",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("more than the limit of 3 bytes"));
}
