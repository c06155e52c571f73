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
    ///
    /// A failed run compensates first (see `compensate`); the last compensation finishes it.
    ///
    /// The graph's declared outputs are bound first; a required one left unbound is `RT041`
    /// and makes a run that would have succeeded `partial`.
    pub(super) fn finish_run(&mut self) {
        let plan = std::sync::Arc::clone(&self.plan);
        // A failed run binds what it can but reports no unbound outputs: the failure says why.
        let (outputs, unbound) = if self.scopes[0].failed {
            let diags = self.diagnostics.len();
            let bound = self.bind_outputs(0, &plan.outputs);
            self.diagnostics.truncate(diags);
            bound
        } else {
            self.bind_outputs(0, &plan.outputs)
        };
        // Without declared outputs, what an end node mapped (AWP) stays the run's output.
        if !plan.outputs.is_empty() {
            self.outputs = outputs;
        }
        let root = &self.scopes[0];
        self.status = if root.failed {
            RunStatus::Failed
        } else if root.degraded || unbound {
            RunStatus::Partial
        } else {
            RunStatus::Succeeded
        };
        self.finished_at = Some(self.now.clone());
        if self.status == RunStatus::Failed && self.begin_compensation() {
            return;
        }
        self.out.push(Command::Finish {
            status: self.status,
        });
    }

    /// Binds declared outputs in scope instance `s`: (values, whether a required one is
    /// unbound). Unbound outputs are reported (`RT041`) and left out.
    pub(super) fn bind_outputs(
        &mut self,
        s: usize,
        decls: &[crate::plan::GraphOutput],
    ) -> (Map<String, Value>, bool) {
        let mut out = Map::new();
        let mut unbound = false;
        for o in decls {
            let v = match &o.from {
                Some(e) => self.eval(s, e, &super::env::Anchor::default()),
                None => Err("it has no `from`".to_string()),
            };
            match v {
                Ok(Value::Null) | Err(_) if o.required => {
                    let why = match v {
                        Err(e) => format!(": {e}"),
                        _ => String::new(),
                    };
                    self.diag(
                        "RT041",
                        "warning",
                        format!("required output `{}` is unbound{why}", o.name),
                        None,
                    );
                    unbound = true;
                }
                Ok(Value::Null) | Err(_) => {}
                Ok(v) => {
                    out.insert(o.name.clone(), v);
                }
            }
        }
        (out, unbound)
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
        roots.insert("nodes".into(), Value::Object(Map::new()));
        let env = Env::from_json(&roots)
            .with_shared(&self.graph_roots)
            .with_max_steps(super::env::MAX_STEPS);
        match eval_with(core, Lang::Agx, &env) {
            Ok(crate::value::Value::Bool(b)) => Ok(b),
            Ok(_) => Err(format!("`{}` is not a boolean", e.source)),
            Err(err) => Err(err.message),
        }
    }
}
