//! Hostile and careless input across every subcommand, as a table: non-regular files (a FIFO
//! with no writer, `/dev/zero`, a folder), standard input that never ends (`/dev/zero`: the
//! documents of `-`, jq's input, the language server's messages), files over the size
//! limit, deep files, symlinks out
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
    // A run dir whose plan is a FIFO.
    std::fs::create_dir(dir.join("stale-run")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(dir.join("stale-run/plan.json"))
        .status()
        .expect("mkfifo runs");
    assert!(fifo.success());
    #[cfg(unix)]
    std::os::unix::fs::symlink("wf.yaml", dir.join("link.yaml")).unwrap();
    // A user's folder: a file of theirs and a `.git`.
    std::fs::create_dir_all(dir.join("mine/.git")).unwrap();
    std::fs::write(dir.join("mine/.git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(dir.join("mine/mine.txt"), "my notes").unwrap();
    // A README naming a file outside the root, directly and through a link.
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc/passwd", dir.join("passwd.yaml")).unwrap();
    std::fs::write(
        dir.join("evil.md"),
        "# x\n<!-- agc:graph /etc/passwd -->\n<!-- /agc:graph -->\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("evil-link.md"),
        "# x\n<!-- agc:graph passwd.yaml -->\n<!-- /agc:graph -->\n",
    )
    .unwrap();
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
                // A file of mode 000 (unreadable to a user who is not root) by its kind.
                std::fs::read(e.path()).map_or_else(
                    |e| format!("unreadable: {}", e.kind()),
                    |b| String::from_utf8_lossy(&b).into_owned(),
                )
            } else {
                "special".to_string()
            };
            out.insert(rel, what);
        }
    }
    out
}

/// What a case reads on standard input.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stdin {
    /// Nothing (`/dev/null`).
    Null,
    /// `/dev/zero`: zero bytes without end.
    Zero,
}

/// Where a case's standard output goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stdout {
    /// A pipe read to the end.
    Pipe,
    /// `/dev/full`: every write fails with "no space left".
    Full,
    /// A pipe whose reader is gone before anything is written.
    Closed,
}

struct Case {
    /// The arguments, run in the workspace.
    args: &'static [&'static str],
    /// The exit status expected.
    status: i32,
    /// A code the output (stdout and stderr) must name; "" for none.
    code: &'static str,
    /// Files the command owns (may create or change), relative to the workspace.
    owns: &'static [&'static str],
    stdout: Stdout,
    stdin: Stdin,
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
        stdout: Stdout::Pipe,
        stdin: Stdin::Null,
    }
}

/// A case whose standard input is `/dev/zero`.
const fn fed(args: &'static [&'static str], status: i32, code: &'static str) -> Case {
    Case {
        args,
        status,
        code,
        owns: &[],
        stdout: Stdout::Pipe,
        stdin: Stdin::Zero,
    }
}

const fn on(
    stdout: Stdout,
    args: &'static [&'static str],
    status: i32,
    code: &'static str,
) -> Case {
    Case {
        args,
        status,
        code,
        owns: &[],
        stdout,
        stdin: Stdin::Null,
    }
}

/// Outputs that are an input, a device that is full, a folder of the user's, a file outside
/// the root named by a README; standard output full or closed.
const OUTPUTS: &[Case] = &[
    case(&["build", "wf.yaml", "-o", "wf.yaml"], 2, "AGC018", &[]),
    case(&["build", "wf.yaml", "-o", "link.yaml"], 2, "AGC018", &[]),
    case(&["build", "link.yaml", "-o", "wf.yaml"], 2, "AGC018", &[]),
    case(&["graph", "wf.yaml", "-o", "wf.yaml"], 2, "AGC018", &[]),
    case(
        &[
            "run",
            "wf.yaml",
            "--script",
            "script.yaml",
            "--record",
            "script.yaml",
        ],
        2,
        "AGC018",
        &[],
    ),
    case(
        &[
            "run",
            "wf.yaml",
            "--params",
            "params.json",
            "--record",
            "params.json",
        ],
        2,
        "AGC018",
        &[],
    ),
    case(&["gen", "rust", "wf.yaml", "-o", "."], 2, "AGC019", &[]),
    case(&["gen", "rust", "wf.yaml", "-o", "mine"], 2, "AGC019", &[]),
    case(
        &["agent-graph", "bundle", "provider", "-o", "mine"],
        2,
        "AGC019",
        &[],
    ),
    case(
        // Upstream's own refusal (and exit status) for this drop-in command.
        &["agent-graph", "bundle", "provider", "-o", "provider"],
        1,
        "build-output-overlaps-source",
        &[],
    ),
    case(&["build", "wf.yaml", "-o", "/dev/full"], 2, "AGC025", &[]),
    case(&["graph", "wf.yaml", "-o", "/dev/full"], 2, "AGC025", &[]),
    case(
        &[
            "run",
            "wf.yaml",
            "--params",
            "params.json",
            "--script",
            "script.yaml",
            "--record",
            "/dev/full",
        ],
        2,
        "AGC025",
        &[],
    ),
    case(&["graph", "--inject", "evil.md"], 2, "AGC104", &[]),
    case(&["graph", "--inject", "evil-link.md"], 2, "AGC104", &[]),
    on(Stdout::Full, &["build", "wf.yaml"], 2, "AGC025"),
    on(Stdout::Full, &["graph", "wf.yaml"], 2, "AGC025"),
    on(
        Stdout::Full,
        &["check", "--format", "json", "wf.yaml"],
        2,
        "AGC025",
    ),
    on(
        Stdout::Full,
        &["eval", "--lang", "agx", "1 + 1"],
        2,
        "AGC025",
    ),
    on(Stdout::Full, &["explain", "--list"], 2, "AGC025"),
    on(Stdout::Full, &["completions", "bash"], 2, "AGC025"),
    on(Stdout::Full, &["man"], 2, "AGC025"),
    // `man -o` names a folder; a file there is not replaced.
    case(&["man", "-o", "wf.yaml"], 2, "AGC025", &[]),
    on(
        Stdout::Full,
        &[
            "run",
            "wf.yaml",
            "--params",
            "params.json",
            "--script",
            "script.yaml",
            "-q",
        ],
        2,
        "AGC025",
    ),
    on(Stdout::Closed, &["build", "wf.yaml"], 0, ""),
    on(
        Stdout::Closed,
        &["check", "--format", "json", "wf.yaml"],
        0,
        "",
    ),
    on(Stdout::Closed, &["explain", "--list"], 0, ""),
];

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
    case(&["graph", "--inject", "fifo"], 2, "AGC017", &[]),
    fed(&["check", "-"], 2, "AGC012"),
    fed(&["build", "-"], 2, "AGC012"),
    fed(&["graph", "-"], 2, "AGC012"),
    fed(&["eval", "--lang", "jq", "."], 2, "AGC012"),
    fed(&["eval", "--lang", "agx", "1", "--vars", "-"], 2, "AGC012"),
    // A header line without end: refused at its limit, not read until memory runs out.
    fed(&["lsp"], 1, "longer than 8192 bytes"),
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
    case(&["run", "--resume", "stale-run"], 2, "FIFO", &[]),
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
    // A SKILL.md that is a FIFO exists: it is not `file-missing`.
    case(&["evaluate", "--skill", "fifo"], 1, "file-read-failed", &[]),
];

/// Runs one case in `dir`; a case that does not end within the deadline is a hang.
fn run_case(dir: &Path, c: &Case) {
    run_case_under(dir, c, &[]);
}

/// [`run_case`] with agc started by `wrapper` (a program and its arguments, then agc's path
/// and arguments); none when empty.
fn run_case_under(dir: &Path, c: &Case, wrapper: &[&str]) {
    let before = snapshot(dir);
    let stdout = match c.stdout {
        Stdout::Full => Stdio::from(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full"),
        ),
        Stdout::Pipe | Stdout::Closed => Stdio::piped(),
    };
    let mut cmd = match wrapper.split_first() {
        Some((program, args)) => {
            let mut cmd = Command::new(program);
            cmd.args(args).arg(env!("CARGO_BIN_EXE_agc"));
            cmd
        }
        None => Command::new(env!("CARGO_BIN_EXE_agc")),
    };
    let mut child = cmd
        .args(c.args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(match c.stdin {
            Stdin::Null => Stdio::null(),
            Stdin::Zero => Stdio::from(std::fs::File::open("/dev/zero").expect("/dev/zero")),
        })
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("agc runs");
    if c.stdout == Stdout::Closed {
        // The reader goes away before agc has compiled anything.
        drop(child.stdout.take());
    }
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
    if c.stdout == Stdout::Closed {
        // Quietly, as a Unix tool that loses its reader.
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{:?}", c.args);
    }
    // Nothing outside the root is quoted.
    assert!(
        !text.contains("root:x:0"),
        "{:?} printed /etc/passwd: {text}",
        c.args
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

#[cfg(target_os = "linux")]
#[test]
fn outputs_that_are_inputs_full_or_not_agcs_are_refused_and_change_nothing() {
    let dir = workspace();
    for c in OUTPUTS {
        run_case(&dir, c);
    }
}

/// Writers racing on one output leave one whole plan, never a mix or a temporary file.
#[test]
fn concurrent_writers_leave_one_whole_file() {
    let dir = workspace();
    let build = || {
        Command::new(env!("CARGO_BIN_EXE_agc"))
            .args(["build", "wf.yaml", "-o", "plan.json"])
            .current_dir(&*dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("agc runs")
    };
    let mut children: Vec<_> = (0..6).map(|_| build()).collect();
    for c in &mut children {
        assert_eq!(c.wait().unwrap().code(), Some(0));
    }
    let once = Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(["build", "wf.yaml"])
        .current_dir(&*dir)
        .output()
        .unwrap();
    assert_eq!(std::fs::read(dir.join("plan.json")).unwrap(), once.stdout);
    let leftovers: Vec<_> = std::fs::read_dir(&*dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// `agent-graph bundle` replaces its own bundle, refuses one a user added a file to, and
/// with `--force` replaces any folder; `gen rust` regenerates its own crate.
#[test]
fn output_folders_agc_wrote_are_rewritten_and_others_only_with_force() {
    let dir = workspace();
    let agc = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_agc"))
            .args(args)
            .current_dir(&*dir)
            .output()
            .unwrap()
    };
    let text = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
    let bundle = |extra: &[&str]| {
        let mut args = vec!["agent-graph", "bundle", "provider", "-o", "b"];
        args.extend_from_slice(extra);
        agc(&args)
    };
    assert_eq!(bundle(&[]).status.code(), Some(0));
    assert_eq!(bundle(&[]).status.code(), Some(0));
    std::fs::write(dir.join("b/notes.txt"), "mine").unwrap();
    let o = bundle(&[]);
    assert_eq!(o.status.code(), Some(2));
    let out = format!("{}{}", String::from_utf8_lossy(&o.stdout), text(&o));
    assert!(out.contains("AGC019") && out.contains("notes.txt"), "{out}");
    assert!(dir.join("b/notes.txt").exists());
    let o = bundle(&["--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!dir.join("b/notes.txt").exists());
    assert!(!dir.join("b.tmp").exists());

    let gen_rust = |out: &str, extra: &[&str]| {
        let mut args = vec!["gen", "rust", "wf.yaml", "-o", out];
        args.extend_from_slice(extra);
        agc(&args)
    };
    assert_eq!(gen_rust("crate", &[]).status.code(), Some(0));
    std::fs::write(dir.join("crate/NOTES.md"), "mine").unwrap();
    // Its own crate: regenerated (the user's file beside it left alone), checked.
    assert_eq!(gen_rust("crate", &[]).status.code(), Some(0));
    assert_eq!(gen_rust("crate", &["--check"]).status.code(), Some(0));
    assert!(dir.join("crate/NOTES.md").exists());
    // A user's crate: refused, then written with --force (their other files stay).
    let o = gen_rust("mine", &[]);
    assert!(text(&o).contains("AGC019"), "{}", text(&o));
    assert_eq!(gen_rust("mine", &["--force"]).status.code(), Some(0));
    assert!(dir.join("mine/mine.txt").exists() && dir.join("mine/.git/HEAD").exists());
}

/// A file the user may not read is AGC001 and exit 2, for a document and for params. Root
/// reads any file through two capabilities (`CAP_DAC_OVERRIDE`, `CAP_DAC_READ_SEARCH`), so as
/// root (CI) agc runs under `setpriv` with both dropped from its bounding set, where a file of
/// mode 000 is as unreadable to it as to anyone. Only where that cannot be staged (no `setpriv`,
/// or a container that forbids dropping capabilities) is the case skipped, with a notice.
#[cfg(unix)]
#[test]
fn unreadable_files_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = workspace();
    let locked = dir.join("locked.yaml");
    std::fs::copy(dir.join("wf.yaml"), &locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    const WITHOUT_DAC: &[&str] = &[
        "setpriv",
        "--bounding-set",
        "-dac_override,-dac_read_search",
    ];
    let wrapper: &[&str] = if std::fs::read(&locked).is_err() {
        &[]
    } else {
        // Staged only when a wrapped process runs (`true`) and cannot read the file (`cat`).
        let wrapped = |args: &[&std::ffi::OsStr]| {
            Command::new(WITHOUT_DAC[0])
                .args(&WITHOUT_DAC[1..])
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        let staged = wrapped(&["true".as_ref()]) && !wrapped(&["cat".as_ref(), locked.as_ref()]);
        if !staged {
            eprintln!(
                "notice: running as root and capabilities cannot be dropped (setpriv); unreadable files not tested"
            );
            return;
        }
        WITHOUT_DAC
    };
    run_case_under(
        &dir,
        &case(&["check", "locked.yaml"], 2, "AGC001", &[]),
        wrapper,
    );
    run_case_under(
        &dir,
        &case(
            &["run", "wf.yaml", "--params", "locked.yaml"],
            2,
            "AGC001",
            &[],
        ),
        wrapper,
    );
}
