//! Hostile and careless input across every subcommand, as a table: non-regular files (a FIFO
//! with no writer, `/dev/zero`, a folder), files over the size limit, deep files, symlinks out
//! of the root, outputs equal to inputs, outputs on a full disk, a closed pipe. Each case
//! asserts a clear refusal (its exit status and diagnostic code), no panic or abort, an end
//! within a deadline (a hang fails the case), and that nothing on disk changed that the
//! command did not own.

mod common;

use common::TempDir;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const EXAMPLE: &str = "examples/ags/changelog-release.agraph.yaml";

/// The workspace every case runs in: a root marker, a valid document with its params and
/// script, an Agent Graph Provider, a FIFO, a deep file and an over-deep Markdown block.
fn workspace() -> TempDir {
    let dir = TempDir::new("agc-hostile-").canonical();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::write(dir.join(".agc-root"), "").unwrap();
    std::fs::copy(repo.join(EXAMPLE), dir.join("wf.yaml")).unwrap();
    std::fs::copy(
        repo.join("examples/ags/changelog-release.params.json"),
        dir.join("params.json"),
    )
    .unwrap();
    std::fs::copy(
        repo.join("examples/ags/changelog-release.script.yaml"),
        dir.join("script.yaml"),
    )
    .unwrap();
    copy_tree(
        &repo.join("examples/agent-graph/release"),
        &dir.join("provider"),
    );
    let fifo = std::process::Command::new("mkfifo")
        .arg(dir.join("fifo"))
        .status()
        .expect("mkfifo runs");
    assert!(fifo.success());
    // 100k levels of flow sequences: over the depth limit by far.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    std::fs::write(dir.join("deep.yaml"), deep).unwrap();
    dir
}

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

/// What a folder holds: every entry by relative path, with a regular file's bytes, a
/// symlink's target and other types by name (a FIFO is never opened).
fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            let t = e.file_type().unwrap();
            let what = if t.is_dir() {
                stack.push(e.path());
                "dir".to_string()
            } else if t.is_symlink() {
                format!("-> {}", std::fs::read_link(e.path()).unwrap().display())
            } else if t.is_file() {
                String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned()
            } else {
                "special".to_string()
            };
            out.insert(rel, what);
        }
    }
    out
}

struct Case {
    /// The arguments; `{dir}` stands for the workspace.
    args: &'static [&'static str],
    /// The exit status expected.
    status: i32,
    /// A code the output (stdout and stderr) must name; "" for none.
    code: &'static str,
    /// Files the command owns (may create or change), relative to the workspace.
    owns: &'static [&'static str],
}

const fn case(
    args: &'static [&'static str],
    status: i32,
    code: &'static str,
    owns: &'static [&'static str],
) -> Case {
    Case {
        args,
        status,
        code,
        owns,
    }
}

/// Inputs that are no regular file, too large or too deep, for every command that reads one.
const INPUTS: &[Case] = &[
    case(&["check", "fifo"], 2, "AGC017", &[]),
    case(&["check", "/dev/zero"], 2, "AGC017", &[]),
    case(
        &["check", "--max-file-size", "100", "wf.yaml"],
        2,
        "AGC012",
        &[],
    ),
    case(&["check", "deep.yaml"], 2, "AGC013", &[]),
    case(&["build", "fifo"], 2, "AGC017", &[]),
    case(&["build", "/dev/zero", "-o", "plan.json"], 2, "AGC017", &[]),
    case(
        &["build", "--max-file-size", "100", "wf.yaml"],
        2,
        "AGC012",
        &[],
    ),
    case(&["build", "deep.yaml"], 2, "AGC013", &[]),
    case(&["graph", "fifo"], 2, "AGC017", &[]),
    case(&["graph", "/dev/zero"], 2, "AGC017", &[]),
    case(&["gen", "rust", "fifo", "-o", "out"], 2, "AGC017", &[]),
    case(&["run", "fifo"], 2, "AGC017", &[]),
    case(&["run", "wf.yaml", "--params", "fifo"], 2, "AGC017", &[]),
    case(
        &["run", "wf.yaml", "--params", "/dev/zero"],
        2,
        "AGC017",
        &[],
    ),
    case(
        &[
            "run",
            "wf.yaml",
            "--params",
            "params.json",
            "--max-file-size",
            "10",
        ],
        2,
        "AGC012",
        &[],
    ),
    case(&["run", "wf.yaml", "--script", "fifo"], 2, "AGC017", &[]),
    case(
        &["run", "wf.yaml", "--script", "/dev/zero"],
        2,
        "AGC017",
        &[],
    ),
    case(
        &["eval", "--lang", "agx", "1", "--vars", "fifo"],
        2,
        "",
        &[],
    ),
    case(
        &["eval", "--lang", "jq", ".", "--input", "/dev/zero"],
        2,
        "",
        &[],
    ),
    case(
        &["evaluate", "provider", "release", "--facts", "@fifo"],
        1,
        "file-read-failed",
        &[],
    ),
    case(
        &["evaluate", "provider", "release", "--state", "/dev/zero"],
        1,
        "file-read-failed",
        &[],
    ),
    case(
        &["route", "provider", "release", "--outcomes", "@fifo"],
        1,
        "file-read-failed",
        &[],
    ),
];

/// Runs one case in `dir`; a case that does not end within the deadline is a hang.
fn run_case(dir: &Path, c: &Case) {
    let before = snapshot(dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(c.args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("agc runs");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{:?} hung", c.args);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("agc ends");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(c.status), "{:?}: {text}", c.args);
    assert!(!text.contains("panicked"), "{:?}: {text}", c.args);
    assert!(
        text.contains(c.code),
        "{:?} names no {}: {text}",
        c.args,
        c.code
    );
    let mut after = snapshot(dir);
    let mut before = before;
    for owned in c.owns {
        after.remove(*owned);
        before.remove(*owned);
    }
    assert_eq!(before, after, "{:?} changed files it does not own", c.args);
}

#[test]
fn inputs_that_are_no_regular_file_or_too_large_or_too_deep_are_refused() {
    let dir = workspace();
    for c in INPUTS {
        run_case(&dir, c);
    }
}
