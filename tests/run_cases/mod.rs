//! The golden run scenarios, shared by `tests/run.rs` (the local runtime) and
//! `restate/tests/restate.rs` (the same scenarios on Restate must give the same records):
//! one table, so the two engines are always compared on the same graphs, scripts and params.
//! Scripts and params named without a `/` live in `tests/golden/runs/scripts/`.

#![allow(dead_code)]

pub struct Case {
    pub name: &'static str,
    /// Path of the graph; `corpus:` is under `../shared/corpus/ags/`.
    pub graph: &'static str,
    pub script: &'static str,
    pub params: Option<&'static str>,
    /// `--root` for graphs that reference files.
    pub root: Option<&'static str>,
    /// Exit status and record status of the first run.
    pub first: (i32, &'static str),
    /// Gate decisions for a resume after a pause; then the final exit and status.
    pub resume: Option<(&'static [&'static str], i32, &'static str)>,
}

pub const fn case(
    name: &'static str,
    graph: &'static str,
    script: &'static str,
    first: (i32, &'static str),
) -> Case {
    Case {
        name,
        graph,
        script,
        params: None,
        root: None,
        first,
        resume: None,
    }
}

pub const OK: (i32, &str) = (0, "succeeded");
pub const FAILED: (i32, &str) = (1, "failed");

pub fn cases() -> Vec<Case> {
    vec![
        Case {
            params: Some("examples/ags/changelog-release.params.json"),
            ..case(
                "changelog-release",
                "examples/ags/changelog-release.agraph.yaml",
                "examples/ags/changelog-release.script.yaml",
                OK,
            )
        },
        // agh: CEL conditions, `{{ }}` templates (typed `collection`), a judge gate, a
        // branch on `generation`; the clean first generation ends the Loop `done`.
        Case {
            params: Some("examples/agh/delivery.params.json"),
            ..case(
                "agh-delivery",
                "examples/agh/delivery.loop.yaml",
                "examples/agh/delivery.script.yaml",
                OK,
            )
        },
        // AWP: jq switch cases and mappings over the workflow state, reducers, a parallel
        // region whose `n_of_m` join (n: 1) cancels the history branch once the logs branch
        // succeeded, `end`'s output mapping; two timed waits (an `until` time and a 5m
        // duration: the fixed clock jumps to them); AGC307 for the unloaded sub-workflow.
        Case {
            params: Some("examples/awp/support-triage.params.json"),
            ..case(
                "awp-support-triage",
                "examples/awp/support-triage.workflow.yaml",
                "examples/awp/support-triage.script.yaml",
                OK,
            )
        },
        // Agent Graph: a repeat edge re-runs build and review as a second pass; fact checks
        // guard build and publish.
        Case {
            params: Some("examples/agent-graph/release.params.json"),
            ..case(
                "agent-graph-release",
                "examples/agent-graph/release",
                "examples/agent-graph/release.script.yaml",
                OK,
            )
        },
        Case {
            params: Some("examples/agent-graph/release.params.json"),
            ..case(
                "agent-graph-unapproved",
                "examples/agent-graph/release",
                "agent-graph-unapproved",
                OK,
            )
        },
        // Timers and compensation: a fetch retried after exponential backoff (5 s, 10 s),
        // then signed off.
        case(
            "deploy-signed-off",
            "tests/golden/runs/graphs/deploy-compensated.agraph.yaml",
            "deploy-signed-off",
            OK,
        ),
        // Nobody signs off: the gate's `on_timeout: fail` fires after 3600 s (virtual time)
        // and the run fails; the deployment, then the staging, are compensated.
        case(
            "deploy-timed-out",
            "tests/golden/runs/graphs/deploy-compensated.agraph.yaml",
            "deploy-timed-out",
            FAILED,
        ),
        // The sign-off is rejected; the roll-back fails after its retry (AGC315) and the
        // staging is still undone.
        case(
            "deploy-rollback-fails",
            "tests/golden/runs/graphs/deploy-compensated.agraph.yaml",
            "deploy-rollback-fails",
            FAILED,
        ),
        // AWP: a loop through a switch (a back edge without a bound), first match wins.
        case(
            "awp-until-done",
            "tests/golden/runs/graphs/awp-until-done.workflow.yaml",
            "awp-until-done",
            OK,
        ),
        // AWP input from outside: a signal wait (its payload reduced into the state, `notes`
        // appended) and an interrupt (its resume payload checked against `resume_schema` and
        // overwriting the state).
        Case {
            params: Some("awp-signals"),
            ..case(
                "awp-signals",
                "tests/golden/runs/graphs/awp-signals.workflow.yaml",
                "awp-signals",
                OK,
            )
        },
        // Nobody delivers the signal: the run pauses on the wait; the decision delivers it
        // with an empty payload and the scripted review finishes the run.
        Case {
            params: Some("awp-signals"),
            resume: Some((&["await_payment=approved"], 0, "succeeded")),
            ..case(
                "awp-signals-paused",
                "tests/golden/runs/graphs/awp-signals.workflow.yaml",
                "awp-signals-paused",
                (4, "awaiting_human"),
            )
        },
        // A payload that does not fit the state's types fails the wait (AGC325); a resume
        // payload that does not fit `resume_schema` fails the interrupt (AGC326).
        Case {
            params: Some("awp-signals"),
            ..case(
                "awp-signals-bad",
                "tests/golden/runs/graphs/awp-signals.workflow.yaml",
                "awp-signals-bad",
                FAILED,
            )
        },
        Case {
            params: Some("awp-signals"),
            ..case(
                "awp-signals-bad-resume",
                "tests/golden/runs/graphs/awp-signals.workflow.yaml",
                "awp-signals-bad-resume",
                FAILED,
            )
        },
        case(
            "repair-loop-green",
            "corpus:examples/test-repair-loop.agraph.yaml",
            "repair-loop-green",
            OK,
        ),
        // The loop hits max_iterations and escalates to a human (its `failure.escalation`):
        // the run pauses on `repair_loop.escalation`; rejected, the loop fails.
        Case {
            resume: Some((&["repair_loop.escalation=rejected"], 1, "failed")),
            ..case(
                "repair-loop-cap",
                "corpus:examples/test-repair-loop.agraph.yaml",
                "repair-loop-cap",
                (4, "awaiting_human"),
            )
        },
        case(
            "repair-loop-budget",
            "corpus:examples/test-repair-loop.agraph.yaml",
            "repair-loop-budget",
            FAILED,
        ),
        case(
            "repair-loop-retry",
            "corpus:examples/test-repair-loop.agraph.yaml",
            "repair-loop-retry",
            OK,
        ),
        Case {
            root: Some("corpus:examples"),
            ..case(
                "site-refresh-items",
                "corpus:examples/docs-site-refresh.agraph.yaml",
                "site-refresh-items",
                OK,
            )
        },
        Case {
            root: Some("corpus:examples"),
            ..case(
                "site-refresh-clean",
                "corpus:examples/docs-site-refresh.agraph.yaml",
                "site-refresh-clean",
                OK,
            )
        },
        case(
            "library-release",
            "corpus:examples/library-v1-release.agraph.yaml",
            "library-release",
            OK,
        ),
        case(
            "library-release-json",
            "corpus:examples/library-v1-release.agraph.json",
            "library-release",
            OK,
        ),
        // The release goes through remediation, where a human takes over (fallback
        // `human_takeover`), or declines to and the escalation pauses the run.
        case(
            "library-takeover",
            "corpus:examples/library-v1-release.agraph.yaml",
            "library-takeover",
            OK,
        ),
        Case {
            resume: Some((&["remediate_gaps.escalation=rejected"], 1, "failed")),
            ..case(
                "library-escalated",
                "corpus:examples/library-v1-release.agraph.yaml",
                "library-escalated",
                (4, "awaiting_human"),
            )
        },
        case(
            "library-rejected",
            "corpus:examples/library-v1-release.agraph.yaml",
            "library-rejected",
            FAILED,
        ),
        case(
            "library-criteria",
            "corpus:examples/library-v1-release.agraph.yaml",
            "library-criteria",
            FAILED,
        ),
        case(
            "library-bad-output",
            "corpus:examples/library-v1-release.agraph.yaml",
            "library-bad-output",
            FAILED,
        ),
        Case {
            params: Some("link-audit"),
            ..case(
                "link-audit",
                "corpus:examples/link-audit.agraph.yaml",
                "link-audit",
                OK,
            )
        },
        // No link found: the `links_found` expression criterion fails every attempt
        // (`criteria_failed`, retried per `retry_on`), and the run fails.
        Case {
            params: Some("link-audit"),
            ..case(
                "link-audit-no-links",
                "corpus:examples/link-audit.agraph.yaml",
                "defaults",
                FAILED,
            )
        },
        Case {
            resume: Some((&["maintainer_approval=approved"], 0, "succeeded")),
            ..case(
                "minimal-paused",
                "corpus:examples/minimal.agraph.yaml",
                "minimal-paused",
                (4, "awaiting_human"),
            )
        },
        case(
            "minimal-rejected",
            "corpus:examples/minimal.agraph.yaml",
            "minimal-rejected",
            FAILED,
        ),
        case(
            "readiness-publish",
            "corpus:third_party/loro/release-readiness.agraph.yaml",
            "readiness-publish",
            OK,
        ),
        case(
            "readiness-hold",
            "corpus:third_party/loro/release-readiness.agraph.yaml",
            "readiness-hold",
            OK,
        ),
        case(
            "basic",
            "corpus:third_party/loro/basic.agraph.yaml",
            "defaults",
            OK,
        ),
        case(
            "governed-data",
            "corpus:third_party/loro/governed-data.agraph.yaml",
            "defaults",
            OK,
        ),
        case(
            "enterprise-brief",
            "corpus:third_party/loro/enterprise-brief.agraph.yaml",
            "approve-all",
            OK,
        ),
        Case {
            params: Some("bug-triage"),
            ..case(
                "bug-triage",
                "corpus:third_party/magagent/bug-triage.agraph.yaml",
                "defaults",
                OK,
            )
        },
        case(
            "docs-audit",
            "corpus:third_party/magagent/docs-audit.agraph.yaml",
            "defaults",
            OK,
        ),
        case(
            "release-prep",
            "corpus:third_party/magagent/release-prep.agraph.yaml",
            "approve-all",
            OK,
        ),
        // Every fallback strategy: alternate_node, degrade_outputs (the run ends partial),
        // relax_criteria, human_takeover, skip.
        case(
            "ladder-fallbacks",
            "tests/golden/runs/graphs/ladder-fallbacks.agraph.yaml",
            "ladder-fallbacks",
            (1, "partial"),
        ),
        // Checkpoint timeouts (fixed clock: a pending timeout fires instead of pausing): an
        // unproofread draft stands (`approve`), an unconfirmed upload escalates to a person
        // who uploads by hand (`escalate`), an unsigned announcement fails its attempt
        // `timeout` and is retried (`fail`).
        case(
            "checkpoint-timeouts",
            "tests/golden/runs/graphs/checkpoint-timeouts.agraph.yaml",
            "checkpoint-timeouts",
            OK,
        ),
        // The escalation's hand-off has no timeout (the policy holds): the run pauses after
        // the confirmation timed out; rejected, the upload fails.
        Case {
            resume: Some((&["upload.escalation=rejected"], 1, "failed")),
            ..case(
                "checkpoint-timeouts-held",
                "tests/golden/runs/graphs/checkpoint-timeouts.agraph.yaml",
                "checkpoint-timeouts-held",
                (4, "awaiting_human"),
            )
        },
        // Checkpoints at every stage; the unanswered `go` pauses the run until decided.
        Case {
            resume: Some((&["plan_work.go=approved"], 0, "succeeded")),
            ..case(
                "checkpoints",
                "tests/golden/runs/graphs/checkpoints.agraph.yaml",
                "checkpoints",
                (4, "awaiting_human"),
            )
        },
    ]
}
