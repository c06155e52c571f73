//! Every path of this repository that a help text or a Markdown page names exists (issue 41
//! item 5: `agc --help` named `examples/ags/release.agraph.yaml`, which does not). Help texts
//! are read from the binary, every subcommand's included; the pages are README.md and the
//! Markdown files under docs/ and bench/.
//!
//! A path is a word starting with one of the repository's top-level folders
//! (`examples/ags/x.yaml`, `docs/run.md`); `{a,b}` alternatives are expanded, and words with
//! a placeholder (`<name>`, `NAME`, `*`) are not paths of this repository but patterns.

use std::path::Path;
use std::process::Command;

const TOP: &[&str] = &[
    "bench/",
    "compiler/",
    "docs/",
    "examples/",
    "fuzz/",
    "restate/",
    "runtime/",
    "schemas/",
    "templates/",
    "tests/",
];

/// The characters a path word is made of.
fn in_path(c: char) -> bool {
    c.is_ascii_alphanumeric() || "._-/{},".contains(c)
}

/// Every repository path named in `text`, with `{a,b}` expanded.
fn paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    for (i, _) in text.char_indices() {
        let boundary = i == 0 || {
            let prev = bytes[i - 1] as char;
            !(prev.is_ascii_alphanumeric() || "./_-".contains(prev))
        };
        if !boundary || !TOP.iter().any(|t| text[i..].starts_with(t)) {
            continue;
        }
        let word: String = text[i..].chars().take_while(|&c| in_path(c)).collect();
        let next = text[i + word.len()..].chars().next();
        if matches!(next, Some('<' | '*' | '$')) {
            continue; // a pattern, not a path
        }
        // Trailing punctuation of the sentence.
        let word = word.trim_end_matches(['.', ',']);
        // A comma outside braces ends the word (`a.md, b.md`).
        let word = match (word.find(','), word.find('{')) {
            (Some(c), None) => &word[..c],
            (Some(c), Some(b)) if c < b => &word[..c],
            _ => word,
        };
        out.extend(expand(word));
    }
    out
}

/// `a.{x,y}` → `a.x`, `a.y` (one level, which is all the pages use).
fn expand(word: &str) -> Vec<String> {
    match (word.find('{'), word.find('}')) {
        (Some(open), Some(close)) if open < close => word[open + 1..close]
            .split(',')
            .map(|alt| format!("{}{alt}{}", &word[..open], &word[close + 1..]))
            .collect(),
        _ => vec![word.to_string()],
    }
}

/// `agc --help` and every subcommand's, recursively: (command line, text).
fn help_texts() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![Vec::<String>::new()];
    while let Some(cmd) = stack.pop() {
        let o = Command::new(env!("CARGO_BIN_EXE_agc"))
            .args(&cmd)
            .arg("--help")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(o.status.success() && !text.is_empty(), "agc {cmd:?} --help");
        if let Some(list) = text.split("Commands:\n").nth(1) {
            for line in list.lines() {
                if !line.starts_with("  ") || line.starts_with("   ") {
                    break;
                }
                let name = line.split_whitespace().next().unwrap();
                if name != "help" {
                    let mut sub = cmd.clone();
                    sub.push(name.to_string());
                    stack.push(sub);
                }
            }
        }
        out.push((format!("agc {} --help", cmd.join(" ")), text));
    }
    assert!(out.len() > 10, "{} help texts", out.len());
    out
}

/// Words that look like paths of this repository but name something else, with why.
const NOT_OURS: &[(&str, &str)] = &[
    // A file of the reader's Provider, in a sentence about Provider folders.
    ("docs/agent-graph.md", "tests/ci.yaml"),
];

/// The paths `page` names that exist neither from the repository's root nor from the
/// page's own folder (`bench/README.md` names `tests/x.rs` of `bench/`). Files npm installs
/// (`node_modules/`) exist only after the install the page describes.
fn missing(page: &str, text: &str) -> Vec<String> {
    let folder = Path::new(page).parent().unwrap_or(Path::new(""));
    paths(text)
        .into_iter()
        .filter(|p| {
            !Path::new(p).exists()
                && !folder.join(p).exists()
                && !p.contains("/node_modules/")
                && !NOT_OURS.contains(&(page, p.as_str()))
        })
        .map(|p| format!("{page}: {p}"))
        .collect()
}

#[test]
fn the_path_words_are_found() {
    assert_eq!(
        paths("see `docs/run.md` and examples/ags/a.{params.json,script.yaml}, or ../docs/x"),
        vec![
            "docs/run.md",
            "examples/ags/a.params.json",
            "examples/ags/a.script.yaml"
        ]
    );
    assert_eq!(paths("tests/golden/<name>.json"), Vec::<String>::new());
    assert_eq!(
        paths("(docs/restate.md#wire-format)."),
        vec!["docs/restate.md"]
    );
}

#[test]
fn every_path_in_a_help_text_exists() {
    let bad: Vec<String> = help_texts()
        .iter()
        .flat_map(|(cmd, text)| missing(cmd, text))
        .collect();
    assert!(bad.is_empty(), "paths that do not exist: {bad:#?}");
}

#[test]
fn every_path_in_the_readme_and_the_docs_exists() {
    let mut pages = vec![Path::new("README.md").to_path_buf()];
    for dir in ["docs", "bench"] {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "md") {
                pages.push(e.path());
            }
        }
    }
    pages.sort();
    let bad: Vec<String> = pages
        .iter()
        .flat_map(|p| {
            missing(
                &p.display().to_string(),
                &std::fs::read_to_string(p).unwrap(),
            )
        })
        .collect();
    assert!(bad.is_empty(), "paths that do not exist: {bad:#?}");
}
