//! The split load against the one-stream load: wherever a cut holds, the same document, span
//! arena and diagnostics; where it cannot hold, it gives up rather than differ.

use super::{load, plan};
use crate::source::yaml::loader::load_with;
use crate::source::yaml::split_agrees;
use crate::source::yaml::tests::print;
use crate::source::{FileId, Limits, SourceFile};

fn line_starts(text: &str) -> Vec<u32> {
    SourceFile::new("t.yaml", text).line_starts().to_vec()
}

/// The one-stream load, printed.
fn sequential(text: &str, offset: usize, limits: Limits) -> String {
    print(load_with(FileId(0), text, offset, limits, false))
}

/// Every cut of the collection [`target`] picks in `text` (at most `most`, spread evenly):
/// how many were tried and how many held; every one that held loads what one stream loads
/// ([`split_agrees`], the `split` fuzz target's check).
fn every_cut(text: &str, offset: usize, limits: Limits, most: usize) -> (usize, usize) {
    split_agrees(text, offset, limits, most).unwrap_or_else(|e| panic!("{e}"))
}

/// A workflow-like document: a few fields, a `nodes` mapping of `n` entries mixing block and
/// quoted scalars, flow collections, comments, blank lines and non-ASCII text, then more
/// fields after it.
fn workflow(n: usize, eol: &str) -> String {
    let mut s = format!("kind: Graph{eol}id: big{eol}params: {{a: 1}}{eol}nodes:{eol}");
    for i in 0..n {
        s.push_str(&format!("  n{i}:{eol}    title: Step {i} — ünïcode{eol}"));
        match i % 5 {
            0 => s.push_str(&format!(
                "    prompt: |{eol}      line one{eol}        - n9: x{eol}{eol}"
            )),
            1 => s.push_str(&format!(
                "    needs: [n0, \"n{i}\"]{eol}    # a comment{eol}"
            )),
            2 => s.push_str(&format!(
                "    note: 'it''s {i}'{eol}    keep: |+{eol}      kept{eol}{eol}{eol}"
            )),
            3 => s.push_str(&format!(
                "    outputs:{eol}      - {{name: r, type: string}}{eol}      - count{eol}"
            )),
            _ => s.push_str(&format!(
                "    text: >-{eol}      folded{eol}      text {i}{eol}"
            )),
        }
    }
    s.push_str(&format!(
        "# after the nodes{eol}edges:{eol}  - [n0, n1]{eol}outputs: {{}}{eol}"
    ));
    s
}

#[test]
fn every_cut_of_a_workflow_holds_and_loads_the_same() {
    for eol in ["\n", "\r\n"] {
        let text = workflow(60, eol);
        let (tried, held) = every_cut(&text, 0, Limits::default(), usize::MAX);
        assert_eq!(tried, 59, "{eol:?}");
        assert_eq!(held, tried, "{eol:?}");
    }
}

#[test]
fn a_sequence_of_entries_is_cut_too_and_after_a_byte_order_mark() {
    let mut text = String::from("\u{feff}schema: v1\ngraph:\n  nodes:\n");
    for i in 0..40 {
        text.push_str(&format!(
            "    - id: n{i}\n      kind: action\n      run: |\n        echo {i}\n"
        ));
        if i % 7 == 0 {
            text.push_str("    -\n      id: lone\n");
        }
    }
    text.push_str("  edges: []\nstart: n0\n");
    let (tried, held) = every_cut(&text, 3, Limits::default(), usize::MAX);
    assert!(tried > 40);
    assert_eq!(held, tried);
}

#[test]
fn a_middle_that_cannot_stand_alone_is_loaded_in_one_stream() {
    // An alias in the middle to an anchor before it; an anchor in the middle (a later alias
    // may name it); a tag; a duplicate key inside the middle. Each cut after them holds, each
    // cut before them gives up; neither loads anything different.
    for odd in ["ref: *a", "x: &b 1", "x: !!str 1", "x: 1\n    x: 2"] {
        let mut text = String::from("base: &a {k: 1}\nnodes:\n");
        for i in 0..20 {
            let extra = if i == 10 { odd } else { "y: 2" };
            text.push_str(&format!("  n{i}:\n    {extra}\n"));
        }
        text.push_str("tail: *a\n");
        let (tried, held) = every_cut(&text, 0, Limits::default(), usize::MAX);
        assert_eq!((tried, held), (19, 9), "{odd}");
    }
}

#[test]
fn keys_of_the_middle_repeating_earlier_keys_are_reported_as_in_one_stream() {
    // The first entry is never in a middle (a cut is after it), so every cut holds.
    let mut text = String::from("nodes:\n");
    for i in 0..20 {
        text.push_str(&format!("  n{}:\n    v: {i}\n", i % 19));
    }
    assert!(sequential(&text, 0, Limits::default()).contains("AGC004"));
    let (tried, held) = every_cut(&text, 0, Limits::default(), usize::MAX);
    assert_eq!(held, tried);
}

#[test]
fn cuts_inside_strings_and_flow_collections_give_up() {
    // Lines that look like entries but are inside a quoted string or a flow collection.
    let mut text = String::from("nodes:\n");
    for i in 0..12 {
        text.push_str(&format!("  n{i}: \"first\n  n{i}x: still the string\"\n"));
        text.push_str(&format!("  m{i}: [a,\n  m{i}y, b]\n"));
    }
    let (tried, held) = every_cut(&text, 0, Limits::default(), usize::MAX);
    assert!(tried > 24, "{tried}");
    assert!(held < tried);
    // A block scalar under a key on its own line is no mapping to cut.
    let mut text = String::from("doc:\n  |\n");
    for i in 0..30 {
        text.push_str(&format!("  n{i}: text\n"));
    }
    let (tried, held) = every_cut(&text, 0, Limits::default(), usize::MAX);
    assert!(tried > 0);
    assert_eq!(held, 0);
}

#[test]
fn the_depth_limit_counts_the_middle_where_it_sits() {
    let mut text = String::from("a:\n  nodes:\n");
    for i in 0..10 {
        text.push_str(&format!("    n{i}:\n      b:\n        c: {i}\n"));
    }
    for max_depth in [3, 4, 5] {
        let limits = Limits {
            max_depth,
            ..Limits::default()
        };
        let one = sequential(&text, 0, limits);
        assert_eq!(one.contains("AGC013"), max_depth < 5, "{max_depth}");
        let (tried, held) = every_cut(&text, 0, limits, usize::MAX);
        assert!(tried > 0);
        assert_eq!(
            held == tried,
            max_depth >= 5,
            "{max_depth}: {held} of {tried}"
        );
    }
}

#[test]
fn a_large_file_is_cut_by_its_plan_and_small_ones_are_not() {
    let text = workflow(15000, "\n");
    assert!(text.len() >= super::SPLIT_FROM);
    let starts = line_starts(&text);
    let cut = plan(&text, 0, &starts).expect("a cut");
    assert_eq!((cut.level, cut.is_map), (1, true));
    let middle = (cut.end - cut.split) as f64 / text.len() as f64;
    assert!((0.40..0.50).contains(&middle), "{middle}");
    let split = load(FileId(0), &text, 0, Limits::default(), cut).expect("the cut holds");
    assert_eq!(print(split), sequential(&text, 0, Limits::default()));
    let small = workflow(60, "\n");
    assert_eq!(plan(&small, 0, &line_starts(&small)), None);
}

/// Every YAML document of the corpus (`../shared/corpus`), the examples and the test
/// fixtures, cut at up to 40 entries of the collection [`target`] picks in each.
#[test]
fn cuts_of_every_corpus_example_and_fixture_document_load_the_same() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("../shared/corpus");
    if !corpus.is_dir() {
        eprintln!(
            "note: {} is absent; only the examples and fixtures",
            corpus.display()
        );
    }
    let mut files = Vec::new();
    let mut stack = vec![corpus, root.join("examples"), root.join("tests")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut docs, mut tried, mut held) = (0, 0, 0);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let offset = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let (t, h) = every_cut(&text, offset, Limits::default(), 40);
        docs += usize::from(t > 0);
        tried += t;
        held += h;
    }
    eprintln!(
        "{} files, {docs} with a cut, {held} of {tried} cuts held",
        files.len()
    );
    assert!(docs > 100, "{docs}");
    assert!(held * 10 > tried * 9, "{held} of {tried}");
}

#[test]
fn a_line_indented_past_spaces_with_a_tab_is_no_entry() {
    // A fuzz finding: after a plain scalar, one stream reads `  \t\tk: v` as the scalar going
    // on and stops on the tab (AGC003), while the line alone is a mapping. So a line whose
    // indentation ends in a tab is never where a middle starts; every cut gives up here.
    let mut text = String::from("nodes:\n");
    for i in 0..12 {
        text.push_str(&format!("  n{i}: plain text\n"));
    }
    text.push_str("  \t\tlast: tabbed\n");
    assert!(sequential(&text, 0, Limits::default()).contains("AGC003"));
    let (tried, held) = every_cut(&text, 0, Limits::default(), usize::MAX);
    assert_eq!((tried, held), (11, 0));
}

#[test]
fn a_property_on_its_own_line_or_an_explicit_key_s_value_is_no_entry() {
    // A fuzz finding: an anchor on a line of its own at column 2 belongs to the mapping on the
    // lines below, indented further; the plan took the anchor's column for its entries', and
    // a middle starting at a later line at column 2 loaded alone while one stream stopped on
    // it (AGC003).
    let mut text = String::from("nodes:\n  &a\n      inner: x\n");
    for i in 0..12 {
        text.push_str(&format!("      k{i}: v\n"));
    }
    text.push_str("  late: entry\n");
    assert!(sequential(&text, 0, Limits::default()).contains("AGC003"));
    let (_, held) = every_cut(&text, 0, Limits::default(), usize::MAX);
    assert_eq!(held, 0);
    // Explicit keys: the `? key` line is the entry, the `: value` line below never is.
    let mut text = String::from("nodes:\n");
    for i in 0..12 {
        text.push_str(&format!("  ? k{i}\n  : v{i}\n"));
    }
    let (tried, held) = every_cut(&text, 0, Limits::default(), usize::MAX);
    assert_eq!((tried, held), (11, 11));
}

#[test]
fn a_flow_collection_at_the_entries_column_is_no_entry() {
    // A fuzz finding: `{k: v}` on a line of its own at the entries' column is a key without
    // its `:` in one stream (AGC003), while the line alone is a flow mapping, whose events
    // are those of a mapping like any other.
    for flow in ["{k: v}", "[a, b]"] {
        let mut text = String::from("nodes:\n");
        for i in 0..11 {
            text.push_str(&format!("  n{i}: x\n"));
        }
        text.push_str(&format!("  {flow}\n"));
        assert!(sequential(&text, 0, Limits::default()).contains("AGC003"));
        let (tried, held) = every_cut(&text, 0, Limits::default(), usize::MAX);
        assert_eq!((tried, held), (10, 0), "{flow}");
    }
}

#[test]
fn an_explicit_key_ending_the_middle_has_its_empty_value_where_one_stream_puts_it() {
    // A fuzz finding: the middle's last entry is `? key` with no value line. Its value is an
    // empty scalar, which one stream places at the token after the middle (the dedented line's
    // first character); the middle alone placed it at its own end, the line's start. Both
    // ends of a span at the middle's end now move to that token, as a block scalar's end did.
    for tail in ["  after: x\n", "    # a comment\n\n  after: x\n", ""] {
        let mut text = String::from("top:\n  nodes:\n");
        for i in 0..12 {
            text.push_str(&format!("    n{i}: v\n"));
        }
        for last in ["    ? last\n", "    last:\n", "    ? last\n    :\n"] {
            let text = format!("{text}{last}{tail}");
            let (tried, held) = every_cut(&text, 0, Limits::default(), usize::MAX);
            assert_eq!((tried, held), (12, 12), "{last:?} {tail:?}");
        }
    }
}

#[test]
fn a_line_of_tabs_and_spaces_is_blank_not_where_the_middle_ends() {
    // A fuzz finding: a line holding only a tab (after spaces or not) is a blank line in YAML
    // (a comment line without text), but the plan read it as content at column 0: at the end
    // of the file, the middle ended before it, and the last value ended at the middle's end
    // (an empty value after `? last`) in the split load but past the tab in one stream;
    // between entries, it ended the collection for the plan, which then cut nothing.
    for blank in ["\t", "\t\n", "  \t \n", "\t# note\n", " \t\r\n"] {
        for inside in [false, true] {
            let mut text = String::from("top:\n  nodes:\n");
            for i in 0..12 {
                text.push_str(&format!("    n{i}: v\n"));
                if inside && i == 6 {
                    text.push_str(blank);
                    text.push('\n');
                }
            }
            for last in ["    last: text\n      going on\n", "    ? last\n"] {
                let text = format!("{text}{last}{blank}");
                let (tried, held) = every_cut(&text, 0, Limits::default(), usize::MAX);
                assert_eq!(
                    (tried, held),
                    (12, 12),
                    "{blank:?} {last:?} inside: {inside}"
                );
            }
        }
    }
}
