//! The shape of the code itself: no import circles between files, no file over the size a
//! reader can hold (DESIGN.md, "arrows pointing down only").
//!
//! `cargo test --test architecture -- --nocapture` prints every circle with one path per arrow
//! that shows why it exists.

mod imports;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn main_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Prints the circles of a crate with the arrows inside each.
fn describe(krate: &imports::Crate, circles: &[BTreeSet<PathBuf>]) -> String {
    let mut out = String::new();
    for circle in circles {
        out.push_str(&format!("circle of {} files:\n", circle.len()));
        for (from, targets) in &krate.edges {
            let from_path = &krate.files[*from];
            if !circle.contains(from_path) {
                continue;
            }
            for (to, why) in targets {
                if circle.contains(&krate.files[*to]) {
                    out.push_str(&format!(
                        "  {} -> {}  ({why})\n",
                        from_path.display(),
                        krate.files[*to].display()
                    ));
                }
            }
        }
    }
    out
}

fn check_circles(src: &str, known: &[&[&str]]) {
    let root = main_dir().join(src);
    let krate = imports::read_crate(&root);
    let found = imports::circles(&krate);
    println!(
        "{src}: {} files, {} circles",
        krate.files.len(),
        found.len()
    );
    println!("{}", describe(&krate, &found));
    println!("as a list for this file:\n{}", as_rust(&found));
    let known: Vec<BTreeSet<PathBuf>> = known
        .iter()
        .map(|c| c.iter().map(PathBuf::from).collect())
        .collect();
    let new: Vec<BTreeSet<PathBuf>> = found
        .iter()
        .filter(|c| !known.iter().any(|k| c.is_subset(k)))
        .cloned()
        .collect();
    assert!(
        new.is_empty(),
        "{src}: new import circles (arrows must point down only):\n{}",
        describe(&krate, &new)
    );
    let stale: Vec<&BTreeSet<PathBuf>> = known
        .iter()
        .filter(|k| !found.iter().any(|c| c == *k))
        .collect();
    assert!(
        stale.is_empty(),
        "{src}: known circles that are gone or smaller now: update the list to what is left \
         (found: {found:#?}; listed but not found as listed: {stale:#?})"
    );
}

/// The circles written as the constants below are.
fn as_rust(circles: &[BTreeSet<PathBuf>]) -> String {
    let mut out = String::from("&[\n");
    for circle in circles {
        let files: Vec<String> = circle
            .iter()
            .map(|f| format!("{:?}", f.display().to_string()))
            .collect();
        out.push_str(&format!("    &[{}],\n", files.join(", ")));
    }
    out.push(']');
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Files over this many lines are asking to be split.
const MAX_LINES: usize = 800;

fn check_sizes(src: &str, known: &[&str]) {
    let root = main_dir().join(src);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut over = BTreeSet::new();
    for file in &files {
        let lines = std::fs::read_to_string(file).unwrap().lines().count();
        if lines > MAX_LINES {
            over.insert(file.strip_prefix(&root).unwrap().to_path_buf());
        }
    }
    let known: BTreeSet<PathBuf> = known.iter().map(PathBuf::from).collect();
    let new: Vec<_> = over.difference(&known).collect();
    assert!(
        new.is_empty(),
        "{src}: files over {MAX_LINES} lines: {new:?}"
    );
    let stale: Vec<_> = known.difference(&over).collect();
    assert!(
        stale.is_empty(),
        "{src}: listed as too long but no longer: {stale:?}"
    );
}

#[test]
fn compiler_files_import_without_circles() {
    check_circles("compiler/src", COMPILER_CIRCLES);
}

#[test]
fn runtime_files_import_without_circles() {
    check_circles("runtime/src", RUNTIME_CIRCLES);
}

#[test]
fn no_file_is_too_long() {
    check_sizes("compiler/src", &[]);
    check_sizes("runtime/src", RUNTIME_LONG_FILES);
}

/// What every runner back end shares (`back/runner`: the type space, unique names) knows no
/// target language: none of its files uses a file of a language's back end (issue 44 item 3;
/// a Python runner would add only its lexicon, its printing of types and its templates).
#[test]
fn the_runner_part_knows_no_target_language() {
    let krate = imports::read_crate(&main_dir().join("compiler/src"));
    let shared = Path::new("back/runner");
    let mut wrong = Vec::new();
    for (from, targets) in &krate.edges {
        // Its tests may compare its spelling with a back end's; the code itself may not.
        let from_path = &krate.files[*from];
        if !from_path.starts_with(shared) || from_path.ends_with("tests.rs") {
            continue;
        }
        for (to, why) in targets {
            let to_path = &krate.files[*to];
            if to_path.starts_with("back") && !to_path.starts_with(shared) {
                wrong.push(format!(
                    "{} -> {}  ({why})",
                    krate.files[*from].display(),
                    to_path.display()
                ));
            }
        }
    }
    let files = krate.files.iter().filter(|f| f.starts_with(shared)).count();
    assert!(files >= 3, "back/runner has {files} files: was it moved?");
    assert!(wrong.is_empty(), "back/runner uses a back end: {wrong:#?}");
}

/// The circles left to untie (issue 44): none in the compiler, none in the runtime. Each
/// entry is one circle's files; the test fails on a circle not inside one of these, and on an
/// entry that no longer matches (shrink it).
const COMPILER_CIRCLES: &[&[&str]] = &[];
const RUNTIME_CIRCLES: &[&[&str]] = &[];
const RUNTIME_LONG_FILES: &[&str] = &[];
