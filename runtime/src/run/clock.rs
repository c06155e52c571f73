//! Injected time and ids, so the core stays pure and runs can be made byte-identical.

use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

/// Gives the current time as RFC 3339 UTC text.
pub trait Clock: Send + Sync {
    fn now(&self) -> String;

    /// A virtual clock ([`FixedClock`]) is never waited on: a driver that must wait for a
    /// timer moves it to the timer's time ([`Clock::advance_to`]) instead of sleeping.
    fn is_virtual(&self) -> bool {
        false
    }

    /// Virtual clocks: the next reading is at least `at` (RFC 3339); never moves back.
    /// Real clocks ignore it.
    fn advance_to(&self, _at: &str) {}
}

/// The system clock (second precision is not enough to order events; this prints
/// microseconds).
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> String {
        let ts = jiff::Timestamp::now();
        format!("{ts:.6}")
    }
}

/// A fixed clock: starts at `start` and advances one second per reading, so every event
/// has a distinct, reproducible time. It is virtual: waiting for a timer jumps it to the
/// timer's time ([`Clock::advance_to`]), so timed runs are fast and reproducible too.
#[derive(Debug)]
pub struct FixedClock {
    /// The next reading, in nanoseconds since the Unix epoch (one atomic: a reading and a
    /// jump never interleave badly).
    next: AtomicI64,
}

const SECOND: i64 = 1_000_000_000;

impl FixedClock {
    /// Starts at 2026-01-01T00:00:00Z.
    pub fn new() -> FixedClock {
        FixedClock::starting_at(jiff::Timestamp::from_second(1_767_225_600).expect("valid"))
    }

    /// A fixed clock whose first reading is one second after `at` (RFC 3339), for resuming
    /// a run whose journal ends at `at`; `None` when `at` is not a timestamp.
    pub fn after(at: &str) -> Option<FixedClock> {
        let t: jiff::Timestamp = at.parse().ok()?;
        Some(FixedClock::starting_at(
            t.checked_add(jiff::SignedDuration::from_secs(1)).ok()?,
        ))
    }

    pub fn starting_at(start: jiff::Timestamp) -> FixedClock {
        FixedClock {
            next: AtomicI64::new(nanos(start)),
        }
    }
}

/// `t` in nanoseconds since the epoch, saturating (i64 nanoseconds reach the year 2262).
fn nanos(t: jiff::Timestamp) -> i64 {
    i64::try_from(t.as_nanosecond()).unwrap_or(if t.as_second() < 0 {
        i64::MIN
    } else {
        i64::MAX
    })
}

impl Default for FixedClock {
    fn default() -> Self {
        FixedClock::new()
    }
}

impl Clock for FixedClock {
    fn now(&self) -> String {
        let n = self.next.fetch_add(SECOND, Ordering::SeqCst);
        let ts = jiff::Timestamp::from_nanosecond(i128::from(n)).unwrap_or(jiff::Timestamp::MAX);
        format!("{ts}")
    }

    fn is_virtual(&self) -> bool {
        true
    }

    fn advance_to(&self, at: &str) {
        if let Ok(at) = at.parse::<jiff::Timestamp>() {
            self.next.fetch_max(nanos(at), Ordering::SeqCst);
        }
    }
}

/// Gives fresh run ids.
pub trait IdSource: Send + Sync {
    fn run_id(&self) -> String;
}

/// Random-enough ids from the time and the process id (`run-<hex>`).
#[derive(Debug, Default)]
pub struct SystemIds;

impl IdSource for SystemIds {
    fn run_id(&self) -> String {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        format!("run-{:x}{:05x}", nanos, std::process::id() & 0xfffff)
    }
}

/// Sequential ids `<prefix>-1`, `<prefix>-2`, ... for reproducible runs.
#[derive(Debug)]
pub struct FixedIds {
    prefix: String,
    next: Mutex<u64>,
}

impl FixedIds {
    pub fn new(prefix: impl Into<String>) -> FixedIds {
        FixedIds {
            prefix: prefix.into(),
            next: Mutex::new(1),
        }
    }
}

impl IdSource for FixedIds {
    fn run_id(&self) -> String {
        let mut n = self.next.lock().unwrap_or_else(|p| p.into_inner());
        let id = format!("{}-{}", self.prefix, *n);
        *n += 1;
        id
    }
}
