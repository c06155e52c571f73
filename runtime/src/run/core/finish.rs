//! The end of a run, and evaluation outside any scope instance.

use super::{Command, State};
use crate::expr::Lang;
use crate::expr::eval::{Env, eval_with};
use crate::plan::Expr;
use crate::run::record::RunStatus;
use serde_json::{Map, Value};

impl State {
    /// Every root run is terminal: the run's status follows (AGS §17 termination):
    /// `failed` when a failure was not absorbed by a failure edge, `partial` when a node
    /// succeeded degraded, else `succeeded`.
    pub(super) fn finish_run(&mut self) {
        let root = &self.scopes[0];
        self.status = if root.failed {
            RunStatus::Failed
        } else if root.degraded {
            RunStatus::Partial
        } else {
            RunStatus::Succeeded
        };
        self.finished_at = Some(self.now.clone());
        self.out.push(Command::Finish {
            status: self.status,
        });
    }

    /// Evaluates `e` with only graph-level roots plus `vars` (no `nodes`): the first test of
    /// a `while` loop.
    pub(super) fn eval_detached(
        &self,
        vars: &Map<String, Value>,
        e: &Expr,
    ) -> Result<bool, String> {
        let Some(core) = &e.core else {
            return Err(format!("expression `{}` has no core form", e.source));
        };
        let mut roots = vars.clone();
        roots
            .entry("params")
            .or_insert_with(|| Value::Object(self.params.clone()));
        roots.insert("context".into(), Value::Object(self.context.clone()));
        roots.insert("nodes".into(), Value::Object(Map::new()));
        let env = Env::from_json(&roots).with_max_steps(super::env::MAX_STEPS);
        match eval_with(core, Lang::Agx, &env) {
            Ok(crate::value::Value::Bool(b)) => Ok(b),
            Ok(_) => Err(format!("`{}` is not a boolean", e.source)),
            Err(err) => Err(err.message),
        }
    }
}
