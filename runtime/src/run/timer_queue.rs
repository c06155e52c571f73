//! The driver's side of timers: the timers the core asked for ([`Command::Timer`]), which
//! one falls due next, and the [`Event::TimerFired`] that answers it. Both the local driver
//! and the Restate driver keep one, so they fire timers in the same order.
//!
//! Time: with a real clock a driver waits until `fire_at`; with a virtual clock
//! ([`Clock::is_virtual`], the fixed clock) it never waits: [`fire`] moves the clock to
//! `fire_at` and stamps the event there.

use super::clock::Clock;
use super::core::{Command, Timer};
use super::event::Event;
use std::collections::{BTreeSet, HashMap};

/// Pending timers, earliest first (ties by id).
#[derive(Debug, Default)]
pub struct TimerQueue {
    order: BTreeSet<(jiff::Timestamp, u64)>,
    timers: HashMap<u64, (jiff::Timestamp, Timer)>,
}

impl TimerQueue {
    pub fn new() -> TimerQueue {
        TimerQueue::default()
    }

    /// Takes a timer command (`Timer` arms, `CancelTimer` forgets); false for other commands.
    pub fn apply(&mut self, cmd: &Command) -> bool {
        match cmd {
            Command::Timer(t) => self.arm(t.clone()),
            Command::CancelTimer { id } => self.cancel(*id),
            _ => return false,
        }
        true
    }

    /// Arms `t` (again, after a resume: the same id replaces the old one). A `fire_at`
    /// that is not a timestamp is due at once.
    pub fn arm(&mut self, t: Timer) {
        self.cancel(t.id);
        let at = t.fire_at.parse().unwrap_or(jiff::Timestamp::MIN);
        self.order.insert((at, t.id));
        self.timers.insert(t.id, (at, t));
    }

    pub fn cancel(&mut self, id: u64) {
        self.take(id);
    }

    /// Removes and returns timer `id`, if it is pending.
    pub fn take(&mut self, id: u64) -> Option<Timer> {
        let (at, t) = self.timers.remove(&id)?;
        self.order.remove(&(at, id));
        Some(t)
    }

    pub fn is_empty(&self) -> bool {
        self.timers.is_empty()
    }

    pub fn len(&self) -> usize {
        self.timers.len()
    }

    pub fn contains(&self, id: u64) -> bool {
        self.timers.contains_key(&id)
    }

    /// The timer that falls due first.
    pub fn earliest(&self) -> Option<&Timer> {
        let (_, id) = self.order.first()?;
        self.timers.get(id).map(|(_, t)| t)
    }

    /// Removes and returns the timer that falls due first.
    pub fn pop_earliest(&mut self) -> Option<Timer> {
        let (_, id) = self.order.pop_first()?;
        self.timers.remove(&id).map(|(_, t)| t)
    }

    /// Removes and returns the earliest timer if it is due at `now` (RFC 3339).
    pub fn pop_due(&mut self, now: &str) -> Option<Timer> {
        let now: jiff::Timestamp = now.parse().ok()?;
        let &(at, _) = self.order.first()?;
        if at <= now { self.pop_earliest() } else { None }
    }
}

/// How long from `now` until `t` falls due (zero when it is due, or a time does not parse).
pub fn until(t: &Timer, now: &str) -> std::time::Duration {
    match (
        t.fire_at.parse::<jiff::Timestamp>(),
        now.parse::<jiff::Timestamp>(),
    ) {
        (Ok(at), Ok(now)) => at
            .duration_since(now)
            .try_into()
            .unwrap_or(std::time::Duration::ZERO),
        _ => std::time::Duration::ZERO,
    }
}

/// `a` is after `b` (RFC 3339 times of any precision; compared as text when one does not
/// parse).
pub fn later(a: &str, b: &str) -> bool {
    match (a.parse::<jiff::Timestamp>(), b.parse::<jiff::Timestamp>()) {
        (Ok(a), Ok(b)) => a > b,
        _ => a > b,
    }
}

/// The event that fires `t`: a virtual clock first moves to `fire_at` (never back).
pub fn fire(clock: &dyn Clock, t: Timer) -> Event {
    if clock.is_virtual() {
        clock.advance_to(&t.fire_at);
    }
    Event::TimerFired {
        id: t.id,
        path: t.path,
        at: clock.now(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::FixedClock;
    use crate::run::core::TimerKind;

    fn timer(id: u64, at: &str) -> Timer {
        Timer {
            id,
            path: format!("n{id}"),
            fire_at: at.into(),
            kind: TimerKind::Wait,
        }
    }

    #[test]
    fn timers_come_out_earliest_first_and_cancelled_ones_never() {
        let mut q = TimerQueue::new();
        q.arm(timer(1, "2026-01-01T00:00:09Z"));
        q.arm(timer(2, "2026-01-01T00:00:03.5Z"));
        q.arm(timer(3, "2026-01-01T00:00:05Z"));
        assert!(q.apply(&Command::CancelTimer { id: 3 }));
        assert_eq!(q.len(), 2);
        assert!(q.pop_due("2026-01-01T00:00:03Z").is_none());
        assert_eq!(q.pop_due("2026-01-01T00:00:04Z").map(|t| t.id), Some(2));
        assert_eq!(q.pop_earliest().map(|t| t.id), Some(1));
        assert!(q.is_empty());
    }

    #[test]
    fn a_virtual_clock_jumps_to_the_timer_and_never_back() {
        let clock = FixedClock::new();
        assert_eq!(clock.now(), "2026-01-01T00:00:00Z");
        let ev = fire(&clock, timer(1, "2026-01-01T00:05:00Z"));
        assert_eq!(ev.at(), "2026-01-01T00:05:00Z");
        assert_eq!(clock.now(), "2026-01-01T00:05:01Z");
        // A timer already past fires at the next reading.
        let ev = fire(&clock, timer(2, "2026-01-01T00:00:10Z"));
        assert_eq!(ev.at(), "2026-01-01T00:05:02Z");
        assert_eq!(
            until(&timer(3, "2026-01-01T00:05:04Z"), "2026-01-01T00:05:02Z"),
            std::time::Duration::from_secs(2)
        );
    }
}
