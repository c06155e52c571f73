//! Journals: where a run's events are appended, durably, before the next command is issued.
//!
//! The driver appends the events of one batch (an answer, the calls it starts, their
//! `call_started` events, ...), then calls [`Journal::flush`], and only then issues the
//! batch's commands: whatever a crash loses was never acted on, so a resumed run repeats
//! nothing it should not.
//!
//! - [`JsonlJournal`]: the default, one JSON event per line in a file. Appends collect in a
//!   buffer; `flush` writes them to the operating system in one write, so a `kill -9` after
//!   `flush` loses nothing (set `sync` to also `fsync`, for power loss). A last line cut short
//!   by a crash is ignored on load; a damaged line anywhere else is an error.
//! - [`MemoryJournal`]: in memory (tests, embedding hosts that persist elsewhere).
//! - [`NullJournal`]: keeps nothing (benchmarks with the journal off; such a run cannot be
//!   resumed).
//! - `SqliteJournal` (cargo feature `sqlite`): a table in a SQLite database, one transaction
//!   per flushed batch.

use super::event::Event;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
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
    pending: Vec<u8>,
}

impl JsonlJournal {
    /// Opens (creating if needed) the journal at `path` for appending. A last line cut short
    /// by a crash is cut off first, so that the next event starts a line of its own.
    pub fn open(path: &Path) -> Result<JsonlJournal, JournalError> {
        if let Ok(bytes) = std::fs::read(path)
            && !bytes.is_empty()
            && bytes.last() != Some(&b'\n')
        {
            let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let f = OpenOptions::new().write(true).open(path).map_err(|e| {
                JournalError(format!("cannot repair journal {}: {e}", path.display()))
            })?;
            f.set_len(keep as u64).map_err(|e| {
                JournalError(format!("cannot repair journal {}: {e}", path.display()))
            })?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .map_err(|e| JournalError(format!("cannot open journal {}: {e}", path.display())))?;
        Ok(JsonlJournal {
            path: path.to_path_buf(),
            file,
            sync: false,
            pending: Vec::with_capacity(4096),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
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
        serde_json::to_writer(&mut self.pending, event)
            .map_err(|e| JournalError(format!("cannot encode event: {e}")))?;
        self.pending.push(b'\n');
        Ok(())
    }

    fn flush(&mut self) -> Result<(), JournalError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let err = |e: std::io::Error| {
            JournalError(format!("cannot write journal {}: {e}", self.path.display()))
        };
        // One write for the batch: a crash inside it leaves whole lines and at most one
        // line cut short, which `open` and `load` drop.
        self.file.write_all(&self.pending).map_err(err)?;
        self.pending.clear();
        if self.sync {
            self.file.sync_data().map_err(err)?;
        }
        Ok(())
    }

    fn load(&mut self) -> Result<Vec<Event>, JournalError> {
        self.flush()?;
        let f = File::open(&self.path).map_err(|e| {
            JournalError(format!("cannot read journal {}: {e}", self.path.display()))
        })?;
        let lines: Vec<String> = BufReader::new(f)
            .lines()
            .collect::<Result<_, _>>()
            .map_err(|e| {
                JournalError(format!("cannot read journal {}: {e}", self.path.display()))
            })?;
        let mut events = Vec::with_capacity(lines.len());
        let last = lines.len().saturating_sub(1);
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Event>(line) {
                Ok(ev) => events.push(ev),
                // A crash mid-write leaves a partial last line: that event never happened.
                Err(_) if i == last => break,
                Err(e) => {
                    return Err(JournalError(format!(
                        "journal {} line {}: {e}",
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
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_dropped_and_appends_stay_readable() {
        let dir = tempfile::Builder::new()
            .prefix("agc-jsonl-")
            .tempdir()
            .unwrap();
        let path = dir.path().join("journal.jsonl");
        let ev = Event::Resumed {
            at: "2026-01-01T00:00:00Z".into(),
        };
        let mut j = JsonlJournal::open(&path).unwrap();
        j.append(&ev).unwrap();
        drop(j);
        // A crash in the middle of the second line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"event\":\"resu").unwrap();
        drop(f);
        let mut j = JsonlJournal::open(&path).unwrap();
        assert_eq!(j.load().unwrap(), vec![ev.clone()]);
        j.append(&ev).unwrap();
        assert_eq!(j.load().unwrap(), vec![ev.clone(), ev]);
        // A damaged line in the middle is an error, not silently skipped.
        std::fs::write(&path, "garbage\n{\"event\":\"resumed\",\"at\":\"x\"}\n").unwrap();
        let mut j = JsonlJournal::open(&path).unwrap();
        assert!(j.load().unwrap_err().0.contains("line 1"));
    }

    /// Appends reach the file at `flush`, all of the batch at once.
    #[test]
    fn appends_reach_the_file_when_flushed() {
        let dir = tempfile::Builder::new()
            .prefix("agc-jsonl-batch-")
            .tempdir()
            .unwrap();
        let path = dir.path().join("journal.jsonl");
        let ev = Event::Resumed {
            at: "2026-01-01T00:00:00Z".into(),
        };
        let mut j = JsonlJournal::open(&path).unwrap();
        j.append(&ev).unwrap();
        j.append(&ev).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
        j.flush().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2);
        j.append(&ev).unwrap();
        // What is loaded includes what was appended, flushed or not.
        assert_eq!(j.load().unwrap().len(), 3);
    }
}
