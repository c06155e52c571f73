//! The runner generated at build time runs the graph end to end with typed handlers.

use agc_build_example::Releaser;
use agc_build_example::release::{self, CollectChangesOutputsEntriesItemKind as Kind};
use agc_runtime::run::{FixedClock, FixedIds, MemoryJournal, RunOptions, RunStatus};
use std::sync::Arc;

#[test]
fn the_included_runner_runs_the_graph() {
    let releaser = Releaser {
        changes: vec![
            ("Runners generated from build.rs".into(), Kind::Feature),
            ("Lean runtime features".into(), Kind::Chore),
        ],
    };
    let params = release::Params {
        since_tag: "v0.1.0".into(),
        max_entries: Some(10),
    };
    let opts = RunOptions {
        clock: Arc::new(FixedClock::new()),
        ids: Arc::new(FixedIds::new("run")),
        ..RunOptions::default()
    };
    let mut journal = MemoryJournal::default();
    let record = release::tokio_runtime(1)
        .expect("a tokio runtime")
        .block_on(release::run(&params, releaser, &mut journal, &opts))
        .expect("the run starts");
    assert_eq!(record.status, RunStatus::Succeeded, "{record:?}");
    let outputs = release::outputs(&record).expect("a succeeded run has its outputs");
    assert_eq!(
        outputs.release_notes,
        "# Changes since v0.1.0 (2 entries)\n\n- Runners generated from build.rs\n- Lean runtime features"
    );
    assert_eq!(release::GRAPH_ID, "agc-examples/changelog-release");
    // The embedded plan is the one `agc build` writes for the document.
    assert_eq!(release::plan().graph.id, release::GRAPH_ID);
}
