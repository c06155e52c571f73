//! The async driver through the public API: deadlines (the call cancelled), output checks,
//! panics, map concurrency (calls in flight bounded by the plan's limits, not by threads),
//! `fail_fast`, resume after a pause.

use agc_runtime::plan::{Node, Plan};
use agc_runtime::run::record::AttemptStatus;
use agc_runtime::run::{
    CallContext, CallFuture, Completion, Decision, Event, FailureClass, FixedClock, FixedIds,
    GateOutcome, GateResponse, Handler, HandlerError, Journal, JournalError, MemoryJournal,
    NodeStatus, RunOptions, RunStatus, resume, run,
};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

fn loc() -> Value {
    json!({"path": "t", "line": 1, "column": 1})
}

fn node(id: &str, kind: &str, region: Option<&str>, outputs: Value) -> Value {
    let local = id.rsplit('/').next().unwrap();
    let mut n = json!({
        "id": id, "local_id": local, "kind": kind, "origin_kind": kind,
        "inputs": [], "outputs": outputs, "join": {"mode": "all"},
        "retry": {"max_attempts": 1}, "estimate": {}, "attributes": {}, "location": loc()
    });
    if let Some(r) = region {
        n["region"] = json!(r);
        n["inputs"] = json!([{"name": "it", "type": "integer", "required": true,
            "from": {"lang": "agx", "source": "it", "location": loc(),
                     "core": {"id": 0, "kind": "ident", "name": "it"}}}]);
    }
    n
}

fn seq(from: &str, to: &str) -> Value {
    json!({"from": from, "to": to, "kind": "sequence", "outcomes": ["succeeded"],
           "implicit": false, "location": loc()})
}

fn plan(nodes: Vec<Value>, edges: Vec<Value>, regions: Vec<Value>, parallel: u64) -> Arc<Plan> {
    Arc::new(
        serde_json::from_value(json!({
            "format": "agc.plan/v1",
            "source": {"dialect": "ags", "path": "t", "graph_digest": "sha256-AAAA"},
            "graph": {"id": "t", "title": null},
            "params": [], "entrypoints": [nodes[0]["id"].clone()],
            "constraints": {"max_parallel_nodes": parallel},
            "nodes": nodes, "edges": edges, "regions": regions, "links": [],
            "bounds": {"max_node_executions": 0.0, "projected_cost_usd": 0.0,
                       "projected_wall_clock_seconds": 0.0, "unestimated_nodes": 0}
        }))
        .unwrap(),
    )
}

fn map_plan(items: usize, max_parallel: u64, on_item_failure: &str) -> Arc<Plan> {
    map_plan_within(
        items,
        max_parallel,
        on_item_failure,
        (max_parallel + 1).max(8),
    )
}

/// [`map_plan`] in a graph whose `max_parallel_nodes` is `nodes`.
fn map_plan_within(
    items: usize,
    max_parallel: u64,
    on_item_failure: &str,
    nodes: u64,
) -> Arc<Plan> {
    let list: Vec<Value> = (0..items)
        .map(|i| json!({"id": i + 1, "kind": "literal", "value": {"type": "int", "value": i}}))
        .collect();
    let over = json!({"lang": "agx", "source": "[...]", "location": loc(),
                      "core": {"id": 0, "kind": "list", "items": list}});
    let collect = json!({"lang": "agx", "source": "nodes.work.outputs.n", "location": loc(),
        "core": {"id": 0, "kind": "member", "field": "n", "target": {"id": 1, "kind": "member",
        "field": "outputs", "target": {"id": 2, "kind": "member", "field": "work",
        "target": {"id": 3, "kind": "ident", "name": "nodes"}}}}});
    plan(
        vec![
            node("m", "map", None, json!([])),
            node(
                "m/work",
                "task",
                Some("m"),
                json!([{"name": "n", "type": "integer", "required": true}]),
            ),
        ],
        vec![],
        vec![
            json!({"owner": "m", "kind": "map", "over": over, "as": "it", "index_as": "index",
            "max_items": 100, "max_parallel": max_parallel, "on_item_failure": on_item_failure,
            "collect": {"ns": collect},
            "entrypoints": ["m/work"], "nodes": ["m/work"], "location": loc()}),
        ],
        nodes,
    )
}

fn opts() -> RunOptions {
    RunOptions {
        clock: Arc::new(FixedClock::new()),
        ids: Arc::new(FixedIds::new("t")),
        ..RunOptions::default()
    }
}

/// Echoes its item as `n`; counts concurrent calls; item `fail` fails; `sleep` sleeps.
#[derive(Default)]
struct Items {
    now: AtomicUsize,
    peak: AtomicUsize,
    fail: Option<u64>,
    sleep: Option<Duration>,
}

impl Handler for Items {
    fn task<'a>(
        &'a self,
        cx: &'a CallContext,
        _n: &'a Node,
        inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, Completion> {
        Box::pin(async move {
            let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.peak.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(self.sleep.unwrap_or(Duration::from_millis(2))).await;
            self.now.fetch_sub(1, Ordering::SeqCst);
            if self.fail.is_some() && cx.item == self.fail {
                return Err(HandlerError::new(FailureClass::ToolError, "boom"));
            }
            let mut outputs = Map::new();
            outputs.insert("n".into(), inputs["it"].clone());
            Ok(Completion {
                outputs,
                usage: Default::default(),
            })
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn map_max_parallel_bounds_concurrent_calls_and_collect_keeps_input_order() {
    let h = Arc::new(Items::default());
    let mut j = MemoryJournal::default();
    let rec = run(
        map_plan(12, 3, "continue"),
        Map::new(),
        h.clone(),
        &mut j,
        &opts(),
    )
    .await
    .unwrap();
    assert_eq!(rec.status, RunStatus::Succeeded);
    let peak = h.peak.load(Ordering::SeqCst);
    assert!(peak <= 3, "peak {peak}");
    let m = &rec.nodes[0];
    assert_eq!(m.items, Some(12));
    assert_eq!(
        m.outputs.as_ref().unwrap()["ns"],
        json!((0..12).collect::<Vec<_>>())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fail_fast_cancels_the_remaining_items() {
    let h = Arc::new(Items {
        fail: Some(0),
        ..Items::default()
    });
    let mut j = MemoryJournal::default();
    let rec = run(map_plan(6, 1, "fail_fast"), Map::new(), h, &mut j, &opts())
        .await
        .unwrap();
    assert_eq!(rec.status, RunStatus::Failed);
    assert_eq!(rec.nodes[0].status, NodeStatus::Failed);
    assert_eq!(
        rec.nodes.len(),
        2,
        "items after the failure never start: {:?}",
        rec.nodes
    );
    let h = Arc::new(Items {
        fail: Some(2),
        ..Items::default()
    });
    let mut j = MemoryJournal::default();
    let rec = run(map_plan(6, 1, "continue"), Map::new(), h, &mut j, &opts())
        .await
        .unwrap();
    assert_eq!(rec.status, RunStatus::Succeeded);
    assert_eq!(
        rec.nodes[0].outputs.as_ref().unwrap()["ns"],
        json!([0, 1, null, 3, 4, 5])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_its_deadline_times_out() {
    let h = Arc::new(Items {
        sleep: Some(Duration::from_secs(5)),
        ..Items::default()
    });
    let mut o = opts();
    o.call_timeout = Some(Duration::from_millis(50));
    let mut j = MemoryJournal::default();
    let rec = run(map_plan(1, 1, "continue"), Map::new(), h, &mut j, &o)
        .await
        .unwrap();
    let item = &rec.nodes[1];
    assert_eq!(item.status, NodeStatus::Failed);
    assert_eq!(item.attempts[0].status, AttemptStatus::Timeout);
}

struct Wrong;

impl Handler for Wrong {
    fn task<'a>(
        &'a self,
        cx: &'a CallContext,
        _n: &'a Node,
        _i: &'a Map<String, Value>,
    ) -> CallFuture<'a, Completion> {
        Box::pin(async move {
            if cx.item == Some(1) {
                panic!("handler bug");
            }
            let mut outputs = Map::new();
            outputs.insert("n".into(), json!("not a number"));
            Ok(Completion {
                outputs,
                usage: Default::default(),
            })
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_outputs_and_panics_fail_the_attempt_with_a_clear_error() {
    let mut j = MemoryJournal::default();
    let rec = run(
        map_plan(2, 1, "continue"),
        Map::new(),
        Arc::new(Wrong),
        &mut j,
        &opts(),
    )
    .await
    .unwrap();
    let e0 = rec.nodes[1].attempts[0].error.clone().unwrap();
    assert!(
        e0.contains("validation_error")
            && e0.contains("output `n`: expected integer, got a string"),
        "{e0}"
    );
    let e1 = rec.nodes[2].attempts[0].error.clone().unwrap();
    assert!(e1.contains("panicked: handler bug"), "{e1}");
    assert!(rec.diagnostics.iter().any(|d| d.code == "RT031"));
}

/// Gates pause.
struct Pausing;

impl Handler for Pausing {
    fn task<'a>(
        &'a self,
        _cx: &'a CallContext,
        _n: &'a Node,
        _i: &'a Map<String, Value>,
    ) -> CallFuture<'a, Completion> {
        Box::pin(async move { Ok(Completion::default()) })
    }

    fn gate<'a>(
        &'a self,

        _cx: &'a CallContext,

        _n: &'a Node,

        _i: &'a Map<String, Value>,
    ) -> CallFuture<'a, GateResponse> {
        Box::pin(async move { Ok(GateResponse::pending()) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gate_pauses_the_run_and_a_decision_resumes_it() {
    let p = plan(
        vec![
            node("a", "task", None, json!([])),
            node(
                "g",
                "gate",
                None,
                json!([{"name": "decision", "type": "string", "required": true}]),
            ),
            node("b", "task", None, json!([])),
        ],
        vec![seq("a", "g"), seq("g", "b")],
        vec![],
        1,
    );
    let mut journal = MemoryJournal::default();
    let rec = run(
        p.clone(),
        Map::new(),
        Arc::new(Pausing),
        &mut journal,
        &opts(),
    )
    .await
    .unwrap();
    assert_eq!(rec.status, RunStatus::AwaitingHuman);
    assert_eq!(rec.nodes[1].status, NodeStatus::AwaitingHuman);
    assert_eq!(rec.nodes[2].status, NodeStatus::Pending);
    let wrong = [Decision {
        gate: "nope".into(),
        outcome: GateOutcome::Approved,
    }];
    let bad = resume(
        p.clone(),
        Arc::new(Pausing),
        &mut journal.clone(),
        &wrong,
        &opts(),
    )
    .await;
    assert!(bad.unwrap_err().to_string().contains("awaiting: g"));
    let right = [Decision {
        gate: "g".into(),
        outcome: GateOutcome::Approved,
    }];
    let rec = resume(p.clone(), Arc::new(Pausing), &mut journal, &right, &opts())
        .await
        .unwrap();
    assert_eq!(rec.status, RunStatus::Succeeded);
    assert_eq!(rec.nodes[1].decision.as_deref(), Some("approved"));
    // Resuming a finished run changes nothing.
    let again = resume(p, Arc::new(Pausing), &mut journal, &[], &opts())
        .await
        .unwrap();
    assert_eq!(again, rec);
}

/// A journal that remembers which events are durable (flushed), shared with the handler.
#[derive(Clone, Default)]
struct Watched(Arc<std::sync::Mutex<(Vec<Event>, Vec<Event>)>>);

impl Journal for Watched {
    fn append(&mut self, event: &Event) -> Result<(), JournalError> {
        self.0.lock().unwrap().0.push(event.clone());
        Ok(())
    }

    fn flush(&mut self) -> Result<(), JournalError> {
        let mut g = self.0.lock().unwrap();
        let batch = std::mem::take(&mut g.0);
        g.1.extend(batch);
        Ok(())
    }

    fn load(&mut self) -> Result<Vec<Event>, JournalError> {
        Ok(self.0.lock().unwrap().1.clone())
    }
}

/// Checks, at every call, that the call's own start is already durable.
struct Durable {
    journal: Watched,
    calls: AtomicUsize,
    undurable: std::sync::Mutex<Vec<String>>,
}

impl Handler for Durable {
    fn task<'a>(
        &'a self,
        cx: &'a CallContext,
        _n: &'a Node,
        _i: &'a Map<String, Value>,
    ) -> CallFuture<'a, Completion> {
        Box::pin(async move {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let flushed = self.journal.0.lock().unwrap().1.iter().any(|e| {
                matches!(e, Event::CallStarted { path, attempt, .. }
                if *path == cx.scope_path && *attempt == cx.attempt)
            });
            if !flushed {
                self.undurable.lock().unwrap().push(cx.scope_path.clone());
            }
            let mut outputs = Map::new();
            outputs.insert("n".into(), json!(1));
            Ok(Completion {
                outputs,
                usage: Default::default(),
            })
        })
    }
}

/// The journal rule: the driver flushes a batch of events before it makes any call that
/// follows from them, whether the call runs on its own thread (one call at a time, no
/// deadline) or on a worker (a map with `max_parallel` 3); and every event reaches the journal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_starts_after_its_start_is_durable() {
    let chain = plan(
        vec![
            node("a", "task", None, json!([])),
            node("b", "task", None, json!([])),
            node("c", "task", None, json!([])),
        ],
        vec![seq("a", "b"), seq("b", "c")],
        vec![],
        1,
    );
    for (p, calls) in [(chain, 3), (map_plan(6, 3, "continue"), 6)] {
        let mut journal = Watched::default();
        let h = Arc::new(Durable {
            journal: journal.clone(),
            calls: AtomicUsize::new(0),
            undurable: Default::default(),
        });
        let rec = run(p, Map::new(), h.clone(), &mut journal, &opts())
            .await
            .unwrap();
        assert_eq!(rec.status, RunStatus::Succeeded);
        assert_eq!(h.calls.load(Ordering::SeqCst), calls);
        assert_eq!(*h.undurable.lock().unwrap(), Vec::<String>::new());
        let g = journal.0.lock().unwrap();
        assert!(
            g.0.is_empty(),
            "events left unflushed at the end: {:?}",
            g.0
        );
        let finished =
            g.1.iter()
                .filter(|e| matches!(e, Event::CallFinished { .. }))
                .count();
        assert_eq!(finished, calls);
    }
}

/// Calls are futures, not threads: on a runtime of one thread, a map of 50 items with
/// `max_parallel: 50` has all 50 calls (each waiting 200 ms) in flight at once. Observed by
/// the handler (its peak of calls in progress), not by the clock.
#[tokio::test(flavor = "current_thread")]
async fn fifty_waiting_calls_are_all_in_flight_at_once_on_one_thread() {
    let h = Arc::new(Items {
        sleep: Some(Duration::from_millis(200)),
        ..Items::default()
    });
    let mut j = MemoryJournal::default();
    let rec = run(
        map_plan(50, 50, "continue"),
        Map::new(),
        h.clone(),
        &mut j,
        &opts(),
    )
    .await
    .unwrap();
    assert_eq!(rec.status, RunStatus::Succeeded);
    assert_eq!(h.peak.load(Ordering::SeqCst), 50);
    assert_eq!(
        rec.nodes[0].outputs.as_ref().unwrap()["ns"],
        json!((0..50).collect::<Vec<_>>())
    );
}

/// The graph's limits still bound the calls in flight: a map's `max_parallel` below the
/// graph's, and the graph's `max_parallel_nodes` below the map's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_graphs_limits_bound_the_calls_in_flight() {
    for (plan, bound) in [
        (map_plan_within(30, 7, "continue", 50), 7),
        (map_plan_within(30, 50, "continue", 5), 5),
    ] {
        let h = Arc::new(Items {
            sleep: Some(Duration::from_millis(20)),
            ..Items::default()
        });
        let mut j = MemoryJournal::default();
        let rec = run(plan, Map::new(), h.clone(), &mut j, &opts())
            .await
            .unwrap();
        assert_eq!(rec.status, RunStatus::Succeeded);
        let peak = h.peak.load(Ordering::SeqCst);
        assert!(peak >= 1 && peak <= bound, "peak {peak}, bound {bound}");
    }
}

/// Sets its flag when dropped.
struct DropFlag(Arc<std::sync::atomic::AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Waits an hour, holding a [`DropFlag`]: it only ends by being cancelled.
struct Hangs {
    dropped: Arc<std::sync::atomic::AtomicBool>,
    finished: AtomicUsize,
}

impl Handler for Hangs {
    fn task<'a>(
        &'a self,
        _cx: &'a CallContext,
        _n: &'a Node,
        _i: &'a Map<String, Value>,
    ) -> CallFuture<'a, Completion> {
        let guard = DropFlag(Arc::clone(&self.dropped));
        Box::pin(async move {
            let _guard = guard;
            tokio::time::sleep(Duration::from_secs(3600)).await;
            self.finished.fetch_add(1, Ordering::SeqCst);
            Ok(Completion::default())
        })
    }
}

/// A call past its deadline is cancelled: its future is dropped (its guard says so) before
/// the attempt is recorded as timed out, whether it is the only call out or one of several.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_its_deadline_is_cancelled() {
    for (plan, node) in [
        (map_plan(1, 1, "continue"), 1),
        (map_plan(3, 3, "continue"), 2),
    ] {
        let h = Arc::new(Hangs {
            dropped: Arc::default(),
            finished: AtomicUsize::new(0),
        });
        let mut o = opts();
        o.call_timeout = Some(Duration::from_millis(50));
        let mut j = MemoryJournal::default();
        let rec = run(plan, Map::new(), h.clone(), &mut j, &o).await.unwrap();
        assert_eq!(rec.nodes[node].attempts[0].status, AttemptStatus::Timeout);
        assert!(
            h.dropped.load(Ordering::SeqCst),
            "the call's future was not dropped"
        );
        assert_eq!(h.finished.load(Ordering::SeqCst), 0);
    }
}

/// A run is a `Send` future: a host can spawn it on a multi-threaded runtime.
#[test]
fn a_run_is_a_send_future() {
    fn send<T: Send>(_: &T) {}
    let mut j = MemoryJournal::default();
    let o = opts();
    let fut = run(
        map_plan(1, 1, "continue"),
        Map::new(),
        Arc::new(Pausing),
        &mut j,
        &o,
    );
    send(&fut);
}

/// Item `i` of `n` answers after `(n - i) * 15` ms: the later the call, the sooner its answer.
struct Reversed(u64);

impl Handler for Reversed {
    fn task<'a>(
        &'a self,
        cx: &'a CallContext,
        _n: &'a Node,
        inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, Completion> {
        Box::pin(async move {
            let wait = (self.0 - cx.item.unwrap_or(0)) * 15;
            tokio::time::sleep(Duration::from_millis(wait)).await;
            let mut outputs = Map::new();
            outputs.insert("n".into(), inputs["it"].clone());
            Ok(Completion {
                outputs,
                usage: Default::default(),
            })
        })
    }
}

/// Under a virtual clock the record does not depend on which call finished first: answers
/// are taken in the order the calls were made, so two runs give the same bytes even though
/// the calls finish in the reverse order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_a_virtual_clock_answers_are_taken_in_the_order_of_the_calls() {
    let mut records = Vec::new();
    for _ in 0..2 {
        let mut j = MemoryJournal::default();
        let rec = run(
            map_plan(5, 5, "continue"),
            Map::new(),
            Arc::new(Reversed(5)),
            &mut j,
            &opts(),
        )
        .await
        .unwrap();
        let finished: Vec<String> = j
            .load()
            .unwrap()
            .into_iter()
            .filter_map(|e| match e {
                Event::CallFinished { path, .. } => Some(path),
                _ => None,
            })
            .collect();
        assert_eq!(
            finished,
            (0..5).map(|i| format!("m[{i}].work")).collect::<Vec<_>>()
        );
        records.push(serde_json::to_string(&rec).unwrap());
    }
    assert_eq!(records[0], records[1]);
}
