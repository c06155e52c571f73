//! Durable operations in flight (task calls, gate promises, timers' sleeps), and the order in
//! which the workflow consumes their results.
//!
//! The scheduler core must see results in the same order on every replay. Restate replays a
//! "first completed of several" by the futures' order, not by the order they completed, so
//! whenever more than one operation is outstanding the workflow journals its choice
//! (`ctx.run("next")`, the key of the result it consumes) and a replay follows the journal.
//! With a single outstanding operation (sequential plans, long loops) nothing extra is
//! journaled.

use crate::wire::{GateDecision, TaskAnswer};
use restate_sdk::context::DurableFuture;
use restate_sdk::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::pin::Pin;

/// What an operation delivered.
pub(crate) enum Outcome {
    Answer {
        path: String,
        attempt: u32,
        answer: TaskAnswer,
    },
    Decision {
        path: String,
        decision: GateDecision,
    },
    /// A durable sleep for a timer ended.
    Timer { id: u64 },
}

type Fut<'a> = Pin<Box<dyn DurableFuture<Output = Result<Outcome, TerminalError>> + Send + 'a>>;

/// The operations in flight.
pub(crate) struct InFlight<'a> {
    futures: DurableFuturesUnordered<Fut<'a>>,
    keys: HashMap<usize, String>,
    /// Results already completed but not yet consumed, by key.
    stash: BTreeMap<String, Result<Outcome, TerminalError>>,
    gates: BTreeSet<String>,
}

impl<'a> InFlight<'a> {
    pub(crate) fn new() -> InFlight<'a> {
        InFlight {
            futures: DurableFuturesUnordered::new(),
            keys: HashMap::new(),
            stash: BTreeMap::new(),
            gates: BTreeSet::new(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.futures.is_empty() && self.stash.is_empty()
    }

    pub(crate) fn has_gate(&self, path: &str) -> bool {
        self.gates.contains(path)
    }

    pub(crate) fn push_call(&mut self, path: &str, attempt: u32, fut: Fut<'a>) {
        let i = self.futures.push(fut);
        self.keys.insert(i, format!("call:{attempt}:{path}"));
    }

    pub(crate) fn push_timer(&mut self, id: u64, fut: Fut<'a>) {
        let i = self.futures.push(fut);
        self.keys.insert(i, format!("timer:{id}"));
    }

    /// Calls whose results are not yet consumed.
    pub(crate) fn calls(&self) -> usize {
        let call = |k: &String| k.starts_with("call:");
        self.keys.values().filter(|k| call(k)).count()
            + self.stash.keys().filter(|k| call(k)).count()
    }

    pub(crate) fn push_gate(&mut self, path: &str, fut: Fut<'a>) {
        let i = self.futures.push(fut);
        self.keys.insert(i, format!("gate:{path}"));
        self.gates.insert(path.to_string());
    }

    /// Pulls the next completed operation into the stash; returns its key.
    async fn pull(&mut self) -> Result<String, HandlerError> {
        match self.futures.next().await? {
            Some((i, out)) => {
                let key = self.keys.remove(&i).unwrap_or_default();
                self.stash.insert(key.clone(), out);
                Ok(key)
            }
            None => Err(TerminalError::new(
                "the journal names a result this run never waited for (the plan or the worker changed under a running workflow)",
            )
            .into()),
        }
    }

    /// The next result to feed the core, in an order a replay reproduces.
    pub(crate) async fn next(
        &mut self,
        ctx: &WorkflowContext<'_>,
    ) -> Result<Result<Outcome, TerminalError>, HandlerError> {
        let outstanding = self.futures.len() + self.stash.len();
        let candidate = match self.stash.keys().next() {
            Some(k) => k.clone(),
            None => self.pull().await?,
        };
        let chosen = if outstanding > 1 {
            ctx.run(move || async move { Ok(candidate) })
                .name("next")
                .await?
        } else {
            candidate
        };
        while !self.stash.contains_key(&chosen) {
            self.pull().await?;
        }
        if let Some(path) = chosen.strip_prefix("gate:") {
            self.gates.remove(path);
        }
        Ok(self.stash.remove(&chosen).expect("checked above"))
    }
}
