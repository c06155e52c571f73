//! Journals: where a run's events are appended, durably, before the next command is issued.
//!
//! The driver appends the events of one batch (an answer, the calls it starts, their
//! `call_started` events, ...), then calls [`Journal::flush`], and only then issues the
//! batch's commands: whatever a crash loses was never acted on, so a resumed run repeats
//! nothing it should not.
//!
//! - [`JsonlJournal`]: the default, one JSON event per line in a file. Appends collect in a
//!   buffer; `flush` writes them to the operating system in one write, so a `kill -9` after
//!   `flush` loses nothing (set `sync` to also `fsync`, for power loss). The file is held
//!   with an OS advisory lock while the journal is open, so a second process cannot append
//!   to it (the lock goes with the process, `kill -9` included).
//!
//!   **Torn tail and damage.** A write cut short by a crash leaves a last line without its
//!   newline: a *torn tail*, an event whose batch was never flushed and so never acted on.
//!   [`JsonlJournal::open`] finds it and leaves the file as it is; [`Journal::load`] reads
//!   every complete line and ignores the tail; the first [`Journal::flush`] that writes cuts
//!   the tail away before appending, so a command that only reads (or refuses) changes
//!   nothing. [`JsonlJournal::torn_tail`] says how many bytes were (or will be) dropped, for
//!   the host to say so. A *complete* line (it ends with its newline) that does not parse,
//!   the last one included, is damage, not a torn write: `load` refuses it, naming the line,
//!   and nothing is dropped or appended after it (issue 47). An event with a field name the
//!   journal does not know is damage too (events deny unknown fields).
//! - [`MemoryJournal`]: in memory (tests, embedding hosts that persist elsewhere).
//! - [`NullJournal`]: keeps nothing (benchmarks with the journal off; such a run cannot be
//!   resumed).
//! - `SqliteJournal` (cargo feature `sqlite`): a table in a SQLite database, one transaction
//!   per flushed batch.

use super::event::Event;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A journal could not be read or written.
#[derive(Debug)]
pub struct JournalError(pub String);

impl std::fmt::Display for JournalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JournalError {}

/// An append-only log of a run's events.
pub trait Journal: Send {
    /// Appends one event. It must survive the process dying once [`Journal::flush`] returns
    /// `Ok` (a journal may also make it durable at once).
    fn append(&mut self, event: &Event) -> Result<(), JournalError>;
    /// Makes every event appended so far durable. The driver calls it before it issues the
    /// commands that follow those events. The default does nothing: for journals whose
    /// `append` is durable by itself.
    fn flush(&mut self) -> Result<(), JournalError> {
        Ok(())
    }
    /// Every event appended so far, in order.
    fn load(&mut self) -> Result<Vec<Event>, JournalError>;
}

/// One JSON event per line in a file.
#[derive(Debug)]
pub struct JsonlJournal {
    path: PathBuf,
    file: File,
    /// `fsync` on every flush (off by default: a flush survives `kill -9`).
    pub sync: bool,
    /// Lines appended since the last flush.
    pending: String,
    /// The end of the file's last complete line when it was opened.
    whole: u64,
    /// The bytes after `whole` when the file was opened (a torn write), until cut away.
    torn: u64,
    /// Whether the torn tail has been cut away (by the first flush that wrote).
    cut: bool,
}

impl JsonlJournal {
    /// Opens (creating if needed) the journal at `path` for appending, and locks it against
    /// other processes (refused with a [`JournalError`] saying so while another holds it).
    /// Nothing in the file changes here: a last line cut short by a crash (no newline) is
    /// found and left in place until the first flush that writes cuts it away, so that the
    /// next event starts a line of its own.
    pub fn open(path: &Path) -> Result<JsonlJournal, JournalError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .map_err(|e| JournalError(format!("cannot open journal {}: {e}", path.display())))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(JournalError(format!(
                    "journal {} is in use by another process",
                    path.display()
                )));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(JournalError(format!(
                    "cannot lock journal {}: {e}",
                    path.display()
                )));
            }
        }
        let whole = whole_lines(&file)
            .map_err(|e| JournalError(format!("cannot read journal {}: {e}", path.display())))?;
        let len = file
            .metadata()
            .map_err(|e| JournalError(format!("cannot read journal {}: {e}", path.display())))?
            .len();
        Ok(JsonlJournal {
            path: path.to_path_buf(),
            file,
            sync: false,
            pending: String::with_capacity(4096),
            whole,
            torn: len - whole,
            cut: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The length in bytes of the torn last line found when the journal was opened (a write
    /// cut short by a crash, without its newline), if there was one: [`Journal::load`]
    /// ignores it and the first flush that writes cuts it away.
    pub fn torn_tail(&self) -> Option<u64> {
        (self.torn > 0).then_some(self.torn)
    }
}

/// The end of the last complete line of `file` (0 when there is none): the file is read
/// backwards from its end, a block at a time, up to its last newline.
fn whole_lines(file: &File) -> std::io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file;
    let mut end = f.metadata()?.len();
    let mut block = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(block.len() as u64);
        let n = (end - start) as usize;
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(&mut block[..n])?;
        if let Some(i) = block[..n].iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

impl Drop for JsonlJournal {
    /// Events appended and never flushed are written on the way out (a driver flushes
    /// before acting, so these are at most a finished run's last events).
    fn drop(&mut self) {
        let _ = Journal::flush(self);
    }
}

impl Journal for JsonlJournal {
    fn append(&mut self, event: &Event) -> Result<(), JournalError> {
        // A call's events are written directly (`lines`), the others by `json`.
        super::lines::event(&mut self.pending, event)
            .map_err(|e| JournalError(format!("cannot encode event: {e}")))?;
        self.pending.push('\n');
        Ok(())
    }

    fn flush(&mut self) -> Result<(), JournalError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let err = |e: std::io::Error| {
            JournalError(format!("cannot write journal {}: {e}", self.path.display()))
        };
        if self.torn > 0 && !self.cut {
            // The torn tail goes before the first new line: appended after it, the new
            // event would be glued to it and both lost.
            self.file.set_len(self.whole).map_err(err)?;
            self.cut = true;
        }
        // One write for the batch: a crash inside it leaves whole lines and at most one
        // line cut short, which `open` and `load` drop.
        self.file.write_all(self.pending.as_bytes()).map_err(err)?;
        self.pending.clear();
        if self.sync {
            self.file.sync_data().map_err(err)?;
        }
        Ok(())
    }

    fn load(&mut self) -> Result<Vec<Event>, JournalError> {
        self.flush()?;
        let read_err = |e: std::io::Error| {
            JournalError(format!("cannot read journal {}: {e}", self.path.display()))
        };
        let mut bytes = Vec::new();
        {
            use std::io::{Read, Seek, SeekFrom};
            let mut f = &self.file;
            f.seek(SeekFrom::Start(0)).map_err(read_err)?;
            f.read_to_end(&mut bytes).map_err(read_err)?;
        }
        // A crash mid-write leaves a last line without its newline: that event never
        // happened (its batch was never flushed, so nothing acted on it).
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        bytes.truncate(whole);
        let mut events = Vec::new();
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Event>(line) {
                Ok(ev) => events.push(ev),
                // A complete line that does not parse is damage, wherever it is.
                Err(e) => {
                    return Err(JournalError(format!(
                        "journal {} line {} is damaged (a complete line that is not an event: {e}); nothing was changed",
                        self.path.display(),
                        i + 1
                    )));
                }
            }
        }
        Ok(events)
    }
}

/// Events kept in memory.
#[derive(Clone, Debug, Default)]
pub struct MemoryJournal {
    pub events: Vec<Event>,
}

impl Journal for MemoryJournal {
    fn append(&mut self, event: &Event) -> Result<(), JournalError> {
        self.events.push(event.clone());
        Ok(())
    }

    fn load(&mut self) -> Result<Vec<Event>, JournalError> {
        Ok(self.events.clone())
    }
}

/// Keeps nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NullJournal;

impl Journal for NullJournal {
    fn append(&mut self, _event: &Event) -> Result<(), JournalError> {
        Ok(())
    }

    fn load(&mut self) -> Result<Vec<Event>, JournalError> {
        Ok(Vec::new())
    }
}

#[cfg(test)]
#[path = "journal_tests.rs"]
mod tests;
