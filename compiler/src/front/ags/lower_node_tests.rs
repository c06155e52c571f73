//! A large scope lowered on several threads is the graph one thread lowers.

use super::{BLOCK, PARALLEL_NODES};
use crate::front::ags::refs::Workspace;
use crate::front::ags::{ExprCache, check_into, lower::lower_with};
use crate::source::{Limits, SourceMap, load};

/// A graph of `n` nodes in a chain, each reading the one before through an input, a template
/// and a guard, every fifth a loop with a body, every third also after the node two before
/// through an explicit edge with a guard (edges and data links are lowered on threads too);
/// the scope's defaults hold a human checkpoint
/// and a fallback whose expressions every node inherits (one cached parse, taken by whichever
/// node comes first, then parsed again by the others).
fn chain(n: usize) -> String {
    let mut y = String::from(
        "ags_version: \"1.0\"\nkind: AgenticGraph\nid: chain\ntitle: Chain\nobjective: test\n\
         entrypoints: [n0]\ndefaults:\n  human:\n    - at: before\n      role: owner\n      \
         when: params.review\n      prompt: \"review ${{ params.review }}\"\n  failure:\n    \
         fallback:\n      - when: params.review\n        action: retry\n\
         params:\n  review:\n    type: boolean\n    required: false\n    default: false\n\
         nodes:\n",
    );
    for i in 0..n {
        y.push_str(&format!(
            "  n{i}:\n    type: {ty}\n    title: N{i}\n    description: d\n",
            ty = if i % 5 == 4 { "loop" } else { "task" },
        ));
        if i > 0 {
            let p = i - 1;
            y.push_str(&format!(
                "    depends_on: [n{p}]\n    when: nodes.n{p}.outputs.count > {i}\n    inputs:\n      \
                 up:\n        type: string\n        from: nodes.n{p}.outputs.result\n      \
                 brief:\n        type: string\n        template: \"after ${{{{ nodes.n{p}.outputs.result }}}}\"\n"
            ));
        }
        y.push_str(
            "    outputs:\n      result:\n        type: string\n      count:\n        type: integer\n",
        );
        if i % 5 == 4 {
            y.push_str(
                "    loop:\n      mode: until\n      max_iterations: 3\n      condition: loop.iteration >= 2\n      \
                 body:\n        entrypoints: [step]\n        nodes:\n          step:\n            \
                 type: task\n            title: Step\n            description: d\n",
            );
        }
    }
    y.push_str("edges:\n");
    for i in (3..n).step_by(3) {
        y.push_str(&format!(
            "  - {{ from: n{f}, to: n{i}, when: \"nodes.n{f}.outputs.count > 2\" }}\n",
            f = i - 2
        ));
    }
    y
}

#[test]
fn a_large_scope_lowers_the_same_on_one_thread_and_several() {
    // Two blocks large enough for several threads, and a short one for one.
    let n = 2 * BLOCK + PARALLEL_NODES / 2;
    let text = chain(n);
    let lowered = |threads: usize| {
        let mut sources = SourceMap::new();
        let (file, loaded) = load::load_str(
            &mut sources,
            "chain.agraph.yaml",
            text.clone(),
            Limits::default(),
        );
        let doc = loaded.doc.expect("a document");
        let mut exprs = ExprCache::default();
        let diags = check_into(&doc, &sources.get(file).text, &mut exprs);
        assert!(
            !diags.iter().any(crate::diag::Diagnostic::is_error),
            "{:?}",
            diags.iter().find(|d| d.is_error())
        );
        assert!(exprs.len() > 3 * n, "{} cached expressions", exprs.len());
        let ws = Workspace::single(doc);
        *ws.exprs.borrow_mut() = exprs;
        let (graph, diags) = lower_with(&ws, &sources, threads);
        (
            format!("{graph:?}"),
            format!("{diags:?}"),
            graph.nodes.len(),
        )
    };
    let one = lowered(1);
    assert_eq!(one.2, n + n / 5, "every node and every loop body's step");
    assert!(
        one.0.contains("guard: Some") && one.0.matches("DataLink").count() > 3 * n,
        "edge guards and links are lowered"
    );
    assert!(lowered(2) == one, "two threads");
    assert!(lowered(3) == one, "three threads");
}
