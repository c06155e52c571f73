//! The SQLite journal: events survive reopening; a batch whose write-ahead log frames were
//! cut at any byte is gone and the batches before it are whole; a damaged row is refused
//! and changes nothing; the database is held by one connection at a time.

use super::*;
use std::path::PathBuf;

fn dir(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("dir")
}

fn resumed(at: &str) -> Event {
    Event::Resumed { at: at.into() }
}

fn wal(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push("-wal");
    PathBuf::from(p)
}

#[test]
fn events_survive_reopening() {
    let dir = dir("agc-sqlite-");
    let path = dir.path().join("journal.sqlite");
    let ev = resumed("2026-01-01T00:00:00Z");
    {
        let mut j = SqliteJournal::open(&path).expect("open");
        j.append(&ev).expect("append");
        j.flush().expect("flush");
        j.append(&ev).expect("append");
    }
    let mut j = SqliteJournal::open(&path).expect("reopen");
    assert_eq!(j.load().expect("load"), vec![ev.clone(), ev]);
}

/// Issue 41 item 6 on the SQLite journal: a crash while the last batch's transaction is
/// written leaves the write-ahead log cut somewhere in its frames. Cut at every byte of
/// them (the database file and the log as a `kill -9` leaves them), the journal opens with
/// every batch before it and without it, and takes new events after.
#[test]
fn a_last_batch_cut_at_every_byte_of_the_log_is_gone() {
    // Thousands of opens, each closing with a checkpoint that syncs: in memory where the
    // system has a memory file system (`/dev/shm`), on disk elsewhere.
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::Builder::new()
            .prefix("agc-sqlite-torn-")
            .tempdir_in(shm)
            .expect("dir")
    } else {
        dir("agc-sqlite-torn-")
    };
    let path = dir.path().join("journal.sqlite");
    let first = resumed("2026-01-01T00:00:00Z");
    let last = resumed("2026-01-01T00:00:01Z");
    let after = resumed("2026-01-01T00:01:00Z");
    let mut j = SqliteJournal::open(&path).expect("open");
    j.append(&first).expect("append");
    j.flush().expect("flush");
    // The files as a crash right after the first batch leaves them (the lock is advisory:
    // they can be read while the journal is open).
    let db_before = std::fs::read(&path).expect("db");
    let log_before = std::fs::read(wal(&path)).expect("wal");
    j.append(&last).expect("append");
    j.flush().expect("flush");
    let db = std::fs::read(&path).expect("db");
    let log = std::fs::read(wal(&path)).expect("wal");
    drop(j);
    // The second batch went to the log only, after the first's frames.
    assert_eq!(db, db_before);
    assert!(log.len() > log_before.len() && log.starts_with(&log_before));
    let copy = dir.path().join("copy.sqlite");
    let mut cuts = 0;
    for cut in log_before.len()..=log.len() {
        let _ = std::fs::remove_file(wal(&copy));
        std::fs::write(&copy, &db).expect("copy db");
        std::fs::write(wal(&copy), &log[..cut]).expect("copy wal");
        let mut j = SqliteJournal::open(&copy).expect("open the copy");
        let expected = if cut == log.len() {
            vec![first.clone(), last.clone()]
        } else {
            vec![first.clone()]
        };
        assert_eq!(j.load().expect("load"), expected, "log cut at {cut}");
        j.append(&after).expect("append");
        j.flush().expect("flush");
        let mut expected = expected;
        expected.push(after.clone());
        assert_eq!(j.load().expect("load"), expected, "log cut at {cut}");
        cuts += 1;
    }
    assert!(cuts > 4096, "{cuts} cuts: the batch is at least a page");
}

/// Issue 47 item 7 on the SQLite journal: a row that is not an event (a field name changed)
/// is refused, twice in a row, and the database is left byte for byte as it was.
#[test]
fn a_damaged_last_row_is_refused_and_nothing_changes() {
    let dir = dir("agc-sqlite-damaged-");
    let path = dir.path().join("journal.sqlite");
    {
        let mut j = SqliteJournal::open(&path).expect("open");
        j.append(&resumed("2026-01-01T00:00:00Z")).expect("append");
        j.append(&resumed("2026-01-01T00:00:01Z")).expect("append");
    }
    {
        let conn = Connection::open(&path).expect("conn");
        conn.execute(
            "UPDATE agc_events SET body = replace(body, '\"at\"', '\"ax\"') WHERE seq = 2",
            [],
        )
        .expect("damage");
    }
    let bytes = std::fs::read(&path).expect("db");
    for round in 0..2 {
        let mut j = SqliteJournal::open(&path).expect("open");
        let e = j.load().expect_err("damaged").0;
        assert!(e.contains("row 2") && e.contains("damaged"), "{e}");
        drop(j);
        assert_eq!(std::fs::read(&path).expect("db"), bytes, "round {round}");
        assert!(!wal(&path).exists() || std::fs::metadata(wal(&path)).expect("wal").len() == 0);
    }
}

/// The database is held by one journal at a time; the lock goes with the journal.
#[test]
fn a_second_open_is_refused_while_the_first_holds_the_database() {
    let dir = dir("agc-sqlite-lock-");
    let path = dir.path().join("journal.sqlite");
    let j = SqliteJournal::open(&path).expect("open");
    let e = SqliteJournal::open(&path).err().expect("refused").0;
    assert!(e.contains("in use by another process"), "{e}");
    drop(j);
    SqliteJournal::open(&path).expect("open after");
}
