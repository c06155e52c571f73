//! Timers in the pure core: retry backoff, timed `wait` nodes and human timeouts.
//!
//! The core never reads a clock. When something must wait, it computes when the wait ends
//! from the current event's time (`fire_at`), keeps the timer in its state and asks the
//! driver for it ([`Command::Timer`]); the driver answers with
//! [`Event::TimerFired`](crate::run::event::Event::TimerFired) once that time has come,
//! journaled like every event, so a replay rebuilds the same timers.
//!
//! Decisions:
//! - Timer ids count up per run (a replay gives the same ids); a run owns at most one timer.
//! - Cancelling: a timer is cancelled when the run that owns it ends, when its gate gets a
//!   decision, and when the whole run stops. The core tells the driver
//!   ([`Command::CancelTimer`]) so it stops waiting, and ignores a firing for a timer it no
//!   longer holds, so correctness never depends on the driver honouring a cancel (a durable
//!   sleep on Restate cannot be withdrawn).
//! - Pauses: backoff and wait timers keep the run running (the driver waits for them). A
//!   human timeout does not: a run whose only open work is gates awaiting humans pauses
//!   (`awaiting_human`) with their timeouts pending, and a timeout that fires during the
//!   pause resumes the run like a decision does.
//! - On resume, every pending timer is handed to the driver again with its `fire_at`
//!   unchanged: a timer armed before a crash falls due when it would have.
//! - Retry backoff: the node's `retry.backoff` ([`crate::plan::Backoff`], which the compiler
//!   fills from AGS `failure.retry` or AWP `retry`): the delay after attempt k, capped; with
//!   `jitter` scaled by a factor in [0.5, 1) taken from a hash of (run id, scope path, k):
//!   deterministic, so a replay arms the same timer, yet runs with different ids spread out
//!   as jitter is meant to. A node without one retries at once. Delays are whole
//!   milliseconds, at most a year; a zero delay retries at once, with no timer.
//! - A retry whose backoff is over waits for a free slot (`max_parallel_nodes`) like a
//!   ready call; due retries start before new ready calls.
//! - Wait nodes: AWP `wait` with a duration (`duration_ms`, else `duration`) or an `until`
//!   time succeeds when its timer fires (an `until` already past: at once). Signal waits and
//!   agh watch sources still complete at once (AGC307 says so).
//! - Human timeouts: see [`State::arm_gate_timeout`], [`State::arm_human_timeout`] and, for
//!   checkpoints, `human_timeout`.

use super::RunId;
use super::timer_set::{HumanWait, MAX_DELAY_MS, OnTimeout, Pending, Purpose, Timer};
use super::{Command, State};
use crate::plan::{HumanMode, Node, Wait};
use crate::run::handler::{FailureClass, GateOutcome, GateResponse, HandlerError, Usage};
use crate::run::record::{AttemptStatus, HumanEvent, NodeStatus, RunStatus};
use serde_json::Map;

impl State {
    /// Every timer the run waits on, in id order (drivers use it after replaying a journal).
    pub fn pending_timers(&self) -> Vec<Timer> {
        self.timers
            .iter()
            .map(|(id, p)| self.timer_of(id, p))
            .collect()
    }

    /// What pending human timeout `id` bounds, named as a decision names it, and what it is:
    /// (`sign_off`, `"gate"`) or (`publish.pre_upload`, `"checkpoint"`). `None` for other
    /// timers.
    pub fn awaited_by(&self, id: u64) -> Option<(String, &'static str)> {
        let p = self.timers.get(id)?;
        if !matches!(p.purpose, Purpose::Human { .. }) {
            return None;
        }
        let run = &self.runs[p.run];
        Some(match run.human.as_ref().and_then(|h| h.ask.as_ref()) {
            Some(a) => (a.cp.name.clone(), "checkpoint"),
            None => (run.path.clone(), "gate"),
        })
    }

    fn timer_of(&self, id: u64, p: &Pending) -> Timer {
        Timer {
            id,
            path: self.runs[p.run].path.clone(),
            fire_at: p.fire_at.clone(),
            kind: p.purpose.kind(),
        }
    }

    /// Arms `r`'s timer, `delay_ms` after the current event.
    fn arm(&mut self, r: RunId, delay_ms: u64, purpose: Purpose) {
        self.disarm(r);
        let fire_at = after(&self.now, delay_ms.min(MAX_DELAY_MS));
        let id = self.timers.arm(r, fire_at, purpose);
        let timer = self.timers.get(id).map(|p| self.timer_of(id, p));
        self.out.extend(timer.map(Command::Timer));
    }

    /// Cancels `r`'s timer and forgets a due retry of it (the run ended or was answered).
    pub(super) fn disarm(&mut self, r: RunId) {
        if let Some(id) = self.timers.of_run(r) {
            self.timers.take(id);
            self.out.push(Command::CancelTimer { id });
        }
        let node = self.runs[r].node;
        self.timers.forget_due(node, r);
    }

    /// Cancels every timer (the run stopped).
    pub(super) fn disarm_all(&mut self) {
        let ids: Vec<u64> = self.timers.iter().map(|(id, _)| id).collect();
        for &id in &ids {
            self.timers.take(id);
        }
        // Timers armed earlier in this very step never reach the driver.
        self.out
            .retain(|c| !matches!(c, Command::Timer(t) if ids.contains(&t.id)));
        self.out
            .extend(ids.into_iter().map(|id| Command::CancelTimer { id }));
        self.timers.clear_due();
    }

    /// After a resume: the driver gets every pending timer again.
    pub(super) fn reissue_timers(&mut self) {
        let timers: Vec<Timer> = self
            .timers
            .iter()
            .map(|(id, p)| self.timer_of(id, p))
            .collect();
        self.out.extend(timers.into_iter().map(Command::Timer));
    }

    /// A timer fell due. Stale firings (cancelled or already fired timers) are ignored.
    pub(super) fn timer_fired(&mut self, id: u64, path: &str) {
        match self.timers.get(id) {
            Some(p) if self.runs[p.run].path == path => {}
            _ => return,
        }
        let Some(p) = self.timers.take(id) else {
            return;
        };
        let r = p.run;
        match p.purpose {
            Purpose::Backoff => {
                let node = self.runs[r].node;
                self.timers.push_due(node, r);
            }
            Purpose::Wait => {
                self.runs[r].outputs = Some(Map::new());
                self.terminate(r, NodeStatus::Succeeded);
            }
            Purpose::Human {
                wait,
                seconds,
                on_timeout,
            } => self.human_timed_out(r, &wait, seconds, on_timeout),
        }
    }

    /// A journal written before retries waited (agc before timers) starts the next attempt
    /// right after the failure: replayed, that backoff is over and the attempt is issued, so
    /// the journal's own events for it apply. (A driver only journals the calls the core
    /// issued, so this never happens outside such a replay.)
    pub(super) fn backoff_journaled_over(&mut self, r: RunId) {
        let Some(id) = self.timers.of_run(r) else {
            return;
        };
        if self
            .timers
            .get(id)
            .is_some_and(|p| matches!(p.purpose, Purpose::Backoff))
        {
            self.timers.take(id);
            self.new_attempt(r);
        }
    }

    /// A retry whose backoff is over, when a slot is free.
    pub(super) fn next_due_retry(&mut self) -> Option<RunId> {
        if !self.sched.slot_free() {
            return None;
        }
        self.timers.pop_due()
    }

    /// The failure ladder's retry: the next attempt of `r`, after its backoff.
    pub(super) fn retry_later(&mut self, r: RunId) {
        match self.backoff_ms(r) {
            0 => self.new_attempt(r),
            ms => self.arm(r, ms, Purpose::Backoff),
        }
    }

    /// The delay before the attempt after `r`'s current one (see the module docs).
    fn backoff_ms(&self, r: RunId) -> u64 {
        let run = &self.runs[r];
        let node = &self.plan.nodes[run.node];
        let k = run.attempt.max(1);
        let Some(backoff) = &node.retry.backoff else {
            return 0;
        };
        let factor = if backoff.jitter {
            0.5 + 0.5 * unit_hash(&self.run_id, &run.path, k)
        } else {
            1.0
        };
        let ms = backoff.base_ms(k) * factor;
        if ms.is_finite() {
            (ms.round() as u64).min(MAX_DELAY_MS)
        } else {
            MAX_DELAY_MS
        }
    }

    /// Starts wait node `r`: a timer when it has a duration or a time to wait for, else it
    /// succeeds at once.
    pub(super) fn start_wait(&mut self, r: RunId) {
        if self.signal_of(r).is_some() {
            // A signal wait asks its handler for the signal (`signals`).
            return self.new_attempt(r);
        }
        let node = &self.plan.nodes[self.runs[r].node];
        match wait_ms(node, &self.now) {
            Some(ms) if ms > 0 => self.arm(r, ms, Purpose::Wait),
            _ => {
                self.runs[r].outputs = Some(Map::new());
                self.terminate(r, NodeStatus::Succeeded);
            }
        }
    }

    /// Gate `r` awaits a human: arms its timeout. The gate's `timeout_seconds` (else
    /// `policy.default_human_timeout_seconds`) and `on_timeout` (else
    /// `policy.on_human_timeout`, default `hold`); see [`State::arm_human_timeout`].
    pub(super) fn arm_gate_timeout(&mut self, r: RunId) {
        let gate = self.plan.nodes[self.runs[r].node].gate.as_deref();
        let Some((seconds, on_timeout)) = self.timeout_or_policy(
            gate.and_then(|g| g.timeout_seconds),
            gate.and_then(|g| g.on_timeout),
        ) else {
            return;
        };
        let wait = HumanWait {
            stage: "gate".into(),
            mode: gate
                .map_or(HumanMode::Approve, |g| g.mode)
                .as_str()
                .to_string(),
        };
        self.arm_human_timeout(r, wait, seconds, on_timeout);
    }

    /// How long a human may take, and what then: `seconds` and `on` when given, each else
    /// the plan's `human_timeouts` (the policy's `default_human_timeout_seconds` /
    /// `on_human_timeout`, default `hold`). `None` when no time is set.
    pub(super) fn timeout_or_policy(
        &self,
        seconds: Option<f64>,
        on: Option<OnTimeout>,
    ) -> Option<(f64, OnTimeout)> {
        let defaults = &self.plan.human_timeouts;
        let seconds = seconds.or(defaults.seconds)?;
        let on_timeout = on.or(defaults.on_timeout).unwrap_or(OnTimeout::Hold);
        Some((seconds, on_timeout))
    }

    /// Bounds a human interaction of run `r` (which awaits the human) by `seconds`. When the
    /// timer fires before an answer, the record gets a human event `timed_out` at
    /// `wait.stage`, and `on_timeout` applies. For a gate:
    /// - `hold`: nothing is armed; the run waits for the human for ever;
    /// - `approve`: the gate is approved (its `decision` is `approved`);
    /// - `fail`: the attempt fails with class `timeout` (attempt status `timeout`), and the
    ///   failure ladder applies (a `retry_on` listing `timeout` asks again);
    /// - `escalate`: the node is marked escalated and fails (unless a failure edge or the
    ///   ladder absorbs it, the run fails).
    ///
    /// For a human checkpoint (or a ladder hand-off), the run's open question is what timed
    /// out and its own continuation applies (see `human_timeout`).
    ///
    /// Returns whether a timer was armed.
    pub(crate) fn arm_human_timeout(
        &mut self,
        r: RunId,
        wait: HumanWait,
        seconds: f64,
        on_timeout: OnTimeout,
    ) -> bool {
        if on_timeout == OnTimeout::Hold || !(seconds.is_finite() && seconds > 0.0) {
            return false;
        }
        let ms = (seconds * 1000.0).round() as u64;
        self.arm(
            r,
            ms,
            Purpose::Human {
                wait,
                seconds,
                on_timeout,
            },
        );
        true
    }

    fn human_timed_out(&mut self, r: RunId, wait: &HumanWait, seconds: f64, on: OnTimeout) {
        if self.runs[r].status != NodeStatus::AwaitingHuman {
            return;
        }
        if self.status == RunStatus::AwaitingHuman {
            self.status = RunStatus::Running;
            self.finished_at = None;
        }
        let note = format!("no answer within {seconds} s; on_timeout: {}", on.as_str());
        if self.asking(r) {
            return self.checkpoint_timed_out(r, on, seconds, note);
        }
        if on == OnTimeout::Approve {
            // The gate's own answer path, then its event says whose answer it was.
            self.gate_answered(
                r,
                GateResponse {
                    outcome: Some(GateOutcome::Approved),
                    outputs: Map::new(),
                    actor: None,
                    note: Some(note),
                },
            );
            if let Some(ev) = self.runs[r].human_events.last_mut() {
                ev.outcome = "timed_out".into();
            }
            return;
        }
        let now = self.now.clone();
        self.runs[r].human_events.push(HumanEvent {
            checkpoint_id: None,
            at_stage: wait.stage.clone(),
            mode: wait.mode.clone(),
            outcome: "timed_out".into(),
            actor: None,
            note: Some(note),
            at: Some(now),
        });
        let err = HandlerError::new(
            FailureClass::Timeout,
            format!("no human answer within {seconds} s"),
        );
        // The attempt that asked ends here; the run is no longer waiting for anyone.
        self.runs[r].status = NodeStatus::Running;
        if on == OnTimeout::Escalate {
            self.close_attempt(
                r,
                AttemptStatus::Timeout,
                &Usage::default(),
                Some(err.to_string()),
            );
            self.runs[r].escalated = true;
            self.terminate(r, NodeStatus::Failed);
        } else {
            self.attempt_failed(r, err, AttemptStatus::Timeout);
        }
    }
}

/// `at` (RFC 3339) plus `ms`; `at` itself when it is not a timestamp.
fn after(at: &str, ms: u64) -> String {
    let Ok(t) = at.parse::<jiff::Timestamp>() else {
        return at.to_string();
    };
    t.checked_add(jiff::SignedDuration::from_millis(ms as i64))
        .map_or_else(|_| at.to_string(), |t| t.to_string())
}

/// A number in [0, 1) from a hash of (run id, path, attempt): FNV-1a, 53 bits.
fn unit_hash(run_id: &str, path: &str, attempt: u32) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let bytes = run_id
        .bytes()
        .chain([0])
        .chain(path.bytes())
        .chain([0])
        .chain(attempt.to_le_bytes());
    for b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// A wait node's delay from `now`: AWP `wait` with a duration (its `ms`) or an `until`
/// time. `None` for waits without a time (signals, agh watch sources).
pub(crate) fn wait_ms(node: &Node, now: &str) -> Option<u64> {
    match node.wait.as_deref()? {
        Wait::Duration { ms } => *ms,
        Wait::Until { until } => {
            let until: jiff::Timestamp = until.as_deref()?.parse().ok()?;
            let Ok(now) = now.parse::<jiff::Timestamp>() else {
                return Some(0);
            };
            let ms = until.duration_since(now).as_millis().max(0);
            Some(u64::try_from(ms).unwrap_or(u64::MAX))
        }
        Wait::Signal { .. } => None,
    }
}

/// Whether a wait node waits for a time (and so is carried out by a timer).
pub(crate) fn is_timed_wait(node: &Node) -> bool {
    // Any valid time will do: only the kind and the value's shape matter here.
    wait_ms(node, "1970-01-01T00:00:00Z").is_some()
}

#[cfg(test)]
#[path = "timers_tests.rs"]
mod tests;
