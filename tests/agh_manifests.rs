//! agh extension manifests found by the daemon's layout whatever the root (issue 41), and never
//! read through a symbolic link that leads out of the folder that allowed them (issue 47).

use agc::check::{CheckOptions, check_path};
use agc::diag::Diagnostic;
use agc::source::SourceMap;
use std::path::{Path, PathBuf};

/// A Loop calling the tool `push` of extension `my-ext`, reading its declared output.
const TOOL_LOOP: &str = "apiVersion: agh.loop/v1
kind: Loop
meta: { name: one }
contract: { goal: Push., terminal_states: [done] }
graph:
  nodes:
    - id: push
      class: action
      kind: ext__my_ext__push
      params: { remote: origin }
    - id: report
      class: action
      kind: run-agent
      params: { agent: a, prompt: \"Pushed {{ .nodes.push.output.head }}\" }
  edges:
    - { from: push, to: report }
";

const MANIFEST: &str = r#"{"extension": {"name": "my-ext"}, "resources": {"tools": {"push": {
    "output_schema": {"type": "object", "properties": {"head": {"type": "string"}}}}}}}"#;

/// A scratch folder under the target dir, emptied first, holding
/// `extensions/my-ext/loops/one/loop.yaml`; returns the folder and the Loop's path.
fn scratch(name: &str) -> (PathBuf, PathBuf) {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("agh-manifests-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    let lp = d.join("extensions/my-ext/loops/one/loop.yaml");
    std::fs::create_dir_all(lp.parent().unwrap()).unwrap();
    std::fs::write(&lp, TOOL_LOOP).unwrap();
    (d, lp)
}

/// Errors of checking `file` with `root` (`None`: inferred, here the Loop's own folder,
/// since no folder above it is marked).
fn errors(file: &Path, root: Option<&Path>) -> Vec<Diagnostic> {
    let mut sources = SourceMap::new();
    let opts = CheckOptions {
        root: root.map(Path::to_path_buf),
        ..CheckOptions::default()
    };
    check_path(&mut sources, file, "loop.yaml", &opts)
        .into_iter()
        .filter(Diagnostic::is_error)
        .collect()
}

fn codes(ds: &[Diagnostic]) -> Vec<&'static str> {
    let mut c: Vec<&'static str> = ds.iter().map(|d| d.code).collect();
    c.sort();
    c
}

/// Issue 41 item 4: the extension folder of the daemon's layout holds the Loop's manifest,
/// found with the root at the Loop's own folder (a copy outside any VCS checkout), with the
/// root inferred, and with the root above it; JSON and TOML alike.
#[test]
fn the_layouts_manifest_is_found_whatever_the_root() {
    let (d, lp) = scratch("layout");
    let ext = d.join("extensions/my-ext");
    assert_eq!(
        codes(&errors(&lp, Some(lp.parent().unwrap()))),
        vec!["unknown_action_kind"]
    );
    std::fs::write(ext.join("extension.json"), MANIFEST).unwrap();
    for root in [Some(lp.parent().unwrap()), None, Some(d.as_path())] {
        assert_eq!(codes(&errors(&lp, root)), Vec::<&str>::new(), "{root:?}");
    }
    std::fs::remove_file(ext.join("extension.json")).unwrap();
    std::fs::write(
        ext.join("extension.toml"),
        "[extension]\nname = \"my-ext\"\n[resources.tools.push.output_schema]\ntype = \"object\"\n\
[resources.tools.push.output_schema.properties.head]\ntype = \"string\"\n",
    )
    .unwrap();
    assert_eq!(
        codes(&errors(&lp, Some(lp.parent().unwrap()))),
        Vec::<&str>::new()
    );
    // Relative paths: the Loop named from its own folder.
    let rel = Path::new("loop.yaml");
    let here = std::env::current_dir().unwrap();
    std::env::set_current_dir(lp.parent().unwrap()).unwrap();
    let found = errors(rel, None);
    std::env::set_current_dir(here).unwrap();
    assert_eq!(codes(&found), Vec::<&str>::new());
}

/// Only the layout's extension folder is read outside the root: a manifest in the folder
/// between (`loops/`) or above the extension is not, and a Loop not in a `loops/` folder
/// finds nothing outside its root.
#[test]
fn outside_the_root_only_the_extension_folder_counts() {
    let (d, lp) = scratch("only");
    let root = Some(lp.parent().unwrap());
    std::fs::write(d.join("extensions/my-ext/loops/extension.json"), MANIFEST).unwrap();
    std::fs::write(d.join("extensions/extension.json"), MANIFEST).unwrap();
    assert_eq!(codes(&errors(&lp, root)), vec!["unknown_action_kind"]);
    // Inside the root, the nearest of the four folders is used, as before.
    assert_eq!(codes(&errors(&lp, Some(&d))), Vec::<&str>::new());
    // Not the layout: `tools/one/loop.yaml` beside `extension.json`.
    let other = d.join("plain/tools/one/loop.yaml");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::write(&other, TOOL_LOOP).unwrap();
    std::fs::write(d.join("plain/extension.json"), MANIFEST).unwrap();
    assert_eq!(
        codes(&errors(&other, Some(other.parent().unwrap()))),
        vec!["unknown_action_kind"]
    );
}

/// Issue 47 item 6: an `extension.json` that is a symbolic link leading out of the folder
/// that allowed it (the extension's folder outside the root, the root inside it) is refused
/// with AGC222 and not read: no diagnostic shows what it points at.
#[cfg(unix)]
#[test]
fn a_manifest_linked_out_of_its_folder_is_refused_and_not_read() {
    let (d, lp) = scratch("link");
    let secret = d.join("secret.json");
    std::fs::write(
        &secret,
        r#"{"extension": {"name": "my-ext"}, "resources": {"tools": {"push": {"output_schema": {"type": "object", "properties": {"head": {"type": "string"}}}}}}, "token": "SECRET-VALUE"}"#,
    )
    .unwrap();
    let ext = d.join("extensions/my-ext");
    std::os::unix::fs::symlink(&secret, ext.join("extension.json")).unwrap();
    // Outside the root, by the layout: out of the extension's folder.
    let found = errors(&lp, Some(lp.parent().unwrap()));
    assert_eq!(
        codes(&found),
        vec!["AGC222", "unknown_action_kind"],
        "{found:?}"
    );
    let agc222 = found.iter().find(|d| d.code == "AGC222").unwrap();
    assert!(
        agc222.message.contains("symbolic link") && !agc222.message.contains("secret"),
        "{}",
        agc222.message
    );
    assert!(found.iter().all(|d| !d.message.contains("SECRET")));
    // Inside the root: out of the root.
    let found = errors(&lp, Some(&ext));
    assert_eq!(
        codes(&found),
        vec!["AGC222", "unknown_action_kind"],
        "{found:?}"
    );
    // A link that stays inside the folder that allowed it is followed.
    std::fs::remove_file(ext.join("extension.json")).unwrap();
    std::fs::write(ext.join("real.json"), MANIFEST).unwrap();
    std::os::unix::fs::symlink("real.json", ext.join("extension.json")).unwrap();
    assert_eq!(
        codes(&errors(&lp, Some(lp.parent().unwrap()))),
        Vec::<&str>::new()
    );
}

/// The corpus Loops that sit in an extension folder holding a manifest build from `../shared`
/// (no VCS checkout) with the root at their own folder and no `--extension`.
#[test]
fn corpus_loops_find_their_extensions_manifest_outside_a_checkout() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/agh");
    if !corpus.is_dir() {
        eprintln!("notice: {} is absent; skipped", corpus.display());
        return;
    }
    let mut n = 0;
    let mut stack = vec![corpus.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.file_name().is_none_or(|f| f != "loop.yaml") {
                continue;
            }
            let folder = p.parent().unwrap();
            let Some(ext) = folder
                .parent()
                .filter(|l| l.ends_with("loops"))
                .and_then(Path::parent)
            else {
                continue;
            };
            if !ext.join("extension.json").is_file() && !ext.join("extension.toml").is_file() {
                continue;
            }
            let found = errors(&p, Some(folder));
            assert!(
                found.iter().all(|d| d.code != "unknown_action_kind"),
                "{}: {:?}",
                p.display(),
                found.iter().map(|d| &d.message).collect::<Vec<_>>()
            );
            n += 1;
        }
    }
    assert!(n >= 3, "{n} corpus Loops checked");
}
