//! Agent Graph Skill bindings on `agc evaluate` and `agc route` (`--skill`, `--registry`): a
//! binding selects the same Provider, graph and entry as the explicit arguments, and each
//! binding, registry and selection error has its upstream code (fixtures under
//! `tests/fixtures/agent-graph/skills/`, one SKILL.md per code).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agent-graph")
}

fn skill(name: &str) -> String {
    dir()
        .join(format!("skills/{name}/SKILL.md"))
        .to_string_lossy()
        .into_owned()
}

fn registry(name: &str) -> String {
    dir()
        .join(format!("skills/{name}"))
        .to_string_lossy()
        .into_owned()
}

fn agc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(args)
        .output()
        .expect("agc runs")
}

/// The error code of a failed `--format json` run.
fn code(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let v: Value = serde_json::from_slice(&o.stderr).unwrap_or_else(|_| {
        panic!(
            "an error envelope, got {}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    assert_eq!(v["schema"], "agent-graph.error.v1");
    v["error"]["code"].as_str().unwrap().to_string()
}

#[test]
fn a_binding_selects_what_the_arguments_would() {
    let provider = dir().join("bundle-source").to_string_lossy().into_owned();
    let direct = agc(&["evaluate", &provider, "main", "--format", "json"]);
    let bound = agc(&["evaluate", "--skill", &skill("bound"), "--format", "json"]);
    assert!(direct.status.success() && bound.status.success());
    assert_eq!(direct.stdout, bound.stdout);
    // The same graph and entry, given again, are no conflict.
    let again = agc(&[
        "evaluate",
        "--skill",
        &skill("bound"),
        "main",
        "--entry",
        "default",
        "--format",
        "json",
    ]);
    assert_eq!(again.stdout, direct.stdout);
    // Routes: the binding's primary route, and a route id as the one argument.
    let routed = agc(&["route", "--skill", &skill("bound"), "--format", "json"]);
    let want = agc(&["route", &provider, "main", "--format", "json"]);
    assert!(routed.status.success());
    assert_eq!(routed.stdout, want.stdout);
    let ev: Value = serde_json::from_slice(&direct.stdout).unwrap();
    let id = ev["primaryRoute"]["routeId"].as_str().unwrap();
    let by_id = agc(&["route", "--skill", &skill("bound"), id, "--format", "json"]);
    assert_eq!(by_id.stdout, want.stdout);
}

#[test]
fn a_provider_locator_resolves_through_the_registry() {
    let provider = dir().join("bundle-source").to_string_lossy().into_owned();
    let o = agc(&[
        "evaluate",
        "--skill",
        &skill("registered"),
        "--registry",
        &registry("registry.yml"),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want = agc(&["evaluate", &provider, "review", "--format", "json"]);
    assert_eq!(o.stdout, want.stdout);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["statusCode"], "waiting-user");
}

#[test]
fn every_binding_error_has_its_code() {
    let reg = registry("registry.yml");
    let bad_reg = registry("registry-invalid.yml");
    let provider = dir().join("bundle-source").to_string_lossy().into_owned();
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "skill-binding-missing",
            vec![
                "evaluate".into(),
                "--skill".into(),
                skill("skill-binding-missing"),
            ],
        ),
        (
            "skill-locator-invalid",
            vec![
                "evaluate".into(),
                "--skill".into(),
                skill("skill-locator-invalid"),
            ],
        ),
        (
            "skill-locator-absolute",
            vec![
                "evaluate".into(),
                "--skill".into(),
                skill("skill-locator-absolute"),
            ],
        ),
        (
            "provider-unresolved",
            vec!["evaluate".into(), "--skill".into(), skill("registered")],
        ),
        (
            "provider-id-mismatch",
            vec![
                "evaluate".into(),
                "--skill".into(),
                skill("provider-id-mismatch"),
                "--registry".into(),
                reg.clone(),
            ],
        ),
        (
            "skill-graph-missing",
            vec![
                "evaluate".into(),
                "--skill".into(),
                skill("skill-graph-missing"),
            ],
        ),
        (
            "skill-entry-missing",
            vec![
                "route".into(),
                "--skill".into(),
                skill("skill-entry-missing"),
            ],
        ),
        (
            "skill-graph-conflict",
            vec![
                "evaluate".into(),
                "--skill".into(),
                skill("bound"),
                "review".into(),
            ],
        ),
        (
            "skill-entry-conflict",
            vec![
                "route".into(),
                "--skill".into(),
                skill("bound"),
                "--entry".into(),
                "fast".into(),
            ],
        ),
        (
            "registry-invalid",
            vec![
                "evaluate".into(),
                "--skill".into(),
                skill("registered"),
                "--registry".into(),
                bad_reg,
            ],
        ),
        (
            "graph-selection-missing",
            vec!["evaluate".into(), provider.clone()],
        ),
        (
            "route-arguments-invalid",
            vec![
                "route".into(),
                "--skill".into(),
                skill("bound"),
                "main".into(),
                "route:0".into(),
            ],
        ),
        (
            "file-missing",
            vec![
                "evaluate".into(),
                "--skill".into(),
                registry("missing/SKILL.md"),
            ],
        ),
    ];
    let mut bad = Vec::new();
    for (want, mut args) in cases {
        args.extend(["--format".to_string(), "json".to_string()]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let got = code(&agc(&refs));
        if got != want {
            bad.push(format!("{want}: got {got} for {args:?}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Human format: `ERROR code: message` on stderr, exit 1.
#[test]
fn a_conflict_reads_as_upstream_in_human_form() {
    let o = agc(&["evaluate", "--skill", &skill("bound"), "--entry", "fast"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim_end(),
        "ERROR skill-entry-conflict: Skill selects Entry default; explicit Entry fast is not allowed"
    );
}
