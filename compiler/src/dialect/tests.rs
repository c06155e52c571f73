use super::*;
use crate::source::{Limits, SourceMap, load::load_str};

fn doc(text: &str) -> Document {
    let mut sources = SourceMap::new();
    let (_, loaded) = load_str(&mut sources, "t.yaml", text.to_string(), Limits::default());
    loaded.doc.expect("test document loads")
}

#[test]
fn detects_each_dialect_from_its_marker() {
    let cases = [
        ("ags_version: \"1.0\"\nkind: AgenticGraph\n", Dialect::Ags),
        ("ags_version: \"1.0\"\n", Dialect::Ags),
        (
            "schema: agent-graph.provider.v1\nid: p\n",
            Dialect::AgentGraph(AgentGraphKind::Provider),
        ),
        (
            "schema: agent-graph.code-catalog.v1\n",
            Dialect::AgentGraph(AgentGraphKind::CodeCatalog),
        ),
        (
            "schema: agent-graph.test.v1\n",
            Dialect::AgentGraph(AgentGraphKind::Test),
        ),
        ("apiVersion: agh.loop/v1\nkind: Loop\n", Dialect::Agh),
        ("apiVersion: compozy.loop/v1\nkind: Loop\n", Dialect::Agh),
        (
            "document: {schema: x, name: n, version: '1'}\nnodes: []\nedges: []\n",
            Dialect::Awp,
        ),
    ];
    for (text, want) in cases {
        assert_eq!(detect(&doc(text)).unwrap(), want, "{text}");
    }
}

#[test]
fn every_kind_round_trips_through_its_marker() {
    for k in AgentGraphKind::ALL {
        assert_eq!(AgentGraphKind::from_marker(&k.marker()), Some(k));
    }
    assert_eq!(AgentGraphKind::from_marker("agent-graph.graph.v2"), None);
}

#[test]
fn unknown_document_gets_agc020_on_the_first_line() {
    let d = detect(&doc("name: x\nsteps: []\n")).unwrap_err();
    assert_eq!(d.code, "AGC020");
    let span = d.span.unwrap();
    assert_eq!((span.start, span.end), (0, 4));
    assert!(d.help.unwrap().contains("kind: AgenticGraph"));
}

#[test]
fn near_miss_marker_is_labelled() {
    let d = detect(&doc("kind: AgenticGrpah\nid: x\n")).unwrap_err();
    assert_eq!(d.code, "AGC020");
    assert_eq!(d.labels.len(), 1);
    assert_eq!((d.labels[0].span.start, d.labels[0].span.end), (6, 18));
}

#[test]
fn non_mapping_document_is_agc020() {
    for text in ["- a\n- b\n", "just a string\n", "42\n"] {
        let d = detect(&doc(text)).unwrap_err();
        assert_eq!(d.code, "AGC020", "{text}");
        assert!(d.message.contains("not a mapping"), "{}", d.message);
    }
}

#[test]
fn unknown_agent_graph_kind_is_agc024_at_the_value() {
    let d = detect(&doc("schema: agent-graph.case-study.replay.v1\n")).unwrap_err();
    assert_eq!(d.code, "AGC024");
    let span = d.span.unwrap();
    assert_eq!((span.start, span.end), (8, 40));
}

#[test]
fn parse_flag_accepts_the_four_names() {
    for name in ["ags", "agent-graph", "awp", "agh"] {
        assert_eq!(Dialect::parse_flag(name).unwrap().name(), name);
    }
    let err = Dialect::parse_flag("yaml").unwrap_err();
    assert!(err.contains("ags, agent-graph, awp, agh"), "{err}");
}

#[test]
fn forced_dialect_skips_detection_but_agent_graph_kind_comes_from_schema() {
    let d = doc("schema: agent-graph.action.v1\n");
    assert_eq!(resolve(&d, Some(Dialect::Awp)).unwrap(), Dialect::Awp);
    let forced = Dialect::parse_flag("agent-graph").unwrap();
    assert_eq!(
        resolve(&d, Some(forced)).unwrap(),
        Dialect::AgentGraph(AgentGraphKind::Action)
    );
    let bare = doc("id: x\n");
    assert_eq!(
        resolve(&bare, Some(forced)).unwrap(),
        Dialect::AgentGraph(AgentGraphKind::Graph)
    );
}

#[test]
fn ags_run_records_are_named_as_such() {
    let d = detect(&doc("kind: AgenticGraphRun\nags_version: \"1.0\"\n")).unwrap_err();
    assert_eq!(d.code, "AGC020");
    assert!(d.labels[0].message.contains("run record"), "{:?}", d.labels);
}
