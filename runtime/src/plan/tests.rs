use super::*;
use serde_json::Value;
use std::path::Path;

/// Every golden plan the compiler wrote reads into these types and writes back to the same
/// bytes: the streaming writer and the serde types agree field by field.
#[test]
fn golden_plans_round_trip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/plans");
    let mut seen = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("golden plans")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read plan");
        let plan = Plan::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let back = plan.to_pretty_string();
        assert!(back == text, "{} does not round-trip", path.display());
        plan.index()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        seen += 1;
    }
    assert!(seen >= 10, "expected the golden plans, found {seen}");
}

#[test]
fn wrong_format_is_refused() {
    // The tag is read first: a plan of another format is refused by name, whatever it holds.
    let err = Plan::from_json(r#"{"format":"agc.plan/v9"}"#).unwrap_err();
    assert_eq!(
        err.0,
        "unsupported plan format `agc.plan/v9` (this runtime reads `agc.plan/v1`, `agc.plan/v2`, `agc.plan/v3`, `agc.plan/v4` and `agc.plan/v5`)"
    );
    let err = Plan::from_json(r#"{"format":"agc.plan/v3"}"#).unwrap_err();
    assert!(err.0.contains("missing field"), "{err}");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/golden/plans/corpus-minimal.agraph.yaml.plan.json"),
    )
    .expect("plan");
    let bad = text.replacen(FORMAT, "agc.plan/v9", 1);
    let err = Plan::from_json(&bad).unwrap_err();
    assert!(err.0.contains("unsupported plan format"), "{err}");
}

#[test]
fn input_sources_and_declarations_round_trip() {
    let json = r#"{"name":"x","type":"string","required":false,"value":null,"schema":{"type":"string"},"enum":["a"],"description":"d"}"#;
    let input: Input = serde_json::from_str(json).expect("input");
    assert_eq!(input.source, InputSource::Value(Value::Null));
    assert_eq!(input.decl.enum_values, Some(vec![Value::from("a")]));
    assert_eq!(serde_json::to_string(&input).expect("ser"), json);
    // `required: true` is the default: read when written (v1), left out when writing (v2).
    let implicit = r#"{"name":"y","type":"any","required":true,"implicit":true}"#;
    let input: Input = serde_json::from_str(implicit).expect("input");
    assert_eq!(input.source, InputSource::Implicit(true));
    assert!(input.required);
    let lean = r#"{"name":"y","type":"any","implicit":true}"#;
    assert_eq!(serde_json::to_string(&input).expect("ser"), lean);
    assert_eq!(serde_json::from_str::<Input>(lean).expect("input"), input);
}

/// A hand-edited plan whose region lists disagree with the nodes' own `region`, or whose
/// entrypoints lie in another scope, is refused before anything runs.
#[test]
fn inconsistent_regions_are_refused() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/golden/plans/corpus-test-repair-loop.agraph.yaml.plan.json"),
    )
    .expect("plan");
    let good = Plan::from_json(&text).expect("plan");
    assert!(good.index().is_ok());
    let body = good.regions[0].nodes[0].clone();

    let mut extra = good.clone();
    extra.regions[0].nodes.push(extra.nodes[0].id.clone());
    let err = extra.index().unwrap_err();
    assert!(err.0.contains("lists nodes"), "{err}");

    let mut missing = good.clone();
    missing.regions[0].nodes.pop();
    assert!(missing.index().unwrap_err().0.contains("lists nodes"));

    let mut entry = good.clone();
    entry.entrypoints.push(body.clone());
    let err = entry.index().unwrap_err();
    assert!(err.0.contains("is inside a region"), "{err}");
}

/// A plan written by agc before the compact encoding (`agc.plan/v1`: object core expressions
/// and locations, every default written) still loads, to the same plan as its v2 form.
#[test]
fn v1_plans_still_load() {
    let v2_text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/golden/plans/corpus-test-repair-loop.agraph.yaml.plan.json"),
    )
    .expect("plan");
    let v2 = Plan::from_json(&v2_text).expect("v2 plan");
    let v1_text = v1_of(&v2);
    assert!(v1_text.contains(r#""kind": "member""#), "{v1_text}");
    let v1 = Plan::from_json(&v1_text).expect("v1 plan");
    let mut v1_as_v2 = v1.clone();
    v1_as_v2.format = FORMAT.to_string();
    // Locations: v1 named the path everywhere; v2 leaves out the source document's.
    let text = v1_as_v2
        .to_pretty_string()
        .replace(&format!("\"{}:", v2.source.path), "\"");
    let line = text.lines().zip(v2_text.lines()).find(|(a, b)| a != b);
    assert!(
        text == v2_text,
        "the v1 form does not read back to the v2 plan: {line:?}"
    );
}

/// The v1 text of a plan: every field written, core expressions as tagged objects with ids,
/// locations as objects.
fn v1_of(plan: &Plan) -> String {
    let mut v = serde_json::to_value(plan).expect("value");
    v["format"] = Value::from("agc.plan/v1");
    let path = plan.source.path.clone();
    fn walk(v: &mut Value, path: &str, key: &str) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    walk(x, path, k);
                }
                if let Some(Value::Array(_)) = m.get("core") {
                    let core: crate::expr::Expr =
                        serde_json::from_value(m["core"].clone()).expect("core");
                    m.insert("core".into(), legacy(&core));
                }
                if m.contains_key("kind") && m.contains_key("to") {
                    m.entry("outcomes")
                        .or_insert(serde_json::json!(["succeeded"]));
                    m.entry("implicit").or_insert(Value::Bool(false));
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, path, key)),
            Value::String(s) if key == "location" => {
                let (line, col) = s.rsplit_once(':').expect("line:col");
                let (file, line) = line.rsplit_once(':').unwrap_or((path, line));
                *v = serde_json::json!({"path": file, "line": line.parse::<u32>().unwrap(), "column": col.parse::<u32>().unwrap()});
            }
            _ => {}
        }
    }
    walk(&mut v, &path, "");
    for n in v["nodes"].as_array_mut().expect("nodes") {
        let id = n["id"].clone();
        let kind = n["kind"].clone();
        let m = n.as_object_mut().expect("node");
        m.entry("local_id").or_insert(id);
        m.entry("origin_kind").or_insert(kind);
        m.entry("inputs").or_insert(serde_json::json!([]));
        m.entry("join")
            .or_insert(serde_json::json!({"mode": "all"}));
        m.entry("retry")
            .or_insert(serde_json::json!({"max_attempts": 1}));
    }
    serde_json::to_string_pretty(&v).expect("text")
}

/// The v1 object form of a core expression.
fn legacy(e: &crate::expr::Expr) -> Value {
    use crate::expr::ExprKind as K;
    let mut m = serde_json::Map::new();
    m.insert("id".into(), Value::from(e.id));
    let kind = match &e.kind {
        K::Ident { name } => {
            m.insert("name".into(), Value::from(name.clone()));
            "ident"
        }
        K::Member { target, field } => {
            m.insert("target".into(), legacy(target));
            m.insert("field".into(), Value::from(field.clone()));
            "member"
        }
        K::Literal { value } => {
            m.insert(
                "value".into(),
                serde_json::to_value(value).expect("literal"),
            );
            "literal"
        }
        K::Binary { op, left, right } => {
            m.insert("op".into(), serde_json::to_value(op).expect("op"));
            m.insert("left".into(), legacy(left));
            m.insert("right".into(), legacy(right));
            "binary"
        }
        K::Call {
            function,
            target: None,
            args,
        } => {
            m.insert("function".into(), Value::from(function.clone()));
            m.insert("args".into(), args.iter().map(legacy).collect());
            "call"
        }
        K::Template { parts } => {
            let parts: Vec<Value> = parts
                .iter()
                .map(|p| match p {
                    crate::expr::TemplatePart::Text { text } => {
                        serde_json::json!({"part": "text", "text": text})
                    }
                    crate::expr::TemplatePart::Expr { expr } => {
                        serde_json::json!({"part": "expr", "expr": legacy(expr)})
                    }
                })
                .collect();
            m.insert("parts".into(), Value::from(parts));
            "template"
        }
        other => panic!("extend the v1 writer of this test for {other:?}"),
    };
    m.insert("kind".into(), Value::from(kind));
    Value::Object(m)
}

/// A v2 plan gets from its dialect what v3 writes: the semantics, each retrying node's
/// backoff, a threshold map's `min_successes` (moved out of its owner's `attributes.map`),
/// and the subgraph source strings read as their variants.
#[test]
fn v2_plans_get_their_typed_semantics() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/golden/plans/corpus-docs-site-refresh.agraph.yaml.plan.json"),
    )
    .expect("plan");
    let v3 = Plan::from_json(&text).expect("plan");
    let mut v = serde_json::to_value(&v3).expect("value");
    v["format"] = "agc.plan/v2".into();
    v.as_object_mut().expect("plan").remove("semantics");
    let mut owner = String::new();
    let mut backoffs = 0;
    for r in v["regions"].as_array_mut().expect("regions") {
        if r["kind"] == "map" {
            r["on_item_failure"] = "threshold".into();
            owner = r["owner"].as_str().expect("owner").to_string();
        }
        if let Some(s) = r.get("source").filter(|s| s.is_object()) {
            let (k, name) = s.as_object().expect("source").iter().next().expect("one");
            r["source"] = format!("{k}:{}", name.as_str().expect("name")).into();
        }
    }
    for n in v["nodes"].as_array_mut().expect("nodes") {
        if n["id"] == owner.as_str() {
            let attrs = n
                .as_object_mut()
                .expect("node")
                .entry("attributes")
                .or_insert(serde_json::json!({}));
            let map = attrs
                .as_object_mut()
                .expect("attributes")
                .entry("map")
                .or_insert(serde_json::json!({}));
            map["min_successes"] = 2.into();
        }
        if let Some(r) = n.get_mut("retry").and_then(Value::as_object_mut) {
            backoffs += usize::from(r.remove("backoff").is_some());
        }
    }
    assert!(
        !owner.is_empty() && backoffs > 0,
        "the golden has a map and retries"
    );
    let v2 = Plan::from_value(v).expect("v2 plan");
    assert_eq!(v2.format, FORMAT);
    assert_eq!(v2.semantics, v3.semantics);
    let map = v2.regions.iter().find(|r| r.owner == owner).expect("map");
    assert!(matches!(
        map.kind,
        RegionKind::Map {
            on_item_failure: OnItemFailure::Threshold,
            min_successes: Some(2),
            ..
        }
    ));
    // `min_successes` left the owner's attributes: they are v3's again.
    let node = |p: &Plan| {
        p.nodes
            .iter()
            .find(|n| n.id == owner)
            .expect("owner")
            .clone()
    };
    assert_eq!(node(&v2).attributes, node(&v3).attributes);
    let mut expected = v3.clone();
    expected.regions = v2.regions.clone();
    assert!(
        v2 == expected,
        "the backoffs and subgraph sources read back"
    );
}

/// A v3 plan of each example (what agc wrote before `agc.plan/v4`: one per generated example
/// crate, kept in `tests/fixtures/plans/v3/`) reads to the same plan as the crate's current
/// plan: the reader moves what v3 kept in `attributes` and `exprs` into the typed fields.
#[test]
fn v3_plans_read_as_their_current_plans() {
    let typed = older_plans_read_as_current("v3", "v3", 20);
    let mut nodes = typed.iter().flat_map(|p| &p.nodes);
    assert!(
        nodes.any(|n| n.failure.is_some()),
        "some example has a failure ladder"
    );
}

/// A v4 plan of each example (what agc wrote before `agc.plan/v5`, kept in
/// `tests/fixtures/plans/v4/`) reads to the same plan as the crate's current plan: the
/// reader moves what v4 kept in `attributes` into the typed fields.
#[test]
fn v4_plans_read_as_their_current_plans() {
    let typed = older_plans_read_as_current("v4", "v4", 20);
    let nodes = || typed.iter().flat_map(|p| &p.nodes);
    assert!(nodes().any(|n| n.gate.is_some()), "some example has a gate");
    assert!(nodes().any(|n| n.wait.is_some()), "some example has a wait");
    assert!(nodes().any(|n| n.fork.is_some()), "some example has a fork");
    assert!(
        nodes().any(|n| n.body.as_ref().is_some_and(|b| !b.params.is_empty())),
        "some example has body params"
    );
    assert!(
        nodes().any(|n| n.resume_schema.is_some()),
        "some example has an interrupt"
    );
    assert!(
        typed.iter().any(|p| !p.human_timeouts.is_empty()),
        "some example has human-timeout defaults"
    );
}

/// Reads each plan of `tests/fixtures/plans/<dir>/` (each of format `agc.plan/<version>`)
/// and the current plan of the generated example of its name, and fails unless they read the
/// same and there are at least `min`; returns the current plans.
pub(super) fn older_plans_read_as_current(dir: &str, version: &str, min: usize) -> Vec<Plan> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut entries: Vec<_> = std::fs::read_dir(root.join(format!("tests/fixtures/plans/{dir}")))
        .expect("older plans")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    let (mut seen, mut plans) = (0, Vec::new());
    for path in entries {
        let file = path.file_name().and_then(|f| f.to_str()).expect("name");
        let Some(name) = file.strip_suffix(".plan.json") else {
            continue;
        };
        let old_text = std::fs::read_to_string(&path).expect("older plan");
        assert!(
            old_text.contains(&format!("\"agc.plan/{version}\"")),
            "{name}"
        );
        let now_path = root.join(format!("examples/generated/{name}/src/plan.json"));
        let now_text = std::fs::read_to_string(&now_path).expect("current plan");
        let old = Plan::from_json(&old_text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let now = Plan::from_json(&now_text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(now.format, FORMAT, "{name}");
        assert_eq!(old.format, FORMAT, "{name}: read into the current format");
        if old != now {
            let (a, b) = (old.to_pretty_string(), now.to_pretty_string());
            let line = a.lines().zip(b.lines()).find(|(x, y)| x != y);
            panic!("{name}: the {dir} plan reads differently from its current plan: {line:?}");
        }
        plans.push(now);
        seen += 1;
    }
    assert!(seen >= min, "{seen} {dir} plans compared");
    plans
}

/// An AGS `failure` block reads into the typed ladder with its defaults, and what the ladder
/// does not hold is its residue.
#[test]
fn a_failure_block_reads_into_the_typed_ladder() {
    let block = serde_json::json!({
        "retry": {"max_attempts": 3, "retry_on": ["any", "timeout"], "feedback": "none"},
        "fallback": [{"strategy": "alternate_node", "node": "b"}, {"strategy": "teleport"}],
        "escalation": {"to": "supervisor", "roles": ["oncall"]},
        "on_exhausted": "succeed_degraded",
        "x-note": "kept",
    });
    let f = Failure::<Expr>::from_block(&block, |_| None).expect("a ladder");
    assert_eq!(
        f.retry_on,
        [RetryOn::Any, RetryOn::Class(FailureClass::Timeout)]
    );
    assert_eq!(f.fallback[0].strategy, Strategy::AlternateNode);
    assert_eq!(f.fallback[0].node.as_deref(), Some("b"));
    assert_eq!(f.fallback[1].strategy, Strategy::Unknown);
    let esc = f.escalation.as_ref().expect("escalation");
    assert_eq!(esc.to, EscalateTo::Supervisor);
    assert_eq!(esc.include, DEFAULT_INCLUDE);
    assert_eq!(f.on_exhausted, OnExhausted::SucceedDegraded);
    assert_eq!(f.timeout_action, TimeoutAction::Fail);
    assert_eq!(
        Failure::<Expr>::residue(&block),
        Some(serde_json::json!({"retry": {"feedback": "none"}, "x-note": "kept"}))
    );
    // Written without its defaults, and read back the same.
    let text = serde_json::to_string(&f).expect("ser");
    assert!(
        !text.contains("include") && !text.contains("timeout_action"),
        "{text}"
    );
    assert_eq!(serde_json::from_str::<Failure<Expr>>(&text).expect("de"), f);
    // A block that says nothing the ladder holds is no ladder.
    let quiet = serde_json::json!({"retry": {"max_attempts": 2}});
    assert!(Failure::<Expr>::from_block(&quiet, |_| None).is_none());
    assert_eq!(Failure::<Expr>::residue(&quiet), None);
}

/// An AGS `human` list reads into typed checkpoints with their defaults, and their ids are
/// each one's `id`, else its stage.
#[test]
fn a_human_list_reads_into_typed_checkpoints() {
    let list = serde_json::json!([
        {"id": "look", "at": "after_outputs", "mode": "input", "required": false,
         "roles": ["lead"], "timeout_seconds": 60, "on_timeout": "escalate",
         "collect": {"why": {"type": "string", "enum": ["a"]}, "n": {"default": 1}}},
        {"at": "before_start", "mode": "approve", "prompt": "go?"},
    ]);
    let prompt = |key: &str| (key == "human.1.prompt").then(|| key.to_string());
    let cps = HumanCheckpoint::list_from(&list, prompt).expect("a list");
    assert_eq!(cps[0].at, CheckpointStage::AfterOutputs);
    assert_eq!(cps[0].mode, HumanMode::Input);
    assert!(!cps[0].required && cps[1].required);
    assert_eq!(cps[0].on_timeout, Some(OnTimeout::Escalate));
    assert_eq!(cps[0].timeout_seconds, Some(60.0));
    let why = &cps[0].collect[0];
    assert_eq!((why.name.as_str(), why.ty.as_str()), ("why", "string"));
    assert_eq!(why.decl.enum_values, Some(vec![Value::from("a")]));
    assert_eq!(cps[0].collect[1].ty, "any");
    assert_eq!(cps[0].collect[1].default, Some(Value::from(1)));
    assert_eq!(cps[1].prompt.as_deref(), Some("human.1.prompt"));
    assert_eq!(cps[1].when, None);
    assert_eq!(
        cps.iter().map(|c| c.written_id()).collect::<Vec<_>>(),
        ["look", "before_start"]
    );
    // Written without its defaults, and read back the same.
    let typed = HumanCheckpoint::<Expr>::list_from(&list, |_| None).expect("a list");
    let text = serde_json::to_string(&typed).expect("ser");
    assert!(!text.contains("\"required\":true"), "{text}");
    assert_eq!(
        serde_json::from_str::<Vec<HumanCheckpoint<Expr>>>(&text).expect("de"),
        typed
    );
    assert!(HumanCheckpoint::<Expr>::list_from(&Value::Null, |_| None).is_none());
}

/// An AGS `success` block reads into typed criteria (their expressions in place, the fields
/// only a handler acts on kept as written), and a `decision` block into typed branches.
#[test]
fn success_and_decision_blocks_read_into_typed_fields() {
    let block = serde_json::json!({
        "summary": "done", "mode": "n_of", "count": 1,
        "criteria": [
            {"id": "big", "kind": "expression", "description": "d", "expr": "x > 1",
             "severity": "advisory"},
            {"id": "shape", "kind": "regex", "description": "d", "target": "t",
             "pattern": "^a", "flags": "i", "negate": true},
            {"id": "runs", "kind": "command", "description": "d", "run": "make"},
        ],
    });
    let asked = |key: &str| Some(key.to_string());
    let s = Success::from_block(&block, asked).expect("criteria");
    assert_eq!((s.mode, s.count), (CriteriaMode::NOf, Some(1)));
    assert_eq!(s.criteria[0].expr.as_deref(), Some("criteria.big"));
    assert!(s.criteria[0].advisory && !s.criteria[1].advisory);
    assert_eq!(
        s.criteria[1].target.as_deref(),
        Some("criteria.shape.target")
    );
    assert_eq!(s.criteria[1].expr, None);
    assert_eq!(
        (s.criteria[1].flags.as_str(), s.criteria[1].negate),
        ("i", true)
    );
    assert_eq!(s.criteria[2].kind, CriterionKind::Command);
    assert_eq!(s.criteria[2].target, None);
    assert_eq!(
        s.criteria[2].rest,
        *serde_json::json!({"description": "d", "run": "make"})
            .as_object()
            .expect("object")
    );
    assert_eq!(
        Success::<Expr>::residue(&block),
        Some(serde_json::json!({"summary": "done"}))
    );
    let typed = Success::<Expr>::from_block(&block, |_| None).expect("criteria");
    let text = serde_json::to_string(&typed).expect("ser");
    assert_eq!(
        serde_json::from_str::<Success<Expr>>(&text).expect("de"),
        typed
    );
    assert!(Success::<Expr>::from_block(&serde_json::json!({"mode": "all"}), |_| None).is_none());

    let block = serde_json::json!({
        "evaluator": "expression", "question": "which?", "default_branch": "b",
        "branches": [{"label": "a", "description": "A", "when": "x"}, {"description": "none"},
                     {"label": "b", "description": "B"}],
    });
    let d = Decision::from_block(&block, |key| (key == "branches.a").then(|| key.to_string()))
        .expect("decision");
    assert_eq!(d.evaluator, Evaluator::Expression);
    let labels: Vec<_> = d.branches.iter().map(|b| b.label.as_str()).collect();
    assert_eq!(labels, ["a", "b"]);
    assert_eq!(d.branches[0].when.as_deref(), Some("branches.a"));
    assert_eq!(d.branches[1].when, None);
    assert_eq!(d.default_branch.as_deref(), Some("b"));
    let agent = Decision::<Expr>::from_block(&serde_json::json!({"branches": []}), |_| None);
    assert_eq!(agent.expect("decision").evaluator, Evaluator::Agent);
}

/// An AGS `gate` block reads into the typed gate (its collected values declared as params,
/// its extension keys kept), and a wait block into the typed wait.
#[test]
fn gate_and_wait_blocks_read_into_typed_fields() {
    let block = serde_json::json!({
        "mode": "input", "roles": ["lead"], "prompt": "Name it ${{ params.x }}",
        "present": ["nodes.a.outputs.b"], "timeout_seconds": 60, "on_timeout": "escalate",
        "on_reject": "skip_dependents", "x-note": {"kept": true},
        "collect": {"version": {"type": "string"}, "n": {"required": false}},
    });
    let g = Gate::from_block(&block).expect("a gate");
    assert_eq!(
        (g.mode, g.on_reject),
        (HumanMode::Input, OnReject::SkipDependents)
    );
    assert_eq!(
        (g.timeout_seconds, g.on_timeout),
        (Some(60.0), Some(OnTimeout::Escalate))
    );
    assert_eq!(g.prompt.as_deref(), Some("Name it ${{ params.x }}"));
    assert_eq!((g.roles.len(), g.present.len()), (1, 1));
    let names: Vec<_> = g
        .collect
        .iter()
        .map(|p| (p.name.as_str(), p.ty.as_str(), p.required))
        .collect();
    assert_eq!(names, [("version", "string", true), ("n", "any", false)]);
    assert_eq!(g.extensions["x-note"], serde_json::json!({"kept": true}));
    let text = serde_json::to_string(&g).expect("ser");
    assert_eq!(serde_json::from_str::<Gate>(&text).expect("de"), g);
    // Left out at its defaults: an approval that fails when rejected.
    let plain = Gate::from_block(&serde_json::json!({"mode": "approve", "on_reject": "fail"}));
    let text = serde_json::to_string(&plain.expect("a gate")).expect("ser");
    assert_eq!(text, r#"{"mode":"approve"}"#);
    assert!(Gate::from_block(&Value::Null).is_none());

    let wait = |v: Value| Wait::from_block(&v);
    assert_eq!(
        wait(serde_json::json!({"kind": "duration", "ms": 5, "until": "x"})),
        Some(Wait::Duration { ms: Some(5) })
    );
    assert_eq!(
        wait(serde_json::json!({"kind": "signal", "signal": "paid"})),
        Some(Wait::Signal {
            signal: Some("paid".into())
        })
    );
    assert_eq!(wait(serde_json::json!({"kind": "later"})), None);
    assert_eq!(wait(serde_json::json!({})), None);
    let w = Wait::Until {
        until: Some("2026-01-01T00:00:00Z".into()),
    };
    let text = serde_json::to_string(&w).expect("ser");
    assert_eq!(text, r#"{"kind":"until","until":"2026-01-01T00:00:00Z"}"#);
    assert_eq!(serde_json::from_str::<Wait>(&text).expect("de"), w);
}

/// A v4 plan's `resume_schema`, `transform: inputs` and `input_ref` attributes read into the
/// typed `resume_schema` and `produces` (the generated examples have no agh transform or
/// input source), and leave `attributes`.
#[test]
fn v4_state_update_and_interrupt_attributes_read_into_typed_fields() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("tests/fixtures/plans/v4/reserved-agh.plan.json"))
        .expect("v4 plan");
    let mut v: Value = serde_json::from_str(&text).expect("json");
    let nodes = v["nodes"].as_array_mut().expect("nodes");
    nodes[0]["kind"] = "state_update".into();
    nodes[0]["attributes"] = serde_json::json!({"transform": "inputs", "class": "action"});
    nodes[1]["kind"] = "state_update".into();
    nodes[1]["attributes"] = serde_json::json!({"class": "source", "input_ref": "topic"});
    nodes[2]["kind"] = "gate".into();
    nodes[2]["attributes"] = serde_json::json!({"resume_schema": {"type": "object"}});
    let plan = Plan::from_value(v).expect("plan");
    let n = &plan.nodes;
    assert_eq!(n[0].produces, Some(Produces::Inputs));
    assert_eq!(n[1].produces, Some(Produces::Param("topic".into())));
    assert_eq!(
        n[2].resume_schema.as_deref(),
        Some(&serde_json::json!({"type": "object"}))
    );
    assert_eq!(
        n[0].attributes,
        *serde_json::json!({"class": "action"}).as_object().unwrap()
    );
    assert_eq!(
        n[1].attributes,
        *serde_json::json!({"class": "source"}).as_object().unwrap()
    );
    assert!(n[2].attributes.is_empty());
    // Written as the compiler writes them.
    let out = serde_json::to_value(&plan).expect("ser");
    assert_eq!(out["nodes"][0]["produces"], "inputs");
    assert_eq!(
        out["nodes"][1]["produces"],
        serde_json::json!({"param": "topic"})
    );
}

/// A node's inputs and outputs are read into lists of their exact length when they have one
/// or two items (as most have), and lists of any length keep their items in order.
#[test]
fn short_lists_are_read_to_their_exact_length() {
    for n in 0..7u32 {
        let text = serde_json::to_string(&(0..n).collect::<Vec<_>>()).unwrap();
        let list: Vec<u32> =
            super::lists::short_list(&mut serde_json::Deserializer::from_str(&text)).unwrap();
        assert_eq!(list, (0..n).collect::<Vec<_>>());
        if n <= 2 {
            assert_eq!(list.capacity(), list.len(), "{n} items");
        }
    }
    let not_a_list =
        super::lists::short_list::<_, u32>(&mut serde_json::Deserializer::from_str("{}"));
    assert!(not_a_list.is_err());
}

/// Extension keys (`x-…`) inside a fallback step, an escalation, a checkpoint, a decision and
/// a branch are carried in their `extensions` (a v4 plan dropped them), and read back.
#[test]
fn extension_keys_inside_typed_blocks_are_carried() {
    let x = |v: i64| serde_json::json!({"x-mark": v});
    let failure = serde_json::json!({
        "fallback": [{"strategy": "skip", "x-mark": 1}],
        "escalation": {"to": "human", "x-mark": 2},
    });
    let f = Failure::<Expr>::from_block(&failure, |_| None).expect("a ladder");
    assert_eq!(Value::Object(f.fallback[0].extensions.clone()), x(1));
    let esc = f.escalation.as_ref().expect("escalation");
    assert_eq!(Value::Object(esc.extensions.clone()), x(2));
    let text = serde_json::to_string(&f).expect("ser");
    assert!(text.contains(r#""extensions":{"x-mark":1}"#), "{text}");
    assert_eq!(serde_json::from_str::<Failure<Expr>>(&text).expect("de"), f);
    // Only the extension keys: what the step holds elsewhere is not repeated.
    assert_eq!(f.fallback[0].extensions.len(), 1);

    let list = serde_json::json!([{"at": "before_start", "mode": "approve", "x-mark": 3}]);
    let cps = HumanCheckpoint::<Expr>::list_from(&list, |_| None).expect("a list");
    assert_eq!(Value::Object(cps[0].extensions.clone()), x(3));
    let text = serde_json::to_string(&cps).expect("ser");
    assert_eq!(
        serde_json::from_str::<Vec<HumanCheckpoint<Expr>>>(&text).expect("de"),
        cps
    );

    let decision = serde_json::json!({
        "branches": [{"label": "a", "x-mark": 4}, {"label": "b"}], "x-mark": 5,
    });
    let d = Decision::<Expr>::from_block(&decision, |_| None).expect("decision");
    assert_eq!(Value::Object(d.branches[0].extensions.clone()), x(4));
    assert!(d.branches[1].extensions.is_empty());
    assert_eq!(Value::Object(d.extensions.clone()), x(5));
    let text = serde_json::to_string(&d).expect("ser");
    assert_eq!(
        serde_json::from_str::<Decision<Expr>>(&text).expect("de"),
        d
    );
    // A block without any writes none.
    let plain = Decision::<Expr>::from_block(&serde_json::json!({"branches": []}), |_| None);
    let text = serde_json::to_string(&plain.expect("decision")).expect("ser");
    assert!(!text.contains("extensions"), "{text}");
}

/// A region block's options read into the typed body (the body's params declared as params
/// are, the policies as enums), and what the body does not hold is the block's residue.
#[test]
fn region_block_options_read_into_the_typed_body() {
    let block = serde_json::json!({
        "on_max_iterations": "escalate", "on_over_limit": "truncate", "context": "kept",
        "body_params": {"dir": {"type": "directory", "default": "."}, "n": {"required": false}},
    });
    let body = Body::from_block(&block).expect("a body");
    assert_eq!(body.on_max_iterations, Some(OnMaxIterations::Escalate));
    assert_eq!(body.on_over_limit, Some(OnOverLimit::Truncate));
    let params: Vec<_> = body
        .params
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.ty.as_str(),
                p.required,
                p.default.clone(),
            )
        })
        .collect();
    assert_eq!(
        params,
        [
            ("dir", "directory", true, Some(Value::from("."))),
            ("n", "any", false, None)
        ]
    );
    assert_eq!(
        Body::residue(block.as_object().unwrap()),
        serde_json::json!({"context": "kept"}).as_object().cloned()
    );
    let text = serde_json::to_string(&body).expect("ser");
    assert_eq!(serde_json::from_str::<Body>(&text).expect("de"), body);
    // A block that says nothing of them is no body, and leaves no residue.
    let quiet = serde_json::json!({"on_max_iterations": "later"});
    assert!(Body::from_block(&quiet).is_none());
    assert!(Body::residue(&serde_json::Map::new()).is_none());
}
