//! Loops, maps and subgraph instances: starting scope instances and finishing them.
//!
//! Region options the plan's region entry does not model are the owner node's typed `body`
//! (decided by the AGS lowering): `on_max_iterations`, `on_over_limit`, and `params` (the
//! body's declared params, whose `default`s apply).
//!
//! Body params: a body that declares params sees only those (values from `carry`, then the
//! owner's inputs of the same name, then the declared default); a body that declares none
//! sees the graph's params (AGS: fragments are sealed; the reference validator falls back to
//! the graph's params).
//!
//! Decision (AGS leaves it open, research note §7.9): the first `while` test sees no body
//! nodes; a condition that reads body nodes therefore lets the first iteration run, and one
//! that reads only outer names (params, context, `loop`) is evaluated as written.

use super::RunId;
use super::State;
use super::env::Anchor;
use crate::plan::{Body, LoopMode, OnItemFailure, OnMaxIterations, OnOverLimit, RegionKind};
use crate::run::record::NodeStatus;
use serde_json::{Map, Value};
use std::sync::Arc;

impl State {
    fn region_of(&self, r: RunId) -> usize {
        self.idx.region_of_owner[&self.runs[r].node]
    }

    /// The body options of run `r`'s node (its defaults when it has none).
    fn body_of(&self, r: RunId) -> &Body {
        static NONE: Body = Body {
            params: Vec::new(),
            on_max_iterations: None,
            on_over_limit: None,
            batch_size: None,
        };
        self.plan.nodes[self.runs[r].node]
            .body
            .as_deref()
            .unwrap_or(&NONE)
    }

    /// The `params` root of a new body instance of run `r`, when its body declares its own;
    /// `None`: the body reads the graph's params, shared (see [`State::graph_roots`]), never
    /// a copy per iteration or item (issue 48: a map over `params.items` was quadratic).
    fn body_params(&self, r: RunId, carry: &Map<String, Value>) -> Option<Value> {
        let decl = &self.body_of(r).params;
        if decl.is_empty() {
            return None;
        }
        let inputs = self.runs[r].inputs.as_ref();
        let mut p = Map::new();
        for param in decl {
            let name = &param.name;
            let v = carry
                .get(name)
                .or_else(|| inputs.and_then(|i| i.get(name)))
                .cloned()
                .or_else(|| param.default.clone());
            if let Some(v) = v {
                p.insert(name.clone(), v);
            }
        }
        Some(Value::Object(p))
    }

    pub(super) fn start_loop(&mut self, r: RunId) {
        self.runs[r].container = Some(Box::default());
        self.runs[r].iterations = Some(0);
        self.next_iteration(r);
    }

    /// Starts iteration `next` of loop run `r`, or finishes the loop.
    pub(super) fn next_iteration(&mut self, r: RunId) {
        let region = self.region_of(r);
        let plan = Arc::clone(&self.plan);
        let RegionKind::Loop {
            mode,
            condition,
            max_iterations,
            ..
        } = &plan.regions[region].kind
        else {
            return;
        };
        let c = self.runs[r].container.as_ref().expect("loop state");
        let i = c.next;
        if *mode == LoopMode::While
            && let Some(cond) = condition
        {
            let go = match c.scopes.last() {
                Some(&last) => self.eval_bool(last, cond, &Anchor::default()),
                None => {
                    // The first test: the body has not run, so a condition that reads its
                    // nodes cannot be judged yet and the first iteration runs; one that reads
                    // only outer names (params, context, loop) is evaluated.
                    let mut names = Vec::new();
                    if let Some(core) = &cond.core {
                        super::env::node_refs(core, &mut names);
                    }
                    if names.is_empty() {
                        let vars = self.loop_vars(r, i, None);
                        self.eval_detached(&vars, cond)
                    } else {
                        Ok(true)
                    }
                }
            };
            match go {
                Ok(true) => {}
                Ok(false) => return self.finish_loop(r, NodeStatus::Succeeded),
                Err(e) => {
                    self.loop_condition_failed(r, &e);
                    return self.finish_loop(r, NodeStatus::Failed);
                }
            }
        }
        if i as u32 >= *max_iterations {
            return self.loop_cap(r, *max_iterations);
        }
        let previous = c.previous.clone();
        let vars = self.loop_vars(r, i, previous);
        let prefix = format!("{}[{i}].", self.runs[r].path);
        let s_next = self.scopes.len();
        let c = self.runs[r].container.as_mut().expect("loop state");
        c.next += 1;
        c.scopes.push(s_next);
        self.new_scope(region + 1, Some(r), prefix, vars, None, Some(i as u64));
    }

    /// The roots of iteration `i`: `params` and `loop`.
    fn loop_vars(
        &self,
        r: RunId,
        i: usize,
        previous: Option<Map<String, Value>>,
    ) -> Map<String, Value> {
        let carry = self.runs[r]
            .container
            .as_ref()
            .map(|c| c.carry.clone())
            .unwrap_or_default();
        let mut vars = Map::new();
        if let Some(p) = self.body_params(r, &carry) {
            vars.insert("params".into(), p);
        }
        let mut l = Map::new();
        l.insert("index".into(), Value::from(i as u64));
        l.insert("iteration".into(), Value::from(i as u64 + 1));
        if let Some(p) = previous {
            l.insert("previous".into(), Value::Object(p));
        }
        vars.insert("loop".into(), Value::Object(l));
        vars
    }

    /// The loop hit `max_iterations` without its condition ending it.
    fn loop_cap(&mut self, r: RunId, max: u32) {
        let what = self
            .body_of(r)
            .on_max_iterations
            .unwrap_or(OnMaxIterations::Fail);
        let mode = match &self.plan.regions[self.region_of(r)].kind {
            RegionKind::Loop { mode, .. } => *mode,
            _ => LoopMode::Repeat,
        };
        if mode == LoopMode::Repeat {
            return self.finish_loop(r, NodeStatus::Succeeded);
        }
        let sev = if what == OnMaxIterations::Succeed {
            "warning"
        } else {
            "error"
        };
        self.diag(
            "RT021",
            sev,
            format!(
                "the loop reached max_iterations ({max}); on_max_iterations is `{}`",
                what.as_str()
            ),
            Some(r),
        );
        match what {
            OnMaxIterations::Succeed => self.finish_loop(r, NodeStatus::Succeeded),
            // The loop's escalation decides (`failure.escalation`, else a human), with the
            // collected outputs standing (ladder.rs).
            OnMaxIterations::Escalate => {
                let outputs = self.runs[r]
                    .container
                    .as_ref()
                    .and_then(|c| c.previous.clone())
                    .unwrap_or_default();
                let why = format!("the loop reached max_iterations ({max})");
                self.escalate_stuck(r, why, outputs);
            }
            OnMaxIterations::Fail => self.finish_loop(r, NodeStatus::Failed),
        }
    }

    /// Ends loop run `r`: outputs from `collect` over the last iteration.
    pub(super) fn finish_loop(&mut self, r: RunId, status: NodeStatus) {
        let outputs = self.runs[r]
            .container
            .as_ref()
            .and_then(|c| c.previous.clone())
            .unwrap_or_default();
        self.runs[r].outputs = Some(outputs);
        self.terminate(r, status);
    }

    /// Evaluates `collect` in scope `s` (errors become null, with a warning).
    fn collect(
        &mut self,
        owner: RunId,
        s: usize,
        collect: &crate::plan::Exprs,
    ) -> Map<String, Value> {
        let mut out = Map::new();
        for (name, e) in collect {
            let v = match self.eval(s, e, &Anchor::default()) {
                Ok(v) => v,
                Err(err) => {
                    self.expression_failed(
                        Some(owner),
                        &format!("collect `{name}` failed"),
                        "is null",
                        &err,
                    );
                    Value::Null
                }
            };
            out.insert(name.clone(), v);
        }
        out
    }

    /// An iteration scope `s` of loop run `r` finished.
    fn iteration_done(&mut self, r: RunId, s: usize) {
        let plan = Arc::clone(&self.plan);
        let RegionKind::Loop {
            mode,
            condition,
            carry,
            collect,
            ..
        } = &plan.regions[self.region_of(r)].kind
        else {
            return;
        };
        let collected = self.collect(r, s, collect);
        let mut carried = Map::new();
        for (out, param) in carry {
            let found = self.scope_runs(s).rev().find_map(|x| {
                self.runs[x]
                    .outputs
                    .as_ref()
                    .and_then(|o| o.get(out))
                    .cloned()
            });
            if let Some(v) = found {
                carried.insert(param.clone(), v);
            }
        }
        let c = self.runs[r].container.as_mut().expect("loop state");
        c.previous = Some(collected);
        c.carry = carried;
        let done = c.scopes.len() as u64;
        self.runs[r].iterations = Some(done);
        if self.is_generations(r) {
            // An agh Loop's generations end by agh's rules (see `agh`).
            return self.generation_done(r, s, done);
        }
        if self.scopes[s].failed {
            return self.finish_loop(r, NodeStatus::Failed);
        }
        if self.scopes[s].degraded {
            self.runs[r].degraded = true;
        }
        if *mode == LoopMode::Until
            && let Some(cond) = condition
        {
            match self.eval_bool(s, cond, &Anchor::default()) {
                Ok(true) => return self.finish_loop(r, NodeStatus::Succeeded),
                Ok(false) => {}
                Err(e) => {
                    self.loop_condition_failed(r, &e);
                    return self.finish_loop(r, NodeStatus::Failed);
                }
            }
        }
        self.next_iteration(r);
    }

    /// The runs of scope instance `s`, in scope-node order.
    pub(super) fn scope_runs(
        &self,
        s: usize,
    ) -> impl DoubleEndedIterator<Item = RunId> + Clone + use<> {
        let scope = &self.scopes[s];
        scope.first_run.span(self.idx.scope_nodes[scope.kind].len())
    }

    pub(super) fn start_map(&mut self, r: RunId) {
        let region = self.region_of(r);
        let plan = Arc::clone(&self.plan);
        let RegionKind::Map {
            over, max_items, ..
        } = &plan.regions[region].kind
        else {
            return;
        };
        let scope = self.runs[r].scope;
        let items = match self.eval(
            scope,
            over,
            &Anchor {
                run: Some(r),
                inputs: None,
            },
        ) {
            Ok(Value::Array(a)) => a,
            Ok(other) => {
                self.diag(
                    "RT025",
                    "error",
                    format!(
                        "map.over gave {}, not an array",
                        super::check::kind_name(&other)
                    ),
                    Some(r),
                );
                return self.terminate(r, NodeStatus::Failed);
            }
            Err(e) => {
                self.diag("RT025", "error", format!("map.over failed: {e}"), Some(r));
                return self.terminate(r, NodeStatus::Failed);
            }
        };
        // agh: one branch per `batch_size` chunk, and more than `max_fan_out` end the Loop.
        let mut items = self.fan_out_branches(r, items);
        if items.len() > *max_items as usize && self.fan_out_over(r, items.len(), *max_items) {
            return;
        }
        if items.len() > *max_items as usize {
            let what = self.body_of(r).on_over_limit;
            let n = items.len();
            if what == Some(OnOverLimit::Truncate) {
                self.diag(
                    "RT026",
                    "warning",
                    format!("{n} items, over max_items ({max_items}); truncated"),
                    Some(r),
                );
                items.truncate(*max_items as usize);
            } else {
                self.diag(
                    "RT026",
                    "error",
                    format!("{n} items, over max_items ({max_items})"),
                    Some(r),
                );
                return self.terminate(r, NodeStatus::Failed);
            }
        }
        self.runs[r].items = Some(items.len() as u64);
        self.runs[r].container = Some(Box::new(super::Container {
            items,
            ..Default::default()
        }));
        self.fill_map(r);
    }

    /// Starts map items while `max_parallel` allows (or finishes the map).
    fn fill_map(&mut self, r: RunId) {
        let region = self.region_of(r);
        let plan = Arc::clone(&self.plan);
        let RegionKind::Map {
            item,
            index_as,
            max_parallel,
            ..
        } = &plan.regions[region].kind
        else {
            return;
        };
        let limit = (*max_parallel as usize).clamp(1, self.max_parallel());
        loop {
            let c = self.runs[r].container.as_ref().expect("map state");
            if c.finished == c.items.len() || (c.stopped && c.active == 0) {
                return self.finish_map(r);
            }
            if c.stopped || c.next >= c.items.len() || c.active >= limit {
                return;
            }
            let i = c.next;
            let value = c.items[i].clone();
            let mut vars = Map::new();
            if let Some(p) = self.body_params(r, &Map::new()) {
                vars.insert("params".into(), p);
            }
            vars.insert(item.clone(), value);
            vars.insert(index_as.clone(), Value::from(i as u64));
            let prefix = format!("{}[{i}].", self.runs[r].path);
            let c = self.runs[r].container.as_mut().expect("map state");
            c.next += 1;
            c.active += 1;
            let s_next = self.scopes.len();
            c.scopes.push(s_next);
            self.new_scope(region + 1, Some(r), prefix, vars, Some(i as u64), None);
        }
    }

    /// Item scope `s` of map run `r` finished.
    fn item_done(&mut self, r: RunId, s: usize) {
        let c = self.runs[r].container.as_mut().expect("map state");
        c.active -= 1;
        c.finished += 1;
        if c.stopped && !self.scopes[s].failed {
            // A sibling failed first under `fail_fast`: this item was cancelled.
        } else if self.scopes[s].failed {
            let c = self.runs[r].container.as_mut().expect("map state");
            c.failed += 1;
            let fail_fast = matches!(
                self.plan.regions[self.region_of(r)].kind,
                RegionKind::Map {
                    on_item_failure: OnItemFailure::FailFast,
                    ..
                }
            );
            if fail_fast {
                self.runs[r].container.as_mut().expect("map state").stopped = true;
                self.cancel_items(r);
            }
        } else {
            self.runs[r]
                .container
                .as_mut()
                .expect("map state")
                .succeeded += 1;
            if self.scopes[s].degraded {
                self.runs[r].degraded = true;
            }
        }
        self.fill_map(r);
    }

    /// `fail_fast`: cancels every open run of the map's other active items.
    fn cancel_items(&mut self, r: RunId) {
        let scopes = self.runs[r]
            .container
            .as_ref()
            .expect("map state")
            .scopes
            .clone();
        for s in scopes {
            if self.scopes[s].open == 0 {
                continue;
            }
            for x in self.scope_runs(s) {
                if !self.runs[x].status.is_terminal() {
                    if self.runs[x].dispatched {
                        self.runs[x].dispatched = false;
                        self.sched.release_slot();
                    }
                    self.runs[x].skip_reason = Some("sibling_item_failed".into());
                    self.terminate(x, NodeStatus::Cancelled);
                }
            }
        }
    }

    fn finish_map(&mut self, r: RunId) {
        let plan = Arc::clone(&self.plan);
        let RegionKind::Map {
            collect,
            on_item_failure,
            min_successes,
            ..
        } = &plan.regions[self.region_of(r)].kind
        else {
            return;
        };
        let c = self.runs[r].container.take().expect("map state");
        let mut lists: Map<String, Value> = collect
            .keys()
            .map(|k| (k.clone(), Value::Array(Vec::with_capacity(c.items.len()))))
            .collect();
        for &s in &c.scopes {
            let vals = if self.scopes[s].failed || self.scopes[s].open > 0 {
                Map::new()
            } else {
                self.collect(r, s, collect)
            };
            for (k, list) in lists.iter_mut() {
                if let Value::Array(a) = list {
                    a.push(vals.get(k).cloned().unwrap_or(Value::Null));
                }
            }
        }
        for (_, list) in lists.iter_mut() {
            if let Value::Array(a) = list {
                a.resize(c.items.len(), Value::Null);
            }
        }
        let ok = match on_item_failure {
            OnItemFailure::Continue => true,
            OnItemFailure::Threshold => {
                let min = min_successes.map_or(c.items.len() as u64, u64::from);
                c.succeeded as u64 >= min
            }
            OnItemFailure::FailFast | OnItemFailure::Fail => c.failed == 0,
        };
        self.runs[r].outputs = Some(lists);
        self.runs[r].container = Some(c);
        self.terminate(
            r,
            if ok {
                NodeStatus::Succeeded
            } else {
                NodeStatus::Failed
            },
        );
    }

    pub(super) fn start_subgraph(&mut self, r: RunId) {
        let region = self.region_of(r);
        let plan = Arc::clone(&self.plan);
        let RegionKind::Subgraph { params, .. } = &plan.regions[region].kind else {
            return;
        };
        let scope = self.runs[r].scope;
        let mut bound = Map::new();
        for (name, e) in params {
            match self.eval(
                scope,
                e,
                &Anchor {
                    run: Some(r),
                    inputs: None,
                },
            ) {
                Ok(v) => {
                    bound.insert(name.clone(), v);
                }
                Err(err) => {
                    self.diag(
                        "RT033",
                        "error",
                        format!("subgraph param `{name}`: {err}"),
                        Some(r),
                    );
                    return self.terminate(r, NodeStatus::Failed);
                }
            }
        }
        for param in &self.body_of(r).params {
            if !bound.contains_key(&param.name)
                && let Some(d) = &param.default
            {
                bound.insert(param.name.clone(), d.clone());
            }
        }
        let mut vars = Map::new();
        vars.insert("params".into(), Value::Object(bound));
        let prefix = format!("{}.", self.runs[r].path);
        self.runs[r].container = Some(Box::default());
        let s = self.scopes.len();
        self.runs[r]
            .container
            .as_mut()
            .expect("subgraph")
            .scopes
            .push(s);
        self.new_scope(region + 1, Some(r), prefix, vars, None, None);
    }

    /// A fork owning a parallel region (AWP `parallel`): its branches run as one instance
    /// (scope paths `fork.branch_node`) seeing the graph's params; the fork ends when every
    /// branch has, or when an `any` / `n_of_m` join is met (see `parallel`).
    pub(super) fn start_parallel(&mut self, r: RunId) {
        let region = self.region_of(r);
        let prefix = format!("{}.", self.runs[r].path);
        self.runs[r].container = Some(Box::default());
        let s = self.scopes.len();
        self.runs[r]
            .container
            .as_mut()
            .expect("parallel")
            .scopes
            .push(s);
        self.new_scope(region + 1, Some(r), prefix, Map::new(), None, None);
    }

    fn subgraph_done(&mut self, r: RunId, s: usize) {
        let plan = Arc::clone(&self.plan);
        let region = &plan.regions[self.region_of(r)];
        let RegionKind::Subgraph { outputs, .. } = &region.kind else {
            // A parallel region: no outputs of its own.
            self.runs[r].outputs = Some(Map::new());
            let failed = self.parallel_failed(r, s);
            self.terminate(
                r,
                if failed {
                    NodeStatus::Failed
                } else {
                    NodeStatus::Succeeded
                },
            );
            return;
        };
        // The child's own declared outputs, which `outputs_from` reads as `outputs.<name>`;
        // without `outputs_from` they are copied verbatim.
        let (child, _) = self.bind_outputs(s, &region.body_outputs);
        let out = if outputs.is_empty() {
            child
        } else {
            self.scopes[s]
                .vars
                .insert("outputs".into(), Value::Object(child));
            self.collect(r, s, outputs)
        };
        self.runs[r].outputs = Some(out);
        if self.scopes[s].degraded {
            self.runs[r].degraded = true;
        }
        let status = if self.scopes[s].failed {
            NodeStatus::Failed
        } else {
            NodeStatus::Succeeded
        };
        self.terminate(r, status);
    }

    /// Scope instance `s` has no open runs left.
    pub(super) fn scope_done(&mut self, s: usize) {
        let Some(owner) = self.scopes[s].owner else {
            return; // the root: `pump` finishes the run
        };
        if self.runs[owner].status.is_terminal() {
            return;
        }
        match self.plan.nodes[self.runs[owner].node].kind {
            crate::plan::NodeKind::Loop => self.iteration_done(owner, s),
            crate::plan::NodeKind::Map => self.item_done(owner, s),
            _ => self.subgraph_done(owner, s),
        }
    }
}
