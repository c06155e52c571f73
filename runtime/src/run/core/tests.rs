//! The pure core, driven synchronously: unit cases and property tests over random small
//! plans and scripted outcomes.

use super::*;
use crate::run::event::CallResult;
use crate::run::handler::{Completion, FailureClass, GateResponse, HandlerError};
use crate::run::record::Harness;
use proptest::prelude::*;
use serde_json::json;

fn loc() -> Value {
    json!({"path": "t.yaml", "line": 1, "column": 1})
}

fn member(root: &str, path: &[&str]) -> Value {
    let mut e = json!({"id": 0, "kind": "ident", "name": root});
    for (i, f) in path.iter().enumerate() {
        e = json!({"id": i + 1, "kind": "member", "target": e, "field": f});
    }
    e
}

fn expr(source: &str, core: Value) -> Value {
    json!({"lang": "agx", "source": source, "core": core, "location": loc()})
}

/// One generated node.
#[derive(Clone, Debug)]
struct GenNode {
    /// Predecessors (indices below this one) and whether the edge is a failure edge.
    preds: Vec<(usize, bool)>,
    join: u8,
    attempts: u32,
}

fn node_json(
    id: &str,
    local: &str,
    region: Option<&str>,
    kind: &str,
    attempts: u32,
    join: Value,
) -> Value {
    let mut n = json!({
        "id": id, "local_id": local, "kind": kind, "origin_kind": kind,
        "inputs": [], "outputs": [{"name": "done", "type": "boolean", "required": false}],
        "join": join, "retry": {"max_attempts": attempts},
        "estimate": {}, "attributes": {"failure": {"retry": {"retry_on": ["any"]}}},
        "location": loc()
    });
    if let Some(r) = region {
        n["region"] = json!(r);
    }
    n
}

/// A plan: the generated root nodes, plus a loop (repeat or until) and a map over
/// `params.items`, both fed by node 0.
fn plan_of(
    nodes: &[GenNode],
    max_iter: u32,
    until: bool,
    max_par: u32,
    limit: Option<u64>,
) -> Plan {
    let mut pnodes = Vec::new();
    let mut edges = Vec::new();
    for (i, g) in nodes.iter().enumerate() {
        let join = match g.join % 3 {
            0 => json!({"mode": "all"}),
            1 => json!({"mode": "any"}),
            _ => json!({"mode": "n_of", "count": 1}),
        };
        pnodes.push(node_json(
            &format!("n{i}"),
            &format!("n{i}"),
            None,
            "task",
            g.attempts,
            join,
        ));
        for &(p, failure) in &g.preds {
            edges.push(json!({
                "from": format!("n{p}"), "to": format!("n{i}"),
                "kind": if failure { "failure" } else { "sequence" },
                "outcomes": [if failure { "failed" } else { "succeeded" }],
                "implicit": false, "location": loc()
            }));
        }
    }
    pnodes.push(node_json(
        "lp",
        "lp",
        None,
        "loop",
        1,
        json!({"mode": "all"}),
    ));
    pnodes.push(node_json(
        "lp/body",
        "body",
        Some("lp"),
        "task",
        2,
        json!({"mode": "all"}),
    ));
    pnodes.push(node_json(
        "mp",
        "mp",
        None,
        "map",
        1,
        json!({"mode": "all"}),
    ));
    pnodes.push(node_json(
        "mp/item",
        "item",
        Some("mp"),
        "task",
        1,
        json!({"mode": "all"}),
    ));
    for owner in ["lp", "mp"] {
        edges.push(json!({"from": "n0", "to": owner, "kind": "sequence", "outcomes": ["succeeded"], "implicit": false, "location": loc()}));
    }
    let cond = json!({"id": 0, "kind": "binary", "op": "eq",
        "left": member("nodes", &["body", "outputs", "done"]),
        "right": {"id": 9, "kind": "literal", "value": {"type": "bool", "value": true}}});
    let mut constraints = json!({"max_parallel_nodes": 3});
    if let Some(l) = limit {
        constraints["max_node_executions"] = json!(l);
    }
    let plan = json!({
        "format": "agc.plan/v1",
        "source": {"dialect": "ags", "path": "t.yaml", "graph_digest": "sha256-AAAA"},
        "graph": {"id": "t", "title": null},
        "params": [{"name": "items", "type": "array", "required": false, "default": []}],
        "entrypoints": ["n0"],
        "constraints": constraints,
        "nodes": pnodes,
        "edges": edges,
        "regions": [
            {"owner": "lp", "kind": "loop", "mode": if until { "until" } else { "repeat" },
             "condition": expr("nodes.body.outputs.done == true", cond),
             "max_iterations": max_iter, "carry": {}, "collect": {},
             "entrypoints": ["lp/body"], "nodes": ["lp/body"], "location": loc()},
            {"owner": "mp", "kind": "map", "over": expr("params.items", member("params", &["items"])),
             "as": "it", "index_as": "index", "max_items": 50, "max_parallel": max_par,
             "on_item_failure": "continue", "collect": {},
             "entrypoints": ["mp/item"], "nodes": ["mp/item"], "location": loc()}
        ],
        "links": [],
        "bounds": {"max_node_executions": 0.0, "projected_cost_usd": 0.0, "projected_wall_clock_seconds": 0.0, "unestimated_nodes": 0}
    });
    Plan::from_value(plan).expect("generated plan")
}

/// The scripted outcome of one call: fails when the hash of (path, attempt, seed) says so.
fn outcome(path: &str, attempt: u32, seed: u64, fail_pct: u64) -> CallResult {
    let mut h: u64 = seed ^ 0x9e37_79b9_7f4a_7c15;
    for b in path.bytes().chain(attempt.to_le_bytes()) {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    if h % 100 < fail_pct {
        CallResult::Failed(HandlerError::new(
            FailureClass::ToolError,
            "scripted failure",
        ))
    } else {
        let mut outputs = Map::new();
        outputs.insert("done".into(), Value::Bool(h.is_multiple_of(3)));
        CallResult::Completed(Completion {
            outputs,
            usage: Default::default(),
        })
    }
}

/// Drives `plan` synchronously, answering calls in issue order (a FIFO of in-flight calls,
/// answered one per step, so several are in flight at once). Returns the events fed and the
/// final state, checking the concurrency bound on the way.
fn drive(plan: Plan, items: usize, seed: u64, fail_pct: u64) -> (Vec<Event>, State) {
    let plan = Arc::new(plan);
    let mut st = State::new(Arc::clone(&plan)).expect("state");
    let mut params = Map::new();
    params.insert("items".into(), json!((0..items).collect::<Vec<_>>()));
    let mut events = vec![Event::Started {
        run_id: "r".into(),
        graph_id: "t".into(),
        graph_digest: None,
        params,
        context: Map::new(),
        at: "2026-01-01T00:00:00Z".into(),
    }];
    let mut inflight: std::collections::VecDeque<Call> = Default::default();
    // Timers (retry backoff) fire, earliest first, once no call is in flight.
    let mut timers: Vec<Timer> = Vec::new();
    let mut i = 0;
    while i < events.len() {
        let cmds = st.step(events[i].clone());
        i += 1;
        for c in cmds {
            match c {
                Command::Call(call) => {
                    events.push(Event::CallStarted {
                        path: call.path.clone(),
                        attempt: call.attempt,
                        at: "2026-01-01T00:00:01Z".into(),
                    });
                    inflight.push_back(call);
                }
                Command::Timer(t) => timers.push(t),
                Command::CancelTimer { id } => timers.retain(|t| t.id != id),
                Command::Finish { .. } => {}
            }
        }
        if i == events.len() && inflight.is_empty() && !timers.is_empty() {
            timers.sort_by(|a, b| a.fire_at.cmp(&b.fire_at).then(a.id.cmp(&b.id)));
            let t = timers.remove(0);
            events.push(Event::TimerFired {
                id: t.id,
                path: t.path,
                at: t.fire_at,
            });
            continue;
        }
        assert!(
            inflight.len() <= st.max_parallel(),
            "more calls in flight than allowed"
        );
        if i == events.len()
            && let Some(call) = inflight.pop_front()
        {
            let result = match call.kind {
                NodeKind::Gate => CallResult::Gate(GateResponse::pending()),
                _ => outcome(&call.path, call.attempt, seed, fail_pct),
            };
            events.push(Event::CallFinished {
                path: call.path,
                attempt: call.attempt,
                result,
                at: "2026-01-01T00:00:02Z".into(),
            });
        }
        assert!(events.len() < 100_000, "the run does not end");
    }
    (events, st)
}

fn gen_nodes() -> impl Strategy<Value = Vec<GenNode>> {
    (1usize..7).prop_flat_map(|n| {
        proptest::collection::vec(
            (
                proptest::collection::vec((0usize..8, proptest::bool::weighted(0.2)), 0..3),
                0u8..3,
                1u32..3,
            ),
            n,
        )
        .prop_map(|raw| {
            raw.into_iter()
                .enumerate()
                .map(|(i, (preds, join, attempts))| {
                    let mut ps: Vec<(usize, bool)> = if i == 0 {
                        Vec::new()
                    } else {
                        preds.into_iter().map(|(p, f)| (p % i, f)).collect()
                    };
                    ps.sort();
                    ps.dedup_by_key(|p| p.0);
                    if i > 0 && ps.is_empty() {
                        ps.push((i - 1, false));
                    }
                    GenNode {
                        preds: ps,
                        join,
                        attempts,
                    }
                })
                .collect()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn runs_end_with_every_node_terminal_within_bounds(
        nodes in gen_nodes(),
        max_iter in 1u32..4,
        until in any::<bool>(),
        max_par in 1u32..4,
        items in 0usize..6,
        seed in any::<u64>(),
        fail_pct in 0u64..60,
        limit in proptest::option::of(1u64..30),
        back in proptest::option::of((0usize..8, 0usize..8, 0u32..3)),
    ) {
        let mut plan = plan_of(&nodes, max_iter, until, max_par, limit);
        // Optionally a back edge between two generated nodes (taken when its source
        // succeeds), so cycles are part of the random plans.
        let back = back.map(|(a, b, bound)| {
            let (a, b) = (a % nodes.len(), b % nodes.len());
            let (from, to) = (a.max(b), a.min(b));
            plan.edges.push(serde_json::from_value(json!({
                "from": format!("n{from}"), "to": format!("n{to}"), "kind": "back",
                "outcomes": ["succeeded"], "bound": bound, "implicit": false, "location": loc()
            })).expect("back edge"));
            (to, bound)
        });
        let (events, st) = drive(plan.clone(), items, seed, fail_pct);
        let status = st.status();
        prop_assert!(
            matches!(status, RunStatus::Succeeded | RunStatus::Failed | RunStatus::Partial),
            "run ended {status:?}"
        );
        for (path, s) in st.node_statuses() {
            prop_assert!(s.is_terminal(), "{path} ended {s:?}");
        }
        if let Some(l) = limit {
            prop_assert!(st.executions <= l, "{} executions over {l}", st.executions);
        }
        for r in st.runs.iter() {
            let max = plan.nodes[r.node].retry.max_attempts.max(1) as usize;
            prop_assert!(r.attempts.len() <= max, "{}: {} attempts", r.path, r.attempts.len());
            if let Some(it) = r.iterations {
                prop_assert!(it <= max_iter as u64);
            }
        }
        // A back edge re-runs its target at most `bound` more times.
        if let Some((to, bound)) = back {
            let passes = st.runs.iter().filter(|r| r.node == to && r.scope == 0).count();
            prop_assert!(passes as u32 <= bound + 1, "n{to}: {passes} passes over bound {bound}");
        }
        // The same events give the same state.
        let mut again = State::new(Arc::new(plan)).expect("state");
        for ev in events {
            again.step(ev);
        }
        let h = Harness::default();
        prop_assert_eq!(again.record(&h), st.record(&h));
    }
}

#[test]
fn a_failure_edge_absorbs_a_failure() {
    let nodes = vec![
        GenNode {
            preds: vec![],
            join: 0,
            attempts: 1,
        },
        GenNode {
            preds: vec![(0, true)],
            join: 0,
            attempts: 1,
        },
        GenNode {
            preds: vec![(0, false)],
            join: 0,
            attempts: 1,
        },
    ];
    let plan = plan_of(&nodes, 1, false, 1, None);
    // fail_pct 100: n0 fails, so n1 (failure edge) runs and fails too; n2, lp and mp skip.
    let (_, st) = drive(plan, 0, 1, 100);
    let statuses: HashMap<String, NodeStatus> = st.node_statuses().into_iter().collect();
    assert_eq!(statuses["n0"], NodeStatus::Failed);
    assert_eq!(statuses["n1"], NodeStatus::Failed);
    assert_eq!(statuses["n2"], NodeStatus::Skipped);
    assert_eq!(statuses["lp"], NodeStatus::Skipped);
    assert_eq!(
        st.status(),
        RunStatus::Failed,
        "n1's failure is not absorbed"
    );
}

#[test]
fn map_items_run_in_order_and_collect_by_index() {
    let nodes = vec![GenNode {
        preds: vec![],
        join: 0,
        attempts: 1,
    }];
    let plan = plan_of(&nodes, 2, false, 2, None);
    let (_, st) = drive(plan, 4, 7, 0);
    assert_eq!(st.status(), RunStatus::Succeeded);
    let paths: Vec<String> = st
        .node_statuses()
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.starts_with("mp["))
        .collect();
    assert_eq!(
        paths,
        ["mp[0].item", "mp[1].item", "mp[2].item", "mp[3].item"]
    );
    let lp = st.runs.iter().find(|r| r.path == "lp").unwrap();
    assert_eq!(lp.iterations, Some(2), "repeat runs exactly max_iterations");
}

/// A map over `params.items` shares the graph's params (issue 48: every item's scope held a
/// copy of all the items, quadratic in time and memory): no item or iteration scope of a
/// body without declared params holds a `params` of its own, and items still read the graph's.
#[test]
fn map_items_share_the_graph_params() {
    let nodes = vec![GenNode {
        preds: vec![],
        join: 0,
        attempts: 1,
    }];
    let plan = plan_of(&nodes, 2, false, 2, None);
    let (_, st) = drive(plan, 6, 7, 0);
    assert_eq!(st.status(), RunStatus::Succeeded);
    let items: Vec<_> = st.scopes.iter().filter(|s| s.item.is_some()).collect();
    assert_eq!(items.len(), 6);
    for sc in st.scopes.iter().skip(1) {
        assert!(!sc.vars.contains_key("params"), "{:?}", sc.vars.keys());
    }
    let s = st.scopes.iter().position(|s| s.item == Some(5)).unwrap();
    assert_eq!(st.scope_params(s)["items"], json!([0, 1, 2, 3, 4, 5]));
    // Expressions read them through the shared roots.
    let over = &st.plan.regions[1];
    let crate::plan::RegionKind::Map { over, .. } = &over.kind else {
        panic!("a map region")
    };
    assert_eq!(
        st.eval(s, over, &super::env::Anchor::default()).unwrap(),
        json!([0, 1, 2, 3, 4, 5])
    );
}

#[test]
fn the_execution_limit_stops_the_run_with_rt061() {
    let nodes = vec![
        GenNode {
            preds: vec![],
            join: 0,
            attempts: 1,
        },
        GenNode {
            preds: vec![(0, false)],
            join: 0,
            attempts: 1,
        },
    ];
    let plan = plan_of(&nodes, 3, false, 1, Some(2));
    let (_, st) = drive(plan, 3, 3, 0);
    assert_eq!(st.status(), RunStatus::Failed);
    assert!(st.diagnostics.iter().any(|d| d.code == "RT061"));
    assert_eq!(st.executions, 2);
}

#[test]
fn the_wall_clock_limit_stops_the_run_with_rt061() {
    let nodes = vec![
        GenNode {
            preds: vec![],
            join: 0,
            attempts: 1,
        },
        GenNode {
            preds: vec![(0, false)],
            join: 0,
            attempts: 1,
        },
    ];
    let mut plan = plan_of(&nodes, 1, false, 1, None);
    // Calls finish two seconds after the start (see `drive`).
    plan.constraints
        .insert("max_wall_clock_seconds".into(), json!(1));
    let (_, st) = drive(plan, 0, 3, 0);
    assert_eq!(st.status(), RunStatus::Failed);
    let d = st
        .diagnostics
        .iter()
        .find(|d| d.code == "RT061")
        .expect("RT061");
    assert!(
        d.message.contains("max_wall_clock_seconds"),
        "{}",
        d.message
    );
    assert!(
        st.node_statuses()
            .iter()
            .any(|(_, s)| *s == NodeStatus::Cancelled)
    );
}

#[test]
fn a_while_loop_runs_its_first_iteration_then_tests_the_previous_one() {
    let nodes = vec![GenNode {
        preds: vec![],
        join: 0,
        attempts: 1,
    }];
    let mut plan = plan_of(&nodes, 5, true, 1, None);
    if let crate::plan::RegionKind::Loop { mode, .. } = &mut plan.regions[0].kind {
        *mode = crate::plan::LoopMode::While;
    }
    for seed in 0..20 {
        let (_, st) = drive(plan.clone(), 0, seed, 0);
        let lp = st.runs.iter().find(|r| r.path == "lp").unwrap();
        let it = lp.iterations.unwrap();
        assert!((1..=5).contains(&it), "seed {seed}: {it} iterations");
        // Every iteration but the last produced done == true (the while test passed).
        for i in 0..it - 1 {
            let body = st
                .runs
                .iter()
                .find(|r| r.path == format!("lp[{i}].body"))
                .unwrap();
            assert_eq!(
                body.outputs.as_ref().unwrap()["done"],
                json!(true),
                "seed {seed}"
            );
        }
    }
}
