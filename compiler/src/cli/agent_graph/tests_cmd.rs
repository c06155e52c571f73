//! `agc test`: a Provider's route tests (`agent-graph.test.v1`), with upstream's expectations
//! (`runGraphTests` in `src/testRunner.ts`): status, primary node and reason, the exact
//! alternative list, availability, outcome, included diagnostics, and, when any route-level
//! expectation is present, the primary route resolved at the evaluated revision.

use super::inputs::{Failure, read_structured};
use super::{AgFormat, ajv, outcome_map};
use crate::dialect::AgentGraphKind;
use agc_runtime::agent_graph::model::{Input, Provider};
use agc_runtime::agent_graph::{Error, eval, route};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One case's result.
#[derive(Debug, Serialize)]
pub(crate) struct CaseResult {
    pub name: String,
    pub path: String,
    pub passed: bool,
    pub failures: Vec<String>,
}

fn discover(path: &Path) -> Result<Vec<PathBuf>, Error> {
    let abs = crate::front::agent_graph::absolute(path);
    let meta = std::fs::metadata(&abs).map_err(|_| {
        Error::new(
            "test-path-missing",
            format!("Graph test path does not exist: {}", abs.display()),
        )
    })?;
    let files = if meta.is_file() {
        vec![abs.clone()]
    } else {
        crate::front::agent_graph::files_below(&abs)
            .into_iter()
            .filter(|f| {
                let n = f.to_string_lossy().to_ascii_lowercase();
                n.ends_with(".yaml") || n.ends_with(".yml") || n.ends_with(".json")
            })
            .collect()
    };
    if files.is_empty() {
        return Err(Error::new(
            "test-cases-empty",
            format!("No YAML or JSON graph test cases found: {}", abs.display()),
        ));
    }
    Ok(files)
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(String::from)
}

fn show(v: Option<&str>) -> &str {
    v.unwrap_or("<none>")
}

/// Runs every case under `path`.
pub(crate) fn run(
    provider: &Provider,
    path: &Path,
    limit: usize,
) -> Result<Vec<CaseResult>, Failure> {
    let mut results = Vec::new();
    for file in discover(path)? {
        let name_shown = file.to_string_lossy().into_owned();
        let test = read_structured(&file, limit)?;
        ajv::validate(AgentGraphKind::Test, "test-case", &test, &name_shown)?;
        let graph = string(&test, "graph").unwrap_or_default();
        let entry = string(&test, "entry").unwrap_or_else(|| "default".to_string());
        let state = test.get("state").cloned().unwrap_or(Value::Null);
        let input = Input {
            facts: state
                .get("facts")
                .cloned()
                .unwrap_or(Value::Object(Default::default())),
            outcomes: outcome_map(state.get("outcomes").unwrap_or(&Value::Null)),
            authorities: state
                .get("authorities")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default(),
            workspace: crate::front::agent_graph::absolute(Path::new("."))
                .to_string_lossy()
                .into_owned(),
            receipts: None,
        };
        let e = eval::evaluate(provider, &graph, &entry, &input)?.evaluation;
        let x = &test["expect"];
        let mut failures = Vec::new();
        let want = |k: &str| x.get(k).and_then(Value::as_str);
        if let Some(w) = want("statusCode")
            && w != e.status_code
        {
            failures.push(format!(
                "statusCode: expected {w}, received {}",
                e.status_code
            ));
        }
        let primary = e.primary_route.as_ref();
        for (key, got) in [
            ("primaryNode", primary.map(|p| p.node.as_str())),
            ("primaryReasonCode", primary.map(|p| p.reason_code.as_str())),
            ("availability", primary.map(|p| p.availability)),
            ("outcome", e.outcome.as_deref()),
        ] {
            if let Some(w) = want(key)
                && Some(w) != got
            {
                failures.push(format!("{key}: expected {w}, received {}", show(got)));
            }
        }
        if let Some(w) = x.get("alternativeNodes") {
            let got: Vec<&str> = e
                .alternative_routes
                .iter()
                .map(|r| r.node.as_str())
                .collect();
            let got = serde_json::to_value(&got).unwrap_or_default();
            if &got != w {
                failures.push(format!("alternativeNodes: expected {w}, received {got}"));
            }
        }
        for code in x
            .get("diagnosticsInclude")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !e.diagnostics.iter().any(|d| d.code == code) {
                failures.push(format!("diagnostic missing: {code}"));
            }
        }
        const ROUTE_KEYS: [&str; 14] = [
            "command",
            "handler",
            "requiredResources",
            "recommendedResources",
            "gateResolution",
            "inspectionCommand",
            "inspectionHandler",
            "inspectionSkill",
            "inspectionInputSchema",
            "resolutionCommand",
            "resolutionHandler",
            "resolutionSkill",
            "resolutionInputSchema",
            "recordNode",
        ];
        if ROUTE_KEYS.iter().any(|k| x.get(*k).is_some()) {
            match primary {
                None => failures.push("route assertions require a primary route".to_string()),
                Some(p) => {
                    let r = route::resolve(
                        provider,
                        &graph,
                        &entry,
                        &p.route_id,
                        &input,
                        Some(&e.revision),
                    )?;
                    route_failures(x, &r, &mut failures);
                }
            }
        }
        results.push(CaseResult {
            name: string(&test, "name").unwrap_or_default(),
            path: name_shown,
            passed: failures.is_empty(),
            failures,
        });
    }
    Ok(results)
}

fn route_failures(x: &Value, r: &route::Route, failures: &mut Vec<String>) {
    let want = |k: &str| x.get(k).and_then(Value::as_str);
    let gate = r.gate.as_ref();
    let nested = |key: &str| gate.and_then(|g| g.get(key));
    let plan0 = |v: Option<&Value>, f: &str| {
        v.and_then(|a| a.pointer(&format!("/commandPlan/0/{f}")))
            .and_then(Value::as_str)
            .map(String::from)
    };
    let action_id = |v: Option<&Value>, f: &str| {
        v.and_then(|a| a.pointer(&format!("/action/{f}/id")))
            .and_then(Value::as_str)
            .map(String::from)
    };
    let checks: Vec<(&str, Option<String>)> = vec![
        (
            "command",
            r.command_plan.first().and_then(|c| c.command.clone()),
        ),
        (
            "handler",
            r.command_plan.first().and_then(|c| c.handler.clone()),
        ),
        (
            "gateResolution",
            gate.and_then(|g| g.get("resolution"))
                .and_then(Value::as_str)
                .map(String::from),
        ),
        (
            "inspectionCommand",
            plan0(nested("inspectionAction"), "command"),
        ),
        (
            "inspectionHandler",
            plan0(nested("inspectionAction"), "handler"),
        ),
        (
            "inspectionSkill",
            action_id(nested("inspectionAction"), "skill"),
        ),
        (
            "inspectionInputSchema",
            action_id(nested("inspectionAction"), "inputSchema"),
        ),
        (
            "resolutionCommand",
            plan0(nested("resolutionAction"), "command"),
        ),
        (
            "resolutionHandler",
            plan0(nested("resolutionAction"), "handler"),
        ),
        (
            "resolutionSkill",
            action_id(nested("resolutionAction"), "skill"),
        ),
        (
            "resolutionInputSchema",
            action_id(nested("resolutionAction"), "inputSchema"),
        ),
        ("recordNode", Some(r.after_action.record_node.clone())),
    ];
    for (key, got) in checks {
        if let Some(w) = want(key)
            && Some(w) != got.as_deref()
        {
            failures.push(format!(
                "{key}: expected {w}, received {}",
                show(got.as_deref())
            ));
        }
    }
    for (key, list) in [
        ("requiredResources", &r.resources.required),
        ("recommendedResources", &r.resources.recommended),
    ] {
        if let Some(w) = x.get(key) {
            let got: Vec<&str> = list.iter().map(|l| l.id.as_str()).collect();
            let got = serde_json::to_value(&got).unwrap_or_default();
            if &got != w {
                failures.push(format!("{key}: expected {w}, received {got}"));
            }
        }
    }
}

/// Prints the results; the exit status is 1 when any case failed.
pub(crate) fn print(format: AgFormat, results: &[CaseResult]) -> i32 {
    let failed = results.iter().filter(|r| !r.passed).count();
    match format {
        AgFormat::Json => {
            let v = serde_json::json!({
                "state": if failed == 0 { "passed" } else { "failed" },
                "total": results.len(),
                "failed": failed,
                "results": results,
            });
            crate::cli::out(&format!("{v}\n"));
        }
        AgFormat::Human => {
            let mut out = String::new();
            for r in results {
                out.push_str(&format!(
                    "{} {}\n",
                    if r.passed { "PASS" } else { "FAIL" },
                    r.name
                ));
                for f in &r.failures {
                    out.push_str(&format!("  {f}\n"));
                }
            }
            out.push_str(&format!(
                "{}/{} graph test(s) passed",
                results.len() - failed,
                results.len()
            ));
            crate::cli::out(&format!("{out}\n"));
        }
    }
    i32::from(failed > 0)
}
