//! agc as an installed command (issue 49 item 10): `agc --version` names the commit it was
//! built from (compiler/build.rs, also when there is no git to ask), `agc completions SHELL`
//! prints scripts the shells parse, and `agc man` writes a page per command from the same clap
//! definitions.

mod common;

use common::TempDir;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn agc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(args)
        .output()
        .expect("agc runs")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Every command's name, as a path from the top (`gen rust`, `agent-graph bundle`).
fn commands() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, path: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut p = path.to_vec();
            p.push(sub.get_name().to_string());
            out.push(p.clone());
            walk(sub, &p, out);
        }
    }
    let mut out = Vec::new();
    walk(&agc::cli::command(), &[], &mut out);
    out
}

#[test]
fn the_version_names_the_commit_of_a_git_checkout() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let version = stdout(&agc(&["--version"]));
    let package = env!("CARGO_PKG_VERSION");
    assert!(version.starts_with(&format!("agc {package}")), "{version}");
    let top = git(root, &["rev-parse", "--show-toplevel"]).map(PathBuf::from);
    let at_top = top.and_then(|t| t.canonicalize().ok()) == root.canonicalize().ok();
    match git(root, &["rev-parse", "--short=12", "HEAD"]) {
        Some(hash) if at_top => assert!(version.contains(&format!("({hash} ")), "{version}"),
        _ => eprintln!("note: not a git checkout; the commit is not checked"),
    }
}

/// compiler/build.rs, compiled on its own and run as cargo would, with the package root at
/// `root`: what it prints.
fn build_script(script: &Path, root: &Path) -> String {
    let out = Command::new(script)
        .env("CARGO_MANIFEST_DIR", root)
        .env("CARGO_PKG_VERSION", "9.8.7")
        .env("PROFILE", "debug")
        .output()
        .expect("the build script runs");
    stdout(&out)
}

#[test]
fn the_build_script_falls_back_without_git_and_reads_cargo_vcs_info() {
    let dir = TempDir::new("agc-build-script-");
    let script = dir.join("build-script");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let compiled = Command::new(rustc)
        .args(["--edition", "2024", "-O"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("compiler/build.rs"))
        .arg("-o")
        .arg(&script)
        .output()
        .expect("rustc runs");
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    // A tarball: no .git, no .cargo_vcs_info.json.
    let tarball = dir.join("tarball");
    std::fs::create_dir(&tarball).unwrap();
    let printed = build_script(&script, &tarball);
    assert!(
        printed.contains("cargo::rustc-env=AGC_VERSION=9.8.7\n"),
        "{printed}"
    );
    // A package from a registry: the commit `cargo package` recorded.
    std::fs::write(
        tarball.join(".cargo_vcs_info.json"),
        "{\n  \"git\": {\n    \"sha1\": \"0123456789abcdef0123456789abcdef01234567\"\n  },\n  \"path_in_vcs\": \"\"\n}",
    )
    .unwrap();
    let printed = build_script(&script, &tarball);
    assert!(
        printed.contains("cargo::rustc-env=AGC_VERSION=9.8.7 (0123456789ab)\n"),
        "{printed}"
    );
    // A copy inside someone else's repository does not take that repository's commit.
    if git(&dir, &["init", "-q", "outer"]).is_some() {
        let inner = dir.join("outer/vendored/agc");
        std::fs::create_dir_all(&inner).unwrap();
        let printed = build_script(&script, &inner);
        assert!(
            printed.contains("cargo::rustc-env=AGC_VERSION=9.8.7\n"),
            "{printed}"
        );
    }
}

#[test]
fn completions_name_every_command_and_bash_parses_them() {
    let top: Vec<String> = commands()
        .into_iter()
        .filter(|p| p.len() == 1)
        .map(|p| p[0].clone())
        .collect();
    assert!(top.iter().any(|c| c == "completions"), "{top:?}");
    let dir = TempDir::new("agc-completions-");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout(&agc(&["completions", shell]));
        for c in &top {
            assert!(script.contains(c.as_str()), "{shell}: no `{c}`");
        }
        let path = dir.join(format!("agc.{shell}"));
        std::fs::write(&path, &script).unwrap();
        // Each shell's own parser, where it is installed (`-n`: read, do not run).
        let check: &[&str] = match shell {
            "bash" => &["bash", "-n"],
            "zsh" => &["zsh", "-n"],
            "fish" => &["fish", "--no-execute"],
            _ => continue,
        };
        match Command::new(check[0]).args(&check[1..]).arg(&path).output() {
            Ok(out) => assert!(
                out.status.success(),
                "{shell} -n: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(_) if shell != "bash" => eprintln!("note: no {shell}; its script is not parsed"),
            Err(e) => panic!("bash: {e}"),
        }
    }
    // An unknown shell is a usage error.
    assert_eq!(agc(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn man_pages_cover_every_command() {
    let dir = TempDir::new("agc-man-");
    let out = dir.to_string_lossy().to_string();
    stdout(&agc(&["man", "-o", &out]));
    let top = std::fs::read_to_string(dir.join("agc.1")).expect("agc.1");
    assert!(top.starts_with(".ie \\n(.g .ds Aq"), "roff: {top:.80}");
    assert!(top.contains(".TH agc 1"), "{top:.200}");
    let mut pages = vec!["agc.1".to_string()];
    for path in commands() {
        if path.len() == 1 {
            assert!(
                top.contains(&format!("agc\\-{}(1)", path[0].replace('-', "\\-"))),
                "agc.1 does not name `{}`",
                path[0]
            );
        }
        let page = format!("agc-{}.1", path.join("-"));
        let text =
            std::fs::read_to_string(dir.join(&page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".SH NAME"), "{page}");
        pages.push(page);
    }
    let mut written: Vec<String> = std::fs::read_dir(&*dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    pages.sort();
    assert_eq!(written, pages);
    // Without -o: agc.1 on standard output, the same bytes.
    assert_eq!(stdout(&agc(&["man"])), top);
    // groff reads every page without a warning, where it is installed (`-k`: UTF-8 input
    // through preconv, as man does).
    for page in &pages {
        let Ok(out) = Command::new("groff")
            .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
            .arg(dir.join(page))
            .output()
        else {
            eprintln!("note: no groff; the pages are not typeset");
            break;
        };
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{page}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
