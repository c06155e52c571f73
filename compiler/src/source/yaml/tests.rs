//! The pipelined loader (parser on its own thread) against the one-thread loader: the same
//! document, spans and diagnostics for every kind of input, including streams that stop early.

use super::loader::{BATCH, load_with};
use crate::source::{FileId, Limits};

/// Both loaders' results, printed in full: value, every span node (depth first), diagnostics.
/// (The key tables' hashes are per process, so they are compared through lookups, by the
/// other loader tests, not printed.)
fn both(text: &str, limits: Limits) -> (String, String) {
    let one = print(load_with(FileId(0), text, 0, limits, false));
    let two = print(load_with(FileId(0), text, 0, limits, true));
    (one, two)
}

pub(super) use super::agrees::printed as print;

/// A mapping of `n` entries mixing the constructs the loader handles: anchors and aliases,
/// block and quoted scalars, flow collections, numbers, tags, non-ASCII text.
fn varied(n: usize) -> String {
    let mut s = String::from("base: &b {x: 1, y: [true, null, 2.5]}\n");
    for i in 0..n {
        match i % 6 {
            0 => s.push_str(&format!("k{i}: *b\n")),
            1 => s.push_str(&format!("k{i}: |\n  line {i}\n  ünïcode\n")),
            2 => s.push_str(&format!("k{i}: 'quoted {i}'\n")),
            3 => s.push_str(&format!("k{i}: [a, {{b: {i}}}, -3]\n")),
            4 => s.push_str(&format!("k{i}: !!str {i}\n")),
            _ => s.push_str(&format!("k{i}:\n  - é{i}\n  - 0x1F\n")),
        }
    }
    s
}

#[test]
fn a_document_over_many_batches_loads_the_same_on_two_threads() {
    let text = varied(3 * BATCH);
    let (one, two) = both(&text, Limits::default());
    assert!(one.contains("Some(Document"), "{}", &one[..200]);
    assert_eq!(one, two);
}

#[test]
fn diagnostics_spread_over_the_stream_come_out_the_same() {
    // Duplicate keys, a custom tag and an unrepresentable number far apart, then a syntax
    // error after several batches: the error's batch reaches the builder too.
    let mut text = varied(BATCH);
    text.push_str("k0: again\nbad: !custom x\nhuge: 1e999\n");
    text.push_str(
        &varied(2 * BATCH)
            .replace("base:", "base2:")
            .replace("k", "m"),
    );
    let (one, two) = both(&text, Limits::default());
    for code in ["AGC004", "AGC006", "AGC011"] {
        assert!(one.contains(code), "{code} missing");
    }
    assert_eq!(one, two);
    text.push_str("broken: [unclosed\n");
    let (one, two) = both(&text, Limits::default());
    assert!(one.contains("AGC003") && one.contains("doc: None"));
    assert_eq!(one, two);
}

#[test]
fn a_fatal_error_early_in_a_long_stream_stops_both_threads() {
    // Too deep at the start, then far more events than the channel holds: the builder stops
    // at the first, the parser at its next hand-over (the test would hang if it did not).
    let limits = Limits {
        max_depth: 4,
        ..Limits::default()
    };
    let mut text = String::from("a: [[[[[[1]]]]]]\n");
    text.push_str(&varied(10 * BATCH));
    let (one, two) = both(&text, limits);
    assert!(one.contains("AGC013"));
    assert_eq!(one, two);
    // A second document and an alias over budget end it the same way.
    let text = format!("{}---\nx: 1\n", varied(BATCH));
    let (one, two) = both(&text, Limits::default());
    assert!(one.contains("AGC008"));
    assert_eq!(one, two);
    let tight = Limits {
        max_alias_nodes: 10,
        ..Limits::default()
    };
    let (one, two) = both(&varied(2 * BATCH), tight);
    assert!(one.contains("AGC014"));
    assert_eq!(one, two);
}

#[test]
fn an_empty_stream_is_empty_on_both() {
    for text in ["", "# only a comment\n", "~\n"] {
        let (one, two) = both(text, Limits::default());
        assert!(one.contains("AGC009"), "{text:?}");
        assert_eq!(one, two);
    }
}

#[test]
fn a_collection_larger_than_the_arena_keeps_every_span() {
    // Large lists close after smaller collections (the arena is not empty), inside a mapping
    // and a sequence whose open entries lie below them on the stack, and next to small ones
    // closed after them: every node's span still covers its own text, whichever way the
    // closing collection's span nodes reached the arena.
    let big = |tag: &str, n: usize| {
        let items: Vec<String> = (0..n).map(|i| format!("{tag}{i}")).collect();
        format!("[{}]", items.join(", "))
    };
    let text = format!(
        "a: {{b: [1, 2], c: {{d: x}}}}\nlist: {}\nafter: {{e: [y, z]}}\nnested:\n  - small\n  - {}\n  - {{f: g}}\nlast: {}\n",
        big("p", 5000),
        big("q", 9000),
        big("r", 4096)
    );
    let loaded = load_with(FileId(0), &text, 0, Limits::default(), false);
    assert!(loaded.diags.is_empty(), "{:?}", loaded.diags);
    let doc = loaded.doc.expect("a document");
    let at = |pointer: &str| &text[doc.span(pointer).range()];
    assert_eq!(at("/a/b/1"), "2");
    assert_eq!(at("/a/c/d"), "x");
    for i in [0, 1, 2500, 4999] {
        assert_eq!(at(&format!("/list/{i}")), format!("p{i}"));
    }
    assert_eq!(at("/after/e/1"), "z");
    assert_eq!(at("/nested/0"), "small");
    for i in [0, 4095, 8999] {
        assert_eq!(at(&format!("/nested/1/{i}")), format!("q{i}"));
    }
    assert_eq!(at("/nested/2/f"), "g");
    for i in [0, 4095] {
        assert_eq!(at(&format!("/last/{i}")), format!("r{i}"));
    }
    assert_eq!(&text[doc.key_span("/last").range()], "last");
    // The two loaders agree on all of it.
    let (one, two) = both(&text, Limits::default());
    assert_eq!(one, two);
}
