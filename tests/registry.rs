//! The code registry is complete: every code the sources emit is registered with a summary and
//! an explanation, and every registered code is exercised by a fixture (`# EXPECT: CODE` under
//! `tests/fixtures/`) or, where a text fixture cannot carry it, by a named Rust test.

use agc::diag::codes;
use std::collections::BTreeSet;
use std::path::Path;

/// Codes whose trigger cannot live in a UTF-8 YAML fixture, and the test that covers each.
const COVERED_ELSEWHERE: &[(&str, &str)] = &[
    // Skill bindings and Graph selection are command errors: one SKILL.md fixture each, run by a test.
    (
        "skill-binding-missing",
        "tests/agent_graph_skills.rs every_binding_error_has_its_code",
    ),
    (
        "skill-locator-invalid",
        "tests/agent_graph_skills.rs every_binding_error_has_its_code",
    ),
    (
        "skill-locator-absolute",
        "tests/agent_graph_skills.rs every_binding_error_has_its_code",
    ),
    (
        "provider-unresolved",
        "tests/agent_graph_skills.rs every_binding_error_has_its_code",
    ),
    (
        "provider-id-mismatch",
        "tests/agent_graph_skills.rs every_binding_error_has_its_code",
    ),
    (
        "skill-graph-missing",
        "tests/agent_graph_skills.rs every_binding_error_has_its_code",
    ),
    (
        "skill-entry-missing",
        "tests/agent_graph_skills.rs every_binding_error_has_its_code",
    ),
    (
        "skill-graph-conflict",
        "tests/agent_graph_skills.rs every_binding_error_has_its_code",
    ),
    (
        "skill-entry-conflict",
        "tests/agent_graph_skills.rs every_binding_error_has_its_code",
    ),
    (
        "registry-invalid",
        "tests/agent_graph_skills.rs every_binding_error_has_its_code",
    ),
    (
        "graph-selection-missing",
        "tests/agent_graph_skills.rs every_binding_error_has_its_code",
    ),
    (
        "route-arguments-invalid",
        "tests/agent_graph_skills.rs every_binding_error_has_its_code",
    ),
    // Bundles hold digests of their own files: broken ones are built and mutated by a test.
    (
        "bundle-digest-mismatch",
        "tests/agent_graph_bundle.rs every_bundle_code_is_reported_on_its_line",
    ),
    (
        "bundle-file-duplicate",
        "tests/agent_graph_bundle.rs every_bundle_code_is_reported_on_its_line",
    ),
    (
        "bundle-file-digest-mismatch",
        "tests/agent_graph_bundle.rs every_bundle_code_is_reported_on_its_line",
    ),
    (
        "bundle-catalog-mismatch",
        "tests/agent_graph_bundle.rs every_bundle_code_is_reported_on_its_line",
    ),
    (
        "bundle-invalid",
        "tests/agent_graph_bundle.rs every_bundle_code_is_reported_on_its_line",
    ),
    (
        "bundle-provider-unlisted",
        "tests/agent_graph_bundle.rs every_bundle_code_is_reported_on_its_line",
    ),
    (
        "bundle-provider-mismatch",
        "tests/agent_graph_bundle.rs every_bundle_code_is_reported_on_its_line",
    ),
    (
        "bundle-files-mismatch",
        "tests/agent_graph_bundle.rs every_bundle_code_is_reported_on_its_line",
    ),
    (
        "bundle-dependencies-mismatch",
        "tests/agent_graph_bundle.rs every_bundle_code_is_reported_on_its_line",
    ),
    (
        "build-output-overlaps-source",
        "tests/agent_graph_bundle.rs the_build_refuses_overlaps_and_absolute_path_leaks",
    ),
    (
        "build-absolute-path-leak",
        "tests/agent_graph_bundle.rs the_build_refuses_overlaps_and_absolute_path_leaks",
    ),
    // An agh extension manifest is a second file, which a one-file fixture cannot carry.
    ("AGC222", "tests/agh.rs a_broken_manifest_is_agc222"),
    // `agc run` codes concern the command, not a document: tests/run_cli.rs triggers each.
    ("AGC300", "tests/run_cli.rs"),
    ("AGC301", "tests/run_cli.rs"),
    ("AGC302", "tests/run_cli.rs"),
    ("AGC303", "tests/run_cli.rs"),
    ("AGC304", "tests/run_cli.rs"),
    ("AGC309", "tests/run_dir_lock.rs"),
    ("AGC310", "tests/run_journal_damage.rs"),
    // `agc run --engine restate` / `agc restate register` codes need a Restate server:
    // restate/tests/restate.rs triggers each against one started from the npm package.
    ("AGC360", "restate/tests/restate.rs cli_errors_*"),
    ("AGC361", "restate/tests/restate.rs cli_errors_*"),
    ("AGC362", "restate/tests/restate.rs cli_errors_*"),
    ("AGC363", "restate/tests/restate.rs cli_errors_*"),
    ("AGC364", "restate/tests/restate.rs cli_errors_*"),
    ("AGC365", "restate/tests/restate.rs cli_errors_*"),
    ("AGC305", "runtime/src/run/core/back_tests.rs"),
    ("AGC306", "runtime/src/run/core/back_tests.rs"),
    ("AGC308", "runtime/src/run/core/ladder_tests.rs"),
    (
        "AGC325",
        "runtime/src/run/core/signals_tests.rs; tests/run.rs awp-signals-bad (its golden record)",
    ),
    (
        "AGC326",
        "runtime/src/run/core/signals_tests.rs; tests/run.rs awp-signals-bad-resume (its golden record)",
    ),
    ("AGC327", "tests/run_values.rs awp_switch_*"),
    (
        "AGC328",
        "tests/run_values.rs awp_a_node_that_leaves_the_state_invalid_fails",
    ),
    ("AGC329", "tests/agh_run.rs"),
    (
        "AGC307",
        "tests/run.rs awp-support-triage (its golden record)",
    ),
    (
        "AGC315",
        "tests/run.rs deploy-rollback-fails (its golden record); runtime/src/run/core/timers_tests.rs",
    ),
    (
        "AGC223",
        "tests/agh.rs the_resolved_form_fills_defaults_and_keys_sources_upstreams_way",
    ),
    // AGS runtime codes: what a run writes into its record, triggered by runs.
    (
        "RT015",
        "runtime/src/run/core/human_tests.rs a_checkpoint_the_handler_cannot_present_waits_for_a_decision",
    ),
    (
        "RT021",
        "tests/run.rs every_case_runs_to_its_golden_record (repair-loop-cap)",
    ),
    (
        "RT025",
        "tests/run_codes.rs rt025_a_map_over_a_string_fails",
    ),
    (
        "RT026",
        "tests/run_codes.rs rt026_over_max_items_truncates_or_fails",
    ),
    (
        "RT031",
        "tests/run.rs every_case_runs_to_its_golden_record (awp-signals-bad)",
    ),
    (
        "RT032",
        "tests/run.rs every_case_runs_to_its_golden_record (library-bad-output)",
    ),
    (
        "RT033",
        "runtime/src/run/core/human_tests.rs an_input_checkpoint_supplies_values_into_the_outputs",
    ),
    (
        "RT041",
        "tests/run_codes.rs rt041_and_rt062_under_on_expression_error_false",
    ),
    (
        "RT042",
        "tests/run.rs every_case_runs_to_its_golden_record (ladder-fallbacks)",
    ),
    (
        "RT053",
        "tests/run_cli.rs agc303_pause_then_resume_with_a_decision",
    ),
    (
        "RT061",
        "tests/run.rs every_case_runs_to_its_golden_record (repair-loop-budget)",
    ),
    (
        "RT062",
        "tests/run_codes.rs rt062_stops_the_run_under_the_default_policy",
    ),
    // A runtime limit of an evaluation: `agc eval` and `agc run` meet it, never `agc check`.
    (
        "AGC043",
        "tests/eval_limits.rs every_limit_is_agc043_and_exit_2",
    ),
    // Fact-path parser errors: the parser's own tests trigger each.
    ("AGC070", "tests/facts.rs"),
    ("AGC071", "tests/facts.rs"),
    ("AGC072", "tests/facts.rs"),
    // Too deep for a fixture to be readable: the CEL parser's own tests trigger it.
    (
        "AGC050",
        "tests/cel_grammar.rs (10,000 nested parentheses and unary operators)",
    ),
    (
        "AGC081",
        "tests/refs.rs escaping_the_root_is_refused, symlinks_out_of_the_root_are_refused",
    ),
    (
        "AGC084",
        "tests/refs.rs build_refuses_documents_that_hold_no_graph",
    ),
    (
        "AGC086",
        "compiler/src/compile.rs a_command_that_takes_one_graph_names_them_all_when_given_several",
    ),
    (
        "AGC085",
        "tests/refs.rs a_reference_to_another_dialect_is_refused",
    ),
    (
        "RT051",
        "tests/refs.rs integrity_and_expected_id_are_verified",
    ),
    (
        "RT052",
        "tests/refs.rs integrity_and_expected_id_are_verified",
    ),
    (
        "AGC001",
        "tests/cli.rs check_exit_statuses (a missing file)",
    ),
    ("AGC002", "tests/load.rs invalid_utf8_points_at_the_byte"),
    (
        "AGC004",
        "tests/load.rs every_duplicate_key_is_reported_with_the_first (AGS remaps it to AG005)",
    ),
    ("AGC010", "tests/load.rs bom_is_a_warning_and_skipped"),
    ("AGC012", "tests/load.rs file_size_limit"),
    (
        "AGC017",
        "tests/hostile.rs inputs_that_are_no_regular_file_or_too_large_or_too_deep_are_refused",
    ),
    // Outputs of the commands (no document position): the hostile-output table triggers each.
    (
        "AGC018",
        "tests/hostile.rs outputs_that_are_inputs_full_or_not_agcs_are_refused_and_change_nothing",
    ),
    (
        "AGC019",
        "tests/hostile.rs output_folders_agc_wrote_are_rewritten_and_others_only_with_force",
    ),
    (
        "AGC025",
        "tests/hostile.rs outputs_that_are_inputs_full_or_not_agcs_are_refused_and_change_nothing",
    ),
    (
        "AGC104",
        "tests/hostile.rs outputs_that_are_inputs_full_or_not_agcs_are_refused_and_change_nothing",
    ),
    (
        "AGC080",
        "a fragment expansion beyond 2,000,000 nodes: too large for a fixture",
    ),
    (
        "AGC100",
        "tests/cli.rs graphs_over_mermaids_edge_limit_ask_for_collapse",
    ),
    ("AGC101", "tests/cli.rs graph_inject_and_check"),
    (
        "AGC103",
        "tests/graph.rs diagrams_over_mermaids_text_limit_ask_for_collapse",
    ),
    // Usage errors of `agc gen rust` (command-line values, no document position).
    ("AGC340", "tests/gen_rust.rs usage_errors_agc340_and_agc341"),
    ("AGC341", "tests/gen_rust.rs usage_errors_agc340_and_agc341"),
    ("AGC102", "tests/cli.rs graph_inject_and_check"),
    // Agent Graph evaluation and routing codes are not loader findings: a fixture cannot carry
    // them. The symlink escape needs a symlink, made at test time.
    (
        "path-symlink-outside-provider",
        "tests/agent_graph_providers.rs a_symlink_out_of_the_provider_is_refused",
    ),
    (
        "graph-missing",
        "tests/agent_graph.rs route_refuses_stale_revisions_and_ids",
    ),
    (
        "route-revision-stale",
        "tests/agent_graph.rs route_refuses_stale_revisions_and_ids",
    ),
    (
        "route-stale",
        "tests/agent_graph.rs route_refuses_stale_revisions_and_ids",
    ),
    (
        "json-invalid",
        "tests/agent_graph_inputs.rs argument_errors_have_upstreams_codes",
    ),
    (
        "json-object-required",
        "tests/agent_graph_inputs.rs argument_errors_have_upstreams_codes",
    ),
    (
        "outcome-invalid",
        "tests/agent_graph_inputs.rs argument_errors_have_upstreams_codes",
    ),
    (
        "file-read-failed",
        "tests/agent_graph_inputs.rs argument_errors_have_upstreams_codes",
    ),
    (
        "test-path-missing",
        "tests/agent_graph_inputs.rs argument_errors_have_upstreams_codes",
    ),
    (
        "test-cases-empty",
        "tests/agent_graph_inputs.rs argument_errors_have_upstreams_codes",
    ),
    (
        "unexpected-error",
        "tests/agent_graph_inputs.rs argument_errors_have_upstreams_codes",
    ),
    // A guard in routing: the loader refuses a Provider whose resources do not load, so no
    // command reaches it (its explanation says so); there is no test.
    (
        "resource-missing",
        "unreachable through a checked Provider (runtime/src/agent_graph/route.rs)",
    ),
    (
        "route-unavailable",
        "tests/agent_graph.rs route_without_a_primary_route_and_foreign_receipts_fail_with_their_codes",
    ),
    (
        "resource-receipts-provider-mismatch",
        "tests/agent_graph.rs route_without_a_primary_route_and_foreign_receipts_fail_with_their_codes",
    ),
    (
        "entry-missing",
        "tests/agent_graph.rs blocked_ambiguous_and_missing_entries_are_reported_as_upstream_does",
    ),
    (
        "required-fact-missing",
        "tests/agent_graph.rs blocked_ambiguous_and_missing_entries_are_reported_as_upstream_does",
    ),
    (
        "terminal-outcome-ambiguous",
        "tests/agent_graph.rs blocked_ambiguous_and_missing_entries_are_reported_as_upstream_does",
    ),
    (
        "no-route",
        "tests/agent_graph.rs blocked_ambiguous_and_missing_entries_are_reported_as_upstream_does",
    ),
    (
        "AGC205",
        "tests/agent_graph_build.rs runaway_subgraph_inlining_stops_with_a_warning",
    ),
    (
        "AGC206",
        "tests/agent_graph_build.rs graph_names_a_graph_the_provider_has",
    ),
    (
        "AGC207",
        "tests/stdin.rs a_provider_or_a_lone_graph_from_standard_input_is_reported",
    ),
    (
        "route-alternatives-truncated",
        "tests/agent_graph.rs evaluate_matches_the_upstream_cli_byte_for_byte (choice-routing)",
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                if !p.ends_with("tests") {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
}

/// Code-shaped string literals (`"AG123"`, `"AGC012"`, `"RT051"`) in the compiler's and the
/// runtime's sources (the runtime writes RT codes into run records; `agc explain` must know
/// them too), and the Agent Graph command errors (`Error::new("json-invalid", ...)`).
fn emitted_codes() -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(Path::new("compiler/src"), &mut files);
    rust_files(Path::new("runtime/src"), &mut files);
    let mut found = BTreeSet::new();
    for f in files {
        if f.to_string_lossy().contains("diag/codes") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        // Agent Graph errors of the commands: `Error::new("kebab-code", ...)`.
        for (i, _) in text.match_indices("Error::new(") {
            let rest = text[i + "Error::new(".len()..].trim_start();
            if let Some(lit) = rest.strip_prefix('"').and_then(|r| r.split('"').next())
                && !lit.is_empty()
                && lit
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            {
                found.insert(lit.to_string());
            }
        }
        for (i, _) in text.match_indices('"') {
            let rest = &text[i + 1..];
            let end = rest.find('"').unwrap_or(0);
            let lit = &rest[..end];
            let is_code = (lit.starts_with("AGC")
                && lit.len() == 6
                && lit[3..].bytes().all(|b| b.is_ascii_digit()))
                || ((lit.starts_with("AG") || lit.starts_with("RT"))
                    && lit.len() == 5
                    && lit[2..].bytes().all(|b| b.is_ascii_digit()));
            if is_code {
                found.insert(lit.to_string());
            }
        }
    }
    found
}

fn fixture_codes() -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut stack = vec![Path::new("tests/fixtures").to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(text) = std::fs::read_to_string(&p)
                && let Some(code) = text
                    .lines()
                    .next()
                    .and_then(|l| l.strip_prefix("# EXPECT: "))
            {
                found.insert(code.trim().to_string());
            }
        }
    }
    found
}

#[test]
fn every_emitted_code_is_registered_and_explained() {
    let missing: Vec<String> = emitted_codes()
        .into_iter()
        .filter(|c| codes::lookup(c).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "emitted but not registered: {missing:?}"
    );
    for c in codes::all() {
        assert!(
            !c.summary.is_empty() && c.explanation.len() > 80,
            "{} needs a real explanation",
            c.code
        );
    }
    let mut seen = BTreeSet::new();
    for c in codes::all() {
        assert!(seen.insert(c.code), "{} registered twice", c.code);
    }
}

#[test]
fn every_code_has_a_fixture_or_a_named_test() {
    let fixtures = fixture_codes();
    let elsewhere: BTreeSet<&str> = COVERED_ELSEWHERE.iter().map(|(c, _)| *c).collect();
    // Every registered code (native codes such as agh's `node_id_invalid` included), and every
    // code-shaped literal the sources emit.
    let mut all: BTreeSet<String> = codes::all().map(|c| c.code.to_string()).collect();
    all.extend(emitted_codes());
    let uncovered: Vec<String> = all
        .into_iter()
        .filter(|c| !fixtures.contains(c) && !elsewhere.contains(c.as_str()))
        .collect();
    assert!(
        uncovered.is_empty(),
        "codes without a fixture: {uncovered:?}"
    );
}
