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
        // A reading is a whole second unless a jump to a timer's time brought a fraction: it
        // is written directly, as jiff writes it (`core::fmt` and jiff's printer took 1.5k
        // instructions a reading, two readings a node).
        if n % SECOND == 0
            && let Some(text) = whole_second(n / SECOND)
        {
            return text;
        }
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

/// jiff's last whole second (`9999-12-30T22:00:00Z`, [`jiff::Timestamp::MAX`]'s second),
/// in seconds since the epoch.
const LAST_SECOND: i64 = 253_402_207_200;

/// `secs` seconds after the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`, exactly what jiff's
/// `Display` writes for a timestamp without a fraction of a second, from 1970 to jiff's last
/// second (`None` outside: jiff writes those).
fn whole_second(secs: i64) -> Option<String> {
    if !(0..=LAST_SECOND).contains(&secs) {
        return None;
    }
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // The proleptic Gregorian date of a day count (Howard Hinnant's `civil_from_days`),
    // days counted from 0000-03-01 so that a leap day ends its year.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mut out = [0u8; 20];
    let mut put = |at: usize, v: i64, width: usize| {
        let mut v = v;
        for i in (at..at + width).rev() {
            out[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, year, 4);
    put(5, month, 2);
    put(8, day, 2);
    put(11, rem / 3_600, 2);
    put(14, rem % 3_600 / 60, 2);
    put(17, rem % 60, 2);
    for (i, c) in [
        (4, b'-'),
        (7, b'-'),
        (10, b'T'),
        (13, b':'),
        (16, b':'),
        (19, b'Z'),
    ] {
        out[i] = c;
    }
    String::from_utf8(out.to_vec()).ok()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct writing of a whole second is jiff's, byte for byte: every day's first and
    /// last second from 1970 to 2100 and of every 97th day to jiff's last (leap days, the century
    /// rules), and a second in between; outside those years, and with a fraction, the clock
    /// asks jiff.
    #[test]
    fn a_whole_second_is_written_as_jiff_writes_it() {
        let jiff = |s: i64| format!("{}", jiff::Timestamp::from_second(s).expect("in range"));
        // Every day of 1970-2100, then every 97th day to jiff's last.
        let mut day = 0;
        while day * 86_400 <= LAST_SECOND {
            for s in [day * 86_400, day * 86_400 + 86_399, day * 86_400 + 45_296] {
                assert_eq!(whole_second(s).as_deref(), Some(jiff(s).as_str()), "{s}");
            }
            day += if day < 47_500 { 1 } else { 97 };
        }
        assert_eq!(LAST_SECOND, jiff::Timestamp::MAX.as_second());
        for s in [LAST_SECOND, LAST_SECOND - 1, LAST_SECOND - 86_399] {
            assert_eq!(whole_second(s).as_deref(), Some(jiff(s).as_str()), "{s}");
        }
        assert_eq!(whole_second(-1), None);
        assert_eq!(whole_second(LAST_SECOND + 1), None);
        let clock = FixedClock::new();
        assert_eq!(clock.now(), "2026-01-01T00:00:00Z");
        assert_eq!(clock.now(), "2026-01-01T00:00:01Z");
        clock.advance_to("2026-01-01T00:01:00.25Z");
        assert_eq!(clock.now(), "2026-01-01T00:01:00.25Z");
        assert_eq!(clock.now(), "2026-01-01T00:01:01.25Z");
        let before_1970 = FixedClock::starting_at("1969-12-31T23:59:59Z".parse().expect("valid"));
        assert_eq!(before_1970.now(), "1969-12-31T23:59:59Z");
        assert_eq!(before_1970.now(), "1970-01-01T00:00:00Z");
    }
}
