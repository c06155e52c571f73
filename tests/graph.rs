//! `agc graph`: a golden `.mmd` per example (and for our own diagram fixtures), and every golden
//! (and every diagram in `docs/diagrams.md` and the README) parsed by real Mermaid 11 when
//! `tests/mermaid/node_modules` is installed (`.ci/run` installs it; elsewhere the parse check
//! skips with a notice). `AGC_BLESS=1` rewrites the goldens.

mod common;

use agc::back::mermaid::{self, Options};
use agc::check::CheckOptions;
use agc::compile::compile_file;
use agc::source::SourceMap;
use common::TempDir;
use std::path::{Path, PathBuf};
use std::process::Command;

fn documents() -> Vec<(PathBuf, String)> {
    let mut docs = Vec::new();
    let mut push_dir = |dir: &Path, prefix: &str| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            if name.ends_with(".agraph.yaml") || name.ends_with(".agraph.json") {
                docs.push((f.clone(), format!("{prefix}{name}")));
            }
        }
    };
    let corpus = Path::new("../shared/corpus/ags");
    if corpus.is_dir() {
        for dir in ["examples", "third_party/loro", "third_party/magagent"] {
            push_dir(&corpus.join(dir), "corpus-");
        }
    } else {
        println!("note: ../shared/corpus/ags is absent; corpus diagrams skipped");
    }
    push_dir(Path::new("examples/ags"), "");
    push_dir(Path::new("tests/diagrams"), "");
    docs
}

fn draw(path: &Path, opts: Options) -> String {
    let mut sources = SourceMap::new();
    let display = path.to_string_lossy().replace('\\', "/");
    let (compiled, diags) = compile_file(&mut sources, path, &display, &check_opts(path));
    let errors: Vec<_> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| &d.message)
        .collect();
    assert!(errors.is_empty(), "{display}: {errors:?}");
    mermaid::render(&compiled.into_iter().next().expect("compiles").graph, opts).0
}

#[test]
fn every_example_draws_to_its_golden_diagram() {
    let bless = std::env::var_os("AGC_BLESS").is_some();
    let mut stale = Vec::new();
    for (path, name) in documents() {
        let mut variants = vec![
            ("", Options::default()),
            (
                ".collapsed",
                Options {
                    collapse: true,
                    ..Options::default()
                },
            ),
        ];
        // Our own diagram fixtures are also drawn with the legend, left to right.
        if path.starts_with("tests/diagrams") {
            variants.push((
                ".legend",
                Options {
                    legend: true,
                    direction: mermaid::Direction::LeftRight,
                    ..Options::default()
                },
            ));
        }
        for (suffix, opts) in variants {
            let text = draw(&path, opts);
            assert_eq!(text, draw(&path, opts), "{name}: two drawings differ");
            let golden = Path::new("tests/golden/mermaid").join(format!("{name}{suffix}.mmd"));
            match std::fs::read_to_string(&golden) {
                Ok(old) if old == text => {}
                _ if bless => std::fs::write(&golden, &text).unwrap(),
                _ => stale.push(golden.display().to_string()),
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale or missing goldens (AGC_BLESS=1 to rewrite, then review): {stale:#?}"
    );
}

#[test]
fn real_mermaid_parses_every_golden() {
    let tool = Path::new("tests/mermaid");
    if !tool.join("node_modules/mermaid").is_dir() {
        // CI installs it (.ci/run); there, its absence is a failure, not a skip.
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install tests/mermaid (npm ci)"
        );
        println!(
            "note: tests/mermaid/node_modules is absent (npm ci --prefix tests/mermaid); real Mermaid check skipped"
        );
        return;
    }
    let mut files: Vec<String> = std::fs::read_dir("tests/golden/mermaid")
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path().to_string_lossy().to_string()))
        .filter(|p| p.ends_with(".mmd"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    // The diagrams of the gallery and the README too, as they are committed.
    let dir = TempDir::new("agc-graph-md-");
    for md in ["docs/diagrams.md", "README.md"] {
        let text = std::fs::read_to_string(md).unwrap();
        for (i, block) in text.split("```mermaid\n").skip(1).enumerate() {
            let body = block.split("```").next().unwrap();
            let f = dir.join(format!("{}-{i}.mmd", md.replace('/', "-")));
            std::fs::write(&f, body).unwrap();
            files.push(f.to_string_lossy().to_string());
        }
    }
    let out = Command::new("node")
        .arg(tool.join("check.mjs"))
        .args(&files)
        .output()
        .expect("node runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "Mermaid rejected some diagrams:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        report.lines().filter(|l| l.starts_with("ok ")).count(),
        files.len()
    );
}

#[test]
fn dot_output_nests_clusters_and_quotes_everything() {
    let path = Path::new("tests/diagrams/adversarial.agraph.yaml");
    let mut sources = SourceMap::new();
    let (compiled, _) = compile_file(&mut sources, path, "adversarial", &check_opts(path));
    let dot = agc::back::dot::render(&compiled.into_iter().next().unwrap().graph, false);
    assert!(dot.starts_with("digraph agc {\n") && dot.ends_with("}\n"));
    // Every label is one quoted string with its quotes escaped.
    for line in dot.lines().filter(|l| l.contains("label=")) {
        let after = line.split_once("label=\"").unwrap().1;
        let mut escaped = false;
        let mut closed = false;
        for c in after.chars() {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    closed = true;
                    break;
                }
                _ => {}
            }
        }
        assert!(closed, "unterminated label in {line}");
    }
    // The held-out graph: clusters nest, each owner *is* its cluster (edges meet the border),
    // the words are the Mermaid ones (author label, branch name), failure is red.
    let path = Path::new("tests/diagrams/release-train.agraph.yaml");
    let (c, _) = compile_file(&mut sources, path, "release-train", &check_opts(path));
    let dot = agc::back::dot::render(&c.into_iter().next().unwrap().graph, false);
    assert!(dot.contains("compound=true;"), "{dot}");
    assert!(dot.contains("label=\"Ship the release train one package at a time\";"));
    let at = |s: &str| dot.find(s).unwrap_or_else(|| panic!("{s} in {dot}"));
    assert!(at("subgraph cluster_n1 {") < at("subgraph cluster_n7 {"));
    assert!(at("subgraph cluster_n7 {") < at("subgraph cluster_n8 {"));
    assert!(dot.contains("for each pkg in packages"), "{dot}");
    // No owner is also drawn as a node.
    for owner in ["n1 [", "n7 [", "n8 ["] {
        assert!(!dot.contains(&format!("    {owner}")), "{owner} in {dot}");
    }
    // collect → per_package meets the map's border at the body's first node (through two
    // nested clusters: check); per_package → triage leaves from its last (write_report).
    assert!(dot.contains("n0 -> n10 [lhead=cluster_n1];"), "{dot}");
    assert!(dot.contains("n9 -> n2 [ltail=cluster_n1];"), "{dot}");
    assert!(dot.contains("n11 -> n9 [ltail=cluster_n8];"), "{dot}");
    assert!(dot.contains("[label=\"ship_it\", style=dashed]"), "{dot}");
    assert!(dot.contains("[label=\"not today\", style=dashed]"), "{dot}");
    assert!(dot.contains("label=\"on failure\", style=dashed, color=\"#c62828\""));
    // The repeat arrow takes no part in ranking, so the loop's body reads top-down.
    assert!(
        dot.contains("n11 -> n10 [label=\"repeat\", style=bold, constraint=false];"),
        "{dot}"
    );
    assert_eq!(
        dot.matches("penwidth=3").count(),
        1,
        "only the graph's entry: {dot}"
    );
}

/// What a reader sees in the corpus diagrams: the author's words on the edges, no loose link
/// between an owner and a box, and headers that say what a loop or map does.
#[test]
fn corpus_diagrams_show_the_authors_words() {
    let golden =
        |name: &str| std::fs::read_to_string(Path::new("tests/golden/mermaid").join(name)).unwrap();
    if !Path::new("../shared/corpus/ags").is_dir() {
        println!("note: ../shared/corpus/ags is absent; corpus label checks skipped");
        return;
    }
    let site = golden("corpus-docs-site-refresh.agraph.yaml.mmd");
    assert!(site.contains("-.->|\"links broken\"|") && site.contains("-.->|\"links clean\"|"));
    assert!(site.contains("-->|\"after link repair\"|"));
    assert!(site.contains("for each page in pages #183; max 200 #183; 4 in parallel"));
    assert!(site.contains("uses publish_checks"));
    let release = golden("corpus-library-v1-release.agraph.yaml.mmd");
    assert!(release.contains("|\"needs work\"|") && release.contains("|\"ready\"|"));
    assert!(!release.contains("needs_remediat"), "{release}");
    let repair = golden("corpus-test-repair-loop.agraph.yaml.mmd");
    assert!(
        repair.contains("<br>loop until failing_count == 0 #183; max 5\"]"),
        "{repair}"
    );
    assert!(repair.contains("==>|\"repeat\"|"), "{repair}");
    assert!(
        repair.contains("subgraph n1[\"repair_loop #183; "),
        "{repair}"
    );
}

#[test]
fn no_golden_ties_an_owner_to_its_region_with_a_loose_link() {
    for entry in std::fs::read_dir("tests/golden/mermaid").unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines().map(str::trim) {
            // Invisible links only arrange the legend's key (`l…` ids).
            let legend = line.starts_with('l') && line.contains(" ~~~ l");
            let loose = line.contains(" -.- ") || line.contains(" --- ");
            let hidden = line.contains(" ~~~ ") && !legend;
            assert!(!loose && !hidden, "{}: {line}", path.display());
        }
        // Each container's id is never also declared as a node.
        for line in text.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix("subgraph n") {
                let id: String = rest.chars().take_while(char::is_ascii_digit).collect();
                let decl = format!("\n    n{id}[");
                assert!(!text.contains(&decl), "{}: n{id}", path.display());
            }
        }
    }
}

/// `docs/diagrams.md` shows every shipped example, and every block there is current.
#[test]
fn the_gallery_shows_every_example_and_is_current() {
    let md = std::fs::read_to_string("docs/diagrams.md").expect("docs/diagrams.md");
    let blocks = agc::back::mermaid::inject::blocks(&md).expect("well-formed gallery");
    let drawn: Vec<PathBuf> = blocks
        .iter()
        .map(|b| Path::new("docs").join(&b.path))
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    // Shipped examples: the workflow documents in each `examples/<dialect>/` folder (not the
    // params, scripts or generated code that sit beside them).
    const DOCUMENTS: [&str; 6] = [
        ".agraph.yaml",
        ".agraph.json",
        ".workflow.yaml",
        ".workflow.json",
        ".loop.yaml",
        ".loop.json",
    ];
    let mut missing = Vec::new();
    let mut examples = 0;
    for dialect in std::fs::read_dir("examples").unwrap() {
        let dir = dialect.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !path.is_file() || !DOCUMENTS.iter().any(|s| name.ends_with(s)) {
                continue;
            }
            examples += 1;
            if !drawn.contains(&path.canonicalize().unwrap()) {
                missing.push(path.display().to_string());
            }
        }
    }
    assert!(examples > 0, "no shipped example found");
    assert!(
        missing.is_empty(),
        "examples without a diagram in docs/diagrams.md (add a block, then `agc graph --inject docs/diagrams.md`): {missing:?}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(["graph", "--inject", "docs/diagrams.md", "--check"])
        .env("NO_COLOR", "1")
        .output()
        .expect("agc runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The workspace root for references: the document's own folder (the corpus examples reference
/// files beside them; `../shared` may itself be a link, which a root outside it would refuse).
fn check_opts(path: &Path) -> CheckOptions {
    CheckOptions {
        root: path.parent().map(Path::to_path_buf),
        ..CheckOptions::default()
    }
}

/// A graph of many unconnected nodes with long ids and titles: fewer edges than Mermaid's
/// `maxEdges` (each lone node's one arrow to `end`), but more text than its `maxTextSize`; agc
/// refuses with AGC103 rather than write a diagram Mermaid replaces with an error, says what
/// to do instead, and the same graph drawn smaller passes.
#[test]
fn diagrams_over_mermaids_text_limit_say_what_to_do() {
    let doc = |n: usize| {
        let mut s = String::from(
            "ags_version: \"1.0\"\nkind: AgenticGraph\nid: t/long\ntitle: Long\nobjective: Much text.\nconstraints:\n  max_cost_usd: 1\nentrypoints: [",
        );
        s += &(0..n)
            .map(|i| format!("summarize_quarterly_report_{i:04}"))
            .collect::<Vec<_>>()
            .join(", ");
        s += "]\nnodes:\n";
        for i in 0..n {
            s += &format!(
                "  summarize_quarterly_report_{i:04}:\n    type: task\n    title: Summarize the quarterly report for region {i}\n    description: One of many.\n"
            );
        }
        s
    };
    let dir = TempDir::new("agc-graph-long-");
    let run = |n: usize| {
        let f = dir.join(format!("long{n}.agraph.yaml"));
        std::fs::write(&f, doc(n)).unwrap();
        Command::new(env!("CARGO_BIN_EXE_agc"))
            .args(["graph", f.to_str().unwrap()])
            .env("NO_COLOR", "1")
            .output()
            .expect("agc runs")
    };
    let big = run(480);
    let err = String::from_utf8_lossy(&big.stderr);
    assert_eq!(big.status.code(), Some(1), "{err}");
    // Nothing to collapse in a graph of plain tasks: the help points at DOT instead.
    assert!(
        err.contains("AGC103") && err.contains("--graph-format dot"),
        "{err}"
    );
    assert!(!err.contains("--collapse"), "{err}");
    assert!(big.stdout.is_empty());
    let small = run(100);
    assert_eq!(small.status.code(), Some(0));
    let text = String::from_utf8_lossy(&small.stdout);
    assert!(mermaid::text_size(&text) < mermaid::MAX_TEXT);
}

/// The held-out loop whose body holds a subgraph (issue 45): its steps are written in the order
/// they run, it repeats around its own box (an arrow from its last step to its first would
/// make Mermaid draw it upside down), and its long condition is cut from the end, keeping its
/// subject.
#[test]
fn a_loop_holding_a_box_reads_in_execution_order() {
    let text = draw(
        Path::new("tests/diagrams/revise-until-good.agraph.yaml"),
        Options::default(),
    );
    let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s} in {text}"));
    assert!(at("\"rewrite<br>") < at("subgraph n5[\"checks"), "{text}");
    assert!(at("subgraph n5[\"checks") < at("\"score<br>"), "{text}");
    assert!(text.contains("    n1 ==>|\"repeat\"| n1\n"), "{text}");
    assert!(
        text.contains("loop until score #62;= params.target_score #124;#124; #8230; #183; max 6"),
        "{text}"
    );
}
