//! The Agent Graph and agh generators' documents are what the bench claims: clean (no
//! diagnostic at all from agc's front ends, so the timing is of a valid document's check),
//! of the requested size, and the same for the same seed.

use agc::check::{CheckOptions, check_text};
use agc::source::SourceMap;

fn diagnostics(name: &str, doc: &serde_json::Value) -> Vec<String> {
    let mut sources = SourceMap::new();
    let text = agc_bench::yaml::to_yaml(doc);
    check_text(&mut sources, name, text, &CheckOptions::default())
        .iter()
        .map(|d| format!("{} {}", d.code, d.message))
        .collect()
}

#[test]
fn agent_graphs_are_clean_and_sized() {
    for n in [1, 2, 40, 500] {
        let doc = agc_bench::dialects::agent_graph(n, 5);
        // n actions and the terminal.
        assert_eq!(doc["nodes"].as_array().unwrap().len(), n + 1);
        assert_eq!(diagnostics("big.yaml", &doc), Vec::<String>::new(), "{n}");
        assert_eq!(doc, agc_bench::dialects::agent_graph(n, 5));
    }
    // The seed changes the edges.
    assert_ne!(
        agc_bench::dialects::agent_graph(500, 5)["edges"],
        agc_bench::dialects::agent_graph(500, 6)["edges"]
    );
}

#[test]
fn agh_loops_are_clean_and_sized() {
    for n in [1, 2, 40, 500] {
        let doc = agc_bench::dialects::agh(n, 5);
        assert_eq!(doc["graph"]["nodes"].as_array().unwrap().len(), n);
        assert_eq!(
            diagnostics("big.loop.yaml", &doc),
            Vec::<String>::new(),
            "{n}"
        );
        assert_eq!(doc, agc_bench::dialects::agh(n, 5));
    }
}

#[test]
fn ags_composite_graphs_are_clean_and_sized() {
    for n in [1, 2, 3, 40, 500] {
        let doc = agc_bench::composite::ags_composite(n, 5);
        let nodes = doc["nodes"].as_object().unwrap();
        assert_eq!(nodes.len(), n);
        // Every kind is there once the graph has three nodes.
        let kinds: std::collections::BTreeSet<&str> = nodes
            .values()
            .map(|v| v["type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds.len(), n.min(3), "{n}");
        assert_eq!(
            diagnostics("big.agraph.yaml", &doc),
            Vec::<String>::new(),
            "{n}"
        );
        assert_eq!(doc, agc_bench::composite::ags_composite(n, 5));
    }
}

#[test]
fn ags_wide_graphs_are_clean_and_sized() {
    for n in [3, 4, 40, 500] {
        let doc = agc_bench::composite::ags_wide(n);
        assert_eq!(doc["nodes"].as_object().unwrap().len(), n);
        assert_eq!(
            doc["nodes"]["sink"]["inputs"].as_object().unwrap().len(),
            n - 2
        );
        assert_eq!(
            diagnostics("wide.agraph.yaml", &doc),
            Vec::<String>::new(),
            "{n}"
        );
    }
    // The sink's depends_on is one flow list on one line.
    let text = agc_bench::yaml::to_yaml(&agc_bench::composite::ags_wide(40));
    assert!(text.contains("depends_on: [b0, b1, b2,"), "{text}");
}

#[test]
fn wide_agh_and_awp_documents_are_clean_and_sized() {
    for n in [3, 4, 40, 500] {
        let doc = agc_bench::shapes::agh_wide(n);
        assert_eq!(doc["graph"]["nodes"].as_array().unwrap().len(), n);
        assert_eq!(
            diagnostics("wide.loop.yaml", &doc),
            Vec::<String>::new(),
            "{n}"
        );
        let doc = agc_bench::shapes::awp_wide(n);
        // start, fan, n/2 entries, n/2 chain nodes, joined, end.
        assert_eq!(doc["nodes"].as_array().unwrap().len(), 4 + 2 * (n / 2));
        assert_eq!(
            diagnostics("wide.workflow.yaml", &doc),
            Vec::<String>::new(),
            "{n}"
        );
    }
}
