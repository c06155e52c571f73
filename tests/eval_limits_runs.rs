//! Issue 47: evaluation limits belong to a run, not to the process. Runs of plans with
//! different `eval_limits` in one process each evaluate under their own, and a run's options
//! replace its plan's for that run only; a limit met is journaled, and a resumed run reads it
//! there instead of evaluating again (the time limit depends on the machine, every limit on
//! the flags given at resume), so it takes the path the run took.

use agc_runtime::plan::{EvalLimits, Plan};
use agc_runtime::run::script::{Script, ScriptHandler};
use agc_runtime::run::{
    Event, FixedClock, FixedIds, MemoryJournal, RunOptions, RunRecord, resume, run,
};
use serde_json::Map;
use std::process::Command;
use std::sync::Arc;

/// An AWP workflow whose `set_state` node evaluates FILTER.
const WORKFLOW: &str = r#"document: {schema: https://agent-workflow.dev/schemas/workflow-definition.json, name: limits, version: 1.0.0}
state_schema:
  type: object
  properties:
    x: {}
nodes:
  - {id: start, type: start}
  - id: blow
    type: set_state
    config: {assignments: {x: {jq: 'FILTER'}}}
  - {id: end, type: end, config: {output_mapping: .x}}
edges:
  - {source: __start__, target: start}
  - {source: start, target: blow}
  - {source: blow, target: end}
"#;

/// Values 200 levels deep: over a depth limit of 50, well within the default 10,000.
const DEEP: &str = "reduce range(200) as $i (null; [.]) | tojson | length";

/// The plan `agc build` writes for the workflow with `filter`, given `flags`.
fn plan(filter: &str, flags: &[&str]) -> Arc<Plan> {
    let tmp = tempfile::tempdir().unwrap();
    let wf = tmp.path().join("wf.yaml");
    std::fs::write(&wf, WORKFLOW.replace("FILTER", filter)).unwrap();
    let out = tmp.path().join("plan.json");
    let status = Command::new(env!("CARGO_BIN_EXE_agc"))
        .arg("build")
        .arg(&wf)
        .arg("-o")
        .arg(&out)
        .args(flags)
        .status()
        .expect("agc runs");
    assert!(status.success());
    let text = std::fs::read_to_string(&out).unwrap();
    Arc::new(Plan::from_json(&text).expect("a plan"))
}

fn options(limits: EvalLimits) -> RunOptions {
    RunOptions {
        clock: Arc::new(FixedClock::new()),
        ids: Arc::new(FixedIds::new("run")),
        eval_limits: limits,
        ..RunOptions::default()
    }
}

fn handler() -> Arc<ScriptHandler> {
    Arc::new(ScriptHandler::new(Script::default()))
}

/// Runs `plan` to its end on a runtime of its own; the record and the journal.
fn run_plan(plan: &Arc<Plan>, limits: EvalLimits) -> (RunRecord, MemoryJournal) {
    let mut journal = MemoryJournal::default();
    let rt = agc_runtime::run::tokio_runtime(1).unwrap();
    let record = rt
        .block_on(run(
            Arc::clone(plan),
            Map::new(),
            handler(),
            &mut journal,
            &options(limits),
        ))
        .expect("the run starts");
    (record, journal)
}

fn status_of(record: &RunRecord, node: &str) -> String {
    let v = serde_json::to_value(record).unwrap();
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node_id"] == node)
        .map_or("absent".into(), |n| {
            n["status"].as_str().unwrap().to_string()
        })
}

fn met_agc043(record: &RunRecord) -> bool {
    record.diagnostics.iter().any(|d| d.code == "AGC043")
}

fn depth(d: u32) -> EvalLimits {
    EvalLimits {
        depth: Some(d),
        ..EvalLimits::default()
    }
}

/// Four runs at once in one process: a plan that carries a depth limit of 50 and one that
/// carries none, each alone and each with the other's setting in its options. Each run
/// evaluates under its own limits: the plan's, or its options' over them.
#[test]
fn runs_in_one_process_each_evaluate_under_their_own_limits() {
    let limited = plan(DEEP, &["--eval-depth", "50"]);
    let open = plan(DEEP, &[]);
    let cases = [
        (&limited, EvalLimits::default(), false),
        (&open, EvalLimits::default(), true),
        (&limited, depth(500), true),
        (&open, depth(50), false),
    ];
    std::thread::scope(|s| {
        let runs: Vec<_> = cases
            .iter()
            .map(|(plan, limits, _)| s.spawn(move || run_plan(plan, *limits).0))
            .collect();
        for (i, (h, (_, limits, succeeds))) in runs.into_iter().zip(&cases).enumerate() {
            let record = h.join().expect("no panic");
            let blow = status_of(&record, "blow");
            let want = if *succeeds { "succeeded" } else { "failed" };
            assert_eq!(blow, want, "run {i} (options {limits:?}): {record:?}");
            assert_eq!(met_agc043(&record), !succeeds, "run {i}");
        }
    });
}

/// A run meets the time limit of its plan (a millisecond), then is resumed with a time
/// limit of a minute, in which the filter would finish: the resumed run reads the limit met
/// from the journal and keeps the path the run took, where evaluating again would have
/// made the node succeed and the run go on to its end.
#[test]
fn a_resumed_run_reads_a_time_limit_met_from_the_journal() {
    let slow = "[range(1000000)] | length";
    let plan = plan(slow, &["--eval-timeout", "0.001"]);
    let (record, journal) = run_plan(&plan, EvalLimits::default());
    assert_eq!(status_of(&record, "blow"), "failed", "{record:?}");
    assert!(met_agc043(&record));
    let met: Vec<&Event> = journal
        .events
        .iter()
        .filter(|e| matches!(e, Event::LimitMet { time: true, .. }))
        .collect();
    assert_eq!(met.len(), 1, "{:?}", journal.events);
    // The filter does finish within a minute (so evaluating again would succeed).
    let (finished, _) = run_plan(&plan, time(60.0));
    assert_eq!(status_of(&finished, "blow"), "succeeded");
    // Resumed with the minute, twice: the journal decides, not the new limit.
    let mut journal = journal;
    for _ in 0..2 {
        let rt = agc_runtime::run::tokio_runtime(1).unwrap();
        let again = rt
            .block_on(resume(
                Arc::clone(&plan),
                handler(),
                &mut journal,
                &[],
                &options(time(60.0)),
            ))
            .expect("the run resumes");
        assert_eq!(status_of(&again, "blow"), "failed", "{again:?}");
        assert_eq!(status_of(&again, "end"), status_of(&record, "end"));
        assert_eq!(again.status, record.status);
    }
}

fn time(seconds: f64) -> EvalLimits {
    EvalLimits {
        timeout_seconds: Some(seconds),
        ..EvalLimits::default()
    }
}
