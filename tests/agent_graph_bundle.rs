//! Agent Graph bundles: `agc agent-graph bundle` writes a deterministic bundle that agc (and
//! upstream, by the same rules) accepts, and that evaluates and routes exactly as its source
//! (the upstream oracle's answers, on every corpus Provider built into a bundle); a bundle
//! broken one way per `bundle-*` code is refused with that code on that line of
//! `manifest.json`; the build refuses outputs over the sources and absolute-path leaks.

mod common;

use agc::check::{CheckOptions, check_path};
use agc::source::SourceMap;
use agc_runtime::agent_graph::canon::{digest_bytes, digest_value};
use common::TempDir;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn agc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agc"))
        .args(args)
        .output()
        .expect("agc runs")
}

fn temp(name: &str) -> TempDir {
    TempDir::new(&format!("agc-agb-{name}-")).canonical()
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agent-graph/bundle-source")
}

fn build(provider: &Path, out: &Path) {
    let o = agc(&[
        "agent-graph",
        "bundle",
        provider.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        o.status.success(),
        "bundle of {} failed: {}",
        provider.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The errors of checking a bundle's `manifest.json`, as `(code, line)`.
fn errors(manifest: &Path) -> Vec<(String, u32)> {
    let mut sources = SourceMap::new();
    let display = manifest.to_string_lossy().into_owned();
    let diags = check_path(&mut sources, manifest, &display, &CheckOptions::default());
    diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let line = d.span.map_or(0, |s| {
                let f = sources.get(s.file);
                assert!(
                    f.name.ends_with("manifest.json"),
                    "{} is reported in {}",
                    d.code,
                    f.name
                );
                f.line_col(s.start).line
            });
            (d.code.to_string(), line)
        })
        .collect()
}

/// The 1-based line of the `nth` (0-based) line of `text` containing `needle`.
fn line_of(text: &str, needle: &str, nth: usize) -> u32 {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(nth)
        .map(|(i, _)| i as u32 + 1)
        .unwrap_or_else(|| panic!("`{needle}` #{nth} not in the manifest"))
}

fn write_signed(dir: &Path, mut m: Value) -> String {
    m.as_object_mut().unwrap().remove("digest");
    let d = digest_value(&m);
    m["digest"] = json!(d);
    let text = serde_json::to_string_pretty(&m).unwrap() + "\n";
    std::fs::write(dir.join("manifest.json"), &text).unwrap();
    text
}

#[test]
fn a_built_bundle_is_deterministic_and_verifies() {
    let t = temp("det");
    build(&fixture().join("provider.yml"), &t.join("a"));
    build(&fixture(), &t.join("b"));
    let a = std::fs::read(t.join("a/manifest.json")).unwrap();
    assert_eq!(a, std::fs::read(t.join("b/manifest.json")).unwrap());
    assert!(errors(&t.join("a/manifest.json")).is_empty());
    let m: Value = serde_json::from_slice(&a).unwrap();
    assert_eq!(m["providerManifest"], "provider.yaml");
    assert_eq!(
        m["graphDependencies"],
        json!({"main": ["review"], "review": []})
    );
    assert_eq!(
        m["schemas"],
        json!([{"id": "schemas/build-input.json", "path": "schemas/build-input.json",
                "digest": digest_bytes(&std::fs::read(fixture().join("schemas/build-input.json")).unwrap())}])
    );
    let text = String::from_utf8(a).unwrap();
    assert!(!text.contains(&*t.to_string_lossy()), "no absolute path");
    // A bundle of the bundle is the same bundle.
    build(&t.join("a"), &t.join("c"));
    for f in ["manifest.json", "provider.yaml", "graphs/main.yml"] {
        assert_eq!(
            std::fs::read(t.join("a").join(f)).unwrap(),
            std::fs::read(t.join("c").join(f)).unwrap(),
            "{f}"
        );
    }
    // The bundle folder evaluates like the source, revision included.
    let src = agc(&[
        "evaluate",
        fixture().to_str().unwrap(),
        "main",
        "--format",
        "json",
    ]);
    let bun = agc(&[
        "evaluate",
        t.join("a").to_str().unwrap(),
        "main",
        "--format",
        "json",
    ]);
    assert!(src.status.success() && bun.status.success());
    assert_eq!(src.stdout, bun.stdout);
}

/// One broken bundle per code: `(code, mutation, (needle, nth, lines below) of the expected
/// line, codes that may come along because agc goes on where upstream stops)`.
type Mutation = fn(&Path, &mut Value);
type Case<'a> = (&'a str, Mutation, (&'a str, usize, u32), &'a [&'a str]);

#[test]
fn every_bundle_code_is_reported_on_its_line() {
    let t = temp("codes");
    let clean = t.join("clean");
    build(&fixture(), &clean);
    let m0: Value =
        serde_json::from_str(&std::fs::read_to_string(clean.join("manifest.json")).unwrap())
            .unwrap();
    let zeros = format!("sha256:{}", "1".repeat(64));
    let cases: Vec<Case> = vec![
        (
            "bundle-digest-mismatch",
            |_, _| {},
            ("\"digest\": \"sha256:1111", 0, 0),
            &[],
        ),
        (
            "bundle-file-duplicate",
            |_, m| {
                let f = m["files"][1].clone();
                m["files"].as_array_mut().unwrap().push(f);
            },
            ("\"path\": \"graphs/main.yml\"", 2, 0),
            &[],
        ),
        (
            "bundle-file-digest-mismatch",
            |d, _| {
                std::fs::write(
                    d.join("resources/guide.md"),
                    "---\nid: guide\nkind: procedure\n---\nChanged.\n",
                )
                .unwrap()
            },
            ("\"path\": \"resources/guide.md\"", 1, 1),
            &[],
        ),
        (
            "bundle-catalog-mismatch",
            |_, m| m["actions"][0]["digest"] = json!(format!("sha256:{}", "2".repeat(64))),
            ("sha256:2222", 0, 0),
            &[],
        ),
        (
            "bundle-catalog-mismatch",
            |_, m| m["resources"] = json!([]),
            ("\"resources\": []", 0, 0),
            &[],
        ),
        (
            "bundle-invalid",
            |_, m| {
                m.as_object_mut().unwrap().remove("providerManifest");
            },
            ("{", 0, 0),
            &["schema-invalid"],
        ),
        (
            "bundle-provider-unlisted",
            |_, m| {
                m["files"]
                    .as_array_mut()
                    .unwrap()
                    .retain(|f| f["path"] != "provider.yaml");
            },
            ("\"providerManifest\"", 0, 0),
            &[],
        ),
        (
            "bundle-provider-mismatch",
            |_, m| m["provider"]["version"] = json!("9.9.9"),
            ("\"provider\": {", 0, 0),
            &[],
        ),
        (
            "bundle-files-mismatch",
            |d, m| {
                std::fs::write(d.join("extra.txt"), "not read by the Provider\n").unwrap();
                m["files"].as_array_mut().unwrap().push(
                    json!({"path": "extra.txt", "digest": digest_bytes(b"not read by the Provider\n")}),
                );
            },
            ("\"files\": [", 0, 0),
            &[],
        ),
        (
            "bundle-dependencies-mismatch",
            |_, m| m["graphDependencies"]["review"] = json!(["main"]),
            ("\"graphDependencies\"", 0, 0),
            &[],
        ),
    ];
    let mut failures = Vec::new();
    for (i, (code, mutate, (needle, nth, below), also)) in cases.into_iter().enumerate() {
        let dir = t.join(format!("case{i}"));
        let o = Command::new("cp")
            .args(["-r", clean.to_str().unwrap(), dir.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(o.status.success());
        let mut m = m0.clone();
        mutate(&dir, &mut m);
        let text = if code == "bundle-digest-mismatch" {
            m["digest"] = json!(zeros);
            let text = serde_json::to_string_pretty(&m).unwrap() + "\n";
            std::fs::write(dir.join("manifest.json"), &text).unwrap();
            text
        } else {
            write_signed(&dir, m)
        };
        let want = line_of(&text, needle, nth) + below;
        let got = errors(&dir.join("manifest.json"));
        let hit = got.iter().any(|(c, l)| c == code && *l == want);
        let stray = got
            .iter()
            .any(|(c, _)| c != code && !also.contains(&c.as_str()));
        if !hit || stray {
            failures.push(format!("{code}: expected at line {want}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A broken bundle is refused by `evaluate` with its code in upstream's error envelope.
#[test]
fn evaluate_refuses_a_broken_bundle_with_its_code() {
    let t = temp("refuse");
    let b = t.join("b");
    build(&fixture(), &b);
    std::fs::write(
        b.join("graphs/review.yml"),
        "schema: agent-graph.graph.v1\n",
    )
    .unwrap();
    let o = agc(&["evaluate", b.to_str().unwrap(), "main", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let err: Value = serde_json::from_slice(&o.stderr).expect("an error envelope");
    assert_eq!(err["schema"], "agent-graph.error.v1");
    assert_eq!(err["error"]["code"], "bundle-file-digest-mismatch");
    // A hand-edited manifest: its digest is what upstream stops at, though agc also reports
    // the file whose listed digest was changed.
    let mut m: Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("manifest.json")).unwrap()).unwrap();
    m["files"][0]["digest"] = json!(format!("sha256:{}", "3".repeat(64)));
    let e = t.join("e");
    std::fs::create_dir_all(&e).unwrap();
    std::fs::write(
        e.join("manifest.json"),
        serde_json::to_string_pretty(&m).unwrap(),
    )
    .unwrap();
    let o = agc(&["evaluate", e.to_str().unwrap(), "main", "--format", "json"]);
    let err: Value = serde_json::from_slice(&o.stderr).expect("an error envelope");
    assert_eq!(err["error"]["code"], "bundle-digest-mismatch");
    // Without `providerManifest`, the envelope says `schema-invalid`, as upstream's does.
    let mut m: Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("manifest.json")).unwrap()).unwrap();
    m.as_object_mut().unwrap().remove("providerManifest");
    let c = t.join("c");
    std::fs::create_dir_all(&c).unwrap();
    write_signed(&c, m);
    let o = agc(&["evaluate", c.to_str().unwrap(), "main", "--format", "json"]);
    let err: Value = serde_json::from_slice(&o.stderr).expect("an error envelope");
    assert_eq!(err["error"]["code"], "schema-invalid");
    let codes: Vec<&str> = err["error"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"bundle-invalid"), "{codes:?}");
    // `agc build` and `agc check` on the folder check the bundle (not only the provider.yaml
    // inside).
    let o = agc(&[
        "build",
        b.to_str().unwrap(),
        "--graph",
        "main",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(said.contains("bundle-file-digest-mismatch"), "{said}");
    let o = agc(&["check", b.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("bundle-file-digest-mismatch"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn the_build_refuses_overlaps_and_absolute_path_leaks() {
    let t = temp("refusals");
    let src = t.join("src");
    let o = Command::new("cp")
        .args(["-r", fixture().to_str().unwrap(), src.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success());
    let code = |o: &Output| -> String {
        let v: Value = serde_json::from_slice(&o.stderr).expect("an error envelope");
        v["error"]["code"].as_str().unwrap().to_string()
    };
    let run = |out: &Path| {
        agc(&[
            "agent-graph",
            "bundle",
            src.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--format",
            "json",
        ])
    };
    // Over the provider root, and around a source file.
    assert_eq!(code(&run(&src)), "build-output-overlaps-source");
    assert_eq!(code(&run(&t)), "build-output-overlaps-source");
    assert!(src.join("provider.yml").is_file(), "sources left alone");
    // A referenced file that holds the source root's absolute path.
    std::fs::write(
        src.join("resources/guide.md"),
        format!(
            "---\nid: guide\nkind: procedure\n---\nSee {}/notes.\n",
            src.display()
        ),
    )
    .unwrap();
    let out = t.join("out");
    assert_eq!(code(&run(&out)), "build-absolute-path-leak");
    assert!(!out.exists(), "nothing written");
}

/// Every corpus Provider built into a bundle answers the upstream oracle's evaluations and
/// routes exactly, with the bundle folder as the provider root.
#[test]
fn bundles_of_the_corpus_answer_the_oracle() {
    let c = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/agent-graph");
    if !c.is_dir() {
        eprintln!("skipped: {} is absent", c.display());
        return;
    }
    let c = c.canonicalize().unwrap();
    let t = temp("oracle");
    let ws = t.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let mut built: std::collections::HashMap<String, PathBuf> = Default::default();
    let mut bad = Vec::new();
    let mut n = 0;
    for kind in ["evaluations", "routes"] {
        let Ok(text) = std::fs::read_to_string(c.join(format!("_derived/oracle-{kind}.jsonl")))
        else {
            continue;
        };
        for line in text.lines() {
            let o: Value = serde_json::from_str(line).unwrap();
            let provider = o["provider"].as_str().unwrap().to_string();
            let bundle = built
                .entry(provider.clone())
                .or_insert_with(|| {
                    let out = t.join(format!("b{}", n));
                    build(&c.join(&provider), &out);
                    out
                })
                .clone();
            n += 1;
            let a = &o["args"];
            let mut args: Vec<String> = vec![
                if kind == "evaluations" {
                    "evaluate"
                } else {
                    "route"
                }
                .into(),
                bundle.to_string_lossy().into_owned(),
                a["graph"].as_str().unwrap().into(),
                "--entry".into(),
                a["entry"].as_str().unwrap().into(),
                "--facts".into(),
                a["facts"].to_string(),
                "--outcomes".into(),
                a["outcomes"].to_string(),
                "--format".into(),
                "json".into(),
            ];
            let key = if kind == "routes" {
                args.push("--revision".into());
                args.push(o["route"]["revision"].as_str().unwrap().into());
                args.push("--workspace".into());
                args.push(ws.to_string_lossy().into_owned());
                "route"
            } else {
                "evaluation"
            };
            let auth: Vec<String> = a["authorities"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect();
            if !auth.is_empty() {
                args.push("--authority".into());
                args.extend(auth);
            }
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = agc(&refs);
            let want = serde_json::to_string(&o[key])
                .unwrap()
                .replace("<providerRoot>", &bundle.to_string_lossy())
                .replace("<workspace>", &ws.to_string_lossy());
            let got = String::from_utf8_lossy(&out.stdout).trim_end().to_string();
            if got != want {
                bad.push(format!(
                    "{} ({kind}):\n  got  {got}\n  want {want}\n  {}",
                    o["test"],
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(n >= 100, "oracle lines: {n}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
