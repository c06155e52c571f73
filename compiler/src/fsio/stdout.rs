//! Standard output, checked: every command writes its output (a plan, a diagram, a value, a
//! record, diagnostics for `check`) through [`write`](fn@write) or [`Stdout`], and the process ends
//! through [`finish`], which flushes and turns a failed write into exit status 2.
//!
//! - A write that fails (`agc build x > /dev/full`: no space) prints one diagnostic (AGC025)
//!   and the command exits 2, whatever it would have exited with: its output is lost.
//! - A closed pipe (`agc build x | head -1`) is not a failure: whoever reads the output has
//!   what it wanted. Writing stops quietly and the exit status is the command's own, as a Unix
//!   tool that dies of SIGPIPE prints nothing. (agc ignores SIGPIPE, as Rust programs do, so
//!   that a handler's closed socket during `agc run` cannot kill the run.)
//!
//! After either, later writes are dropped: nothing is printed twice, and nothing after a gap.

use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};

/// 0 open, 1 closed by the reader, 2 failed.
static STATE: AtomicU8 = AtomicU8::new(OPEN);
const OPEN: u8 = 0;
const CLOSED: u8 = 1;
const FAILED: u8 = 2;

/// Writes `bytes` to standard output; `false` once it is closed or failed (stop writing).
pub fn write(bytes: &[u8]) -> bool {
    Stdout.write_all(bytes).is_ok()
}

/// Flushes standard output and gives the exit status: 2 when a write failed (the output is
/// incomplete), else `code`.
pub fn finish(code: i32) -> i32 {
    if STATE.load(Ordering::SeqCst) == OPEN
        && let Err(e) = std::io::stdout().lock().flush()
    {
        note(&e);
    }
    if STATE.load(Ordering::SeqCst) == FAILED {
        2
    } else {
        code
    }
}

/// Whether a write to standard output failed (not a closed pipe).
pub fn failed() -> bool {
    STATE.load(Ordering::SeqCst) == FAILED
}

/// Records a write error: a closed pipe quietly, anything else with its diagnostic, once.
fn note(e: &std::io::Error) {
    let state = if e.kind() == std::io::ErrorKind::BrokenPipe {
        CLOSED
    } else {
        FAILED
    };
    if STATE.swap(state, Ordering::SeqCst) == OPEN && state == FAILED {
        eprintln!("error[AGC025]: cannot write to standard output: {e}");
    }
}

/// Standard output as a [`Write`] whose failures are recorded for [`finish`]. Once closed or
/// failed, every write returns an error at once (so a streaming writer stops early).
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if STATE.load(Ordering::SeqCst) != OPEN {
            return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        }
        let mut out = std::io::stdout().lock();
        match out.write_all(buf).and_then(|()| out.flush()) {
            Ok(()) => Ok(buf.len()),
            Err(e) => {
                note(&e);
                Err(e)
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if STATE.load(Ordering::SeqCst) != OPEN {
            return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        }
        std::io::stdout().lock().flush().inspect_err(note)
    }
}
