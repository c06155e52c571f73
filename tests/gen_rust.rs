//! `agc gen rust`: the generated crates in `examples/generated/` are the golden snapshots —
//! the shipped example, the hostile-names fixture and every AGS graph of the corpus — and are
//! fresh (CI compiles them with `-D warnings` and runs their tests, as workspace members in the
//! one target dir); generation is deterministic and rustfmt-clean; hostile names stay intact
//! in strings and never reach the code raw; `--check`, idempotent writes and the usage errors
//! (AGC340, AGC341) behave. `AGC_BLESS=1` rewrites `examples/generated/` (then review the
//! diff).

mod common;

use agc::back::rust::{self, Runtime};
use agc::check::CheckOptions;
use agc::compile::build_file;
use agc::source::SourceMap;
use common::TempDir;
use std::path::{Path, PathBuf};

/// The generated crates kept in the workspace: (document, crate dir, crate name).
const EXAMPLES: &[(&str, &str, &str)] = &[
    (
        "examples/ags/changelog-release.agraph.yaml",
        "examples/generated/changelog-release",
        "changelog-release-runner",
    ),
    (
        "examples/ags/ask-model.agraph.yaml",
        "examples/generated/ask-model",
        "ask-model-runner",
    ),
    (
        "tests/golden/gen/hostile-names.agraph.yaml",
        "examples/generated/hostile-names",
        "hostile-names-runner",
    ),
    (
        "tests/golden/gen/gate-only.agraph.yaml",
        "examples/generated/gate-only",
        "gate-only-runner",
    ),
    (
        "tests/golden/gen/every-type.agraph.yaml",
        "examples/generated/every-type",
        "every-type-runner",
    ),
    // An AWP workflow: its `start` answered by the dispatch, steps setting state typed.
    (
        "examples/awp/support-triage.workflow.yaml",
        "examples/generated/awp-support-triage",
        "awp-support-triage-runner",
    ),
    // Issue 49 item 6: an Agent Graph Provider, its fact store and outcomes typed.
    (
        "examples/agent-graph/release",
        "examples/generated/agent-graph-release",
        "agent-graph-release-runner",
    ),
    // Issue 49 item 2: every name the crate uses for its own items as a node id, one crate
    // per dialect (built by CI as workspace members, `-D warnings`).
    (
        "tests/golden/gen/reserved/reserved.agraph.yaml",
        "examples/generated/reserved-ags",
        "reserved-ags-runner",
    ),
    (
        "tests/golden/gen/reserved/reserved.workflow.yaml",
        "examples/generated/reserved-awp",
        "reserved-awp-runner",
    ),
    (
        "tests/golden/gen/reserved/reserved.loop.yaml",
        "examples/generated/reserved-agh",
        "reserved-agh-runner",
    ),
    (
        "tests/golden/gen/reserved/provider",
        "examples/generated/reserved-agent-graph",
        "reserved-agent-graph-runner",
    ),
];

fn agc(args: &[&str]) -> i32 {
    let mut argv = vec!["agc"];
    argv.extend_from_slice(args);
    agc::cli::run(argv)
}

fn plan_of(path: &Path) -> String {
    let mut sources = SourceMap::new();
    let display = path.to_string_lossy().replace('\\', "/");
    let opts = CheckOptions {
        root: path.parent().map(Path::to_path_buf),
        ..CheckOptions::default()
    };
    let (plan, diags) = build_file(&mut sources, path, &display, &opts);
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    assert!(errors.is_empty(), "{display}: {errors:?}");
    plan.unwrap_or_else(|| panic!("{display}: no plan"))
}

fn generate(path: &Path, name: &str) -> Vec<rust::GenFile> {
    let text = plan_of(path);
    let plan = agc_runtime::plan::Plan::from_json(&text).unwrap();
    rust::generate(
        &text,
        &plan,
        name,
        &Runtime::Path("../../../runtime".into()),
    )
}

/// Every generated crate kept in the workspace: (document, crate dir, crate name).
fn generated_crates() -> Vec<(String, String, String)> {
    let mut all: Vec<(String, String, String)> = EXAMPLES
        .iter()
        .map(|(d, o, n)| (d.to_string(), o.to_string(), n.to_string()))
        .collect();
    for (path, stem) in corpus_documents() {
        all.push((
            path.to_string_lossy().replace('\\', "/"),
            format!("examples/generated/corpus-{stem}"),
            format!("corpus-{stem}-runner"),
        ));
    }
    all
}

#[test]
fn the_generated_crates_are_fresh() {
    let bless = std::env::var_os("AGC_BLESS").is_some();
    for (doc, dir, name) in generated_crates() {
        // References resolve below the document's own folder (as in tests/build.rs).
        let root = Path::new(&doc)
            .parent()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let mut args = vec![
            "gen",
            "rust",
            &doc,
            "-o",
            &dir,
            "--crate-name",
            &name,
            "--runtime",
            "path=../../../runtime",
            "--root",
            &root,
        ];
        if !bless {
            args.push("--check");
        }
        assert_eq!(
            agc(&args),
            0,
            "{dir} is stale: run with AGC_BLESS=1 (or `agc gen rust {doc} -o {dir} --crate-name {name} --runtime path=../../../runtime`) and review"
        );
    }
}

/// The AGS documents of the corpus, with a kebab-case stem for their crate.
fn corpus_documents() -> Vec<(PathBuf, String)> {
    let corpus = Path::new("../shared/corpus/ags");
    if !corpus.is_dir() {
        println!("note: ../shared/corpus/ags is absent; corpus crates skipped");
        return Vec::new();
    }
    let mut docs = Vec::new();
    for dir in ["examples", "third_party/loro", "third_party/magagent"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join(dir))
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            if let Some(stem) = name.strip_suffix(".agraph.yaml") {
                docs.push((f.clone(), stem.to_string()));
            } else if let Some(stem) = name.strip_suffix(".agraph.json") {
                docs.push((f.clone(), format!("{stem}-json")));
            }
        }
    }
    docs
}

/// Whether `rustfmt` is on this machine (it is wherever `cargo fmt` runs, as in CI).
fn rustfmt_available() -> bool {
    std::process::Command::new("rustfmt")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The rustfmt diff of `code`, empty when rustfmt leaves it as it is.
fn rustfmt_diff(code: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("rustfmt runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(code.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "rustfmt rejects the code: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let formatted = String::from_utf8(out.stdout).unwrap();
    if formatted == code {
        return String::new();
    }
    let first = code
        .lines()
        .zip(formatted.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    format!(
        "first difference at line {}:\n- {}\n+ {}",
        first + 1,
        code.lines().nth(first).unwrap_or(""),
        formatted.lines().nth(first).unwrap_or("")
    )
}

#[test]
fn every_corpus_graph_generates_a_deterministic_formatted_crate() {
    let fmt = rustfmt_available();
    if !fmt {
        println!("note: rustfmt is absent; the formatting of generated code is not checked");
    }
    for (path, name) in corpus_documents() {
        let files = generate(&path, "corpus-runner");
        assert_eq!(
            files,
            generate(&path, "corpus-runner"),
            "{name}: two runs differ"
        );
        assert!(files.iter().any(|f| f.path == "src/handler.rs"), "{name}");
        if fmt {
            for f in files.iter().filter(|f| f.path.ends_with(".rs")) {
                let diff = rustfmt_diff(&f.contents);
                assert!(
                    diff.is_empty(),
                    "{name} {}: not rustfmt-clean: {diff}",
                    f.path
                );
            }
        }
    }
}

#[test]
fn generated_examples_are_rustfmt_clean() {
    if !rustfmt_available() {
        println!("note: rustfmt is absent; skipped");
        return;
    }
    for (doc, _, name) in EXAMPLES {
        for f in generate(Path::new(doc), name)
            .iter()
            .filter(|f| f.path.ends_with(".rs"))
        {
            let diff = rustfmt_diff(&f.contents);
            assert!(diff.is_empty(), "{doc} {}: {diff}", f.path);
        }
    }
}

#[test]
fn hostile_names_stay_intact_in_strings_and_never_reach_code_raw() {
    let doc = Path::new("tests/golden/gen/hostile-names.agraph.yaml");
    let files = generate(doc, "hostile-names-runner");
    let file = |p: &str| {
        files
            .iter()
            .find(|f| f.path == p)
            .map(|f| f.contents.clone())
            .unwrap()
    };
    let handler = file("src/handler.rs");
    let types = file("src/types.rs");
    // Every node a handler is generated for is matched by its exact id, as a literal.
    for id in ["type", "2nd", "a-b", "a_b", "untyped", "crate"] {
        assert!(
            handler.contains(&format!("{} => Box::pin(", rust::names::literal(id))),
            "no arm for `{id}`"
        );
    }
    // Ids that collide after sanitising get distinct methods, in document order.
    for m in [
        "fn r#type(",
        "fn n_2nd(",
        "fn a_b(",
        "fn a_b_2(",
        "fn untyped(",
        "fn crate_(",
    ] {
        assert!(handler.contains(m), "no method `{m}`");
    }
    // The decision `fn` decides by its expressions: the runtime runs it, the trait has no
    // method for it (issue 49 item 1).
    assert!(!handler.contains("fn r#fn("), "{handler}");
    // Port names that are keywords or collide are renamed back to the exact JSON names.
    for (field, json) in [
        ("pub self_: Option<i64>", "self"),
        ("pub first_name_2: Option<bool>", "first_name"),
        ("pub self_2: i64", "Self"),
        ("pub crate_:", "crate"),
        ("pub empty: Option<String>", "_"),
    ] {
        let at = types
            .find(field)
            .unwrap_or_else(|| panic!("no `{field}` in\n{types}"));
        let before = &types[..at];
        let rename = format!("#[serde(rename = {})]", rust::names::literal(json));
        assert!(
            before
                .rfind(&rename)
                .is_some_and(|r| !before[r..].contains("pub ")),
            "`{field}` is not renamed to {json:?}"
        );
    }
    assert!(
        types.contains("pub r#type: String"),
        "raw identifiers keep their name"
    );
    // Decision branches: collide after sanitising (ok/OK), or are no identifier (Self, _).
    for v in ["Ok,", "Ok2,", "SelfValue,", "Empty,"] {
        assert!(types.contains(v), "no variant {v}");
    }
    // Document text reaches the code only in comments and literals, neutralised.
    for f in files.iter().filter(|f| f.path.ends_with(".rs")) {
        for line in f.contents.lines() {
            let t = line.trim_start();
            if let Some(doc) = t.strip_prefix("///").or_else(|| t.strip_prefix("//!")) {
                assert!(!doc.contains("*/"), "{}: `*/` in {line}", f.path);
                let unescaped_tick = doc
                    .char_indices()
                    .any(|(i, c)| c == '`' && !doc[..i].ends_with('\\'));
                // agc's own fixed sentences use code spans; document text never does.
                if unescaped_tick {
                    assert!(
                        !line.contains("panic")
                            && !line.contains("assert")
                            && !line.contains("exit"),
                        "{}: a code span from the document: {line}",
                        f.path
                    );
                }
                assert!(
                    !doc.starts_with("     "),
                    "{}: an indented doc line would be a doctest: {line}",
                    f.path
                );
            }
            assert!(
                !line
                    .chars()
                    .any(|c| matches!(c as u32, 0x202A..=0x202E | 0x2066..=0x2069)),
                "{}: a bidi control character reached the code: {line}",
                f.path
            );
        }
    }
    let lib = file("src/lib.rs");
    assert!(lib.contains(&format!(
        "pub const GRAPH_ID: &str = {};",
        rust::names::literal("agc-fixtures/hostile.names:v1")
    )));
    assert!(
        lib.contains("U+202E"),
        "the title's bidi override is written out"
    );
}

#[test]
fn writes_are_idempotent_and_check_reports_staleness() {
    // Not created: the first `--check` finds every file missing.
    let dir = TempDir::new("agc-gen-").not_created("out");
    let out = dir.to_string_lossy().to_string();
    let doc = "examples/ags/changelog-release.agraph.yaml";
    assert_eq!(
        agc(&["gen", "rust", doc, "-o", &out, "--check"]),
        1,
        "missing files are stale"
    );
    assert_eq!(agc(&["gen", "rust", doc, "-o", &out]), 0);
    let cargo = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(
        cargo.contains("name = \"changelog-release-runner\""),
        "{cargo}"
    );
    assert!(
        cargo.contains("agc-runtime = { version = \""),
        "a version dependency by default: {cargo}"
    );
    let lib = dir.join("src/lib.rs");
    let before = std::fs::metadata(&lib).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(agc(&["gen", "rust", doc, "-o", &out]), 0);
    assert_eq!(
        std::fs::metadata(&lib).unwrap().modified().unwrap(),
        before,
        "an unchanged file is not rewritten"
    );
    assert_eq!(agc(&["gen", "rust", doc, "-o", &out, "--check"]), 0);
    std::fs::write(dir.join("src/types.rs"), "// edited\n").unwrap();
    assert_eq!(agc(&["gen", "rust", doc, "-o", &out, "--check"]), 1);
    assert_eq!(agc(&["gen", "rust", doc, "-o", &out]), 0);
    assert_eq!(agc(&["gen", "rust", doc, "-o", &out, "--check"]), 0);
}

#[test]
fn usage_errors_agc340_and_agc341() {
    let doc = "examples/ags/changelog-release.agraph.yaml";
    let out = std::env::temp_dir().join("agc-gen-usage-never-written");
    let out = out.to_string_lossy().to_string();
    for bad in ["2fast", "has space", "quote\"", "", "é"] {
        assert_eq!(
            agc(&["gen", "rust", doc, "-o", &out, "--crate-name", bad]),
            2,
            "AGC340 for {bad:?}"
        );
    }
    for bad in ["git=x", "path=", "version", "../runtime"] {
        assert_eq!(
            agc(&["gen", "rust", doc, "-o", &out, "--runtime", bad]),
            2,
            "AGC341 for {bad:?}"
        );
    }
    assert!(
        !Path::new(&out).exists(),
        "nothing written on a usage error"
    );
    assert!(rust::valid_crate_name("my_runner-2"));
    assert_eq!(
        rust::default_crate_name("agc-examples/changelog-release"),
        "changelog-release-runner"
    );
    assert_eq!(rust::default_crate_name("9lives"), "n-9lives-runner");
}

#[test]
fn a_plan_without_handled_nodes_generates_no_unused_code() {
    // A plan whose only node the runtime runs itself (a terminal): no typed methods, so no
    // imports or helpers that would be unused.
    let plan = serde_json::json!({
        "format": "agc.plan/v1",
        "source": { "dialect": "agh", "path": "x.yaml" },
        "graph": { "id": "only-terminal", "title": null },
        "params": [],
        "entrypoints": ["end"],
        "constraints": {},
        "nodes": [{ "id": "end", "local_id": "end", "kind": "terminal", "origin_kind": "end",
                    "inputs": [], "outputs": [], "join": { "mode": "all" },
                    "retry": { "max_attempts": 1 }, "estimate": {}, "attributes": {},
                    "location": { "path": "x.yaml", "line": 1, "column": 1 } }],
        "edges": [], "regions": [], "links": [],
        "bounds": { "max_node_executions": 1.0, "projected_cost_usd": 0.0,
                    "projected_wall_clock_seconds": 0.0, "unestimated_nodes": 0 }
    });
    let text = serde_json::to_string_pretty(&plan).unwrap();
    let plan = agc_runtime::plan::Plan::from_json(&text).unwrap();
    let files = rust::generate(&text, &plan, "t", &Runtime::Version("0.1".into()));
    let handler = &files
        .iter()
        .find(|f| f.path == "src/handler.rs")
        .unwrap()
        .contents;
    for absent in [
        "use crate::types::*",
        "typed::decode",
        "GateResponse",
        "match node",
    ] {
        assert!(!handler.contains(absent), "`{absent}` in\n{handler}");
    }
    // Nothing to implement but the hooks (any node may have checkpoints).
    assert!(
        handler.contains("pub trait Handlers: Hooks {}"),
        "{handler}"
    );
    let lib = &files
        .iter()
        .find(|f| f.path == "src/lib.rs")
        .unwrap()
        .contents;
    assert!(lib.contains("pub const GRAPH_DIGEST: Option<&str> = None;"));
    let readme = &files
        .iter()
        .find(|f| f.path == "README.md")
        .unwrap()
        .contents;
    assert!(readme.contains("- end (terminal)"), "{readme}");
    if rustfmt_available() {
        for f in files.iter().filter(|f| f.path.ends_with(".rs")) {
            let diff = rustfmt_diff(&f.contents);
            assert!(diff.is_empty(), "{}: {diff}", f.path);
        }
    }
}

/// Copies the files of `from` (recursively) into `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// The files under `dir`, by path relative to it.
fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Issue 49 item 7: the same documents, generated from two checkouts at different absolute
/// places (given as absolute paths), give byte-identical crates that name no machine path:
/// files are named relative to the crate (an AGS graph with a subgraph in another file, and
/// an Agent Graph Provider whose plan is its graph file's).
#[test]
fn generated_crates_are_the_same_bytes_in_every_checkout() {
    let child = "ags_version: \"1.0\"\nkind: AgenticGraph\nid: child\ntitle: Child\nobjective: Be referenced.\nconstraints: {max_cost_usd: 1}\nentrypoints: [work]\nnodes:\n  work:\n    title: Work\n    description: The child's only node.\n    outputs:\n      result: {type: string, description: The result.}\noutputs:\n  result: {type: string, description: Out., from: nodes.work.outputs.result}\n";
    let parent = "ags_version: \"1.0\"\nkind: AgenticGraph\nid: parent\ntitle: Parent\nobjective: Reference a child.\nconstraints: {max_cost_usd: 1}\nentrypoints: [run]\nnodes:\n  run:\n    type: subgraph\n    title: Run\n    description: Runs the child.\n    subgraph:\n      ref:\n        uri: \"./sub/child.agraph.yaml\"\n";
    let checkouts = [
        TempDir::new("agc-gen-one-"),
        TempDir::new("agc-gen-two-").not_created("deeper/checkout"),
    ];
    let mut crates = Vec::new();
    for c in &checkouts {
        let root = c.to_path_buf();
        std::fs::create_dir_all(root.join("docs/sub")).unwrap();
        std::fs::write(root.join("docs/parent.agraph.yaml"), parent).unwrap();
        std::fs::write(root.join("docs/sub/child.agraph.yaml"), child).unwrap();
        copy_tree(
            Path::new("examples/agent-graph/release"),
            &root.join("docs/release"),
        );
        for (doc, out) in [
            ("docs/parent.agraph.yaml", "gen/parent"),
            ("docs/release", "gen/release"),
        ] {
            let doc = root.join(doc).to_string_lossy().to_string();
            let out = root.join(out).to_string_lossy().to_string();
            let docs = root.join("docs").to_string_lossy().to_string();
            let args = ["gen", "rust", &doc, "-o", &out, "--root", &docs];
            assert_eq!(agc(&args), 0, "{doc}");
        }
        let files = tree(&root.join("gen"));
        let shown = root.to_string_lossy().replace('\\', "/");
        for (path, bytes) in &files {
            let text = String::from_utf8_lossy(bytes);
            assert!(!text.contains(&*shown), "{path} names the checkout: {text}");
        }
        crates.push(files);
    }
    assert_eq!(
        crates[0].keys().collect::<Vec<_>>(),
        crates[1].keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &crates[0] {
        assert!(
            bytes == &crates[1][path],
            "{path} differs between the checkouts"
        );
    }
    let plan = String::from_utf8_lossy(&crates[0]["parent/src/plan.json"]).to_string();
    assert!(
        plan.contains("\"path\": \"../../docs/parent.agraph.yaml\""),
        "{plan}"
    );
    assert!(
        plan.contains("\"../../docs/sub/child.agraph.yaml:"),
        "{plan}"
    );
    let lib = String::from_utf8_lossy(&crates[0]["release/src/lib.rs"]).to_string();
    assert!(
        lib.contains("//! - source: ../../docs/release/graphs/release.yaml"),
        "{lib}"
    );
}

/// Issue 48 item 3: an AWP runner's `Outputs` is the workflow result as its end node's
/// `output_schema` declares it (`outputs(record)` reads the record's top-level `outputs`).
#[test]
fn an_awp_runner_types_the_workflow_result() {
    let doc = Path::new("tests/golden/gen/reserved/reserved.workflow.yaml");
    let files = generate(doc, "reserved-awp-runner");
    let types = &files
        .iter()
        .find(|f| f.path == "src/types.rs")
        .unwrap()
        .contents;
    let at = types
        .find("pub struct Outputs {")
        .expect("an Outputs struct with fields");
    let outputs = &types[at..at + types[at..].find("\n}").unwrap()];
    assert!(outputs.contains("pub note: String,"), "{outputs}");
    assert!(outputs.contains("#[serde(rename = \"self\")]"), "{outputs}");
    assert!(outputs.contains("pub self_: Option<i64>,"), "{outputs}");
}

/// Issue 49 item 3: every gate's outputs carry its decision as an enum, also where the plan
/// declares no `decision` output (an Agent Graph gate), since its answer names one.
#[test]
fn every_gate_answers_with_a_typed_decision() {
    let doc = Path::new("../shared/corpus/agent-graph/examples/review-gate");
    if !doc.is_dir() {
        println!("note: {} is absent; skipped", doc.display());
        return;
    }
    let files = generate(doc, "review-gate-runner");
    let types = &files
        .iter()
        .find(|f| f.path == "src/types.rs")
        .unwrap()
        .contents;
    let at = types
        .find("pub struct ApproveOutputs {")
        .expect("the gate's outputs");
    let outputs = &types[at..at + types[at..].find("\n}").unwrap()];
    assert!(
        outputs.contains("pub decision: ApproveDecision,"),
        "{outputs}"
    );
    assert!(types.contains("pub enum ApproveDecision {"), "{types}");
}

/// Issue 49 item 2: in the reserved-names crates (one per dialect, built as workspace
/// members), ids named like the hooks, the crate's functions and the dispatch's own locals
/// each got their method, under its own name: nothing else lives in `Handlers`.
#[test]
fn reserved_names_are_node_methods_like_any_other() {
    for dir in [
        "reserved-ags",
        "reserved-awp",
        "reserved-agh",
        "reserved-agent-graph",
    ] {
        let path = format!("examples/generated/{dir}/src/handler.rs");
        let handler = std::fs::read_to_string(&path).unwrap();
        let trait_body = &handler[handler.find("pub trait Handlers: Hooks {").unwrap()..];
        let trait_body = &trait_body[..trait_body.find("\n}\n").unwrap()];
        for m in [
            "checkpoint",
            "unknown_node",
            "plan",
            "run",
            "resume",
            "outputs",
            "h",
            "ctx",
        ] {
            assert!(
                trait_body.contains(&format!("    fn {m}(")),
                "{path}: no method `{m}`"
            );
            assert!(
                handler.contains(&format!("Handlers::{m}(h, ctx, inputs)")),
                "{path}: `{m}` is not dispatched by its trait path"
            );
        }
    }
}
