//! The agh.loop/v1 front end end to end: the corpus Loops with their extension manifests,
//! manifest discovery, the example Loops, lowering into the IR, warnings, version drift and
//! the resolved form. (One fixture per code lives in `tests/fixtures/agh/`.)

use agc::check::{CheckOptions, check_path, check_text};
use agc::compile::{Compiled, compile_file};
use agc::diag::{Diagnostic, Severity};
use agc::ir::{EdgeKind, NodeKind, RegionKind, RouteAction};
use agc::source::SourceMap;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/agh");
    if root.is_dir() {
        Some(root)
    } else {
        eprintln!(
            "notice: {} is absent; agh corpus tests skipped",
            root.display()
        );
        None
    }
}

fn loops(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "loop.yaml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The manifests that come with a corpus Loop: agh-era Loops call the dev-cycle tools of
/// compozy/agh; compozy-era Loops call the dev-cycle and spec-cycle tools of compozy/compozy.
fn manifests(corpus: &Path, rel: &str) -> Vec<PathBuf> {
    if rel.starts_with("compozy-agh/") {
        vec![corpus.join("compozy-agh/53d4c44f007a/extensions/dev-cycle/extension.json")]
    } else {
        vec![
            corpus.join("compozy-compozy/8eeb8a3813fc/extensions/dev-cycle/extension.json"),
            corpus.join("compozy-compozy/96a771efa894/extensions/spec-cycle/extension.json"),
        ]
    }
}

fn opts(root: &Path, extensions: Vec<PathBuf>) -> CheckOptions {
    CheckOptions {
        root: Some(root.to_path_buf()),
        extensions,
        ..CheckOptions::default()
    }
}

fn show(sources: &SourceMap, d: &Diagnostic) -> String {
    let at = d.span.map(|s| {
        let lc = sources.get(s.file).line_col(s.start);
        format!("{}:{}", lc.line, lc.column)
    });
    format!("{} {} {}", d.code, at.unwrap_or_default(), d.message)
}

fn compile(path: &Path, o: &CheckOptions) -> (Option<Compiled>, Vec<String>, SourceMap) {
    let mut sources = SourceMap::new();
    let display = path.to_string_lossy().replace('\\', "/");
    let (compiled, diags) = compile_file(&mut sources, path, &display, o);
    let errors = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| show(&sources, d))
        .collect();
    (compiled.into_iter().next(), errors, sources)
}

/// Builds the plan of a Loop: no error, byte-stable, valid against the plan schema.
fn plan_of(path: &Path, o: &CheckOptions) -> Result<String, Vec<String>> {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../schemas/agc-plan-v1.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the plan schema compiles");
    let build = || {
        let mut sources = SourceMap::new();
        agc::compile::build_file(&mut sources, path, "loop.yaml", o)
    };
    let (plan, diags) = build();
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    let Some(plan) = plan.filter(|_| errors.is_empty()) else {
        return Err(errors);
    };
    assert_eq!(Some(&plan), build().0.as_ref(), "two builds differ");
    let value: serde_json::Value = serde_json::from_str(&plan).unwrap();
    let bad: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    if bad.is_empty() { Ok(plan) } else { Err(bad) }
}

#[test]
fn every_corpus_loop_is_accepted_and_builds_with_its_manifests() {
    let Some(corpus) = corpus() else { return };
    let mut n = 0;
    let mut bad = Vec::new();
    for path in loops(&corpus) {
        let rel = path
            .strip_prefix(&corpus)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let o = opts(&corpus, manifests(&corpus, &rel));
        let (compiled, errors, _) = compile(&path, &o);
        if !errors.is_empty() || compiled.is_none() {
            bad.push(format!("{rel}: {errors:?}"));
            continue;
        }
        let g = compiled.unwrap().graph;
        assert_eq!(g.dialect, "agh");
        assert!(g.nodes.len() > 1, "{rel}");
        if let Err(e) = plan_of(&path, &o) {
            bad.push(format!("{rel}: plan: {e:?}"));
        }
        n += 1;
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert_eq!(n, 14);
}

#[test]
fn corpus_tool_calls_need_their_manifest() {
    let Some(corpus) = corpus() else { return };
    let path =
        corpus.join("compozy-agh/d2731f1055ad/extensions/dev-cycle/loops/reviews-watch/loop.yaml");
    let (_, errors, _) = compile(&path, &opts(&corpus, Vec::new()));
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors.iter().all(|e| e.starts_with("unknown_action_kind ")));
}

#[test]
fn a_manifest_beside_the_loop_is_found_inside_the_root() {
    let Some(corpus) = corpus() else { return };
    let path =
        corpus.join("compozy-agh/53d4c44f007a/extensions/dev-cycle/loops/reviews-watch/loop.yaml");
    // The manifest is two folders up, inside the root: found without a flag.
    let (c, errors, _) = compile(&path, &opts(&corpus, Vec::new()));
    assert!(errors.is_empty() && c.is_some(), "{errors:?}");
    // With the root at the Loop's folder (a copy outside any checkout), the manifest is
    // outside it but in the Loop's extension folder by the daemon's layout: found too
    // (issue 41; tests/agh_manifests.rs).
    let (c, errors, _) = compile(&path, &opts(path.parent().unwrap(), Vec::new()));
    assert!(errors.is_empty() && c.is_some(), "{errors:?}");
}

/// A scratch folder under the target dir, emptied first.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("agh-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("loops/one")).unwrap();
    d
}

const TOOL_LOOP: &str = "apiVersion: agh.loop/v1
kind: Loop
meta: { name: one }
contract: { goal: Push., terminal_states: [done] }
graph:
  nodes:
    - id: push
      class: action
      kind: ext__my_ext__push
      params: { remote: origin }
    - id: report
      class: action
      kind: run-agent
      params: { agent: a, prompt: \"Pushed {{ .nodes.push.output.head }}\" }
  edges:
    - { from: push, to: report }
";

/// Sorted error codes.
fn errors_of(root: &Path, file: &Path, extensions: Vec<PathBuf>) -> Vec<&'static str> {
    let mut sources = SourceMap::new();
    let mut codes: Vec<&'static str> =
        check_path(&mut sources, file, "loop.yaml", &opts(root, extensions))
            .into_iter()
            .filter(|d| d.is_error())
            .map(|d| d.code)
            .collect();
    codes.sort();
    codes
}

#[test]
fn manifests_in_json_and_toml_declare_tools_and_their_output_schemas() {
    let d = scratch("json");
    let lp = d.join("loops/one/loop.yaml");
    std::fs::write(&lp, TOOL_LOOP).unwrap();
    assert_eq!(errors_of(&d, &lp, vec![]), vec!["unknown_action_kind"]);
    std::fs::write(
        d.join("extension.json"),
        r#"{"extension": {"name": "my-ext"}, "resources": {"tools": {"push": {
            "output_schema": {"type": "object", "properties": {"head": {"type": "string"}}}}}}}"#,
    )
    .unwrap();
    assert_eq!(errors_of(&d, &lp, vec![]), Vec::<&str>::new());
    // The output schema types the reference: a missing field is a path error.
    std::fs::write(&lp, TOOL_LOOP.replace("output.head", "output.sha")).unwrap();
    assert_eq!(errors_of(&d, &lp, vec![]), vec!["unresolvable_path"]);

    let t = scratch("toml");
    let lp = t.join("loops/one/loop.yaml");
    std::fs::write(&lp, TOOL_LOOP).unwrap();
    let manifest = t.join("elsewhere.toml");
    std::fs::write(
        &manifest,
        "[extension]\nname = \"my-ext\"\n[resources.tools.push.output_schema]\ntype = \"object\"\n\
[resources.tools.push.output_schema.properties.head]\ntype = \"string\"\n",
    )
    .unwrap();
    assert_eq!(errors_of(&t, &lp, vec![manifest]), Vec::<&str>::new());
}

#[test]
fn a_broken_manifest_is_agc222() {
    let d = scratch("broken");
    let lp = d.join("loops/one/loop.yaml");
    std::fs::write(&lp, TOOL_LOOP).unwrap();
    std::fs::write(d.join("extension.json"), "{ not json").unwrap();
    assert_eq!(
        errors_of(&d, &lp, vec![]),
        vec!["AGC222", "unknown_action_kind"]
    );
    let missing = d.join("nowhere/extension.json");
    assert!(errors_of(&d, &lp, vec![missing]).contains(&"AGC222"));
}

fn example(name: &str) -> (Compiled, Vec<Diagnostic>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/agh")
        .join(name);
    let mut sources = SourceMap::new();
    let (c, diags) = compile_file(&mut sources, &path, name, &CheckOptions::default());
    let c = c
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{name}: {diags:?}"));
    (c, diags)
}

#[test]
fn example_loops_are_clean() {
    for name in ["delivery.loop.yaml", "events.loop.yaml"] {
        let (_, diags) = example(name);
        assert!(diags.is_empty(), "{name}: {diags:?}");
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/agh")
            .join(name);
        plan_of(&path, &CheckOptions::default()).unwrap();
    }
}

#[test]
fn lowering_models_generations_fan_out_sub_loops_gates_and_branches() {
    let (c, _) = example("delivery.loop.yaml");
    let g = &c.graph;
    let id = |s: &str| g.nodes.iter().position(|n| n.scoped_id == s).unwrap();
    // The outer loop of generations holds the root graph.
    let outer = &g.nodes[id("generations")];
    assert_eq!(outer.kind, NodeKind::Loop);
    let r0 = &g.regions[outer.owns.unwrap().index()];
    assert!(matches!(
        r0.kind,
        RegionKind::Loop {
            max_iterations: 5,
            ..
        }
    ));
    assert_eq!(g.entrypoints.len(), 1);
    // The fan-out owns a map region whose body is `implement`; `gather` is after it.
    let fan = &g.nodes[id("each_task")];
    let map = &g.regions[fan.owns.unwrap().index()];
    match &map.kind {
        RegionKind::Map {
            max_items,
            max_parallel,
            over,
            ..
        } => {
            assert_eq!((*max_items, *max_parallel), (32, 4));
            assert_eq!(over.source, "{{ .nodes.tasks.output.tasks }}");
            assert!(over.core.is_some());
        }
        k => panic!("{k:?}"),
    }
    let body: Vec<&str> = map
        .nodes
        .iter()
        .map(|n| g.nodes[n.index()].scoped_id.as_str())
        .collect();
    assert_eq!(body, vec!["implement"]);
    assert_eq!(g.nodes[id("gather")].region, outer.owns);
    // Edges into and out of the body are lifted to the fan-out.
    let edge = |a: &str, b: &str| {
        g.edges
            .iter()
            .find(|e| e.from.index() == id(a) && e.to.index() == id(b))
    };
    assert!(edge("each_task", "gather").is_some());
    assert!(edge("implement", "gather").is_none());
    // Sub-loop bodies are subgraph regions with qualified ids.
    let sub = &g.nodes[id("verify")];
    assert!(matches!(
        g.regions[sub.owns.unwrap().index()].kind,
        RegionKind::Subgraph { .. }
    ));
    assert!(edge("verify__lint", "verify__summary").is_some());
    // Gates route on named verdicts; branches guard their edges.
    assert_eq!(edge("review", "strict_only").unwrap().on, vec!["pass"]);
    let b = edge("strict_only", "verify").unwrap();
    assert_eq!(b.kind, EdgeKind::Conditional);
    assert_eq!(
        b.guard.as_ref().unwrap().source,
        "inputs.strict == true && generation >= 1"
    );
    let routes = g.nodes[id("review")].extra.routes.as_deref().unwrap();
    assert_eq!(routes.error.route, RouteAction::Halt);
    assert_eq!(routes.blocked.terminal_status.as_deref(), Some("blocked"));
    // Budgets are constraints; timeouts and attempts feed the bounds.
    assert_eq!(g.constraints["max_wall_clock_seconds"], 200000);
    assert_eq!(g.constraints["max_tokens"], 2000000);
    assert_eq!(g.nodes[id("implement")].extra.retry.max_attempts, 2);
    assert_eq!(
        g.nodes[id("implement")].extra.estimate.seconds,
        Some(1800.0)
    );
    // Data links from references: `implement`'s collection read and the gate's judge.
    assert!(g.links.iter().any(|l| l.from.index() == id("tasks")
        && l.to.index() == id("each_task")
        && l.at == "collection"));
    // `no_op` is read as `no-op`.
    let states = &g.attrs["contract"]["terminal_states"];
    assert!(states.as_array().unwrap().iter().any(|s| s == "no-op"));
}

/// An agent's `output_schema` is both what the call is given (its input) and what its output
/// declares: the IR holds it once, shared, and the plan still writes it in both places.
#[test]
fn an_agent_output_schema_is_held_once_for_its_input_and_its_output() {
    let (c, _) = example("delivery.loop.yaml");
    let g = &c.graph;
    let n = g.nodes.iter().find(|n| n.scoped_id == "implement").unwrap();
    let input = n.inputs.iter().find(|i| i.name == "output_schema").unwrap();
    let agc::ir::InputSource::Value { value } = &input.source else {
        panic!("{:?}", input.source);
    };
    let declared = n.outputs[0].decl.schema.as_ref().unwrap();
    assert!(std::sync::Arc::ptr_eq(value, declared));
    assert_eq!(declared["properties"]["files"]["items"]["type"], "string");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agh/delivery.loop.yaml");
    let plan: serde_json::Value =
        serde_json::from_str(&plan_of(&path, &CheckOptions::default()).unwrap()).unwrap();
    let text = plan.to_string();
    assert_eq!(
        text.matches(r#""status":{"enum":["completed","blocked"]}"#)
            .count(),
        2,
        "the plan writes the schema on the input and on the output"
    );
}

#[test]
fn a_budget_bound_warning_points_at_the_budget() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agh/delivery.loop.yaml"),
    )
    .unwrap()
    .replace("wall_clock_sec: 200000", "wall_clock_sec: 3600");
    let mut sources = SourceMap::new();
    let diags = check_text(
        &mut sources,
        "d.loop.yaml",
        text.clone(),
        &CheckOptions::default(),
    );
    let w: Vec<_> = diags.iter().filter(|d| d.code == "AGC092").collect();
    assert_eq!(w.len(), 1, "{diags:?}");
    let lc = sources
        .get(w[0].span.unwrap().file)
        .line_col(w[0].span.unwrap().start);
    let line = text.lines().nth(lc.line as usize - 1).unwrap();
    assert!(line.contains("wall_clock_sec: 3600"), "{line}");
}

#[test]
fn an_unproven_output_path_is_a_warning_not_an_error() {
    let text = "apiVersion: agh.loop/v1
kind: Loop
contract: { goal: x }
graph:
  nodes:
    - id: a
      class: action
      kind: run-agent
      params: { agent: a, prompt: p }
    - id: b
      class: action
      kind: run-agent
      params: { agent: a, prompt: \"{{ .nodes.a.output.anything }}\" }
  edges:
    - { from: a, to: b }
";
    let mut sources = SourceMap::new();
    let diags = check_text(
        &mut sources,
        "w.yaml",
        text.into(),
        &CheckOptions::default(),
    );
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        (diags[0].code, diags[0].severity),
        ("unresolvable_path", Severity::Warning)
    );
    // It points at the path inside the scalar: `.nodes` starts at column 39 of line 13.
    let lc = sources
        .get(diags[0].span.unwrap().file)
        .line_col(diags[0].span.unwrap().start);
    assert_eq!((lc.line, lc.column), (13, 39));
}

/// The template functions of each version, as the loop compiler's own function map gives
/// them (issue 48 item 4; `front/agh/model.rs`): agh.loop/v1 has `json`, `toJson`, `join`,
/// `default` and `len`; `shellQuote` came later, with compozy.loop/v1.
#[test]
fn template_functions_follow_the_version() {
    let text = |api: &str| {
        format!(
            "apiVersion: {api}
kind: Loop
inputs: {{ xs: {{ type: string }} }}
contract: {{ goal: x }}
graph:
  nodes:
    - id: a
      class: action
      kind: run-agent
      params: {{ agent: a, prompt: \"{{{{ len .inputs.xs }}}} {{{{ toJson .inputs.xs }}}} {{{{ json .inputs.xs }}}} {{{{ default \\\"x\\\" .inputs.xs }}}} {{{{ join \\\",\\\" .inputs.xs }}}} {{{{ shellQuote .inputs.xs }}}}\" }}
"
        )
    };
    let codes = |api: &str| -> Vec<&'static str> {
        let mut s = SourceMap::new();
        check_text(&mut s, "v.yaml", text(api), &CheckOptions::default())
            .into_iter()
            .filter(|d| d.is_error())
            .map(|d| d.code)
            .collect()
    };
    // Only `shellQuote` is reported in agh.loop/v1.
    let messages = |api: &str| -> Vec<String> {
        let mut s = SourceMap::new();
        check_text(&mut s, "v.yaml", text(api), &CheckOptions::default())
            .into_iter()
            .filter(|d| d.is_error())
            .map(|d| d.message)
            .collect()
    };
    assert_eq!(codes("agh.loop/v1"), vec!["unresolvable_path"]);
    let m = messages("agh.loop/v1");
    assert!(m[0].contains("\"shellQuote\" is not supported"), "{m:?}");
    assert!(
        m[0].contains("allowed functions: default, join, json, len, toJson"),
        "{m:?}"
    );
    assert_eq!(codes("compozy.loop/v1"), Vec::<&str>::new());
}

#[test]
fn every_problem_is_reported_at_once() {
    // Four independent problems in one Loop: all four come back, each once.
    let text = "apiVersion: agh.loop/v1
kind: Loop
inputs: { slug: { type: string } }
contract: { goal: x, stop_when: \"inputs.slug\" }
graph:
  nodes:
    - { id: s, class: source, kind: input, input_ref: slug }
    - id: a
      class: action
      kind: frobnicate
    - id: g
      class: control
      kind: gate
      max_revisions: 99
    - id: b
      class: action
      kind: run-agent
      params: { agent: a, prompt: \"{{ .item }}\" }
  edges:
    - { from: s, to: a }
    - { from: a, to: g }
    - { from: g, to: b }
";
    let mut sources = SourceMap::new();
    let mut codes: Vec<&str> = check_text(
        &mut sources,
        "m.yaml",
        text.into(),
        &CheckOptions::default(),
    )
    .into_iter()
    .filter(|d| d.is_error())
    .map(|d| d.code)
    .collect();
    codes.sort();
    assert_eq!(
        codes,
        vec![
            "condition_not_bool",
            "gate_max_revisions_ceiling_exceeded",
            "item_outside_fanout",
            "unknown_action_kind"
        ]
    );
}

#[test]
fn misspelt_names_are_reported_with_the_name_meant() {
    let text = "apiVersion: agh.loop/v1
kind: Loop
inputs: { plan: { type: string, required: true } }
contract: { goal: g, terminal_states: [done, failed] }
graph:
  nodes:
    - id: fetch
      class: action
      kind: run-agent
      params: { agent: a, prompt: \"Go {{ .inputs.plna }}\" }
    - id: report
      class: action
      kind: run-agent
      params: { agent: b, prompt: \"{{ .nodes.fecth.status }}\" }
  edges:
    - { from: fetch, to: reprot }
";
    let mut sources = SourceMap::new();
    let found: Vec<(String, Option<String>)> = check_text(
        &mut sources,
        "m.yaml",
        text.into(),
        &CheckOptions::default(),
    )
    .into_iter()
    .filter(|d| d.code == "unknown_reference")
    .map(|d| (d.message, d.help))
    .collect();
    let want = |m: &str, h: &str| (m.to_string(), Some(h.to_string()));
    assert_eq!(
        found,
        vec![
            want("unknown input `plna`", "did you mean `plan`?"),
            want("unknown node `fecth`", "did you mean `fetch`?"),
            want(
                "the edge's `to` names no node of this graph: `reprot`",
                "did you mean `report`?"
            ),
        ],
    );
}

#[test]
fn the_resolved_form_fills_defaults_and_keys_sources_upstreams_way() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agh/delivery.loop.yaml");
    let bin = env!("CARGO_BIN_EXE_agc");
    let out = std::process::Command::new(bin)
        .args(["build", "--agh-resolved"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format_version"], 1);
    let nodes = v["definition"]["graph"]["nodes"].as_array().unwrap();
    let fan = nodes.iter().find(|n| n["id"] == "each_task").unwrap();
    assert_eq!(fan["batch_size"], 1);
    assert_eq!(v["definition"]["concurrency"], "forbid");
    assert_eq!(v["definition"]["contract"]["terminal_states"][1], "no-op");
    let t = &v["template_sources"];
    assert_eq!(
        t["nodes.each_task.collection"],
        "{{ .nodes.tasks.output.tasks }}"
    );
    assert!(t["nodes.review.criteria[0].rubric"].is_string());
    assert!(t["nodes.verify__lint.params.prompt"].is_string());
    assert!(t["nodes.verify__summary.params.map.note.template"].is_string());
    // `transform` values are literals, never templates.
    assert!(
        t.get("nodes.verify__summary.params.map.literal.value")
            .is_none()
    );
    assert_eq!(
        v["condition_sources"]["nodes.strict_only.condition"],
        "inputs.strict == true && generation >= 1"
    );
    // Same input, same bytes.
    let again = std::process::Command::new(bin)
        .args(["build", "--agh-resolved"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.stdout, again.stdout);
    // Other dialects have no resolved form: AGC223.
    let ags =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ags/changelog-release.agraph.yaml");
    let o = std::process::Command::new(bin)
        .args(["build", "--agh-resolved"])
        .arg(&ags)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("AGC223"));
}

#[test]
fn watch_events_resolve_with_their_contracts() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agh/events.loop.yaml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(["build", "--agh-resolved"])
        .arg(&path)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["watch_events_contracts"];
    assert_eq!(c["task.status_changed"]["stream"], "task_events");
    assert_eq!(c["event.post_record"]["required_vars"][0], "session_id");
    assert!(v["condition_sources"]["nodes.wake.events.1.filter"].is_string());
    assert!(v["template_sources"]["start[0].input_mapping.session"].is_string());
}

/// Every corpus and example diagram parses with real Mermaid when `tests/mermaid` is installed.
#[test]
fn agh_diagrams_parse_with_real_mermaid() {
    let mut diagrams = Vec::new();
    for name in ["delivery.loop.yaml", "events.loop.yaml"] {
        let (c, _) = example(name);
        diagrams.push((name.to_string(), c.graph));
    }
    if let Some(corpus) = corpus() {
        for path in loops(&corpus) {
            let rel = path
                .strip_prefix(&corpus)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let (c, errors, _) = compile(&path, &opts(&corpus, manifests(&corpus, &rel)));
            assert!(errors.is_empty(), "{rel}: {errors:?}");
            diagrams.push((rel.replace('/', "_"), c.unwrap().graph));
        }
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("agh-mermaid");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for (name, g) in &diagrams {
        let text = agc::back::mermaid::render(g, Default::default()).0;
        assert_eq!(text, agc::back::mermaid::render(g, Default::default()).0);
        let f = dir.join(format!("{name}.mmd"));
        std::fs::write(&f, text).unwrap();
        files.push(f);
    }
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mermaid");
    if !tool.join("node_modules/mermaid").is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install tests/mermaid"
        );
        eprintln!("notice: tests/mermaid/node_modules is absent; real Mermaid check skipped");
        return;
    }
    let out = std::process::Command::new("node")
        .arg(tool.join("check.mjs"))
        .args(&files)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A Loop in the style of the DSL reference page: watch-events woken, a trigger start with a
/// mapping, a fan-out over the matched events, a judge gate, templates everywhere.
const DOCS_STYLE: &str = r#"apiVersion: agh.loop/v1
kind: Loop
meta: { name: react, catalog: { use_when: "tasks finish", keywords: [tasks], category: Ops } }
concurrency: queue
inputs:
  responder: { type: agent, default: helper }
  slug: { type: string, required: true }
  spec: { type: ref, ref: { kind: skill } }
contract:
  goal: "React to {{ .inputs.slug }}."
  definition_of_done: "Every finished task has a note."
  constraints: []
  boundaries: []
  verification:
    - { id: checks, type: command, check: "test -n '{{ .inputs.slug }}'", expect: exit_zero }
  terminal_states: [done, no-op, blocked, failed, exhausted, stalled]
  no_progress: { window: 3, hash_fields: [gate_verdict] }
  budget: { tokens: 0, wall_clock_sec: 0, on_exceeded: halt }
  model_defaults: { worker: "", judge: "" }
graph:
  nodes:
    - id: on_task_done
      class: source
      kind: watch-events
      events:
        - kind: task.status_changed
          filter: "event.payload.to_status == 'completed'"
        - kind: loop.terminal
    - id: each_event
      class: control
      kind: fan-out
      collection: "{{ .nodes.on_task_done.output.events }}"
      batch_size: 1
      max_fan_out: 16
      max_parallel: 2
    - id: react
      class: action
      kind: run-agent
      params:
        agent: "{{ .inputs.responder }}"
        prompt: "Handle {{ .item.kind }} #{{ .index }} of {{ .trigger.payload.repo }}"
        model: fast
        allowed_tools: [agh__task_get]
        output_schema: { type: object, properties: { note: { type: string } } }
      timeout: 10m
      retry: { max_attempts: 2 }
    - id: done
      class: control
      kind: collect
    - id: judge
      class: control
      kind: gate
      criteria:
        - { id: notes, type: agent-judge, agent: reviewer, rubric: "Notes for {{ .inputs.slug }} are useful." }
        - { id: lint, type: command, check: "make lint", expect: exit_zero }
      verdict_policy: revise_until_clean
      max_revisions: 2
      on_result: { pass: continue, fail: revise, approval: escalate }
  edges:
    - { from: on_task_done, to: each_event }
    - { from: each_event, to: react }
    - { from: react, to: done }
    - { from: done, to: judge }
start:
  - { kind: manual }
  - kind: trigger
    input_mapping:
      slug: "{{ .trigger.payload.slug }}"
"#;

#[test]
fn a_loop_in_the_reference_pages_style_is_accepted() {
    let mut sources = SourceMap::new();
    let diags = check_text(
        &mut sources,
        "react.loop.yaml",
        DOCS_STYLE.into(),
        &CheckOptions::default(),
    );
    let shown: Vec<String> = diags.iter().map(|d| show(&sources, d)).collect();
    assert!(diags.is_empty(), "{shown:#?}");
    // A watch-events Loop is a watch Loop: its generations are unbounded by default.
    let dir = scratch("docs-style");
    let p = dir.join("react.loop.yaml");
    std::fs::write(&p, DOCS_STYLE).unwrap();
    let (c, errors, _) = compile(&p, &CheckOptions::default());
    assert!(errors.is_empty(), "{errors:?}");
    let g = c.unwrap().graph;
    assert_eq!(g.attrs["generations"]["unbounded"], true);
}
