//! The AWP generator's workflows are what the figure claims: valid (no error from agc's AWP
//! front end) and holding exactly the requested number of jq programs.

use agc::check::{CheckOptions, check_text};
use agc::source::SourceMap;

#[test]
fn generated_workflows_are_valid_and_hold_the_programs() {
    for n in [2, 57, 300] {
        let doc = agc_bench::awp::generate(n, 7);
        let nodes = doc["nodes"].as_array().unwrap();
        let programs = nodes
            .iter()
            .filter(|node| {
                let c = &node["config"];
                c.pointer("/assignments/out/jq").is_some()
                    || c.pointer("/cases/0/when").is_some()
                    || c.get("output_mapping").is_some()
            })
            .count();
        assert_eq!(programs, n);
        let mut sources = SourceMap::new();
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let diags = check_text(
            &mut sources,
            "g.workflow.json",
            text,
            &CheckOptions::default(),
        );
        let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
        assert!(errors.is_empty(), "{n}: {errors:#?}");
        // Deterministic for a seed.
        assert_eq!(doc, agc_bench::awp::generate(n, 7));
    }
}
