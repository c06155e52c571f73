//! What other dialects need beyond AGS's model: AWP's shared state (read by jq), Agent
//! Graph's fact store (read by fact checks).
//!
//! - **AWP state.** The run's state starts as the params (the initial state). When a node
//!   succeeds, each of its outputs is merged into the state by the property's reducer
//!   (`attrs.reducers`: `overwrite` by default, `append` appends to an array, `merge` merges
//!   objects recursively); a `set_state` node's outputs are its assignments, an `end` node's its
//!   `output` mapping, which also becomes the run's output. jq expressions (guards, switch
//!   cases, input mappings) run on the state, and their results follow AWP's rules: no
//!   output is `null`, several outputs are the array of them, and `null` is a value (an
//!   assignment or mapping to `null` sets `null`); a guard holds when the result is neither
//!   `false` nor `null` (jq's truth), so `empty` fails it and several outputs pass it.
//! - **jq limits.** jq runs on its own thread under the run's limits (`State::eval_limits`
//!   over [`crate::jq::Limits::RUN`]: recursion, value depth, memory and time, checked as it
//!   runs: `crate::jq::meter`); a limit met is journaled and read back on replay (`limits`);
//!   an exceeded limit
//!   fails the evaluation (AGC043 in the message) like any jq error, and never the process.
//!   Past the time limit and a grace the thread is abandoned, in case one native operation
//!   runs long.
//! - **Agent Graph facts.** The fact store starts as the params' `facts` object (empty when
//!   absent); a node that succeeds with a `facts` object output merges it in (shallowly). A
//!   fact check (`requiresFacts`, lowered to `path exists`, `path missing`, `path == value`
//!   joined by `&&`) holds when every part does, by the reference evaluator's rules
//!   (`crate::facts`).

use super::RunId;
use super::State;
use crate::plan::{JqOutputs, NodeKind, Reducer, StateModel, StateUpdates, SubgraphSource};

#[path = "transform.rs"]
mod transform;
use serde_json::{Map, Value};

impl State {
    /// AGC307 at the start of the run for every construct the runtime does not carry out:
    /// `wait` nodes without a time or a signal (agh watch sources: they complete at once;
    /// timed waits are timers, see `timers`; signal waits, see `signals`), agh `transform`
    /// nodes of a plan lowered before their map became inputs (`transform.rs`), and
    /// subgraph instances whose graph the plan does not hold (AWP `subworkflow` references
    /// resolved by the host at run time: the instance evaluates its params and has no body).
    pub(super) fn note_unrun_constructs(&mut self) {
        let plan = std::sync::Arc::clone(&self.plan);
        for (i, n) in plan.nodes.iter().enumerate() {
            let why = match n.kind {
                crate::plan::NodeKind::Wait
                    if !super::timers::is_timed_wait(n) && n.signal().is_none() =>
                {
                    Some(format!(
                    "`{}` is a wait node without a time or a signal to wait for (a source to watch): agc-runtime completes it at once",
                    n.id
                ))
                }
                crate::plan::NodeKind::StateUpdate
                    if plan.semantics.state_updates != StateUpdates::Assignments
                        && n.produces.is_none() =>
                {
                    Some(format!(
                        "`{}` is a {} node whose mapping this plan does not hold in the form agc-runtime evaluates (a plan written by an older agc; rebuild it): it succeeds with no outputs",
                        n.id, n.origin_kind
                    ))
                }
                crate::plan::NodeKind::Subgraph => self
                    .idx
                    .region_of_owner
                    .get(&i)
                    .map(|&r| &plan.regions[r])
                    .filter(|r| r.nodes.is_empty())
                    .and_then(|r| match &r.kind {
                        crate::plan::RegionKind::Subgraph {
                            source: SubgraphSource::Ref(uri),
                            ..
                        } => Some(format!(
                            "`{}` runs `{uri}`, which the plan does not hold: its instance has no body and no outputs",
                            n.id
                        )),
                        _ => None,
                    }),
                _ => None,
            };
            if let Some(message) = why {
                self.diag("AGC307", "warning", message, None);
            }
        }
    }

    /// Starts the dialect state (at `Started`).
    pub(super) fn init_dialect_state(&mut self) {
        match self.plan.semantics.state {
            StateModel::Workflow { .. } => {
                self.dialect_state = Some(self.params().clone());
                self.compile_state_schema();
            }
            StateModel::Facts => {
                let facts = match self.params().get("facts") {
                    Some(Value::Object(m)) => m.clone(),
                    _ => Map::new(),
                };
                self.dialect_state = Some(facts);
            }
            StateModel::None => {}
        }
    }

    /// AWP: compiles the plan's `state_schema` (a plan written by an older agc has none:
    /// the state is then not validated); a schema that does not compile is a warning
    /// (AGC328).
    fn compile_state_schema(&mut self) {
        let Some(schema) = &self.plan.state_schema else {
            return;
        };
        match jsonschema::validator_for(schema) {
            Ok(v) => self.state_validator = Some(std::sync::Arc::new(v)),
            Err(e) => self.diag(
                "AGC328",
                "warning",
                format!("the state schema is not usable ({e}): the state is not validated"),
                None,
            ),
        }
    }

    /// A node succeeded with `outputs`: AWP reduces them into the state (an `end` node
    /// changes nothing: its mapping is the run's output), Agent Graph merges its `facts`.
    /// AWP's state must then fit the state schema (upstream "State invalid after …"): when
    /// it does not, the state stays as it was and the error is returned.
    pub(super) fn absorb_outputs(&mut self, r: RunId) -> Result<(), String> {
        let Some(outputs) = self.runs[r].outputs.clone() else {
            return Ok(());
        };
        let plan = std::sync::Arc::clone(&self.plan);
        // An interrupt's resume payload overwrites (see `signals`); other outputs reduce.
        let overwrite = self.resume_overwrites(r);
        let node = &self.plan.nodes[self.runs[r].node];
        let (id, terminal) = (node.local_id.clone(), node.kind == NodeKind::Terminal);
        let validator = self.state_validator.clone();
        let Some(state) = self.dialect_state.as_mut() else {
            return Ok(());
        };
        match &plan.semantics.state {
            StateModel::Workflow { .. } if terminal => {}
            StateModel::Workflow { .. } => {
                let mut next = state.clone();
                for (k, v) in outputs {
                    let reducer = match overwrite {
                        true => Reducer::Overwrite,
                        false => plan.semantics.state.reducer(&k),
                    };
                    reduce(&mut next, k, v, reducer);
                }
                let next = Value::Object(next);
                if let Some(err) = validator.as_ref().and_then(|v| v.iter_errors(&next).next()) {
                    let at = err.instance_path().to_string();
                    let at = if at.is_empty() { "/".into() } else { at };
                    return Err(format!(
                        "the state after `{id}` does not fit the state schema: at {at}: {err}"
                    ));
                }
                if let Value::Object(next) = next {
                    *state = next;
                }
            }
            StateModel::Facts => {
                if let Some(Value::Object(f)) = outputs.get("facts") {
                    for (k, v) in f {
                        state.insert(k.clone(), v.clone());
                    }
                }
            }
            StateModel::None => {}
        }
        Ok(())
    }

    /// Runs a jq program on the AWP state. Its result follows AWP's conventions (jq-wasm's
    /// `json()`): no output gives `null`, one output that value, several outputs the array of
    /// them. (Other dialects, should they run jq, get the first output, `null` when none.)
    pub(super) fn eval_jq(&self, source: &str) -> Result<Value, String> {
        let collected = self.plan.semantics.jq_outputs == JqOutputs::Collected;
        self.jq_outputs(source).map(|outs| match outs.len() {
            _ if !collected => outs.into_iter().next().unwrap_or(Value::Null),
            0 => Value::Null,
            1 => outs.into_iter().next().unwrap_or(Value::Null),
            _ => Value::Array(outs),
        })
    }

    /// Without the `awp` feature there is no jq: the plan is refused before it starts
    /// ([`crate::plan::Plan::runtime_features`]), so this is reached only by a plan that
    /// slipped past that check.
    #[cfg(not(feature = "awp"))]
    fn jq_outputs(&self, source: &str) -> Result<Vec<Value>, String> {
        let _ = self.next_evaluation();
        Err(format!(
            "jq `{source}`: agc-runtime was built without its feature `awp` (jq)"
        ))
    }

    /// Runs a jq program on the AWP state: all its outputs. A limit met is noted for the
    /// journal, and a replay reads it from there instead of evaluating (`limits`).
    #[cfg(feature = "awp")]
    fn jq_outputs(&self, source: &str) -> Result<Vec<Value>, String> {
        let (seq, met) = self.next_evaluation();
        if let Some(message) = met {
            return Err(message);
        }
        let mut limits = self.eval_limits.apply(crate::jq::Limits::RUN);
        if self.replaying() {
            limits.time *= super::limits::REPLAY_TIME_FACTOR;
        }
        let outcome = self.jq_limited(source, limits);
        if let Err((message, Some(time))) = &outcome {
            self.limit_met(seq, message, *time);
        }
        outcome.map_err(|(message, _)| message)
    }

    /// Runs a jq program on the AWP state under `limits`, on a thread of its own: its
    /// outputs, or why not, with whether a limit was met (`Some(true)`: the time limit).
    #[cfg(feature = "awp")]
    fn jq_limited(
        &self,
        source: &str,
        limits: crate::jq::Limits,
    ) -> Result<Vec<Value>, (String, Option<bool>)> {
        let input = Value::Object(self.dialect_state.clone().unwrap_or_default());
        let program = format!("{}{source}", host_prelude(&self.now));
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("agc-jq".into())
            .stack_size(crate::jq::meter::thread_stack(&limits))
            .spawn(move || {
                let _ = tx.send(
                    crate::jq::JqFilter::compile(&program)
                        .and_then(|f| f.run_limited(&input, limits)),
                );
            })
            .map_err(|e| (format!("cannot start jq: {e}"), None))?;
        let grace = limits.time + limits.time / 2 + std::time::Duration::from_secs(1);
        match rx.recv_timeout(grace) {
            Ok(Ok(outs)) => Ok(outs),
            Ok(Err(crate::jq::JqError::Limit(e))) => {
                let time = matches!(e, crate::jq::Exceeded::Time(_));
                let e = crate::jq::JqError::Limit(e);
                Err((
                    format!("jq `{source}`: {e}{}", super::env::LIMIT),
                    Some(time),
                ))
            }
            Ok(Err(e)) => Err((format!("jq `{source}`: {e}"), None)),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err((
                format!(
                    "jq `{source}` ran past {} s and was abandoned{}",
                    grace.as_secs_f64(),
                    super::env::LIMIT
                ),
                Some(true),
            )),
            Err(_) => Err((format!("jq `{source}` stopped without a result"), None)),
        }
    }

    /// Evaluates a fact check against the fact store.
    pub(super) fn eval_facts(&self, source: &str) -> Result<bool, String> {
        let facts = Value::Object(self.dialect_state.clone().unwrap_or_default());
        for (path, test) in crate::facts::parse_check(source)? {
            if !crate::facts::check_fact(path, &test, &facts) {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Merges `v` into `state[k]` by `reducer`, as AWP's `applyOutputWithReducers` does:
/// `append` treats a missing or non-array value as `[]` and concatenates an array or pushes
/// any other value; `merge` treats a missing or non-object value as `{}`, merges an object
/// into it recursively ([`deep_merge`]) and ignores any other value; anything else
/// (`overwrite`) replaces.
fn reduce(state: &mut Map<String, Value>, k: String, v: Value, reducer: Reducer) {
    match reducer {
        Reducer::Append => {
            let slot = state.entry(k).or_insert(Value::Null);
            if !slot.is_array() {
                *slot = Value::Array(Vec::new());
            }
            if let Value::Array(have) = slot {
                match v {
                    Value::Array(more) => have.extend(more),
                    one => have.push(one),
                }
            }
        }
        Reducer::Merge => {
            let slot = state.entry(k).or_insert(Value::Null);
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            if let (Value::Object(have), Value::Object(more)) = (slot, v) {
                deep_merge(have, more);
            }
        }
        Reducer::Overwrite => {
            state.insert(k, v);
        }
    }
}

/// Merges `more` into `have`: where both hold an object under a key, recursively; otherwise
/// `more`'s value replaces (arrays and scalars are not combined).
fn deep_merge(have: &mut Map<String, Value>, more: Map<String, Value>) {
    for (k, v) in more {
        match (have.get_mut(&k), v) {
            (Some(Value::Object(inner)), Value::Object(v)) => deep_merge(inner, v),
            (_, v) => {
                have.insert(k, v);
            }
        }
    }
}

/// What a run's jq reads of its host, fixed (AGC064): definitions put before every program a
/// run evaluates, which the program's own shadow. A replay evaluates the program again (a
/// resumed local run, and Restate at every replay, on whichever worker), so nothing it reads
/// may depend on the moment or the machine: `now` is the time of the event the run is
/// handling (journaled, and the fixed clock's under `--fixed-clock`), `env` is empty, and
/// `localtime` and `strflocaltime` are UTC's `gmtime` and `strftime`.
#[cfg(feature = "awp")]
fn host_prelude(now: &str) -> String {
    let seconds = now.parse::<jiff::Timestamp>().map_or(0.0, |t| {
        t.as_second() as f64 + f64::from(t.subsec_nanosecond()) / 1e9
    });
    format!(
        "def now: {seconds:?}; def env: {{}}; def localtime: gmtime; \
         def strflocaltime($f): strftime($f); "
    )
}

#[cfg(test)]
mod tests {
    use super::reduce;
    use crate::plan::Reducer;
    use serde_json::{Map, json};

    #[test]
    fn reducers_overwrite_append_and_merge() {
        let mut s = Map::new();
        reduce(&mut s, "a".into(), json!([1]), Reducer::Append);
        reduce(&mut s, "a".into(), json!([2, 3]), Reducer::Append);
        reduce(&mut s, "m".into(), json!({"x": 1}), Reducer::Merge);
        reduce(&mut s, "m".into(), json!({"y": 2}), Reducer::Merge);
        reduce(&mut s, "o".into(), json!(1), Reducer::Overwrite);
        reduce(&mut s, "o".into(), json!(2), Reducer::Overwrite);
        assert_eq!(
            serde_json::Value::Object(s),
            json!({"a": [1, 2, 3], "m": {"x": 1, "y": 2}, "o": 2})
        );
    }

    /// A run's jq reads the time of the event it handles and nothing of its host, so a replay
    /// on any machine at any moment evaluates it the same (the host's `now` is today's time,
    /// its `env` holds PATH); a program's own `def now` still wins.
    #[cfg(feature = "awp")]
    #[test]
    fn a_runs_jq_reads_the_events_time_and_nothing_of_its_host() {
        let prelude = super::host_prelude("2026-01-01T00:00:00.250000Z");
        let run = |p: &str| crate::jq::run_jq(&format!("{prelude}{p}"), json!(null)).unwrap();
        assert_eq!(run("now"), vec![json!(1767225600.25)]);
        assert_eq!(run("env"), vec![json!({})]);
        assert_eq!(run("now | localtime | mktime"), vec![json!(1767225600.25)]);
        assert_eq!(
            run("now | strflocaltime(\"%H:%M %Z\")"),
            vec![json!("00:00 UTC")]
        );
        assert_eq!(run("def now: 1; now"), vec![json!(1)]);
    }

    /// `append` on a missing or non-array value starts from `[]` (upstream's rule), so a
    /// scalar is appended, not assigned.
    #[test]
    fn append_starts_from_an_empty_array() {
        let mut s = Map::new();
        reduce(&mut s, "a".into(), json!("first"), Reducer::Append);
        reduce(&mut s, "a".into(), json!("second"), Reducer::Append);
        s.insert("b".into(), json!("was a string"));
        reduce(&mut s, "b".into(), json!([1, 2]), Reducer::Append);
        reduce(&mut s, "b".into(), json!(null), Reducer::Append);
        assert_eq!(
            serde_json::Value::Object(s),
            json!({"a": ["first", "second"], "b": [1, 2, null]})
        );
    }

    /// `merge` merges objects recursively; arrays and scalars inside are replaced; a value
    /// that is not an object merges nothing.
    #[test]
    fn merge_is_deep() {
        let mut s = Map::new();
        reduce(
            &mut s,
            "m".into(),
            json!({"x": {"p": 1, "l": [1]}}),
            Reducer::Merge,
        );
        reduce(
            &mut s,
            "m".into(),
            json!({"x": {"q": 2, "l": [2]}, "y": 3}),
            Reducer::Merge,
        );
        reduce(&mut s, "m".into(), json!("not an object"), Reducer::Merge);
        s.insert("n".into(), json!(5));
        reduce(&mut s, "n".into(), json!({"z": {"w": 1}}), Reducer::Merge);
        assert_eq!(
            serde_json::Value::Object(s),
            json!({"m": {"x": {"p": 1, "q": 2, "l": [2]}, "y": 3}, "n": {"z": {"w": 1}}})
        );
    }
}
