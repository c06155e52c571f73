//! Evaluation limits met in a run, and how a replay reads them (issue 47).
//!
//! The core is deterministic, so replaying a journal makes the same jq evaluations in the
//! same order, each counted from the run's start (`State::jq_seq`): except that whether an
//! evaluation meets a limit (AGC043) depends on more than the journal. The time limit depends
//! on the machine's speed and load, and every limit on the limits given at resume
//! (`agc run --resume --eval-…`). A limit met decides the run's path (the node's attempt
//! fails with `budget_exceeded`, its retries and failure edges follow), so a replay must not
//! decide it again:
//!
//! - A limit met is journaled ([`Event::LimitMet`], with the evaluation's number and its
//!   message) right after the event whose handling met it, before any command that follows
//!   from that event is carried out.
//! - A replay ([`State::replay_limits`]) reads those first. An evaluation the journal says met
//!   a limit fails again with the journaled message, without being evaluated; any other runs
//!   under ten times the time limit (`REPLAY_TIME_FACTOR`): it finished within the limit
//!   when the run was live. One that meets a limit all the same (a run resumed on a far slower
//!   machine or with lower limits, or one whose line was lost to a crash between the
//!   evaluation and its journaling, where nothing had followed from it yet) fails, and its
//!   line is journaled when the replay ends.
//! - After the replay ([`State::replay_done`]) evaluations run under the run's limits again.
//!
//! The Restate workflow has no journal of agc's to read before a replay: it makes each step of
//! a plan that evaluates jq a Restate side effect whose journaled result is the limits the
//! step met ([`State::take_limits_met`]), and replays that step with them as its replay
//! ([`State::replay_limits`], then [`State::replay_done`]): `restate/src/limits.rs`.

use super::State;
use crate::run::event::Event;
use std::collections::HashMap;
use std::sync::Arc;

/// How much longer than its time limit an evaluation may take in a replay.
#[cfg(feature = "awp")]
pub const REPLAY_TIME_FACTOR: u32 = 10;

impl State {
    /// The number of the jq evaluation about to be made, and the message of the limit it
    /// met when a replayed journal says it met one.
    pub(super) fn next_evaluation(&self) -> (u64, Option<String>) {
        let seq = self.jq_seq.get();
        self.jq_seq.set(seq + 1);
        let met = self.replay.as_ref().and_then(|r| r.get(&seq).cloned());
        (seq, met)
    }

    /// Whether a journal is being replayed (evaluations run with more time).
    #[cfg(feature = "awp")]
    pub(super) fn replaying(&self) -> bool {
        self.replay.is_some()
    }

    /// Notes that evaluation `seq` met a limit (`message` ends in AGC043); `time`: the time
    /// limit. Journaled after the step ([`State::take_limits_met`]).
    #[cfg(feature = "awp")]
    pub(super) fn limit_met(&self, seq: u64, message: &str, time: bool) {
        self.limits_met
            .borrow_mut()
            .push((seq, message.to_string(), time));
    }

    /// The limits met since the last call, as the events that journal them (a driver
    /// appends them after the event it just stepped).
    pub fn take_limits_met(&mut self) -> Vec<Event> {
        // Asked after every event; nearly always none (and then no copy of the time).
        if self.limits_met.get_mut().is_empty() {
            return Vec::new();
        }
        let at = self.now.clone();
        self.limits_met
            .get_mut()
            .drain(..)
            .map(|(seq, message, time)| Event::LimitMet {
                seq,
                message,
                time,
                at: at.clone(),
            })
            .collect()
    }

    /// Starts a replay of `events` (a journal, read whole before stepping it): the limits
    /// its evaluations met are read from it, not met again.
    pub fn replay_limits(&mut self, events: &[Event]) {
        let met: HashMap<u64, String> = events
            .iter()
            .filter_map(|e| match e {
                Event::LimitMet { seq, message, .. } => Some((*seq, message.clone())),
                _ => None,
            })
            .collect();
        self.replay = Some(Arc::new(met));
    }

    /// Ends the replay: evaluations run under the run's limits again.
    pub fn replay_done(&mut self) {
        self.replay = None;
    }
}
