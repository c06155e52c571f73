//! A journal in a SQLite database (cargo feature `sqlite`, SQLite bundled through
//! `rusqlite`): one row per event in table `agc_events`. The events appended between two
//! flushes go in one transaction, committed by `flush` (the driver flushes before it acts).

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
    /// Opens (creating if needed) the database at `path`.
    pub fn open(path: &Path) -> Result<SqliteJournal, JournalError> {
        let conn = Connection::open(path).map_err(err)?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             CREATE TABLE IF NOT EXISTS agc_events (
                 seq INTEGER PRIMARY KEY AUTOINCREMENT,
                 body TEXT NOT NULL
             );",
        )
        .map_err(err)?;
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
            let ev = serde_json::from_str(&body)
                .map_err(|e| JournalError(format!("sqlite journal row {seq}: {e}")))?;
            events.push(ev);
        }
        Ok(events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_survive_reopening() {
        let dir = tempfile::Builder::new()
            .prefix("agc-sqlite-")
            .tempdir()
            .expect("dir");
        let path = dir.path().join("journal.sqlite");
        let ev = Event::Resumed {
            at: "2026-01-01T00:00:00Z".into(),
        };
        {
            let mut j = SqliteJournal::open(&path).expect("open");
            j.append(&ev).expect("append");
            j.flush().expect("flush");
            j.append(&ev).expect("append");
        }
        let mut j = SqliteJournal::open(&path).expect("reopen");
        assert_eq!(j.load().expect("load"), vec![ev.clone(), ev]);
    }
}
