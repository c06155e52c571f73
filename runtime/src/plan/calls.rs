//! Which nodes a run asks a handler about, and which it runs itself: the one answer the
//! scheduler and generated runners share (a generated `Handlers` trait has a method for each
//! node [`Plan::handler_call`] names, and for no other).

use super::{Decisions, Evaluator, Node, NodeKind, Plan, Wait};

/// What a run asks a handler for at a node ([`crate::run::Handler`]'s methods).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandlerCall {
    /// `task`: a task or an external call.
    Task,
    /// `decision`: a decision its handler decides (AGS `evaluator: agent`, or none given).
    Decision,
    /// `gate`: a human's approval, review or input.
    Gate,
    /// `signal`: an AWP signal wait (pending unless answered).
    Signal,
}

impl Node {
    /// Whether this decision picks its branch by its own expressions (AGS `evaluator:
    /// expression`): the runtime evaluates them, no handler is called.
    pub fn decides_by_expression(&self) -> bool {
        self.decision
            .as_ref()
            .is_some_and(|d| d.evaluator == Evaluator::Expression)
    }

    /// The signal an AWP signal wait waits for (its `wait`'s `signal`).
    pub fn signal(&self) -> Option<&str> {
        match self.wait.as_deref() {
            Some(Wait::Signal { signal }) => signal.as_deref(),
            _ => None,
        }
    }
}

impl Plan {
    /// What a run asks a handler for at `node`, or `None` when the runtime runs it by itself
    /// (loops, maps, subgraphs, forks, joins, terminals, state updates, timed waits, decisions
    /// by expression, by switch cases or by edge conditions).
    pub fn handler_call(&self, node: &Node) -> Option<HandlerCall> {
        match node.kind {
            NodeKind::Task | NodeKind::External => Some(HandlerCall::Task),
            NodeKind::Decision
                if self.semantics.decisions == Decisions::Handler
                    && !node.decides_by_expression() =>
            {
                Some(HandlerCall::Decision)
            }
            NodeKind::Gate => Some(HandlerCall::Gate),
            NodeKind::Wait if node.signal().is_some() => Some(HandlerCall::Signal),
            _ => None,
        }
    }
}
