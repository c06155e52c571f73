//! SARIF output: parsed back and checked against SARIF 2.1.0's required shape.

use serde_json::{Value, json};

use super::*;
use crate::diag::codes::lookup;

fn parse(diags: &[Diagnostic], m: &SourceMap) -> Value {
    let text = render(Format::Sarif, diags, m, Options::default());
    serde_json::from_str(&text).expect("valid JSON")
}

#[test]
fn log_run_and_driver() {
    let v = parse(&[], &map(&[]));
    assert_eq!(v["version"], "2.1.0");
    assert!(
        v["$schema"]
            .as_str()
            .is_some_and(|s| s.ends_with("sarif-schema-2.1.0.json"))
    );
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "agc");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(driver["rules"], json!([]));
    assert_eq!(runs[0]["columnKind"], "unicodeCodePoints");
    assert_eq!(runs[0]["results"], json!([]));
}

#[test]
fn results_rules_and_regions() {
    let m = map(&[
        ("dir/my flow.yaml", "a: 1\na: 2\nb: «x»\n"),
        ("other.yaml", "c: 3\n"),
    ]);
    let diags = [
        Diagnostic::error("AGC004", "duplicate key `a`")
            .at(find(&m, 0, "a", 1))
            .with_label(find(&m, 0, "a", 0), "first defined here")
            .with_label(find(&m, 1, "c", 0), "also relevant")
            .with_help("remove one")
            .with_pointer("/a"),
        Diagnostic::warning("AG903", "unreachable node")
            .at(find(&m, 0, "x", 0))
            .with_label_text("this one"),
        Diagnostic::error("AGC004", "duplicate key `c`")
            .with_severity(Severity::Note)
            .at(find(&m, 1, "c", 0)),
        Diagnostic::error("AGC001", "cannot read `gone.yaml`"),
    ];
    let v = parse(&diags, &m);
    let run = &v["runs"][0];

    // One rule per distinct code, sorted, described from the registry.
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let ids: Vec<&str> = rules.iter().filter_map(|r| r["id"].as_str()).collect();
    assert_eq!(ids, ["AG903", "AGC001", "AGC004"]);
    let info = lookup("AGC004").expect("registered");
    assert_eq!(rules[2]["shortDescription"]["text"], info.summary);
    assert_eq!(rules[2]["fullDescription"]["text"], info.explanation);
    assert_eq!(rules[2]["help"]["text"], info.explanation);
    assert_eq!(rules[0]["defaultConfiguration"]["level"], "warning");

    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 4);
    for r in results {
        let id = r["ruleId"].as_str().expect("ruleId");
        let index = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], id);
    }

    let dup = &results[0];
    assert_eq!(dup["level"], "error");
    assert_eq!(dup["message"]["text"], "duplicate key `a`");
    let loc = &dup["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "dir/my%20flow.yaml");
    assert_eq!(
        loc["region"],
        json!({
            "startLine": 2, "startColumn": 1, "endLine": 2, "endColumn": 2,
            "byteOffset": 5, "byteLength": 1
        })
    );
    assert!(dup["locations"][0].get("message").is_none());
    let related = dup["relatedLocations"].as_array().expect("related");
    assert_eq!(related.len(), 2);
    assert_eq!(related[0]["id"], 1);
    assert_eq!(related[0]["message"]["text"], "first defined here");
    assert_eq!(related[0]["physicalLocation"]["region"]["startLine"], 1);
    assert_eq!(
        related[1]["physicalLocation"]["artifactLocation"]["uri"],
        "other.yaml"
    );
    assert_eq!(
        dup["properties"],
        json!({ "help": "remove one", "pointer": "/a" })
    );

    // Columns count code points: `x` follows `b: «`.
    let warn = &results[1];
    assert_eq!(warn["level"], "warning");
    assert_eq!(warn["locations"][0]["message"]["text"], "this one");
    let region = &warn["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (
            &region["startLine"],
            &region["startColumn"],
            &region["endColumn"]
        ),
        (&json!(3), &json!(5), &json!(6))
    );
    assert_eq!(region["byteOffset"], 15);

    assert_eq!(results[2]["level"], "note");
    // Without a span: still a location (code scanning refuses results without one).
    assert_eq!(
        results[3]["locations"],
        json!([{ "physicalLocation": {
            "artifactLocation": { "uri": "." },
            "region": { "startLine": 1 }
        } }])
    );
    assert!(results[3].get("properties").is_none());
}

#[test]
fn unknown_codes_still_get_a_rule() {
    let d = [Diagnostic::error("not-registered", "m")];
    let v = parse(&d, &map(&[]));
    assert_eq!(
        v["runs"][0]["tool"]["driver"]["rules"],
        json!([{ "id": "not-registered" }])
    );
    assert_eq!(v["runs"][0]["results"][0]["ruleIndex"], 0);
}

#[test]
fn uris_are_percent_encoded() {
    use super::super::sarif::uri;
    assert_eq!(uri("a/b-c_d.e~f.yaml"), "a/b-c_d.e~f.yaml");
    assert_eq!(uri("my flow#1?.yaml"), "my%20flow%231%3F.yaml");
    assert_eq!(uri("100%.yaml"), "100%25.yaml");
    assert_eq!(uri("ü.yaml"), "%C3%BC.yaml");
}

/// The official SARIF 2.1.0 schema (errata 01), verbatim: see `schemas/README.md`.
const OFFICIAL_SCHEMA: &str = include_str!("../../../../../schemas/sarif/sarif-schema-2.1.0.json");

fn assert_valid(v: &Value) {
    let schema: Value = serde_json::from_str(OFFICIAL_SCHEMA).expect("schema is JSON");
    let validator = jsonschema::draft4::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(v)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn every_shape_is_valid_against_the_official_schema() {
    let m = map(&[
        ("dir/my flow.yaml", "a: 1\na: 2\nb: «x»\n"),
        ("other.yaml", "c: 3\n"),
        ("empty.yaml", ""),
    ]);
    let diags = [
        Diagnostic::error("AGC004", "duplicate key `a`")
            .at(find(&m, 0, "a", 1))
            .with_label(find(&m, 0, "a", 0), "first defined here")
            .with_label(find(&m, 1, "c", 0), "also relevant")
            .with_help("remove one")
            .with_pointer("/a"),
        Diagnostic::warning("AG903", "unreachable node")
            .at(find(&m, 0, "x", 0))
            .with_label_text("this one"),
        Diagnostic::error("AGC004", "c")
            .with_severity(Severity::Note)
            .at(find(&m, 1, "c", 0)),
        Diagnostic::error("AGC001", "cannot read `empty.yaml`").at(Span::point(FileId(2), 0)),
        Diagnostic::error("AGC001", "no file at all").with_label_text("label"),
        Diagnostic::error("not-registered", "m").at(Span::new(FileId(0), 0, 999)),
    ];
    for d in [&diags[..], &[]] {
        let v = parse(d, &m);
        assert_valid(&v);
        for r in v["runs"][0]["results"].as_array().expect("results") {
            assert!(
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].is_string(),
                "{r}"
            );
        }
    }
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    // The validation above could not fail if the schema accepted anything: a wrong `level`
    // and a missing `message` must be refused.
    let m = map(&[("a.yaml", "a: 1\n")]);
    let mut v = parse(
        &[Diagnostic::error("AGC004", "x").at(find(&m, 0, "a", 0))],
        &m,
    );
    v["runs"][0]["results"][0]["level"] = json!("fatal");
    let schema: Value = serde_json::from_str(OFFICIAL_SCHEMA).expect("schema is JSON");
    let validator = jsonschema::draft4::new(&schema).expect("compiles");
    assert!(!validator.is_valid(&v));
    v["runs"][0]["results"][0]["level"] = json!("error");
    assert!(validator.is_valid(&v));
    v["runs"][0]["results"][0]
        .as_object_mut()
        .expect("object")
        .remove("message");
    assert!(!validator.is_valid(&v));
}
