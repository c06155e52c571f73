//! Scheduling overhead of the runtime: µs per node run on a layered plan of N nodes (with
//! `max_parallel_nodes` 4, and with AGS's default 1) and on a map of N items, with no-op
//! handlers, journal off (`NullJournal`) and on (a JSONL file, flushed once per batch of
//! events as the driver does). Two figures each: `core`, the pure scheduler (`State::step`)
//! driven on this thread with the journal inline, and `driver`, the async driver on a tokio
//! runtime of 4 threads: calls are tasks unless the plan runs one call at a time, when the
//! driver awaits them itself. Prints figures; it asserts nothing.
//!
//! ```sh
//! cargo run --release -p agc-runtime --example run_bench            # 1k and 10k
//! cargo run --release -p agc-runtime --example run_bench -- 1000 10000 100000
//! ```

use agc_runtime::plan::{Node, Plan};
use agc_runtime::run::core::{Command, State};
use agc_runtime::run::{
    CallContext, CallFuture, CallResult, Clock, Completion, Event, FixedClock, FixedIds, Handler,
    Journal, JsonlJournal, NullJournal, RunOptions, SystemClock, run, tokio_runtime,
};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Instant;

struct Noop;

impl Handler for Noop {
    fn task<'a>(
        &'a self,
        _cx: &'a CallContext,
        _node: &'a Node,
        _inputs: &'a Map<String, Value>,
    ) -> CallFuture<'a, Completion> {
        Box::pin(std::future::ready(Ok(Completion::default())))
    }
}

fn loc() -> Value {
    json!({"path": "bench", "line": 1, "column": 1})
}

fn node(id: &str, local: &str, region: Option<&str>, kind: &str) -> Value {
    let mut n = json!({
        "id": id, "local_id": local, "kind": kind, "origin_kind": kind,
        "inputs": [], "outputs": [], "join": {"mode": "all"}, "retry": {"max_attempts": 1},
        "estimate": {}, "attributes": {}, "location": loc()
    });
    if let Some(r) = region {
        n["region"] = json!(r);
    }
    n
}

fn plan(
    nodes: Vec<Value>,
    edges: Vec<Value>,
    regions: Vec<Value>,
    entry: &str,
    max_parallel: u32,
) -> Plan {
    serde_json::from_value(json!({
        "format": "agc.plan/v1",
        "source": {"dialect": "ags", "path": "bench"},
        "graph": {"id": "bench", "title": null},
        "params": [],
        "entrypoints": [entry],
        "constraints": {"max_parallel_nodes": max_parallel},
        "nodes": nodes, "edges": edges, "regions": regions, "links": [],
        "bounds": {"max_node_executions": 0.0, "projected_cost_usd": 0.0,
                   "projected_wall_clock_seconds": 0.0, "unestimated_nodes": 0}
    }))
    .expect("bench plan")
}

/// √n layers of √n nodes; each node depends on one node of the previous layer.
fn layered(n: usize, max_parallel: u32) -> Plan {
    let width = (n as f64).sqrt().ceil() as usize;
    let mut nodes = vec![node("n0", "n0", None, "task")];
    let mut edges = Vec::new();
    for i in 1..n {
        let id = format!("n{i}");
        nodes.push(node(&id, &id, None, "task"));
        let layer = i / width;
        let from = if layer == 0 {
            0
        } else {
            (layer - 1) * width + (i * 7) % width
        };
        let from = from.min(i - 1);
        edges.push(
            json!({"from": format!("n{from}"), "to": id, "kind": "sequence",
            "outcomes": ["succeeded"], "implicit": false, "location": loc()}),
        );
    }
    plan(nodes, edges, Vec::new(), "n0", max_parallel)
}

/// A map over `n` items with a one-node body.
fn map(n: usize) -> Plan {
    let items: Vec<usize> = (0..n).collect();
    let over = json!({"lang": "agx", "source": "items", "location": loc(),
        "core": {"id": 0, "kind": "list", "items": items.iter().enumerate().map(|(i, v)|
            json!({"id": i + 1, "kind": "literal", "value": {"type": "int", "value": v}})).collect::<Vec<_>>()}});
    let nodes = vec![
        node("m", "m", None, "map"),
        node("m/body", "body", Some("m"), "task"),
    ];
    let regions = vec![
        json!({"owner": "m", "kind": "map", "over": over, "as": "it",
        "index_as": "index", "max_items": n, "max_parallel": 4, "on_item_failure": "continue",
        "collect": {}, "entrypoints": ["m/body"], "nodes": ["m/body"], "location": loc()}),
    ];
    plan(nodes, Vec::new(), regions, "m", 4)
}

/// The pure core on this thread: every call answered at once, every event journaled.
/// Returns µs per node run.
fn measure_core(
    name: &str,
    plan: &Plan,
    runs: usize,
    journal: &mut dyn Journal,
    label: &str,
) -> f64 {
    let clock = FixedClock::new();
    let t = Instant::now();
    let mut st = State::new(Arc::new(plan.clone())).expect("plan");
    let mut queue = std::collections::VecDeque::new();
    queue.push_back(Event::Started {
        run_id: "bench".into(),
        graph_id: "bench".into(),
        graph_digest: None,
        params: Map::new(),
        context: Map::new(),
        at: clock.now(),
    });
    while let Some(ev) = queue.pop_front() {
        journal.append(&ev).expect("journal");
        let cmds = st.step(ev);
        // A batch per answer, as the driver flushes before it makes the calls that follow.
        journal.flush().expect("journal");
        for cmd in cmds {
            if let Command::Call(call) = cmd {
                let started = Event::CallStarted {
                    path: call.path.clone(),
                    attempt: call.attempt,
                    at: clock.now(),
                };
                journal.append(&started).expect("journal");
                st.step(started);
                queue.push_back(Event::CallFinished {
                    path: call.path,
                    attempt: call.attempt,
                    result: CallResult::Completed(Completion::default()),
                    at: clock.now(),
                });
            }
        }
    }
    let record = st.record(&Default::default());
    let el = t.elapsed();
    assert_eq!(record.nodes.len(), runs);
    let per = el.as_secs_f64() * 1e6 / runs as f64;
    println!(
        "{name:<8} {runs:>7} node runs  core    journal {label:<4} {:>9.1} ms  {per:>6.2} µs/node",
        el.as_secs_f64() * 1e3,
    );
    per
}

fn measure(name: &str, plan: &Plan, runs: usize, journal: &mut dyn Journal, label: &str) -> f64 {
    let opts = RunOptions {
        // The clock real runs use (under a fixed clock the driver takes one answer per batch,
        // to keep records independent of task timing).
        clock: Arc::new(SystemClock),
        ids: Arc::new(FixedIds::new("bench")),
        ..RunOptions::default()
    };
    let plan = Arc::new(plan.clone());
    let rt = tokio_runtime(4).expect("a tokio runtime");
    let t = Instant::now();
    let record = rt
        .block_on(run(plan, Map::new(), Arc::new(Noop), journal, &opts))
        .expect("runs");
    let el = t.elapsed();
    assert_eq!(record.nodes.len(), runs);
    let per = el.as_secs_f64() * 1e6 / runs as f64;
    println!(
        "{name:<8} {runs:>7} node runs  driver  journal {label:<4} {:>9.1} ms  {per:>6.2} µs/node",
        el.as_secs_f64() * 1e3,
    );
    per
}

fn main() {
    // `--core`: only the pure core (what callgrind profiles without thread noise).
    let core_only = std::env::args().any(|a| a == "--core");
    let sizes: Vec<usize> = {
        let args: Vec<usize> = std::env::args()
            .skip(1)
            .filter_map(|a| a.parse().ok())
            .collect();
        if args.is_empty() {
            vec![1_000, 10_000]
        } else {
            args
        }
    };
    let dir = std::env::temp_dir().join(format!("agc-run-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // (plan, what, size, µs/node with the journal off, on), for the summary.
    let mut figures: Vec<(&str, &str, usize, f64, f64)> = Vec::new();
    for &n in &sizes {
        for (name, p, runs) in [
            ("layered", layered(n, 4), n),
            ("layered1", layered(n, 1), n),
            ("map", map(n), n + 1),
        ] {
            let off = measure_core(name, &p, runs, &mut NullJournal, "off");
            let path = dir.join(format!("{name}-{n}-core.jsonl"));
            let mut j = JsonlJournal::open(&path).expect("journal");
            let on = measure_core(name, &p, runs, &mut j, "on");
            figures.push((name, "core", n, off, on));
            if core_only {
                continue;
            }
            let off = measure(name, &p, runs, &mut NullJournal, "off");
            let path = dir.join(format!("{name}-{n}.jsonl"));
            let mut j = JsonlJournal::open(&path).expect("journal");
            let on = measure(name, &p, runs, &mut j, "on");
            figures.push((name, "driver", n, off, on));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // The goal: under 10 µs of scheduling overhead per node run, linear in size (the figure
    // per node stays flat as the plan grows).
    println!("\nscheduling overhead per node run (goal < 10 µs, flat as size grows):");
    for (name, what) in [
        ("layered", "core"),
        ("layered1", "core"),
        ("map", "core"),
        ("layered", "driver"),
        ("layered1", "driver"),
        ("map", "driver"),
    ] {
        let rows: Vec<_> = figures
            .iter()
            .filter(|f| f.0 == name && f.1 == what)
            .map(|f| (f.0, f.2, f.3, f.4))
            .collect();
        let name = format!("{name} {what}");
        for f in &rows {
            let verdict = if f.2 < 10.0 && f.3 < 10.0 {
                "meets"
            } else {
                "misses"
            };
            println!(
                "  {name:<15} {:>7}: {:>6.2} µs journal off, {:>6.2} µs journal on ({verdict} the goal)",
                f.1, f.2, f.3
            );
        }
        if let (Some(a), Some(b)) = (rows.first(), rows.last())
            && b.1 > a.1
        {
            println!(
                "  {name:<15} growth {}x size: per-node time x{:.2} (journal off), x{:.2} (on)",
                b.1 / a.1,
                b.2 / a.2,
                b.3 / a.3
            );
        }
    }
}
