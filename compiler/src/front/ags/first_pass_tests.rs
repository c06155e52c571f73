//! The first pass over a scope's expression positions gives the same findings on any number
//! of threads.

use crate::front::ags::{ExprCache, check_with};
use crate::source::{Limits, SourceMap, load};

/// A graph of `n` nodes in a chain, with, among valid reads and templates, unknown nodes
/// (AG203), AGX syntax errors, `${{ }}` in expression fields (AG211) and type errors (AG204),
/// outputs nobody reads (AG904) and advisories (AG905), which large documents find on
/// threads of their own.
fn graph(n: usize) -> String {
    let mut s = String::from(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: t/first-pass\ntitle: T\nobjective: O\n\
         params:\n  project:\n    type: string\nentrypoints: [n0]\nnodes:\n",
    );
    for i in 0..n {
        s.push_str(&format!(
            "  n{i}:\n    title: N{i}\n    outputs:\n      result:\n        type: string\n      \
             count:\n        type: integer\n"
        ));
        if i % 17 == 0 {
            s.push_str("    intelligence:\n      tier: frontier\n");
        }
        if i == 0 {
            continue;
        }
        let p = i - 1;
        s.push_str(&format!("    depends_on: [n{p}]\n    inputs:\n"));
        let from = if i % 13 == 0 {
            format!("nodes.n{p}.outputs.reslt")
        } else if i % 7 == 0 {
            // A misspelt id: its "did you mean" is looked for after the pass, in order.
            format!("nodes.nn{p}.outputs.result")
        } else {
            format!("nodes.n{p}.outputs.result")
        };
        s.push_str(&format!(
            "      a:\n        type: string\n        from: {from}\n"
        ));
        let project = if i % 11 == 0 { "projct" } else { "project" };
        s.push_str(&format!(
            "      b:\n        type: string\n        template: \"${{{{ nodes.n{p}.outputs.count }}}} for ${{{{ params.{project} }}}}\"\n"
        ));
        let when = match i % 5 {
            0 => format!("nodes.n{p}.outputs.count >"),
            1 => "${{ true }}".to_string(),
            2 => format!("nodes.n{p}.outputs.result > 3"),
            _ => format!("nodes.n{p}.outputs.count > {i}"),
        };
        s.push_str(&format!("    when: \"{when}\"\n"));
    }
    s
}

#[test]
fn any_number_of_threads_finds_the_same() {
    let text = graph(90);
    let mut sources = SourceMap::new();
    let (_, loaded) = load::load_str(
        &mut sources,
        "g.agraph.yaml",
        text.clone(),
        Limits::default(),
    );
    let doc = loaded.doc.expect("the graph loads");
    let mut one_cache = ExprCache::default();
    let one = check_with(
        &doc,
        &text,
        &mut one_cache,
        &mut Vec::new(),
        usize::MAX,
        1,
        &Default::default(),
    );
    let codes = |code: &str| one.iter().filter(|d| d.code == code).count();
    // The graph exercises every kind of first-pass finding, and pass-2 typing.
    assert!(codes("AG203") >= 10, "{one:#?}");
    let suggested = one
        .iter()
        .filter(|d| {
            d.code == "AG203"
                && d.help
                    .as_deref()
                    .is_some_and(|h| h.contains("did you mean"))
        })
        .count();
    assert!(suggested >= 10, "{one:#?}");
    // Misspelt params and outputs are suggested after the pass too.
    let helps = |h: &str| one.iter().filter(|d| d.help.as_deref() == Some(h)).count();
    assert!(helps("did you mean `params.project`?") >= 5, "{one:#?}");
    assert!(helps("did you mean `result`?") >= 5, "{one:#?}");
    assert!(codes("AG211") >= 10, "{one:#?}");
    assert!(codes("AG204") >= 10, "{one:#?}");
    assert!(codes("AG904") >= 1, "{one:#?}");
    assert!(codes("AG905") >= 5, "{one:#?}");
    assert!(
        one.iter().any(|d| d.message.contains("expected")),
        "{one:#?}"
    );
    assert!(one_cache.len() > 200, "{}", one_cache.len());
    for threads in [2, 3, 8, 400] {
        let mut cache = ExprCache::default();
        let many = check_with(
            &doc,
            &text,
            &mut cache,
            &mut Vec::new(),
            1,
            threads,
            &Default::default(),
        );
        assert_eq!(format!("{many:?}"), format!("{one:?}"), "{threads} threads");
        assert_eq!(cache, one_cache, "{threads} threads");
    }
}
