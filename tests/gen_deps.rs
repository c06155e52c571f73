//! A generated runner's dependencies are lean (issue 49 item 8): its `agc-runtime` line turns
//! the runtime's default features off and names only those its plan needs (`awp` for AWP's
//! jq, nothing for AGS, agh and Agent Graph), and the AGS example crate's dependency tree
//! holds neither Agent Graph's ICU crates nor AWP's jaq (the AWP example's holds jaq only).

mod common;

use common::TempDir;
use std::process::Command;

fn agc(args: &[&str]) -> i32 {
    let mut argv = vec!["agc"];
    argv.extend_from_slice(args);
    agc::cli::run(argv)
}

/// The `agc-runtime` line of the crate `agc gen rust` writes for `doc`.
fn runtime_line(doc: &str) -> String {
    let dir = TempDir::new("agc-gen-deps-").not_created("out");
    let out = dir.to_string_lossy().to_string();
    assert_eq!(
        agc(&[
            "gen",
            "rust",
            doc,
            "-o",
            &out,
            "--runtime",
            "path=../runtime"
        ]),
        0,
        "{doc}"
    );
    let toml = std::fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
    toml.lines()
        .find(|l| l.starts_with("agc-runtime"))
        .unwrap_or_else(|| panic!("{doc}: no agc-runtime line in\n{toml}"))
        .to_string()
}

#[test]
fn each_dialect_asks_for_its_own_runtime_features_only() {
    let lean = r#"agc-runtime = { path = "../runtime", default-features = false }"#;
    for doc in [
        "examples/ags/changelog-release.agraph.yaml",
        "examples/agh/delivery.loop.yaml",
        "examples/agent-graph/release",
    ] {
        assert_eq!(runtime_line(doc), lean, "{doc}");
    }
    assert_eq!(
        runtime_line("examples/awp/support-triage.workflow.yaml"),
        r#"agc-runtime = { path = "../runtime", default-features = false, features = ["awp"] }"#
    );
}

#[test]
fn a_version_dependency_turns_the_defaults_off_too() {
    let dir = TempDir::new("agc-gen-deps-").not_created("out");
    let out = dir.to_string_lossy().to_string();
    let doc = "examples/awp/support-triage.workflow.yaml";
    assert_eq!(
        agc(&["gen", "rust", doc, "-o", &out, "--runtime", "version=0.1"]),
        0
    );
    let toml = std::fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
    assert!(
        toml.contains(
            r#"agc-runtime = { version = "0.1", default-features = false, features = ["awp"] }"#
        ),
        "{toml}"
    );
}

/// The packages of `package`'s normal dependency tree, as `cargo tree` resolves the
/// workspace's lock (features resolved for that package alone).
fn tree(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "--locked",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .args(["--format", "{p}", "-p", package])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split(' ').next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn the_ags_example_crate_builds_neither_icu_nor_jaq() {
    let runner = tree("changelog-release-runner");
    assert!(runner.iter().any(|p| p == "agc-runtime"), "{runner:?}");
    let heavy: Vec<&String> = runner
        .iter()
        .filter(|p| p.starts_with("icu_") || p.starts_with("jaq-") || p == &"ryu-js")
        .collect();
    assert!(heavy.is_empty(), "{heavy:?}");
    // An AWP runner (the workspace's AWP example) has jq, and still no ICU.
    let awp = tree("awp-support-triage-runner");
    assert!(awp.iter().any(|p| p == "jaq-core"), "{awp:?}");
    assert!(!awp.iter().any(|p| p.starts_with("icu_")), "{awp:?}");
    // The same query sees them where the defaults are on (agc itself), so it can fail.
    let agc = tree("agc");
    assert!(agc.iter().any(|p| p == "icu_collator"), "{agc:?}");
    assert!(agc.iter().any(|p| p == "jaq-core"), "{agc:?}");
}
