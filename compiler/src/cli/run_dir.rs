//! The run directory of `agc run --run-dir D` / `--resume D`: what is kept there, its journal,
//! and the lock that gives it to one process at a time.
//!
//! **One process per run directory (issue 41).** Two processes on one run would both replay
//! the journal and both issue the call that was in flight: a duplicated side effect, and two
//! writers interleaving one journal. So the directory is locked before anything in it is read
//! ([`hold`]): an OS advisory lock (`flock`, through `std::fs::File::try_lock`) on the
//! directory itself, which creates no file (a refused command writes nothing to the
//! directory) and which the OS releases when the holder ends, `kill -9` included (nothing to
//! clean up by hand). A second process is refused at once with AGC309, naming the holder's
//! pid when the system tells it (Linux: `/proc/locks`). The journals lock their own file too
//! (`JsonlJournal`, `SqliteJournal`), for hosts that use them without a run directory.

use crate::diag::Diagnostic;
use agc_runtime::run::script::Script;
use agc_runtime::run::{Event, Journal, JournalError, JsonlJournal};
use std::fs::File;
use std::path::Path;

/// Options kept in the run directory for `--resume`.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Kept {
    pub(super) fixed_clock: bool,
    #[serde(default = "jsonl")]
    pub(super) journal: String,
}

impl Default for Kept {
    fn default() -> Self {
        Kept {
            fixed_clock: false,
            journal: jsonl(),
        }
    }
}

fn jsonl() -> String {
    "jsonl".into()
}

/// The journal file of `kind` in `dir`.
pub(super) fn journal_file(dir: &Path, kind: &str) -> std::path::PathBuf {
    dir.join(if kind == "sqlite" {
        "journal.sqlite"
    } else {
        "journal.jsonl"
    })
}

/// An open journal, and the length of the torn last line found in it (a JSON Lines journal
/// whose last write was cut short by a crash; see `agc_runtime::run::journal`).
pub(super) struct Opened {
    pub(super) journal: Box<dyn Journal>,
    pub(super) torn: Option<u64>,
}

/// Opens the run directory's journal of `kind`.
pub(super) fn open_journal(dir: &Path, kind: &str) -> Result<Opened, String> {
    match kind {
        "jsonl" => JsonlJournal::open(&journal_file(dir, kind))
            .map(|j| Opened {
                torn: j.torn_tail(),
                journal: Box::new(j),
            })
            .map_err(|e| e.to_string()),
        #[cfg(feature = "sqlite")]
        "sqlite" => agc_runtime::run::SqliteJournal::open(&journal_file(dir, kind))
            .map(|j| Opened {
                journal: Box::new(j),
                torn: None,
            })
            .map_err(|e| e.to_string()),
        #[cfg(not(feature = "sqlite"))]
        "sqlite" => Err("this agc was built without the `sqlite` feature".into()),
        other => Err(format!("unknown journal kind `{other}` (jsonl or sqlite)")),
    }
}

/// AGC310: the journal's torn last line, said before the run goes on.
pub(super) fn torn_note(dir: &Path, bytes: u64) -> Diagnostic {
    Diagnostic::warning(
        "AGC310",
        format!(
            "the last line of `{}` is a torn write ({bytes} bytes without a newline: the process writing it ended mid-write, before anything acted on it); it is left out, and cut away before the next event is appended",
            journal_file(dir, "jsonl").display()
        ),
    )
}

/// The run directory, held by this process until dropped.
pub(super) struct Held {
    _dir: File,
}

/// Locks `dir` for this process (see the module docs); AGC309 when another holds it.
pub(super) fn hold(dir: &Path) -> Result<Held, Diagnostic> {
    let file = File::open(dir).map_err(|e| {
        Diagnostic::error(
            "AGC001",
            format!("cannot open the run directory `{}`: {e}", dir.display()),
        )
    })?;
    match file.try_lock() {
        Ok(()) => Ok(Held { _dir: file }),
        Err(std::fs::TryLockError::WouldBlock) => {
            let by = file.metadata().ok().and_then(|m| holder(&m)).map_or_else(
                || "another process".to_string(),
                |pid| format!("process {pid}"),
            );
            Err(Diagnostic::error(
                "AGC309",
                format!(
                    "the run directory `{}` is in use by {by}: a run there is being started or resumed; nothing was read or written",
                    dir.display()
                ),
            )
            .with_help("wait for that process to end or pause, then resume; the lock goes with the process, so a killed one leaves nothing to clean up"))
        }
        Err(std::fs::TryLockError::Error(e)) => Err(Diagnostic::error(
            "AGC001",
            format!("cannot lock the run directory `{}`: {e}", dir.display()),
        )),
    }
}

/// The pid holding a `flock` on the file `meta` describes, from `/proc/locks` (a line such
/// as `1: FLOCK  ADVISORY  WRITE 4242 00:2c:1312 0 EOF`: pid, then device as hex
/// major:minor and inode).
#[cfg(target_os = "linux")]
fn holder(meta: &std::fs::Metadata) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let dev = meta.dev();
    // glibc's `major` and `minor` of a `dev_t`.
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let text = std::fs::read_to_string("/proc/locks").ok()?;
    text.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        // Waiters are listed as `1: -> FLOCK ...`: not holders.
        if f.get(1) != Some(&"FLOCK") {
            return None;
        }
        let mut id = f.get(5)?.split(':');
        let (maj, min, ino) = (id.next()?, id.next()?, id.next()?);
        (u64::from_str_radix(maj, 16).ok()? == major
            && u64::from_str_radix(min, 16).ok()? == minor
            && ino.parse::<u64>().ok()? == meta.ino())
        .then(|| f.get(4)?.parse().ok())
        .flatten()
    })
}

#[cfg(not(target_os = "linux"))]
fn holder(_meta: &std::fs::Metadata) -> Option<u32> {
    None
}

/// Creates the run directory when it does not exist yet, so that it can be locked.
pub(super) fn create(dir: &Path) -> Result<(), Diagnostic> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Diagnostic::error("AGC001", format!("cannot create `{}`: {e}", dir.display())))
}

/// Fills a new run directory (held by this process): the plan (`plan_text`, the text the plan
/// run was read from), the script and the options; refused when the directory already holds
/// a run. The refusal and the removal of an old invocation log are done here; the files are
/// written and synced on a second thread (a 10k-node plan is 7 MB: 10 ms, about as long as
/// the run's start, issue 41), which the run's journal waits for before its first event
/// ([`AfterPrepared`]).
pub(super) fn prepare(
    dir: &Path,
    plan_text: String,
    script: &Script,
    fixed: bool,
    journal: &str,
) -> Result<Preparing, String> {
    let used = ["journal.jsonl", "journal.sqlite"]
        .iter()
        .any(|j| dir.join(j).metadata().is_ok_and(|m| m.len() > 0));
    if used {
        return Err(format!(
            "`{}` already holds a run; resume it with `agc run --resume {}` or pick another directory",
            dir.display(),
            dir.display()
        ));
    }
    let _ = std::fs::remove_file(dir.join("invocations.jsonl"));
    let files = [
        ("plan.json", plan_text),
        (
            "script.json",
            agc_runtime::json::to_string_pretty(script).unwrap_or_default(),
        ),
        (
            "options.json",
            serde_json::to_string(&Kept {
                fixed_clock: fixed,
                journal: journal.to_string(),
            })
            .unwrap_or_default(),
        ),
    ];
    // Shared with the thread, so that they are still here to write if it cannot start.
    let files = std::sync::Arc::new((dir.to_path_buf(), files));
    let job = std::sync::Arc::clone(&files);
    let writing = match std::thread::Builder::new()
        .name("agc-run-dir".into())
        .spawn(move || write_files(&job.0, &job.1))
    {
        Ok(h) => Writing::Thread(h),
        Err(_) => Writing::Done(write_files(&files.0, &files.1)),
    };
    Ok(Preparing(Some(writing)))
}

/// Writes each `(name, text)` into `dir`, atomically and synced (`fsio::write`).
fn write_files(dir: &Path, files: &[(&str, String)]) -> Result<(), String> {
    for (name, text) in files {
        let path = dir.join(name);
        crate::fsio::write::write(&path, &[], text.as_bytes())
            .map_err(|e| e.message(&path.to_string_lossy()))?;
    }
    Ok(())
}

/// The run directory's files being written ([`prepare`]). Dropped, it waits for them: a
/// command that gives up before its run still leaves whole files and no temporary one.
pub(super) struct Preparing(Option<Writing>);

enum Writing {
    Thread(std::thread::JoinHandle<Result<(), String>>),
    Done(Result<(), String>),
}

impl Preparing {
    /// Waits for the files; their error, the first time it is asked.
    pub(super) fn wait(&mut self) -> Result<(), String> {
        match self.0.take() {
            None => Ok(()),
            Some(Writing::Done(r)) => r,
            Some(Writing::Thread(h)) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
        }
    }
}

impl Drop for Preparing {
    fn drop(&mut self) {
        let _ = self.wait();
    }
}

/// A new run's journal that takes no event before the run directory's files are written and
/// synced: a journal whose run has no `plan.json` could not be resumed.
pub(super) struct AfterPrepared<'j> {
    journal: &'j mut dyn Journal,
    preparing: Preparing,
    failed: Option<String>,
}

impl<'j> AfterPrepared<'j> {
    pub(super) fn new(journal: &'j mut dyn Journal, preparing: Preparing) -> Self {
        AfterPrepared {
            journal,
            preparing,
            failed: None,
        }
    }

    fn ready(&mut self) -> Result<(), JournalError> {
        if let Err(e) = self.preparing.wait() {
            self.failed = Some(e);
        }
        match &self.failed {
            Some(e) => Err(JournalError(e.clone())),
            None => Ok(()),
        }
    }

    /// Waits for the files (a run that journaled nothing did not wait): why they could not be
    /// written, if they could not.
    pub(super) fn finish(mut self) -> Result<(), String> {
        let _ = self.ready();
        self.failed.take().map_or(Ok(()), Err)
    }
}

impl Journal for AfterPrepared<'_> {
    fn append(&mut self, event: &Event) -> Result<(), JournalError> {
        self.ready()?;
        self.journal.append(event)
    }

    fn flush(&mut self) -> Result<(), JournalError> {
        self.ready()?;
        self.journal.flush()
    }

    fn load(&mut self) -> Result<Vec<Event>, JournalError> {
        self.journal.load()
    }
}
