//! Bad input never panics and every diagnostic points inside the file: each fixture, cut after
//! every line (and mid-line), is checked, and every span must lie within the text on character
//! boundaries.

use agc::check::{CheckOptions, check_text};
use agc::source::SourceMap;
use std::path::Path;

fn fixture_texts() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for dir in ["ags", "agent-graph", "awp", "agh", "detect"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "yaml") {
                out.push((
                    path.display().to_string(),
                    std::fs::read_to_string(&path).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_prefix_of_every_fixture_checks_cleanly() {
    let mut cuts = 0;
    for (name, text) in fixture_texts() {
        let mut ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
        ends.extend(text.match_indices(": ").map(|(i, _)| i + 1));
        for end in ends {
            let prefix = text[..end].to_string();
            let mut sources = SourceMap::new();
            let diags = check_text(
                &mut sources,
                &name,
                prefix.clone(),
                &CheckOptions::default(),
            );
            for d in &diags {
                assert!(
                    agc::diag::lookup(d.code).is_some(),
                    "{name}@{end}: {} unregistered",
                    d.code
                );
                if let Some(s) = d.span {
                    assert!(s.end as usize <= prefix.len(), "{name}@{end}: {d:?}");
                    assert!(
                        prefix.is_char_boundary(s.start as usize),
                        "{name}@{end}: {d:?}"
                    );
                    assert!(
                        prefix.is_char_boundary(s.end as usize),
                        "{name}@{end}: {d:?}"
                    );
                }
            }
            cuts += 1;
        }
    }
    assert!(cuts > 100, "only {cuts} cuts");
}
