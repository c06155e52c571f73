use super::*;
use crate::dialect::{AgentGraphKind, Dialect};
use crate::source::{Limits, SourceMap, load::load_str};

/// Validates `text` as `dialect`; returns `(code, line:col, message)` per finding, sorted.
fn run(dialect: Dialect, text: &str) -> Vec<(String, String, String)> {
    let mut sources = SourceMap::new();
    let (id, loaded) = load_str(&mut sources, "t.yaml", text.to_string(), Limits::default());
    let doc = loaded.doc.expect("test document loads");
    let mut diags = validate(dialect, &doc);
    crate::diag::sort(&mut diags);
    diags
        .into_iter()
        .map(|d| {
            let lc = sources.get(id).line_col(d.span.expect("span").start);
            (
                d.code.to_string(),
                format!("{}:{}", lc.line, lc.column),
                d.message,
            )
        })
        .collect()
}

#[test]
fn every_embedded_schema_compiles() {
    let mut dialects = vec![Dialect::Ags, Dialect::Awp, Dialect::Agh];
    dialects.extend(AgentGraphKind::ALL.map(Dialect::AgentGraph));
    for d in dialects {
        assert!(
            embedded::compiled(d).is_ok(),
            "{d:?}: {:?}",
            embedded::compiled(d).err()
        );
    }
}
