//! Injected time and ids, so the core stays pure and runs can be made byte-identical.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

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
    start: Mutex<jiff::Timestamp>,
    ticks: AtomicU64,
}

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
            start: Mutex::new(start),
            ticks: AtomicU64::new(0),
        }
    }
}

impl Default for FixedClock {
    fn default() -> Self {
        FixedClock::new()
    }
}

impl Clock for FixedClock {
    fn now(&self) -> String {
        let start = self.start.lock().unwrap_or_else(|p| p.into_inner());
        let n = self.ticks.fetch_add(1, Ordering::SeqCst) as i64;
        let ts = start
            .checked_add(jiff::SignedDuration::from_secs(n))
            .unwrap_or(*start);
        format!("{ts}")
    }

    fn is_virtual(&self) -> bool {
        true
    }

    fn advance_to(&self, at: &str) {
        let Ok(at) = at.parse::<jiff::Timestamp>() else {
            return;
        };
        let mut start = self.start.lock().unwrap_or_else(|p| p.into_inner());
        let n = self.ticks.load(Ordering::SeqCst) as i64;
        let next = start
            .checked_add(jiff::SignedDuration::from_secs(n))
            .unwrap_or(*start);
        if at > next {
            *start = at;
            self.ticks.store(0, Ordering::SeqCst);
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
