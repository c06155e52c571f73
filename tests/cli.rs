//! The `agc` binary end to end: exit statuses, outputs, and the CI-facing `--check` modes.

mod common;

use common::TempDir;
use std::path::Path;
use std::process::{Command, Output};

fn agc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("agc runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn tmp(name: &str) -> TempDir {
    TempDir::new(&format!("agc-cli-{name}-"))
}

const EXAMPLE: &str = "examples/ags/changelog-release.agraph.yaml";

#[test]
fn check_exit_statuses() {
    assert_eq!(agc(&["check", EXAMPLE]).status.code(), Some(0));
    assert_eq!(
        agc(&["check", "tests/fixtures/load/agc007-merge-key.yaml"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(agc(&["check", "no/such/file.yaml"]).status.code(), Some(2));
    assert_eq!(agc(&["check"]).status.code(), Some(2), "usage error");
    assert_eq!(agc(&["--version"]).status.code(), Some(0));
}

#[test]
fn explain_prints_every_registered_code() {
    let o = agc(&["explain", "AGC007"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("merge keys"));
    let o = agc(&["explain", "ag111"]);
    assert!(stdout(&o).starts_with("AG111"), "case-insensitive lookup");
    assert_eq!(agc(&["explain", "NOPE1"]).status.code(), Some(2));
    let list = stdout(&agc(&["explain", "--list"]));
    for code in ["AGC001", "AG001", "AG211", "AG909", "AGC090", "AGC100"] {
        assert!(list.contains(code), "{code} listed");
    }
}

#[test]
fn build_writes_and_checks_plans() {
    let dir = tmp("build");
    let plan = dir.join("plan.json");
    let plan_s = plan.to_str().unwrap();
    assert_eq!(
        agc(&["build", EXAMPLE, "-o", plan_s]).status.code(),
        Some(0)
    );
    let first = std::fs::read_to_string(&plan).unwrap();
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["format"], "agc.plan/v5");
    assert_eq!(
        agc(&["build", EXAMPLE, "-o", plan_s, "--check"])
            .status
            .code(),
        Some(0)
    );
    // `--compact`: the same document on one line, and `--check` compares in that form.
    let compact = dir.join("compact.json");
    let compact_s = compact.to_str().unwrap();
    assert_eq!(
        agc(&["build", EXAMPLE, "--compact", "-o", compact_s])
            .status
            .code(),
        Some(0)
    );
    let text = std::fs::read_to_string(&compact).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert!(text.len() < first.len());
    assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), v);
    assert_eq!(
        agc(&["build", EXAMPLE, "--compact", "-o", compact_s, "--check"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        agc(&["build", EXAMPLE, "-o", compact_s, "--check"])
            .status
            .code(),
        Some(1)
    );
    std::fs::write(&plan, first.replace("changelog", "changelag")).unwrap();
    let o = agc(&["build", EXAMPLE, "-o", plan_s, "--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("stale"), "{}", stderr(&o));
    // A plan with extra bytes after it, or cut short, is stale too (the comparison streams).
    for changed in [format!("{first}\n"), first[..first.len() / 2].to_string()] {
        std::fs::write(&plan, changed).unwrap();
        let o = agc(&["build", EXAMPLE, "-o", plan_s, "--check"]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    }
    // stdout carries the plan without -o; the same bytes as the file.
    let o = agc(&["build", EXAMPLE]);
    assert_eq!(stdout(&o), first);
    // A document with errors builds nothing and exits 1.
    assert_eq!(
        agc(&["build", "tests/fixtures/load/agc007-merge-key.yaml"])
            .status
            .code(),
        Some(1)
    );
}

/// A plan bound for a file is written while the warnings go to stderr (on a second thread):
/// both come out whole, the plan the same bytes as on stdout; under `--strict` the warnings
/// fail the build and no plan is written.
#[test]
fn a_build_to_a_file_prints_its_warnings_and_writes_the_plan() {
    const WARNED: &str = "tests/fixtures/ags/ag903-orphan-node.agraph.yaml";
    let dir = tmp("build-warned");
    let plan = dir.join("plan.json");
    let plan_s = plan.to_str().unwrap();
    let o = agc(&["build", WARNED, "-o", plan_s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let to_stdout = agc(&["build", WARNED]);
    assert_eq!(stderr(&o), stderr(&to_stdout));
    assert!(stderr(&o).starts_with("warning[AG903]"), "{}", stderr(&o));
    assert_eq!(stderr(&o).matches("warning[").count(), 1, "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&plan).unwrap(), stdout(&to_stdout));
    std::fs::remove_file(&plan).unwrap();
    let o = agc(&["build", WARNED, "-o", plan_s, "--strict"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("warning[AG903]"), "{}", stderr(&o));
    assert!(!plan.exists());
}

/// A plan on a stdout that is also stderr (`agc build x > out 2>&1`) comes after the
/// diagnostics, whole: the two are written one after the other, never at once.
#[test]
fn a_build_to_a_stdout_shared_with_stderr_prints_the_warnings_first() {
    const WARNED: &str = "tests/fixtures/ags/ag903-orphan-node.agraph.yaml";
    let dir = tmp("build-shared");
    let path = dir.join("out.txt");
    let file = std::fs::File::create(&path).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(["build", WARNED])
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let separate = agc(&["build", WARNED]);
    let both = std::fs::read_to_string(&path).unwrap();
    assert_eq!(both, format!("{}{}", stderr(&separate), stdout(&separate)));
}

#[test]
fn graph_inject_and_check() {
    let dir = tmp("inject");
    std::fs::copy(EXAMPLE, dir.join("wf.agraph.yaml")).unwrap();
    let md = dir.join("README.md");
    std::fs::write(
        &md,
        "# Flow\n\n<!-- agc:graph wf.agraph.yaml --direction LR -->\n<!-- /agc:graph -->\n\nend\n",
    )
    .unwrap();
    let md_s = md.to_str().unwrap();
    let o = agc(&["graph", "--inject", md_s, "--check"]);
    assert_eq!(o.status.code(), Some(1), "an empty block is stale");
    assert!(stderr(&o).contains("AGC102"));
    assert_eq!(agc(&["graph", "--inject", md_s]).status.code(), Some(0));
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.contains("```mermaid\n---\ntitle: ") && text.contains("---\nflowchart LR\n"),
        "{text}"
    );
    assert!(text.ends_with("<!-- /agc:graph -->\n\nend\n"));
    assert_eq!(
        agc(&["graph", "--inject", md_s, "--check"]).status.code(),
        Some(0)
    );
    std::fs::write(
        &md,
        "<!-- agc:graph wf.agraph.yaml --sideways -->\n<!-- /agc:graph -->\n",
    )
    .unwrap();
    let o = agc(&["graph", "--inject", md_s]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("AGC101"));
    // A bad direction is quoted as written, not as a Rust value.
    std::fs::write(
        &md,
        "<!-- agc:graph wf.agraph.yaml --direction XY -->\n<!-- /agc:graph -->\n",
    )
    .unwrap();
    let o = agc(&["graph", "--inject", md_s]);
    assert!(
        stderr(&o).contains("takes TB or LR, not `XY`"),
        "{}",
        stderr(&o)
    );
    // A CRLF file stays CRLF, and is then current; stale blocks are listed in file order.
    std::fs::write(
        &md,
        "# F\r\n<!-- agc:graph wf.agraph.yaml -->\r\n<!-- /agc:graph -->\r\n<!-- agc:graph wf.agraph.yaml --collapse -->\r\n<!-- /agc:graph -->\r\n<!-- agc:graph wf.agraph.yaml --legend -->\r\n<!-- /agc:graph -->\r\n",
    )
    .unwrap();
    let o = agc(&["graph", "--inject", md_s, "--check"]);
    let err = stderr(&o);
    let at = |s: &str| err.find(s).unwrap_or_else(|| panic!("{s} in {err}"));
    assert!(at("README.md:2:") < at("README.md:4:") && at("README.md:4:") < at("README.md:6:"));
    assert_eq!(agc(&["graph", "--inject", md_s]).status.code(), Some(0));
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(!text.replace("\r\n", "").contains('\n'), "{text:?}");
    assert_eq!(
        agc(&["graph", "--inject", md_s, "--check"]).status.code(),
        Some(0)
    );
}

/// A layered AGS graph with `n` nodes, each depending on two of the previous layer.
fn wide_graph(n: usize) -> String {
    let mut s = String::from(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: t/wide\ntitle: Wide\nobjective: Many edges.\nconstraints:\n  max_cost_usd: 1\nentrypoints: [n0]\nnodes:\n",
    );
    for i in 0..n {
        s += &format!("  n{i}:\n    title: N{i}\n    description: Node {i}.\n");
        if i > 0 {
            let a = (i - 1) / 2;
            let b = i - 1;
            if a == b {
                s += &format!("    depends_on: [n{a}]\n");
            } else {
                s += &format!("    depends_on: [n{a}, n{b}]\n");
            }
        }
    }
    s
}

#[test]
fn graphs_over_mermaids_edge_limit_say_what_to_do() {
    let dir = tmp("wide");
    let f = dir.join("wide.agraph.yaml");
    std::fs::write(&f, wide_graph(300)).unwrap();
    let o = agc(&["graph", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    // No loop, map or subgraph to fold: `--collapse` would change nothing, DOT has no limit.
    let err = stderr(&o);
    assert!(
        err.contains("AGC100") && err.contains("--graph-format dot"),
        "{err}"
    );
    assert!(!err.contains("--collapse"), "{err}");
    let dot = agc(&["graph", "--graph-format", "dot", f.to_str().unwrap()]);
    assert_eq!(dot.status.code(), Some(0), "{}", stderr(&dot));
    let small = dir.join("small.agraph.yaml");
    std::fs::write(&small, wide_graph(20)).unwrap();
    assert_eq!(
        agc(&["graph", small.to_str().unwrap()]).status.code(),
        Some(0)
    );
}

#[test]
fn the_readme_diagram_is_current() {
    if !Path::new("README.md").is_file() {
        return;
    }
    let o = agc(&["graph", "--inject", "README.md", "--check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn eval_prints_values_and_coded_errors() {
    let dir = tmp("eval");
    let vars = dir.join("vars.json");
    std::fs::write(&vars, r#"{"params": {"xs": [1, 2, 3], "n": 5}}"#).unwrap();
    let v = vars.to_str().unwrap();
    let o = agc(&[
        "eval",
        "--lang",
        "agx",
        "len(params.xs)-1 == 2 && params.n % 2 == 1",
        "--vars",
        v,
    ]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "true\n"));
    let o = agc(&[
        "eval",
        "--lang",
        "agx-template",
        "n=${{ params.n }} xs=${{ params.xs }}",
        "--vars",
        v,
    ]);
    assert_eq!(stdout(&o), "n=5 xs=[1,2,3]\n");
    let o = agc(&[
        "eval",
        "--lang",
        "cel",
        "[1, 2, 3].map(x, x * 2).filter(y, y > 2)",
    ]);
    assert_eq!(stdout(&o), "[4,6]\n");
    // Static errors: coded, with a caret, exit 1.
    let o = agc(&["eval", "--lang", "agx", "nope(1)"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("error[AG204]") && stderr(&o).contains("nope"),
        "{}",
        stderr(&o)
    );
    let o = agc(&["eval", "--lang", "agx", "1 +"]);
    assert!(stderr(&o).contains("error[AG204]"));
    // Evaluation errors: the message, exit 1.
    let o = agc(&["eval", "--lang", "cel", "9223372036854775807 + 1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("overflow"), "{}", stderr(&o));
    // jq: one compact line per output.
    let input = dir.join("in.json");
    std::fs::write(&input, r#"{"a": [1, "x", {"b": 3}]}"#).unwrap();
    let o = agc(&[
        "eval",
        "--lang",
        "jq",
        ".a[] | .b? // .",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&o), "1\n\"x\"\n3\n");
    // Leading hyphens are the expression, not flags, before or after the options.
    let o = agc(&["eval", "--lang", "agx", "-2 * -3"]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "6\n"));
    let o = agc(&["eval", "-1 - 1", "--lang", "cel"]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "-2\n"));
    let o = agc(&[
        "eval",
        "--lang",
        "jq",
        "-.a",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "negating an array is an evaluation error"
    );
    assert!(
        !stderr(&o).contains("unexpected argument"),
        "{}",
        stderr(&o)
    );
    // 10,000 nested parentheses: a diagnostic, not a crash.
    let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    for lang in ["agx", "cel", "jq"] {
        let o = agc(&["eval", "--lang", lang, &deep]);
        assert_eq!(o.status.code(), Some(1), "{lang}");
        assert!(stderr(&o).contains("error["), "{lang}: {}", stderr(&o));
    }
}

#[test]
fn the_workspace_root_comes_from_the_document() {
    let doc = "../shared/corpus/ags/examples/docs-site-refresh.agraph.yaml";
    if !Path::new(doc).exists() {
        eprintln!("skipped: {doc} is absent (the shared corpus is not checked out)");
        return;
    }
    // Its sibling `./link-audit.agraph.yaml` is inside the root found from the document.
    for cmd in ["check", "build", "graph"] {
        let o = agc(&[cmd, doc]);
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
        assert!(!stdout(&o).contains("AGC081"), "{cmd}");
    }
    // `--root` still overrides: the current folder does not hold the corpus.
    let o = agc(&["check", "--root", ".", doc]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("AGC081"), "{}", stdout(&o));
}

#[test]
fn a_root_that_is_no_folder_is_a_usage_error() {
    // Not "outside the workspace root" on every reference later: the value itself is refused.
    let dir = tmp("root");
    let missing = dir.join("nope").display().to_string();
    let o = agc(&["check", "--root", &missing, EXAMPLE]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot be read as a folder"),
        "{}",
        stderr(&o)
    );
    assert!(!stdout(&o).contains("AGC081"));
    let o = agc(&["build", "--root", EXAMPLE, EXAMPLE]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is a file, not a folder"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn dash_as_the_output_is_standard_output() {
    let dir = tmp("dash");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_agc"))
            .args(args)
            .current_dir(&*dir)
            .env("NO_COLOR", "1")
            .output()
            .expect("agc runs")
    };
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXAMPLE);
    let example = example.to_str().unwrap();
    let plain = run(&["build", example]);
    let dashed = run(&["build", example, "-o", "-"]);
    assert_eq!(dashed.status.code(), Some(0), "{}", stderr(&dashed));
    assert!(stdout(&dashed).starts_with('{'));
    assert_eq!(plain.stdout, dashed.stdout);
    let graph = run(&["graph", example, "-o", "-"]);
    assert_eq!(graph.status.code(), Some(0), "{}", stderr(&graph));
    assert_eq!(graph.stdout, run(&["graph", example]).stdout);
    assert!(!dir.join("-").exists(), "no file named `-` is written");
    // `--check` needs a plan file to compare with.
    let o = run(&["build", example, "-o", "-", "--check"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("standard output"), "{}", stderr(&o));
}

#[test]
fn eval_gives_up_on_a_jq_filter_that_never_ends() {
    // `def f: f; f` loops without producing an output; jaq has no step limit.
    let o = agc(&["eval", "--lang", "jq", "def f: f; f", "--timeout", "0.5"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "an exceeded limit exits 2 (issue 47)"
    );
    assert!(
        stderr(&o).contains("ran longer than 0.5 s"),
        "{}",
        stderr(&o)
    );
    // A filter that ends is not affected by the deadline.
    let o = agc(&["eval", "--lang", "jq", "[range(3)]", "--timeout", "5"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "[0,1,2]");
    let o = agc(&["eval", "--lang", "jq", ".", "--timeout", "0"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_closed_stdout_is_no_panic() {
    // `agc explain --list | head -1`: the reader is gone before agc writes (its end of the
    // pipe is closed first, so every write fails with EPIPE).
    let cases: [&[&str]; 4] = [
        &["explain", "--list"],
        &["explain", "AG201"],
        &["eval", "--lang", "agx", "1 + 1"],
        &["build", EXAMPLE],
    ];
    for args in cases {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let o = Command::new(env!("CARGO_BIN_EXE_agc"))
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
    }
}

#[test]
fn sarif_from_the_cli_is_valid_and_every_result_has_a_location() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("schemas/sarif/sarif-schema-2.1.0.json").unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft4::new(&schema).expect("the SARIF schema compiles");
    // Unreadable files, a folder without documents, load and semantic errors.
    let empty = tmp("sarif-empty");
    let mut args = vec![
        "check",
        "--format",
        "sarif",
        "no/such/file.agraph.yaml",
        empty.to_str().unwrap(),
        "tests/fixtures",
    ];
    let corpus = "../shared/corpus";
    if Path::new(corpus).exists() {
        args.push(corpus);
    }
    let o = agc(&args);
    assert_eq!(o.status.code(), Some(2), "I/O errors");
    let log: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .take(5)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert!(results.len() > 50);
    for r in results {
        let loc = &r["locations"][0]["physicalLocation"];
        assert!(loc["artifactLocation"]["uri"].is_string(), "{r}");
        assert!(loc["region"]["startLine"].as_u64() >= Some(1), "{r}");
    }
    let unreadable = results
        .iter()
        .find(|r| r["ruleId"] == "AGC001")
        .expect("AGC001");
    assert_eq!(
        unreadable["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "no/such/file.agraph.yaml"
    );
}
