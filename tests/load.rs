//! The loader: values, exact spans, and every refusal as a coded diagnostic.

use agc::source::load::{load_bytes, load_str};
use agc::source::{Document, Limits, SourceMap};
use serde_json::json;

struct Out {
    sources: SourceMap,
    doc: Option<Document>,
    codes: Vec<&'static str>,
    diags: Vec<agc::diag::Diagnostic>,
}

fn load(text: &str) -> Out {
    load_with(text, Limits::default())
}

fn load_with(text: &str, limits: Limits) -> Out {
    let mut sources = SourceMap::new();
    let (_, l) = load_str(&mut sources, "t.yaml", text.to_string(), limits);
    Out {
        codes: l.diags.iter().map(|d| d.code).collect(),
        diags: l.diags,
        doc: l.doc,
        sources,
    }
}

impl Out {
    fn doc(&self) -> &Document {
        self.doc.as_ref().expect("a document")
    }
    /// Text of the value at a pointer.
    fn val(&self, ptr: &str) -> &str {
        let d = self.doc();
        let span = d.node(ptr).expect("pointer exists").span;
        self.sources.get(d.file).slice(span)
    }
    fn key(&self, ptr: &str) -> &str {
        let d = self.doc();
        let span = d.node(ptr).expect("pointer exists").key().expect("a key");
        self.sources.get(d.file).slice(span)
    }
    /// (line, column) of the first diagnostic.
    fn at(&self) -> (u32, u32) {
        let s = self.diags[0].span.expect("a span");
        let lc = self.sources.get(s.file).line_col(s.start);
        (lc.line, lc.column)
    }
}

#[test]
fn yaml_1_2_core_schema_scalars() {
    let o = load(
        "a: yes\nb: on\nc: No\nd: true\ne: 0o17\nf: 017\ng: ~\nh: 0x1F\ni: 1.5e3\nj: 2001-12-14\nk: -7\nl: '1'\nm: !!str 12\nn: .5\n",
    );
    assert!(o.codes.is_empty(), "{:?}", o.codes);
    assert_eq!(
        o.doc().value,
        json!({"a": "yes", "b": "on", "c": "No", "d": true, "e": 15, "f": 17, "g": null,
               "h": 31, "i": 1500.0, "j": "2001-12-14", "k": -7, "l": "1", "m": "12", "n": 0.5})
    );
}

#[test]
fn spans_of_keys_and_scalar_styles() {
    let text = "plain: hello world\nsingle: 'it''s'\ndouble: \"a\\nb\"\nblock: |\n  line one\n  line two\nfolded: >-\n  folded\n  text\nlast: 1\n";
    let o = load(text);
    assert_eq!(o.key("/plain"), "plain");
    assert_eq!(o.val("/plain"), "hello world");
    assert_eq!(o.val("/single"), "'it''s'");
    assert_eq!(o.val("/double"), "\"a\\nb\"");
    assert!(o.val("/block").starts_with('|'), "{:?}", o.val("/block"));
    assert!(o.val("/block").ends_with("line two\n"));
    assert!(o.val("/folded").starts_with(">-"), "{:?}", o.val("/folded"));
    assert_eq!(o.doc().value["folded"], json!("folded text"));
    assert_eq!(o.key("/last"), "last");
}

#[test]
fn spans_of_flow_and_block_collections() {
    let o = load("list: [a, {k: [1, 2]}, 'q']\nmap:\n  x: 1\n  y:\n    - z\n    - w\n");
    assert_eq!(o.val("/list"), "[a, {k: [1, 2]}, 'q']");
    assert_eq!(o.val("/list/1"), "{k: [1, 2]}");
    assert_eq!(o.val("/list/1/k"), "[1, 2]");
    assert_eq!(o.val("/list/1/k/1"), "2");
    assert_eq!(o.key("/list/1/k"), "k");
    assert_eq!(o.val("/map"), "x: 1\n  y:\n    - z\n    - w");
    assert_eq!(o.val("/map/y"), "- z\n    - w");
    assert_eq!(o.val("/map/y/1"), "w");
}

#[test]
fn json_documents_load_with_spans() {
    let o = load("{\n  \"a\": [1, 2.5, \"x\"],\n  \"b\": {\"c\": null, \"d/e\": true}\n}\n");
    assert!(o.codes.is_empty());
    assert_eq!(
        o.doc().value,
        json!({"a": [1, 2.5, "x"], "b": {"c": null, "d/e": true}})
    );
    assert_eq!(o.key("/b/c"), "\"c\"");
    assert_eq!(o.val("/b/d~1e"), "true");
    assert_eq!(o.val("/a"), "[1, 2.5, \"x\"]");
}

#[test]
fn unicode_before_a_span_counts_bytes_and_columns() {
    let o = load("title: \"héllo wörld\"\nnext: x\n");
    assert_eq!(o.val("/title"), "\"héllo wörld\"");
    assert_eq!(o.val("/next"), "x");
}

#[test]
fn anchors_and_aliases_resolve() {
    let o = load("base: &b {x: 1, y: [2]}\ncopy: *b\n");
    assert!(o.codes.is_empty());
    assert_eq!(o.doc().value["copy"], json!({"x": 1, "y": [2]}));
    // The alias itself is located at its use site.
    assert_eq!(o.val("/copy"), "*b");
}

#[test]
fn large_mappings_resolve_every_key_and_keep_refused_entries_out() {
    // Wide enough for the loader's key index (small mappings are scanned instead), with a
    // duplicate, a merge key and a non-string key mixed in: the value map and the span nodes
    // must keep the same entries in the same order.
    let mut text = String::new();
    for i in 0..40 {
        text += &format!("key{i}: value {i}\n");
        if i == 20 {
            text += "key3: again\n<<: {}\n7: seven\n\"a/b~c\": quoted\n";
        }
    }
    let o = load(&text);
    assert_eq!(o.codes, ["AGC004", "AGC007", "AGC005"]);
    let doc = o.doc();
    assert_eq!(doc.value.as_object().unwrap().len(), 41);
    assert_eq!(doc.children(&doc.spans).len(), 41);
    for i in 0..40 {
        assert_eq!(o.key(&format!("/key{i}")), format!("key{i}"));
        assert_eq!(o.val(&format!("/key{i}")), format!("value {i}"));
    }
    assert_eq!(o.key("/a~1b~0c"), "\"a/b~c\"");
    assert_eq!(o.val("/a~1b~0c"), "quoted");
    assert!(doc.node("/key40").is_none() && doc.node("/7").is_none());
    // The cursor walks value and spans together.
    let c = doc.at("/key39").unwrap();
    assert_eq!(c.value, &json!("value 39"));
    assert_eq!(doc.root().child("key5").unwrap().value, &json!("value 5"));
}

#[test]
fn aliases_of_large_mappings_share_the_anchors_spans() {
    let keys: Vec<String> = (0..30).map(|i| format!("k{i}: {i}")).collect();
    let text = format!("base: &b {{{}}}\ncopy: *b\n", keys.join(", "));
    let o = load(&text);
    assert!(o.codes.is_empty(), "{:?}", o.codes);
    assert_eq!(o.val("/copy"), "*b");
    // Inside the copy, spans are those of the anchored original.
    assert_eq!(o.val("/copy/k29"), "29");
    assert_eq!(o.doc().span("/copy/k29"), o.doc().span("/base/k29"));
    assert_eq!(o.doc().at("/copy/k17").unwrap().value, &json!(17));
}

#[test]
fn every_duplicate_key_is_reported_with_the_first() {
    let o = load("a: 1\nb: 2\na: 3\nnested:\n  k: 1\n  k: 2\n");
    assert_eq!(o.codes, ["AGC004", "AGC004"]);
    assert_eq!(o.at(), (3, 1));
    let first = o.diags[0].labels[0].span;
    assert_eq!(o.sources.get(first.file).line_col(first.start).line, 1);
    // The first value is kept.
    assert_eq!(o.doc().value["a"], json!(1));
}

#[test]
fn non_string_keys_are_refused() {
    let o = load("1: a\ntrue: b\n~: c\n[x]: d\n\"2\": ok\n");
    assert_eq!(o.codes, ["AGC005", "AGC005", "AGC005", "AGC005"]);
    assert_eq!(o.doc().value, json!({"2": "ok"}));
}

#[test]
fn custom_tags_and_merge_keys_are_refused() {
    let o = load("a: !Ref x\nb: !!str 5\nc:\n  <<: {q: 1}\n");
    assert_eq!(o.codes, ["AGC006", "AGC007"]);
    let o = load("a: !!int abc\n");
    assert_eq!(o.codes, ["AGC003"]);
}

#[test]
fn multi_document_streams_and_empty_documents() {
    assert_eq!(load("a: 1\n---\nb: 2\n").codes, ["AGC008"]);
    assert_eq!(load("").codes, ["AGC009"]);
    assert_eq!(load("# only a comment\n").codes, ["AGC009"]);
    assert_eq!(load("---\n...\n").codes, ["AGC009"]);
    // An explicit single document is fine.
    assert!(load("---\na: 1\n...\n").codes.is_empty());
}

#[test]
fn bom_is_a_warning_and_skipped() {
    let o = load("\u{feff}a: 1\n");
    assert_eq!(o.codes, ["AGC010"]);
    assert!(!o.diags[0].is_error());
    assert_eq!(o.doc().value, json!({"a": 1}));
    assert_eq!(o.val("/a"), "1");
}

#[test]
fn invalid_utf8_points_at_the_byte() {
    let mut sources = SourceMap::new();
    let (_, l) = load_bytes(
        &mut sources,
        "bad.yaml",
        b"a: 1\nb: caf\xe9\n".to_vec(),
        Limits::default(),
    );
    assert!(l.doc.is_none());
    assert_eq!(l.diags.len(), 1);
    assert_eq!(l.diags[0].code, "AGC002");
    let s = l.diags[0].span.unwrap();
    let lc = sources.get(s.file).line_col(s.start);
    assert_eq!((lc.line, lc.column), (2, 7));
}

#[test]
fn file_size_limit() {
    let limits = Limits {
        max_file_bytes: 10,
        ..Limits::default()
    };
    let mut sources = SourceMap::new();
    let (_, l) = load_bytes(&mut sources, "big.yaml", vec![b'a'; 11], limits);
    assert_eq!(l.diags[0].code, "AGC012");
}

#[test]
fn numbers_json_cannot_hold() {
    assert_eq!(load("a: .nan\n").codes, ["AGC011"]);
    assert_eq!(load("a: -.inf\n").codes, ["AGC011"]);
    assert_eq!(load("a: 1e999\n").codes, ["AGC011"]);
    assert_eq!(load("a: 99999999999999999999\n").codes, ["AGC011"]);
    let o = load("a: 18446744073709551615\nb: -9223372036854775808\n");
    assert!(o.codes.is_empty());
    assert_eq!(o.doc().value["a"], json!(u64::MAX));
    assert_eq!(o.doc().value["b"], json!(i64::MIN));
}

#[test]
fn ten_thousand_deep_lists_are_refused() {
    let block = "- ".repeat(10_000) + "x\n";
    assert_eq!(load(&block).codes, ["AGC013"]);
    let flow = "[".repeat(10_000) + &"]".repeat(10_000);
    assert_eq!(load(&flow).codes, ["AGC013"]);
    let maps = (0..10_000)
        .map(|i| format!("{}k:\n", " ".repeat(i)))
        .collect::<String>();
    assert_eq!(load(&maps).codes, ["AGC013"]);
}

#[test]
fn depth_limit_is_exact() {
    let limits = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    assert!(load_with("a: {b: {c: 1}}\n", limits).codes.is_empty());
    assert_eq!(load_with("a: {b: {c: [1]}}\n", limits).codes, ["AGC013"]);
}

#[test]
fn alias_bomb_is_refused_quickly() {
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        bomb += &format!("a{i}: &a{i} [{refs}]\n");
    }
    assert_eq!(load(&bomb).codes, ["AGC014"]);
    // Moderate reuse stays well within the budget.
    let ok = "a: &a [1, 2, 3]\nb: [*a, *a, *a]\n";
    assert!(load(ok).codes.is_empty());
}

#[test]
fn syntax_errors_have_positions() {
    let o = load("a: [1, 2\nb: 3\n");
    assert_eq!(o.codes, ["AGC003"]);
    let o = load("a: 1\n b: 2\n");
    assert_eq!(o.codes, ["AGC003"]);
    assert_eq!(o.at().0, 2);
}

/// saphyr can place a syntax error past the last char (here after an unknown directive, in a
/// file with a 4-byte character): the diagnostic still lies inside the file, at its end.
#[test]
fn a_syntax_error_saphyr_places_past_the_end_lies_at_the_end() {
    let bytes = b"%b\x01*stcnconstraints\xf2\x9a\x96\x83Galid nod2'".to_vec();
    let mut sources = SourceMap::new();
    let (file, l) = load_bytes(&mut sources, "t.yaml", bytes, Limits::default());
    let len = sources.get(file).text.len() as u32;
    assert_eq!(len, 34);
    let d = l
        .diags
        .iter()
        .find(|d| d.code == "AGC003")
        .expect("a syntax error");
    let span = d.span.expect("a span");
    assert_eq!((span.start, span.end), (len, len), "{d:?}");
}

#[test]
fn a_stream_without_end_is_read_only_up_to_the_size_limit() {
    // `agc check -` reads standard input through `load_reader`: an endless stream stops one
    // byte past the limit and is AGC012, not a hang or an exhausted memory.
    let mut sources = SourceMap::new();
    let limits = Limits {
        max_file_bytes: 1 << 20,
        ..Limits::default()
    };
    let mut endless = std::io::repeat(b'a');
    let (file, loaded) =
        agc::source::load::load_reader(&mut sources, &mut endless, limits).expect("readable");
    assert!(loaded.doc.is_none());
    assert_eq!(loaded.diags.len(), 1);
    assert_eq!(loaded.diags[0].code, "AGC012");
    assert_eq!(sources.get(file).name, "<stdin>");
    // Up to the limit, the stream is a document like a file's bytes.
    let (_, loaded) =
        agc::source::load::load_reader(&mut sources, &mut &b"a: 1\n"[..], limits).unwrap();
    assert_eq!(loaded.doc.expect("a document").value, json!({"a": 1}));
}

#[test]
fn a_markdown_file_is_said_to_be_no_workflow_document() {
    // A Skill given to `agc check` by mistake: read as YAML, its closing `---` would start a
    // second document (AGC008). Named `.md`, the message says what the file is instead.
    let dir = tempfile::tempdir().unwrap();
    let text = "---\nname: draft\ndescription: Draft it\n---\n# Draft\n\nSteps: *one*, two.\n";
    let md = dir.path().join("SKILL.md");
    std::fs::write(&md, text).unwrap();
    let mut sources = SourceMap::new();
    let (_, l) =
        agc::source::load::load_path(&mut sources, &md, "SKILL.md", Limits::default()).unwrap();
    let codes: Vec<_> = l.diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["AGC020"]);
    assert!(l.diags[0].message.contains("Markdown"), "{:?}", l.diags);
    assert!(l.doc.is_none());
    // The same text under a YAML name is still a stream of two documents.
    let yaml = dir.path().join("skill.yaml");
    std::fs::write(&yaml, text).unwrap();
    let (_, l) =
        agc::source::load::load_path(&mut sources, &yaml, "skill.yaml", Limits::default()).unwrap();
    assert!(l.diags.iter().any(|d| d.code == "AGC008"), "{:?}", l.diags);
}

#[test]
fn a_loose_json_file_is_warned_where_strict_json_stops() {
    // Trailing comma on line 3: strict JSON stops at the `}` after it.
    let text = "{\n  \"a\": 1,\n  \"b\": [1, 2,],\n}\n".to_string();
    let mut sources = SourceMap::new();
    let (_, l) = load_str(&mut sources, "g.json", text.clone(), Limits::default());
    let w: Vec<_> = l.diags.iter().filter(|d| d.code == "AGC016").collect();
    assert_eq!(w.len(), 1, "{:?}", l.diags);
    let s = w[0].span.unwrap();
    assert_eq!(&text[s.start as usize..s.start as usize + 1], "]");
    assert_eq!(l.doc.unwrap().value, json!({"a": 1, "b": [1, 2]}));
    // The same text named `.yaml`, and strict JSON named `.json`, get no warning.
    let (_, l) = load_str(&mut sources, "g.yaml", text, Limits::default());
    assert!(l.diags.is_empty(), "{:?}", l.diags);
    let (_, l) = load_str(
        &mut sources,
        "g.json",
        "{\"a\": [1]}".into(),
        Limits::default(),
    );
    assert!(l.diags.is_empty(), "{:?}", l.diags);
}

#[test]
fn an_alias_inside_its_own_anchor_is_called_recursive() {
    for text in ["a: &m\n  b: *m\n", "a: &m [1, *m]\n"] {
        let out = load(text);
        assert_eq!(out.codes, ["AGC015"], "{text:?}");
        assert!(
            out.diags[0].message.contains("would contain itself"),
            "{text:?}"
        );
    }
}

#[test]
fn an_escaped_blank_after_a_folded_line_break_maps_to_its_escape() {
    // `"one⏎      \ttwo X"`: the break folds into one space, then `\t` is an escape on the
    // next line. Every decoded character after it maps to its own place in the file (the tab
    // was taken for a second folded blank, which shifted the rest past the scalar's end).
    let text = "k: \"one\n  \\ttwo X\"\n".to_string();
    let out = load(&text);
    let cursor = out.doc().at("/k").unwrap();
    let decoded = cursor.value.as_str().unwrap();
    assert_eq!(decoded, "one \ttwo X");
    let map = agc::source::scalar::ScalarMap::for_scalar(&text, cursor.node, decoded);
    let x = decoded.find('X').unwrap();
    let at = map.span(x, x + 1);
    assert_eq!(&text[at.start as usize..at.end as usize], "X");
    let tab = decoded.find('\t').unwrap();
    let at = map.span(tab, tab + 1);
    assert_eq!(&text[at.start as usize..at.end as usize], "\\t");
}
