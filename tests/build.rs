//! `agc build`: every AGS example and third-party graph builds; each plan matches its golden
//! file in `tests/golden/plans/`, validates against `schemas/agc-plan-v1.schema.json`, and is
//! byte-identical when built twice. Set `AGC_BLESS=1` to rewrite the goldens (then review the
//! diff).

mod common;

use agc::check::CheckOptions;
use agc::compile::build_file;
use agc::source::SourceMap;
use common::TempDir;
use std::path::{Path, PathBuf};

fn plan_schema() -> jsonschema::Validator {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../schemas/agc-plan-v1.schema.json")).unwrap();
    jsonschema::validator_for(&schema).expect("the plan schema compiles")
}

fn documents() -> Vec<(PathBuf, String)> {
    let mut docs = Vec::new();
    let corpus = Path::new("../shared/corpus/ags");
    if corpus.is_dir() {
        for dir in ["examples", "third_party/loro", "third_party/magagent"] {
            let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join(dir))
                .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            files.sort();
            for f in files {
                let name = f.file_name().unwrap().to_string_lossy().to_string();
                if name.ends_with(".agraph.yaml") || name.ends_with(".agraph.json") {
                    docs.push((f.clone(), format!("corpus-{}", name)));
                }
            }
        }
    } else {
        println!("note: ../shared/corpus/ags is absent; corpus plans skipped");
    }
    let mut own: Vec<PathBuf> = std::fs::read_dir("examples/ags")
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    own.sort();
    for f in own {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        // Only the workflows: run scripts and params sit beside them.
        if name.contains(".agraph.") {
            docs.push((f, name));
        }
    }
    docs
}

fn build(path: &Path) -> String {
    let mut sources = SourceMap::new();
    let display = path.to_string_lossy().replace('\\', "/");
    let (plan, diags) = build_file(&mut sources, path, &display, &check_opts(path));
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    assert!(errors.is_empty(), "{display}: {errors:?}");
    plan.unwrap_or_else(|| panic!("{display}: no plan"))
}

#[test]
fn every_ags_document_builds_to_its_golden_plan() {
    let validator = plan_schema();
    let bless = std::env::var_os("AGC_BLESS").is_some();
    let mut stale = Vec::new();
    for (path, name) in documents() {
        let plan = build(&path);
        assert_eq!(plan, build(&path), "{name}: two builds differ");
        let value: serde_json::Value = serde_json::from_str(&plan).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{name}: plan fails its schema: {errors:#?}"
        );
        let golden = Path::new("tests/golden/plans").join(format!("{name}.plan.json"));
        match std::fs::read_to_string(&golden) {
            Ok(old) if old == plan => {}
            _ if bless => std::fs::write(&golden, &plan).unwrap(),
            _ => stale.push(golden.display().to_string()),
        }
    }
    assert!(
        stale.is_empty(),
        "stale or missing goldens (AGC_BLESS=1 to rewrite, then review): {stale:#?}"
    );
}

/// The workspace root for references: the document's own folder (the corpus examples reference
/// files beside them; `../shared` may itself be a link, which a root outside it would refuse).
fn check_opts(path: &Path) -> CheckOptions {
    CheckOptions {
        root: path.parent().map(Path::to_path_buf),
        ..CheckOptions::default()
    }
}

/// The checkpoints' expressions reach the plan in its typed `human` and the ladder's in its
/// typed `failure`, each read where the merged value came from: a node's own block, or its
/// scope's `defaults`; the ladder leaves nothing in `attributes.failure`, and `human` leaves
/// `attributes`.
#[test]
fn checkpoint_and_ladder_expressions_are_lowered_with_defaults_merged() {
    let dir = TempDir::new("agc-build-ladder-");
    let doc = dir.join("ladder.agraph.yaml");
    std::fs::write(
        &doc,
        r#"ags_version: "1.0"
kind: AgenticGraph
id: t/ladder
title: t
objective: t
requires_conformance: 3
constraints: { max_cost_usd: 1.0 }
defaults:
  human:
    - id: look
      at: after_outputs
      mode: review
      when: self.outputs.n > 1
      prompt: "n is ${{ self.outputs.n }}"
  failure:
    escalation:
      to: human
      message: "${{ self.id }} failed"
entrypoints: [a]
nodes:
  a:
    type: task
    title: a
    description: a
    outputs:
      n: { type: integer, description: n }
    failure:
      fallback:
        - strategy: skip
          when: self.outputs.n == 0
outputs:
  n: { type: integer, description: n, from: nodes.a.outputs.n }
"#,
    )
    .unwrap();
    let plan: serde_json::Value = serde_json::from_str(&build(&doc)).unwrap();
    assert!(plan["nodes"][0].get("exprs").is_none(), "{plan}");
    let human = &plan["nodes"][0]["human"][0];
    assert_eq!(human["id"], "look");
    assert_eq!(human["at"], "after_outputs");
    assert_eq!(human["mode"], "review");
    assert_eq!(human["when"]["source"], "self.outputs.n > 1");
    assert_eq!(human["prompt"]["lang"], "agx-template");
    // Read at the defaults (line 13), not at the node.
    assert!(
        human["when"]["location"]
            .as_str()
            .unwrap()
            .starts_with("13:"),
        "{}",
        human["when"]["location"]
    );
    assert!(plan["nodes"][0]["attributes"].get("human").is_none());
    let failure = &plan["nodes"][0]["failure"];
    assert_eq!(failure["fallback"][0]["strategy"], "skip");
    assert_eq!(
        failure["fallback"][0]["when"]["source"],
        "self.outputs.n == 0"
    );
    let message = &failure["escalation"]["message"];
    assert_eq!(message["lang"], "agx-template");
    // The message is the defaults' (line 18), the step the node's own (line 30).
    assert!(
        message["location"].as_str().unwrap().starts_with("18:"),
        "{message}"
    );
    assert!(
        failure["fallback"][0]["when"]["location"]
            .as_str()
            .unwrap()
            .starts_with("30:"),
        "{failure}"
    );
    assert_eq!(failure["escalation"]["to"], "human");
    assert!(plan["nodes"][0]["attributes"].get("failure").is_none());
}

/// Extension keys (`x-…`) inside a fallback step, an escalation, a checkpoint, a gate, a
/// decision and its branches reach the plan in the typed fields' `extensions` (v4 dropped
/// them, and they are nowhere else in the plan).
#[test]
fn extension_keys_inside_typed_blocks_reach_the_plan() {
    let dir = TempDir::new("agc-build-ext-");
    let doc = dir.join("ext.agraph.yaml");
    std::fs::write(
        &doc,
        r#"ags_version: "1.0"
kind: AgenticGraph
id: t/ext
title: t
objective: t
requires_conformance: 3
constraints: { max_cost_usd: 1.0 }
entrypoints: [a]
nodes:
  a:
    type: task
    title: a
    description: a
    outputs:
      n: { type: integer, description: n }
    human:
      - { id: look, at: after_outputs, mode: review, x-seen: 1 }
    failure:
      fallback:
        - { strategy: skip, x-seen: 2 }
      escalation: { to: human, x-seen: 3 }
  pick:
    type: decision
    title: pick
    description: pick
    depends_on: [a]
    decision:
      question: which?
      x-seen: 4
      branches:
        - { label: ship, description: ship, x-seen: 5 }
        - { label: hold, description: hold }
  ok:
    type: gate
    title: ok
    description: ok
    depends_on: [pick]
    gate: { mode: approve, x-seen: 6 }
outputs:
  n: { type: integer, description: n, from: nodes.a.outputs.n }
"#,
    )
    .unwrap();
    let text = build(&doc);
    let plan: serde_json::Value = serde_json::from_str(&text).unwrap();
    let node = |id: &str| {
        plan["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == id)
            .unwrap_or_else(|| panic!("{id} in {plan}"))
            .clone()
    };
    let seen = |v: &serde_json::Value| v["extensions"]["x-seen"].as_i64();
    let a = node("a");
    assert_eq!(seen(&a["human"][0]), Some(1), "{a}");
    assert_eq!(seen(&a["failure"]["fallback"][0]), Some(2), "{a}");
    assert_eq!(seen(&a["failure"]["escalation"]), Some(3), "{a}");
    let pick = node("pick");
    assert_eq!(seen(&pick["decision"]), Some(4), "{pick}");
    assert_eq!(seen(&pick["decision"]["branches"][0]), Some(5), "{pick}");
    assert!(pick["decision"]["branches"][1].get("extensions").is_none());
    assert_eq!(seen(&node("ok")["gate"]), Some(6));
    // Each once: in its typed field, not also in `attributes`.
    assert_eq!(text.matches("x-seen").count(), 6, "{text}");
    // And the plan reads back to the same bytes.
    let back = agc_runtime::plan::Plan::from_json(&text).unwrap();
    assert_eq!(back.to_pretty_string(), text);
}

/// Lowering takes each expression the checks parsed out of their cache (it is moved into the
/// IR, not cloned); a fragment `use`d by two nodes is lowered twice, and the second copy must
/// still get its core form (parsed again), identical to the first.
#[test]
fn a_fragment_used_twice_gets_core_expressions_in_both_copies() {
    let dir = TempDir::new("agc-build-fragment-");
    let doc = dir.join("twice.agraph.yaml");
    std::fs::write(
        &doc,
        r#"ags_version: "1.0"
kind: AgenticGraph
id: t/fragment-twice
title: t
objective: t
requires_conformance: 2
constraints: { max_cost_usd: 1.0 }
params:
  limit: { type: integer, description: l }
subgraphs:
  step:
    entrypoints: [work]
    nodes:
      work:
        type: task
        title: w
        description: w
        when: params.limit > 2
        inputs:
          cap: { type: integer, description: c, from: params.limit }
          note: { type: string, description: n, template: "at most ${{ params.limit }}" }
        outputs:
          done: { type: boolean, description: d }
entrypoints: [first]
nodes:
  first: { type: subgraph, title: f, description: f, subgraph: { use: step } }
  second:
    type: subgraph
    title: s
    description: s
    depends_on: [first]
    subgraph: { use: step }
"#,
    )
    .unwrap();
    let plan: serde_json::Value = serde_json::from_str(&build(&doc)).unwrap();
    let node = |id: &str| {
        plan["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == id)
            .unwrap_or_else(|| panic!("{id} in the plan"))
            .clone()
    };
    let (a, b) = (node("first/work"), node("second/work"));
    assert_eq!(
        a["guard"]["core"],
        serde_json::json!([">", ["$", "params", "limit"], 2])
    );
    assert_eq!(
        a["inputs"][0]["from"]["core"],
        serde_json::json!(["$", "params", "limit"])
    );
    assert!(a["inputs"][1]["template"]["core"].is_array(), "{a}");
    for field in ["guard", "inputs"] {
        assert_eq!(a[field], b[field], "{field} of the second copy");
    }
}

/// `agc check` asks for no digest (it writes no plan): the same examples then lower to the
/// same graphs without one, while a build's graphs carry it.
#[test]
fn check_skips_the_digest_that_build_computes() {
    for example in [
        "examples/ags/changelog-release.agraph.yaml",
        "examples/awp/support-triage.workflow.yaml",
        "examples/agh/delivery.loop.yaml",
    ] {
        let run = |no_digest: bool| {
            let mut sources = SourceMap::new();
            let (file, loaded) = agc::source::load::load_path(
                &mut sources,
                Path::new(example),
                example,
                Default::default(),
            )
            .expect(example);
            let opts = CheckOptions {
                no_digest,
                ..CheckOptions::default()
            };
            let checked = agc::check::check_source(
                &mut sources,
                file,
                loaded,
                &opts,
                Some(Path::new(example)),
            );
            assert!(!checked.has_errors(), "{example}: {:?}", checked.diags);
            assert_eq!(checked.compiled.len(), 1, "{example}");
            checked.compiled.into_iter().next().unwrap()
        };
        let built = run(false);
        let checked = run(true);
        let digest = built
            .digest
            .as_deref()
            .unwrap_or_else(|| panic!("{example}: no digest"));
        assert!(digest.starts_with("sha256-"), "{example}: {digest}");
        assert_eq!(checked.digest, None, "{example}");
        assert_eq!(
            format!("{:?}", checked.graph),
            format!("{:?}", built.graph),
            "{example}"
        );
    }
}

/// `agc.plan/v2` plans, written by agc before the typed semantics (one per dialect, kept in
/// `tests/fixtures/plans/v2/`), read to the same plan as the one agc writes today: the
/// reader derives `semantics`, `retry.backoff`, the map policies and the subgraph sources
/// from the dialect exactly as the lowering decides them.
#[test]
fn v2_plans_read_as_the_plans_agc_writes_now() {
    use agc_runtime::plan::{FORMAT, Plan};
    let cases = [
        (
            "support-triage.workflow.yaml",
            "examples/awp/support-triage.workflow.yaml",
            false,
        ),
        (
            "delivery.loop.yaml",
            "examples/agh/delivery.loop.yaml",
            false,
        ),
        (
            "release-provider.yaml",
            "examples/agent-graph/release/provider.yaml",
            false,
        ),
        (
            "corpus-library-v1-release.agraph.yaml",
            "../shared/corpus/ags/examples/library-v1-release.agraph.yaml",
            true,
        ),
        (
            "corpus-test-repair-loop.agraph.yaml",
            "../shared/corpus/ags/examples/test-repair-loop.agraph.yaml",
            true,
        ),
    ];
    let mut seen = 0;
    for (name, source, corpus) in cases {
        let path = Path::new(source);
        if corpus && !path.exists() {
            println!("note: {source} is absent; its v2 plan is not compared");
            continue;
        }
        let v2_text = std::fs::read_to_string(format!("tests/fixtures/plans/v2/{name}.plan.json"))
            .expect("v2 plan");
        assert!(v2_text.contains("\"agc.plan/v2\""), "{name}");
        let v2 = Plan::from_json(&v2_text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let now = if corpus {
            build(path)
        } else {
            let mut sources = SourceMap::new();
            let (plan, diags) = build_file(&mut sources, path, source, &CheckOptions::default());
            assert!(!diags.iter().any(|d| d.is_error()), "{name}: {diags:?}");
            plan.expect("plan")
        };
        let now = Plan::from_json(&now).expect("v3 plan");
        assert_eq!(now.format, FORMAT);
        assert_eq!(v2.format, FORMAT, "{name}: read into the current format");
        assert!(
            v2 == now,
            "{name}: the v2 plan reads differently from today's plan"
        );
        seen += 1;
    }
    assert!(seen >= 3, "{seen} v2 plans compared");
}
