//! A journal in a SQLite database (cargo feature `sqlite`, SQLite bundled through
//! `rusqlite`): one row per event in table `agc_events`. The events appended between two
//! flushes go in one transaction, committed by `flush` (the driver flushes before it acts).
//!
//! The database is held by one connection at a time: it is opened in SQLite's `EXCLUSIVE`
//! locking mode and its lock taken at once, so a second process (another `agc run`, a host)
//! is refused while the first has it open, and the OS releases the lock when the holder dies
//! (`kill -9` included). A transaction cut short by a crash (the write-ahead log's last frames
//! torn at any byte) is rolled back by SQLite on the next open: the journal holds the batches
//! flushed before it, as the JSON Lines journal holds its complete lines. A row whose body is
//! not an event is damage and refused by `load`, wherever it is.

use super::event::Event;
use super::journal::{Journal, JournalError};
use rusqlite::Connection;
use std::path::Path;

/// Events as rows of a SQLite table.
pub struct SqliteJournal {
    conn: Connection,
    /// A transaction is open (events appended since the last flush).
    open: bool,
}

fn err(e: rusqlite::Error) -> JournalError {
    JournalError(format!("sqlite journal: {e}"))
}

impl SqliteJournal {
    /// Opens (creating if needed) the database at `path`, and holds it against other
    /// connections until dropped (refused with a [`JournalError`] while another holds it).
    pub fn open(path: &Path) -> Result<SqliteJournal, JournalError> {
        let conn = Connection::open(path).map_err(err)?;
        // No waiting for a holder: a second process is told at once.
        conn.busy_timeout(std::time::Duration::ZERO).map_err(err)?;
        let busy = |e: rusqlite::Error| match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                JournalError(format!(
                    "sqlite journal {} is in use by another process",
                    path.display()
                ))
            }
            _ => err(e),
        };
        // The exclusive lock is taken by the first write and kept until the connection
        // closes; `BEGIN EXCLUSIVE` takes it now, before anything is read.
        conn.execute_batch(
            "PRAGMA locking_mode = EXCLUSIVE;
             PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             BEGIN EXCLUSIVE;
             CREATE TABLE IF NOT EXISTS agc_events (
                 seq INTEGER PRIMARY KEY AUTOINCREMENT,
                 body TEXT NOT NULL
             );
             COMMIT;",
        )
        .map_err(busy)?;
        Ok(SqliteJournal { conn, open: false })
    }
}

impl Drop for SqliteJournal {
    /// Commits what was appended and never flushed (see `JsonlJournal`'s drop).
    fn drop(&mut self) {
        let _ = Journal::flush(self);
    }
}

impl Journal for SqliteJournal {
    fn append(&mut self, event: &Event) -> Result<(), JournalError> {
        let body = serde_json::to_string(event)
            .map_err(|e| JournalError(format!("cannot encode event: {e}")))?;
        if !self.open {
            self.conn.execute_batch("BEGIN").map_err(err)?;
            self.open = true;
        }
        self.conn
            .prepare_cached("INSERT INTO agc_events (body) VALUES (?1)")
            .and_then(|mut st| st.execute([body]))
            .map_err(err)?;
        Ok(())
    }

    fn flush(&mut self) -> Result<(), JournalError> {
        if self.open {
            self.conn.execute_batch("COMMIT").map_err(err)?;
            self.open = false;
        }
        Ok(())
    }

    fn load(&mut self) -> Result<Vec<Event>, JournalError> {
        self.flush()?;
        let mut stmt = self
            .conn
            .prepare("SELECT seq, body FROM agc_events ORDER BY seq")
            .map_err(err)?;
        let rows = stmt
            .query_map([], |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
            })
            .map_err(err)?;
        let mut events = Vec::new();
        for row in rows {
            let (seq, body) = row.map_err(err)?;
            let ev = serde_json::from_str(&body).map_err(|e| {
                JournalError(format!(
                    "sqlite journal row {seq} is damaged (not an event: {e}); nothing was changed"
                ))
            })?;
            events.push(ev);
        }
        Ok(events)
    }
}

#[cfg(test)]
#[path = "journal_sqlite_tests.rs"]
mod tests;
