//! Names the commit in `agc --version`, and lays out the release `agc` binary's functions in
//! the order a compile runs them.
//!
//! # The version
//!
//! `AGC_VERSION` (read by the command line's `version`) is the package version followed by the
//! commit the binary was built from and its date, `0.1.0 (f5388a1c2b3d 2026-12-06)`, when that
//! is known: from git, when the package root is the top of a git work tree (`cargo install
//! --path .`, `cargo install --git`, a clone), else from the `.cargo_vcs_info.json` that
//! `cargo package` writes (a crate from a registry). Built from a tarball without either, or
//! without a `git` program, it is the package version alone: nothing about the commit can
//! fail the build. The script runs again when the checked-out commit moves (`HEAD`, the branch
//! it points to, `packed-refs`).
//!
//! # The layout
//! `compiler/link/symbol-order.txt` (written by `bench/order.sh` from training runs) lists
//! agc's functions: first those large graphs of every dialect run, then each dialect's own.
//! Handed to the linker, it packs the code a check runs into about 2 MB at the start of the
//! text instead of scattering it over all 11.8 MB. That code is mapped from the binary page by
//! page (the kernel maps 64 KiB around each first touch), and those pages count in a process's
//! peak RSS: 5 MB less on every check (a one-line file 7.4 -> 5.2 MB, the wide 10k-node AWP
//! workflow 30.0 -> 24.9 MB; bench/README.md). Symbols the file names that the binary lacks
//! (after a rename) are skipped; functions it does not name follow it, in the usual order.
//!
//! Only where the linker is known to be LLD, which takes `--symbol-ordering-file`: a release
//! build for `x86_64-unknown-linux-gnu` (Rust links it with its bundled LLD since 1.90; the
//! crate needs 1.95) whose linker nobody chose (no `RUSTC_LINKER`, no linker flags in
//! `RUSTFLAGS`). `AGC_SYMBOL_ORDER=0` turns it off. Nothing else about the binary changes.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const ORDER: &str = "compiler/link/symbol-order.txt";

fn main() {
    version();
    symbol_order();
}

fn version() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let version = env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let commit = git_commit(&root).or_else(|| vcs_info_commit(&root));
    let full = match commit {
        Some((hash, date)) if date.is_empty() => format!("{version} ({hash})"),
        Some((hash, date)) => format!("{version} ({hash} {date})"),
        None => version,
    };
    println!("cargo::rustc-env=AGC_VERSION={full}");
    let vcs_info = root.join(".cargo_vcs_info.json");
    if vcs_info.is_file() {
        println!("cargo::rerun-if-changed={}", vcs_info.display());
    }
}

/// Runs git in `root`; its trimmed output when it succeeds.
fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    out.status.success().then(|| text.trim().to_string())
}

/// The commit (12 hex digits) and its date, when `root` is the top of a git work tree (not a
/// folder inside someone else's repository, such as a vendored copy).
fn git_commit(root: &Path) -> Option<(String, String)> {
    let top = git(root, &["rev-parse", "--show-toplevel"])?;
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same(Path::new(&top), root) {
        return None;
    }
    let hash = git(root, &["rev-parse", "--short=12", "HEAD"])?;
    let date = git(root, &["log", "-1", "--format=%cs", "HEAD"]).unwrap_or_default();
    // Rerun when the commit moves: HEAD itself, the branch it names, packed refs. Only files
    // that exist: a missing one would rerun the script on every build.
    let mut refs = vec!["HEAD".to_string(), "packed-refs".to_string()];
    refs.extend(git(root, &["symbolic-ref", "-q", "HEAD"]));
    for name in refs {
        // `--git-path` finds it in a linked work tree's folder or the common one.
        let Some(path) = git(root, &["rev-parse", "--git-path", &name]) else {
            continue;
        };
        let path = root.join(path);
        if path.is_file() {
            println!("cargo::rerun-if-changed={}", path.display());
        }
    }
    Some((hash, date))
}

/// The commit `cargo package` recorded (`{"git": {"sha1": "..."}}`), without a date.
fn vcs_info_commit(root: &Path) -> Option<(String, String)> {
    let text = std::fs::read_to_string(root.join(".cargo_vcs_info.json")).ok()?;
    let at = text.find("\"sha1\"")?;
    let rest = &text[at + "\"sha1\"".len()..];
    let start = rest.find('"')? + 1;
    let hash: String = rest[start..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .take(12)
        .collect();
    (hash.len() == 12).then_some((hash, String::new()))
}

fn symbol_order() {
    println!("cargo::rerun-if-changed={ORDER}");
    println!("cargo::rerun-if-changed=compiler/build.rs");
    println!("cargo::rerun-if-env-changed=AGC_SYMBOL_ORDER");
    let var = |k: &str| env::var(k).unwrap_or_default();
    let rustflags = var("CARGO_ENCODED_RUSTFLAGS");
    let linker_chosen = env::var_os("RUSTC_LINKER").is_some()
        || rustflags.contains("linker")
        || rustflags.contains("fuse-ld")
        || rustflags.contains("link-self-contained");
    let order = Path::new(&var("CARGO_MANIFEST_DIR")).join(ORDER);
    let order = order.to_string_lossy();
    // `-Wl,` splits its argument at commas.
    let applies = var("AGC_SYMBOL_ORDER") != "0"
        && var("PROFILE") == "release"
        && var("TARGET") == "x86_64-unknown-linux-gnu"
        && !linker_chosen
        && !order.contains(',')
        && Path::new(order.as_ref()).is_file();
    if applies {
        println!("cargo::rustc-link-arg-bin=agc=-Wl,--symbol-ordering-file={order}");
        println!("cargo::rustc-link-arg-bin=agc=-Wl,--no-warn-symbol-ordering");
    }
}
