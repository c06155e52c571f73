//! Running plans: a pure scheduler core, an async driver, journals and run records.
//!
//! # Contract (stable; additions only)
//!
//! - [`Handler`]: the work behind a plan, async (each method returns a [`CallFuture`]). The
//!   driver calls `task`, `decision` or `gate` once per attempt with a [`CallContext`] (run id, node id, scope path, attempt, idempotency
//!   key, innermost map item and loop iteration, deadline) and the node's resolved inputs,
//!   checked against their declared types. Outputs are checked against the declared outputs;
//!   a wrong shape fails the attempt (`validation_error`).
//! - [`run`] starts a run of a plan with params; [`resume`] continues one from its journal
//!   (after a crash, or to supply gate decisions; [`resume_answering`] with outputs, an
//!   actor and a note). Both are async (await them on a tokio runtime with timers; a
//!   synchronous host blocks on [`tokio_runtime`]) and end when the run ends or pauses
//!   (`awaiting_human`), returning the [`RunRecord`]. Calls are tasks of the caller's
//!   runtime, as many in flight as the plan's limits allow (`max_parallel_nodes`, a map's
//!   `max_parallel`, constraints), whatever its thread count; a call past its deadline is
//!   cancelled (its future dropped) and fails its attempt with `timeout`. When the plan runs
//!   one call at a time (`max_parallel_nodes: 1`, AGS's default), a call without a deadline
//!   is awaited by the driver itself (same events, same record, no task).
//! - [`Journal`]: every [`Event`] is appended, and the batch flushed
//!   ([`Journal::flush`]), before any command that follows from it is issued. `resume` replays the journal through the core: completed nodes never run again;
//!   a call that was in flight is issued again with the same attempt number and idempotency
//!   key and `resumed: true`. A journal whose `graph_digest` differs from the plan's is
//!   refused ([`RunError::DigestMismatch`], AGS RT053).
//! - [`core::State::step`]: the pure core, `step(state, event) -> commands`, no I/O, no clock,
//!   no threads; time and ids arrive inside events. Same events, same state.
//! - [`Clock`] / [`IdSource`]: injected; [`FixedClock`] and [`FixedIds`] make records
//!   byte-identical across runs.
//! - Timers (retry backoff, timed waits, human timeouts): the core asks for them
//!   ([`core::Command::Timer`]) and learns they fell due from [`Event::TimerFired`]. A driver
//!   waits for them with a real clock (tokio timers, no thread sleeps) and jumps a virtual one ([`FixedClock`]) to them; it
//!   does not wait on a paused run's timeouts (see `docs/run.md`).

pub mod clock;
pub mod core;
mod dispatch;
pub mod driver;
pub mod event;
mod exec;
pub mod handler;
pub mod journal;
#[cfg(feature = "sqlite")]
pub mod journal_sqlite;
mod lines;
mod options;
pub mod record;
pub mod script;
pub mod timer_queue;

pub use clock::{Clock, FixedClock, FixedIds, IdSource, SystemClock, SystemIds};
pub use dispatch::dispatch;
pub use driver::{
    Observer, Progress, RunError, RunOptions, resume, resume_answering, run, tokio_runtime,
};
pub use event::{CallResult, Decision, Event, HumanAnswer};
pub use exec::bind_params;
pub use exec::strip_indices;
pub use handler::{
    CallContext, CallFuture, Checkpoint, Completion, FailureClass, GateOutcome, GateResponse,
    Handler, HandlerError, Usage, blocking,
};
pub use journal::{Journal, JournalError, JsonlJournal, MemoryJournal, NullJournal};
#[cfg(feature = "sqlite")]
pub use journal_sqlite::SqliteJournal;
pub use record::{NodeStatus, RunRecord, RunStatus};
pub use timer_queue::TimerQueue;
