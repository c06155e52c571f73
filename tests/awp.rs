//! The AWP front end end to end: the upstream corpus (read in place from
//! `../shared/corpus/awp/`, skipped with a notice when absent), every problem reported at once
//! with its pointer, lowering into the IR, plans and diagrams.

use agc::check::{CheckOptions, Checked, check_source};
use agc::compile::{compile_file, plan_text};
use agc::diag::Diagnostic;
use agc::ir::{EdgeKind, Join, NodeKind, RegionKind, Wait};
use agc::source::{Limits, SourceMap, load};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/awp");
    if root.is_dir() {
        Some(root)
    } else {
        eprintln!(
            "notice: {} is absent; AWP corpus tests skipped",
            root.display()
        );
        None
    }
}

fn check(text: &str) -> (Checked, SourceMap) {
    let mut sources = SourceMap::new();
    let (file, loaded) = load::load_str(
        &mut sources,
        "t.workflow.yaml",
        text.into(),
        Limits::default(),
    );
    let c = check_source(&mut sources, file, loaded, &CheckOptions::default(), None);
    (c, sources)
}

fn errors(c: &Checked) -> Vec<(&'static str, String)> {
    c.diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| (d.code, d.pointer.clone().unwrap_or_default()))
        .collect()
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.to_string_lossy().ends_with(".json"));
    v.sort();
    v
}

fn compile(path: &Path) -> (Vec<agc::compile::Compiled>, Vec<Diagnostic>, SourceMap) {
    let mut sources = SourceMap::new();
    let display = path.to_string_lossy().replace('\\', "/");
    let (c, d) = compile_file(&mut sources, path, &display, &CheckOptions::default());
    (c, d, sources)
}

#[test]
fn every_workflow_the_engine_accepts_is_accepted_and_builds() {
    let Some(root) = corpus() else { return };
    let mut files: Vec<PathBuf> = json_files(&root.join("examples"))
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".workflow.json"))
        .collect();
    files.extend(json_files(&root.join("examples/fixtures.valid")));
    files.extend(json_files(&root.join("schemas/examples")));
    files.extend(json_files(&root.join("packages/engine/test/fixtures")));
    // The schema vectors marked valid name their definitions.
    for v in json_files(&root.join("conformance/vectors/schema/valid")) {
        let vector: Value = serde_json::from_str(&std::fs::read_to_string(&v).unwrap()).unwrap();
        assert_eq!(vector["expect"]["ok"], true);
        files.push(root.join(vector["definition"].as_str().unwrap()));
    }
    files.sort();
    files.dedup();
    assert!(files.len() >= 20, "{} files", files.len());
    for f in &files {
        let (compiled, diags, _) = compile(f);
        let errs: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
        assert!(errs.is_empty(), "{}: {errs:#?}", f.display());
        assert_eq!(compiled.len(), 1, "{} does not build", f.display());
    }
}

#[test]
fn every_conformance_vector_marked_invalid_is_rejected_where_upstream_says() {
    let Some(root) = corpus() else { return };
    let vectors = json_files(&root.join("conformance/vectors/schema/invalid"));
    assert_eq!(vectors.len(), 4);
    for v in vectors {
        let vector: Value = serde_json::from_str(&std::fs::read_to_string(&v).unwrap()).unwrap();
        assert_eq!(vector["expect"]["ok"], false);
        let def = root.join(vector["definition"].as_str().unwrap());
        let (compiled, diags, _) = compile(&def);
        assert!(compiled.is_empty(), "{}", def.display());
        for want in vector["expect"]["diagnostics"].as_array().unwrap() {
            let keyword = want["keyword"].as_str().unwrap();
            let at = want["instancePath"].as_str();
            let hit = diags.iter().filter(|d| d.is_error()).any(|d| {
                let ptr = d.pointer.as_deref().unwrap_or_default();
                // agc names the failing keyword of the intended `oneOf` branch (the node's
                // `type` const) where Ajv also reports the union itself at the node.
                let keyword_ok = match keyword {
                    "profile" => d.code == "INTERRUPT_IN_PARALLEL_BRANCH",
                    "oneOf" => d.code == "schema",
                    k => d.code == "schema" && d.message.contains(&format!("keyword `{k}`")),
                };
                keyword_ok && at.is_none_or(|a| ptr == a || ptr.starts_with(&format!("{a}/")))
            });
            assert!(hit, "{}: no diagnostic for {want}: {diags:#?}", v.display());
            if let Some(text) = want["messageIncludes"].as_str()
                && keyword == "profile"
            {
                assert!(diags.iter().any(|d| d.message.contains(text)));
            }
        }
    }
}

const HEAD: &str = "document: {schema: https://agent-workflow.dev/schemas/workflow-definition.json, \
name: t, version: 1.0.0}\nstate_schema:\n  type: object\n  properties:\n    x: {type: string}\n";

#[test]
fn every_problem_is_reported_at_once_with_its_pointer() {
    let text = format!(
        "{HEAD}nodes:
  - {{id: start, type: start}}
  - {{id: a, type: step, config: {{handler: h}}, timeout: 1.5s}}
  - {{id: w, type: step, config: {{handler: h}}}}
  - id: s
    type: switch
    config: {{cases: [{{when: '.x ==', target: nowhere}}]}}
  - {{id: w, type: wait, config: {{kind: until, until: soon}}}}
edges:
  - {{source: __start__, target: start}}
  - {{source: start, target: a}}
  - {{source: a, target: s}}
  - {{source: a, target: w}}
  - {{source: w, target: gone}}
"
    );
    let (c, _) = check(&text);
    let mut got = errors(&c);
    got.sort();
    let want = vec![
        ("duplicate-node-id", "/nodes/4/id".to_string()),
        ("duration-invalid", "/nodes/1/timeout".to_string()),
        ("edge-endpoint-missing", "/edges/4/target".to_string()),
        ("end-node-count", "/nodes".to_string()),
        ("jq-syntax", "/nodes/3/config/cases/0/when".to_string()),
        ("multiple-outgoing-edges", "/edges/3".to_string()),
        (
            "switch-target-missing",
            "/nodes/3/config/cases/0/target".to_string(),
        ),
        ("until-invalid", "/nodes/4/config/until".to_string()),
    ];
    assert_eq!(got, want);
}

#[test]
fn a_schema_failure_stops_before_the_semantic_pass() {
    let text = format!("{HEAD}nodes:\n  - {{id: start, type: start, colour: red}}\nedges: []\n");
    let (c, _) = check(&text);
    // One `schema` finding; no cascade of graph findings (no end node, no start edge).
    assert_eq!(errors(&c), vec![("schema", "/nodes/0".to_string())]);
    assert!(
        c.diags[0]
            .message
            .contains("keyword `additionalProperties`")
    );
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/awp/support-triage.workflow.yaml")
}

#[test]
fn lowering_maps_every_node_type() {
    let (compiled, diags, _) = compile(&example());
    assert!(diags.is_empty(), "{diags:#?}");
    let g = &compiled[0].graph;
    let node = |id: &str| {
        let i = g
            .nodes
            .iter()
            .position(|n| n.scoped_id == id)
            .unwrap_or_else(|| panic!("{id}"));
        (agc::ir::NodeId(i as u32), &g.nodes[i])
    };
    assert_eq!(g.dialect, "awp");
    assert_eq!(g.id, "support-triage");
    assert_eq!(g.entrypoints, vec![node("start").0]);
    // switch: a decision, ordered conditional edges with the jq `when`s, default last.
    let (route, r) = node("route");
    assert_eq!(r.kind, NodeKind::Decision);
    let out: Vec<_> = g.edges.iter().filter(|e| e.from == route).collect();
    assert_eq!(out.len(), 3);
    assert!(out.iter().all(|e| e.kind == EdgeKind::Conditional));
    assert_eq!(
        out.iter().map(|e| e.order).collect::<Vec<_>>(),
        [Some(0), Some(1), Some(2)]
    );
    assert_eq!(
        out[0].guard.as_ref().map(|g| g.source.as_str()),
        Some(".intent == \"bug\" and .confidence > 0.7")
    );
    assert!(out[2].guard.is_none());
    assert_eq!(out[2].label.as_deref(), Some("default"));
    assert_eq!(out[2].to, node("review").0);
    // parallel: fork owning a parallel region, a join node with n_of_m, then the join target.
    let (research, fork) = node("research");
    assert_eq!(fork.kind, NodeKind::Fork);
    let region = g.region(fork.owns.expect("the fork owns a region"));
    assert!(matches!(region.kind, RegionKind::Parallel));
    assert_eq!(
        region.entrypoints,
        vec![
            node("research/search_logs").0,
            node("research/search_history").0
        ]
    );
    assert_eq!(region.nodes.len(), 3);
    assert_eq!(node("research/note_history").1.region, fork.owns);
    let (join, j) = node("research/join");
    assert_eq!(j.kind, NodeKind::Join);
    assert_eq!(j.join, Join::NOf { count: 1 });
    assert!(g.edges.iter().any(|e| e.from == research && e.to == join));
    assert!(
        g.edges
            .iter()
            .any(|e| e.from == join && e.to == node("summarise").0)
    );
    // interrupt: a gate with its resume schema.
    let review = node("review").1;
    assert_eq!(review.kind, NodeKind::Gate);
    let schema = review
        .extra
        .resume_schema
        .as_ref()
        .expect("its resume schema");
    assert_eq!(schema["required"][0], "intent");
    assert!(!review.attrs.contains_key("resume_schema"));
    assert_eq!(review.outputs[0].name, "intent");
    // set_state: a state update, jq and literal inputs.
    let summarise = node("summarise").1;
    assert_eq!(summarise.kind, NodeKind::StateUpdate);
    assert_eq!(summarise.inputs.len(), 2);
    // wait, subworkflow, delegate, end.
    assert_eq!(node("cool_down").1.kind, NodeKind::Wait);
    assert_eq!(
        node("cool_down").1.extra.wait,
        Some(Wait::Duration { ms: Some(300_000) })
    );
    assert_eq!(
        node("release_window").1.extra.wait,
        Some(Wait::Until {
            until: Some("2026-12-01T09:00:00Z".into())
        })
    );
    assert!(!node("cool_down").1.attrs.contains_key("wait"));
    let verify = node("verify").1;
    assert_eq!(verify.kind, NodeKind::Subgraph);
    match &g.region(verify.owns.unwrap()).kind {
        RegionKind::Subgraph { source, params, .. } => {
            assert_eq!(source.to_string(), "ref:urn:awp:wf:unit-tests");
            assert_eq!(
                params.len(),
                1,
                "the jq mapping; the literal stays an input"
            );
        }
        other => panic!("{other:?}"),
    }
    let fix = node("fix").1;
    assert_eq!(
        (fix.kind, fix.origin_kind.as_str()),
        (NodeKind::Task, "agent_delegate")
    );
    assert_eq!(fix.inputs[0].name, "task");
    assert_eq!(node("end").1.kind, NodeKind::Terminal);
    // `attrs.config` keeps what no input or other attribute holds, and all of it elsewhere.
    assert_eq!(
        fix.attrs["config"],
        serde_json::json!({"agent_id": "coder", "protocol": "a2a"})
    );
    assert_eq!(
        review.attrs["config"],
        serde_json::json!({"prompt": "Is this a bug?", "timeout": "24h"})
    );
    assert!(!summarise.attrs.contains_key("config"), "only assignments");
    assert!(
        !node("end").1.attrs.contains_key("config"),
        "only output_mapping"
    );
    assert_eq!(
        node("classify").1.attrs["config"]["model"],
        "gpt-4o-mini",
        "other types keep their whole config"
    );
    assert!(node("classify").1.attrs["config"]["output_schema"].is_object());
    // retries and timeouts.
    let classify = node("classify").1;
    assert_eq!(classify.extra.retry.max_attempts, 3);
    assert_eq!(classify.extra.retry.timeout_seconds, Some(45.0));
    assert_eq!(
        classify.extra.retry.backoff,
        Some(agc::ir::Backoff {
            curve: agc::ir::Curve::Exponential,
            initial_ms: 2000.0,
            coefficient: 2.0,
            max_ms: Some(30_000.0),
            jitter: false,
        })
    );
    // reducers (the semantics' workflow state), checkpointing, state as params.
    let agc::ir::StateModel::Workflow { reducers } = &g.semantics.state else {
        panic!("{:?}", g.semantics.state)
    };
    assert_eq!(reducers["findings"], agc::ir::Reducer::Append);
    assert_eq!(reducers["ticket"], agc::ir::Reducer::Overwrite);
    assert!(!g.attrs.contains_key("reducers"));
    assert_eq!(g.attrs["checkpointing"]["strategy"], "every_n_nodes");
    assert_eq!(g.attrs["checkpointing"]["n"], 2);
    let ticket = g.params.iter().find(|p| p.name == "ticket").unwrap();
    assert!(ticket.required);
}

#[test]
fn the_plan_is_deterministic_and_the_diagram_shows_regions_and_labels() {
    let (c1, _, s1) = compile(&example());
    let (c2, _, s2) = compile(&example());
    let p1 = plan_text(&c1[0], &s1, "support-triage.workflow.yaml");
    assert_eq!(p1, plan_text(&c2[0], &s2, "support-triage.workflow.yaml"));
    let plan: Value = serde_json::from_str(&p1).unwrap();
    assert_eq!(plan["source"]["dialect"], "awp");
    let (mmd, _) = agc::back::mermaid::render(&c1[0].graph, Default::default());
    // The parallel node is the container of its branches; switch cases are labelled with
    // the value they compare against, the default with its name.
    assert!(
        mmd.contains("subgraph n5[\"research<br>in parallel\"]"),
        "{mmd}"
    );
    assert!(mmd.contains("|\"default\"|"), "{mmd}");
    assert!(mmd.contains("|\"question\"|"), "{mmd}");
    real_mermaid_parses(&mmd);
}

/// Parses a diagram with real Mermaid when `tests/mermaid/node_modules` is installed.
fn real_mermaid_parses(mmd: &str) {
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mermaid");
    if !tool.join("node_modules/mermaid").is_dir() {
        println!("note: tests/mermaid/node_modules is absent; real Mermaid check skipped");
        return;
    }
    // Removed when dropped, pass or fail.
    let file = tempfile::Builder::new()
        .prefix("agc-awp-")
        .suffix(".mmd")
        .tempfile()
        .unwrap();
    std::fs::write(file.path(), mmd).unwrap();
    let out = std::process::Command::new("node")
        .arg(tool.join("check.mjs"))
        .arg(file.path())
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn loops_through_a_switch_build_with_an_unbounded_back_edge() {
    let text = format!(
        "{HEAD}nodes:
  - {{id: start, type: start}}
  - {{id: try, type: tool_call, config: {{server: s, tool: t}}}}
  - id: again
    type: switch
    config: {{cases: [{{when: '.x == \"retry\"', target: try}}], default: end}}
  - {{id: end, type: end, config: {{output_mapping: .x}}}}
edges:
  - {{source: __start__, target: start}}
  - {{source: start, target: try}}
  - {{source: try, target: again}}
"
    );
    let (c, _) = check(&text);
    assert!(errors(&c).is_empty(), "{:?}", c.diags);
    let g = &c.compiled[0].graph;
    let back: Vec<_> = g
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Back)
        .collect();
    assert_eq!(back.len(), 1);
    assert_eq!(
        (back[0].bound, g.nodes[back[0].to.index()].local_id.as_str()),
        (None, "try")
    );
}

#[test]
fn branch_rules() {
    // A switch inside a branch routes by its cases; both reach the join target: fine.
    let ok = format!(
        "{HEAD}nodes:
  - {{id: start, type: start}}
  - id: fan
    type: parallel
    config: {{join: any, branches: [{{name: a, entry: pick}}, {{name: b, entry: b1}}]}}
  - id: pick
    type: switch
    config: {{cases: [{{when: '.x == \"1\"', target: a1}}], default: a2}}
  - {{id: a1, type: step, config: {{handler: h}}}}
  - {{id: a2, type: step, config: {{handler: h}}}}
  - {{id: b1, type: wait, config: {{kind: duration, duration_ms: 0}}}}
  - {{id: joined, type: set_state, config: {{assignments: {{x: {{literal: done}}}}}}}}
  - {{id: end, type: end, config: {{output_mapping: .x}}}}
edges:
  - {{source: __start__, target: start}}
  - {{source: start, target: fan}}
  - {{source: fan, target: joined}}
  - {{source: a1, target: joined}}
  - {{source: a2, target: joined}}
  - {{source: b1, target: joined}}
  - {{source: joined, target: end}}
"
    );
    let (c, _) = check(&ok);
    assert!(errors(&c).is_empty(), "{:?}", c.diags);
    let g = &c.compiled[0].graph;
    let fan = g.nodes.iter().find(|n| n.local_id == "fan").unwrap();
    assert_eq!(g.region(fan.owns.unwrap()).nodes.len(), 4);
    // The default leads to the end node instead: that branch does not converge.
    let bad = ok.replace("default: a2", "default: end");
    let (c, _) = check(&bad);
    assert_eq!(
        errors(&c),
        vec![(
            "branch-not-converging",
            "/nodes/1/config/branches/0".to_string()
        )]
    );
    // An empty branch (its entry is the join target) does not converge either.
    let empty = ok.replace("entry: b1", "entry: joined");
    let (c, _) = check(&empty);
    assert_eq!(
        errors(&c),
        vec![(
            "branch-not-converging",
            "/nodes/1/config/branches/1".to_string()
        )]
    );
}

/// Documents with one problem each report exactly that problem's code at its pointer: no
/// cascade of findings that the first one explains.
#[test]
fn one_problem_one_finding() {
    let base = format!(
        "{HEAD}nodes:
  - {{id: start, type: start}}
  - {{id: work, type: step, config: {{handler: h}}}}
  - id: fan
    type: parallel
    config: {{join: all, branches: [{{name: a, entry: a1}}, {{name: b, entry: b1}}]}}
  - {{id: a1, type: tool_call, config: {{server: s, tool: a}}}}
  - {{id: b1, type: tool_call, config: {{server: s, tool: b}}}}
  - {{id: merge, type: set_state, config: {{assignments: {{x: {{jq: .x}}}}}}}}
  - {{id: end, type: end, config: {{output_mapping: .x}}}}
edges:
  - {{source: __start__, target: start}}
  - {{source: start, target: work}}
  - {{source: work, target: fan}}
  - {{source: fan, target: merge}}
  - {{source: a1, target: merge}}
  - {{source: b1, target: merge}}
  - {{source: merge, target: end}}
"
    );
    let (c, _) = check(&base);
    assert!(errors(&c).is_empty(), "{:?}", c.diags);
    let cases = [
        // No end node: the last node has nowhere to go, which is the same problem.
        (
            base.replace(
                "  - {id: end, type: end, config: {output_mapping: .x}}\n",
                "",
            )
            .replace("  - {source: merge, target: end}\n", ""),
            ("end-node-count", "/nodes"),
        ),
        // A typo in an edge source leaves `work` without its edge.
        (
            base.replace("{source: work, target: fan}", "{source: wrok, target: fan}"),
            ("edge-endpoint-missing", "/edges/2/source"),
        ),
        // A branch tail without its edge to the join target.
        (
            base.replace("  - {source: b1, target: merge}\n", ""),
            ("branch-not-converging", "/nodes/2/config/branches/1"),
        ),
        // A branch tail that skips the join target.
        (
            base.replace("{source: b1, target: merge}", "{source: b1, target: end}"),
            ("branch-not-converging", "/nodes/2/config/branches/1"),
        ),
        // Two nodes named `work`, each with its own edge.
        (
            base.replace(
                "  - id: fan\n",
                "  - {id: work, type: step, config: {handler: h2}}\n  - id: fan\n",
            ),
            ("duplicate-node-id", "/nodes/2/id"),
        ),
    ];
    for (text, (code, ptr)) in cases {
        let (c, _) = check(&text);
        assert_eq!(errors(&c), vec![(code, ptr.to_string())], "{text}");
    }
}

/// The plans of AWP workflows (the example and every corpus workflow) validate against agc's
/// plan schema, the contract runners read.
#[test]
fn awp_plans_validate_against_the_plan_schema() {
    let schema: Value =
        serde_json::from_str(include_str!("../schemas/agc-plan-v1.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the plan schema compiles");
    let mut files = vec![example()];
    if let Some(root) = corpus() {
        files.extend(
            json_files(&root.join("examples"))
                .into_iter()
                .filter(|p| p.to_string_lossy().ends_with(".workflow.json")),
        );
    }
    for f in files {
        let (compiled, _, sources) = compile(&f);
        let plan: Value =
            serde_json::from_str(&plan_text(&compiled[0], &sources, "w.workflow.json")).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&plan)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", f.display());
    }
}

/// Branches that share nodes before the join target: a shared interrupt is reported once, for
/// the first branch that reaches it, and every branch that reaches a node with no way to the
/// join target is reported, each naming the nearest such node (here the entries themselves);
/// a switch that may take the join target names the node past its other case.
#[test]
fn branches_sharing_nodes_are_judged_each() {
    let text = format!(
        "{HEAD}nodes:
  - {{id: start, type: start}}
  - id: fan
    type: parallel
    config:
      join: all
      branches: [{{name: a, entry: a1}}, {{name: b, entry: b1}}, {{name: c, entry: c1}}, {{name: d, entry: d1}}, {{name: e, entry: e1}}]
  - {{id: a1, type: set_state, config: {{assignments: {{x: {{jq: .x}}}}}}}}
  - {{id: b1, type: set_state, config: {{assignments: {{x: {{jq: .x}}}}}}}}
  - id: ask
    type: interrupt
    config: {{prompt: Approve?, resume_schema: {{type: object, properties: {{ok: {{type: boolean}}}}}}}}
  - {{id: c1, type: set_state, config: {{assignments: {{x: {{jq: .x}}}}}}}}
  - {{id: d1, type: set_state, config: {{assignments: {{x: {{jq: .x}}}}}}}}
  - {{id: dead, type: set_state, config: {{assignments: {{x: {{jq: .x}}}}}}}}
  - id: e1
    type: switch
    config: {{cases: [{{when: '.x == \"a\"', target: joined}}], default: x1}}
  - {{id: x1, type: set_state, config: {{assignments: {{x: {{jq: .x}}}}}}}}
  - {{id: x2, type: set_state, config: {{assignments: {{x: {{jq: .x}}}}}}}}
  - {{id: joined, type: set_state, config: {{assignments: {{x: {{jq: .x}}}}}}}}
  - {{id: end, type: end, config: {{output_mapping: .x}}}}
edges:
  - {{source: __start__, target: start}}
  - {{source: start, target: fan}}
  - {{source: fan, target: joined}}
  - {{source: a1, target: ask}}
  - {{source: b1, target: ask}}
  - {{source: ask, target: joined}}
  - {{source: c1, target: dead}}
  - {{source: d1, target: c1}}
  - {{source: x1, target: x2}}
  - {{source: joined, target: end}}
"
    );
    let (c, _) = check(&text);
    let found: Vec<(&str, String, Vec<String>)> = c
        .diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            (
                d.code,
                d.pointer.clone().unwrap_or_default(),
                d.labels.iter().map(|l| l.message.clone()).collect(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "branch-not-converging",
                "/nodes/1/config/branches/2".to_string(),
                vec!["`c1` cannot reach it".to_string()]
            ),
            (
                "branch-not-converging",
                "/nodes/1/config/branches/3".to_string(),
                vec!["`d1` cannot reach it".to_string()]
            ),
            (
                "branch-not-converging",
                "/nodes/1/config/branches/4".to_string(),
                vec!["`x1` cannot reach it".to_string()]
            ),
            (
                "INTERRUPT_IN_PARALLEL_BRANCH",
                "/nodes/4".to_string(),
                vec!["the branch that reaches it".to_string()]
            ),
        ]
    );
}

/// `n` parallels each the only branch of the one before (block YAML, one node per line).
fn nested_parallels(n: usize) -> String {
    let mut t = String::from(
        "document: {schema: https://agent-workflow.dev/schemas/workflow-definition.json, \
         name: nested, version: 1.0.0}\nstate_schema: {type: object, properties: {x: {type: \
         string}}}\nnodes:\n  - {id: start, type: start}\n  - {id: end, type: end, config: \
         {output_mapping: .x}}\n  - {id: leaf, type: set_state, config: {assignments: {x: \
         {jq: .x}}}}\n",
    );
    for i in 0..n {
        let entry = if i + 1 < n {
            format!("p{}", i + 1)
        } else {
            "leaf".into()
        };
        t += &format!(
            "  - {{id: p{i}, type: parallel, config: {{join: all, branches: [{{name: b, \
             entry: {entry}}}]}}}}\n  - {{id: j{i}, type: set_state, config: {{assignments: \
             {{x: {{jq: .x}}}}}}}}\n"
        );
    }
    t += "edges:\n  - {source: __start__, target: start}\n  - {source: start, target: p0}\n";
    for i in 0..n {
        t += &format!("  - {{source: p{i}, target: j{i}}}\n");
    }
    t += &format!("  - {{source: leaf, target: j{}}}\n", n - 1);
    for i in 1..n {
        t += &format!("  - {{source: j{i}, target: j{}}}\n", i - 1);
    }
    t + "  - {source: j0, target: end}\n"
}

/// AGC087: 64 levels of parallels lower (the innermost node's id names all 64), the 65th is
/// refused at the parallel that opens it, once, however deep the chain goes on.
#[test]
fn parallels_nest_at_most_64_levels() {
    let (c, _) = check(&nested_parallels(64));
    assert!(c.diags.is_empty(), "{:?}", errors(&c));
    let g = &c.compiled[0].graph;
    let leaf = g.nodes.iter().find(|n| n.local_id == "leaf").unwrap();
    assert_eq!(leaf.scoped_id.split('/').count(), 65, "{}", leaf.scoped_id);
    assert!(leaf.scoped_id.starts_with("p0/p1/") && leaf.scoped_id.ends_with("/p63/leaf"));

    for n in [65, 3000] {
        let (c, sources) = check(&nested_parallels(n));
        let errs = errors(&c);
        assert_eq!(errs.len(), 1, "{n}: {errs:?}");
        let d = &c.diags[0];
        assert_eq!(
            (d.code, d.pointer.as_deref()),
            ("AGC087", Some("/nodes/131"))
        );
        assert!(
            d.message.contains("`p64` is nested 65 levels deep"),
            "{}",
            d.message
        );
        let s = d.span.unwrap();
        assert_eq!(
            &sources.get(s.file).text[s.start as usize..s.end as usize],
            "type"
        );
        assert!(c.compiled.is_empty());
    }
}

/// A node's scoped id is the parallels around it, then its own id (`p/a`); where a node
/// elsewhere already has that id (AWP ids may hold `/`), the later one takes `~2`, `~3`…,
/// and so does a parallel's synthetic join (`p/join`).
#[test]
fn scoped_ids_that_collide_take_a_suffix() {
    let text = format!(
        "{HEAD}nodes:
  - {{id: start, type: start}}
  - {{id: p/a, type: step, config: {{handler: h}}}}
  - {{id: p/join, type: step, config: {{handler: h}}}}
  - id: p
    type: parallel
    config: {{join: all, branches: [{{name: b, entry: a}}]}}
  - {{id: a, type: step, config: {{handler: h}}}}
  - {{id: end, type: end, config: {{output_mapping: .x}}}}
edges:
  - {{source: __start__, target: start}}
  - {{source: start, target: p/a}}
  - {{source: p/a, target: p/join}}
  - {{source: p/join, target: p}}
  - {{source: p, target: end}}
  - {{source: a, target: end}}
"
    );
    let (c, _) = check(&text);
    assert!(errors(&c).is_empty(), "{:?}", c.diags);
    let g = &c.compiled[0].graph;
    let ids: Vec<&str> = g.nodes.iter().map(|n| n.scoped_id.as_str()).collect();
    assert_eq!(
        ids,
        ["start", "p/a", "p/join", "p", "p/a~2", "end", "p/join~2"]
    );
}
