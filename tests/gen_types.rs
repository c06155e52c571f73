//! Generated types at run time: the every-type runner (`examples/generated/every-type`) runs a
//! loop and a map end to end with typed handlers, which see the iteration and the item in
//! their context and the nested, recursive, tagged and untagged values typed; the
//! hostile-names runner's types keep every JSON name intact through serde.

use agc_runtime::run::{FixedClock, FixedIds, MemoryJournal, RunOptions};
use every_type_runner as et;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// Awaits a run on a small tokio runtime (the driver is async).
fn block<T>(run: impl std::future::Future<Output = T>) -> T {
    agc_runtime::run::tokio_runtime(1)
        .expect("a tokio runtime")
        .block_on(run)
}

fn options() -> RunOptions {
    RunOptions {
        clock: Arc::new(FixedClock::new()),
        ids: Arc::new(FixedIds::new("run")),
        ..RunOptions::default()
    }
}

fn report() -> Value {
    json!({
        "summary": "all shapes",
        "sections": [
            { "title": "a", "level": 1, "severity": "high",
              "detail": { "refs": [{ "url": "u", "weight": 0.5 }] } }
        ],
        "scores": { "a": 2.0, "x": 1.5 },
        "tree": { "name": "root", "children": [{ "name": "leaf" }],
                  "parent": { "name": "up" } },
        "shape": { "kind": "rect", "width": 2.0, "height": 3.0 },
        "id": "r-1"
    })
}

#[derive(Default)]
struct Every {
    seen: Mutex<Vec<String>>,
}

impl et::Hooks for Every {}

impl et::Handlers for Every {
    async fn survey(
        &self,
        _ctx: &et::Context,
        inputs: et::SurveyInputs,
    ) -> Result<et::SurveyOutputs, et::Failure> {
        assert_eq!(inputs.label, "docs");
        let report: et::SurveyOutputsReport = serde_json::from_value(report()).unwrap();
        Ok(et::SurveyOutputs {
            report,
            pages: vec!["intro".into(), "guide".into(), "faq".into()],
        })
    }

    async fn polish_score(
        &self,
        ctx: &et::Context,
        _inputs: et::PolishScoreInputs,
    ) -> Result<et::PolishScoreOutputs, et::Failure> {
        let i = ctx.iteration.expect("a loop body call knows its iteration");
        self.seen.lock().unwrap().push(format!("iteration {i}"));
        Ok(et::PolishScoreOutputs {
            score: 0.5 + i as f64,
        })
    }

    async fn visit_read(
        &self,
        ctx: &et::Context,
        inputs: et::VisitReadInputs,
    ) -> Result<et::VisitReadOutputs, et::Failure> {
        let item = ctx.item.expect("a map body call knows its item");
        assert_eq!(item as i64, inputs.index);
        self.seen
            .lock()
            .unwrap()
            .push(format!("item {item} {}", inputs.page));
        Ok(et::VisitReadOutputs {
            words: inputs.page.len() as i64,
        })
    }
}

#[test]
fn every_type_runs_through_a_loop_and_a_map() {
    let every = Arc::new(Every::default());
    let params = et::Params {
        label: "docs".into(),
        count: 3,
        mode: Some(et::ParamsMode::Thorough),
        ..et::Params::default()
    };
    let mut journal = MemoryJournal::default();
    let record = block(et::run(
        &params,
        Shared(every.clone()),
        &mut journal,
        &options(),
    ))
    .expect("the run runs");
    assert_eq!(record.status, et::RunStatus::Succeeded, "{record:#?}");
    let record = serde_json::to_value(&record).unwrap();
    let outputs = |scope: &str| {
        record["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["scope_path"] == scope)
            .unwrap_or_else(|| panic!("no node run {scope}"))["outputs"]
            .clone()
    };
    assert_eq!(outputs("visit")["words"], json!([5, 5, 3]));
    assert_eq!(outputs("polish")["last_score"], json!(1.5));
    assert_eq!(
        outputs("survey")["report"],
        report(),
        "typed values round-trip"
    );
    let mut seen = every.seen.lock().unwrap().clone();
    seen.sort();
    assert_eq!(
        seen,
        [
            "item 0 intro",
            "item 1 guide",
            "item 2 faq",
            "iteration 0",
            "iteration 1"
        ]
    );
}

/// Handlers behind an `Arc`, so the test keeps a handle on what they saw.
struct Shared(Arc<Every>);

impl et::Hooks for Shared {}

impl et::Handlers for Shared {
    async fn survey(
        &self,
        ctx: &et::Context,
        inputs: et::SurveyInputs,
    ) -> Result<et::SurveyOutputs, et::Failure> {
        self.0.survey(ctx, inputs).await
    }

    async fn polish_score(
        &self,
        ctx: &et::Context,
        inputs: et::PolishScoreInputs,
    ) -> Result<et::PolishScoreOutputs, et::Failure> {
        self.0.polish_score(ctx, inputs).await
    }

    async fn visit_read(
        &self,
        ctx: &et::Context,
        inputs: et::VisitReadInputs,
    ) -> Result<et::VisitReadOutputs, et::Failure> {
        self.0.visit_read(ctx, inputs).await
    }
}

#[test]
fn unions_and_recursion_decode_as_declared() {
    let r: et::SurveyOutputsReport = serde_json::from_value(report()).unwrap();
    assert!(matches!(
        r.shape,
        et::SurveyOutputsReportShape::Rect(et::SurveyOutputsReportShapeRect { width, .. }) if width == 2.0
    ));
    assert_eq!(r.id, et::SurveyOutputsReportId::String("r-1".into()));
    let by_int: et::SurveyOutputsReportId = serde_json::from_value(json!(7)).unwrap();
    assert_eq!(by_int, et::SurveyOutputsReportId::Integer(7));
    assert_eq!(r.tree.parent.as_ref().unwrap().name, "up");
    assert_eq!(r.tree.children.as_ref().unwrap()[0].name, "leaf");
    assert_eq!(
        r.scores.keys().collect::<Vec<_>>(),
        ["a", "x"],
        "an ordered map"
    );
    let bad = json!({ "kind": "triangle" });
    assert!(serde_json::from_value::<et::SurveyOutputsReportShape>(bad).is_err());
}

#[test]
fn hostile_json_names_survive_serde_intact() {
    let value = json!({
        "first-name": "a", "2nd": 2, "type": "a\"b", "self": true, "": 1.5,
        "名前": "n", "Name": "N", "name": "n2", "\"#": "q", "*/": "c", "Option": null
    });
    let typed: hostile_names_runner::TypeOutputsMatch =
        serde_json::from_value(value.clone()).unwrap();
    assert_eq!(typed.u540d_u524d, "n");
    assert_eq!(typed.empty_2, "q");
    let mut back = serde_json::to_value(&typed).unwrap();
    // `Option: null` is skipped when absent; everything else comes back under its own name.
    back.as_object_mut()
        .unwrap()
        .insert("Option".into(), Value::Null);
    assert_eq!(back, value);
    for v in ["a\"b", "*/", "🚀", "ok", "OK", "Self", ""] {
        let t: hostile_names_runner::TypeOutputsMatchType =
            serde_json::from_value(json!(v)).unwrap_or_else(|e| panic!("{v:?}: {e}"));
        assert_eq!(serde_json::to_value(t).unwrap(), json!(v));
    }
}
