//! Expression spans land on the right characters of a loaded YAML/JSON file, for every scalar
//! style; templates split and report as documented.

use super::{parse_agx, parse_template, print, template};
use crate::source::load::load_str;
use crate::source::scalar::ScalarMap;
use crate::source::{Limits, SourceMap};
use agc_runtime::expr::{Expr, ExprKind, TemplatePart};

struct Loaded {
    sources: SourceMap,
    text: String,
    decoded: String,
    map: ScalarMap,
}

fn load(yaml: &str, pointer: &str) -> Loaded {
    let mut sources = SourceMap::new();
    let (_, loaded) = load_str(&mut sources, "t.yaml", yaml.to_string(), Limits::default());
    assert!(loaded.diags.is_empty(), "{:?}", loaded.diags);
    let doc = loaded.doc.expect("document");
    let decoded = doc
        .value
        .pointer(pointer)
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    let node = doc.node(pointer).unwrap();
    let map = ScalarMap::for_scalar(yaml, node, &decoded);
    Loaded {
        sources,
        text: yaml.to_string(),
        decoded,
        map,
    }
}

impl Loaded {
    /// File text of every node of the expression, by id.
    fn agx(&self) -> Vec<String> {
        let (_, spans) = parse_agx(&self.decoded, &self.map).unwrap();
        spans
            .iter()
            .map(|s| self.text[s.range()].to_string())
            .collect()
    }

    fn template(&self) -> (Expr, Vec<String>) {
        let (e, spans) = parse_template(&self.decoded, &self.map).unwrap();
        (
            e,
            spans
                .iter()
                .map(|s| self.text[s.range()].to_string())
                .collect(),
        )
    }

    /// `line:column` of the start of the file span of decoded range `a..b`, and its text.
    fn at(&self, a: usize, b: usize) -> (String, String) {
        let s = self.map.span(a, b);
        let lc = self.sources.get(s.file).line_col(s.start);
        (
            format!("{}:{}", lc.line, lc.column),
            self.text[s.range()].to_string(),
        )
    }
}

#[test]
fn plain_scalar() {
    let l = load(
        "when: nodes.a.outputs.n >= 2 && params.mode == 'fast'\n",
        "/when",
    );
    assert_eq!(
        l.agx(),
        [
            "nodes.a.outputs.n >= 2 && params.mode == 'fast'",
            "nodes.a.outputs.n >= 2",
            "nodes.a.outputs.n",
            "nodes.a.outputs",
            "nodes.a",
            "nodes",
            "2",
            "params.mode == 'fast'",
            "params.mode",
            "params",
            "'fast'",
        ]
    );
}

#[test]
fn plain_scalar_over_lines() {
    let l = load("e:\n  when: a > 1\n    && b\n\n    || c\n", "/e/when");
    assert_eq!(l.decoded, "a > 1 && b\n|| c");
    let spans = l.agx();
    assert_eq!(spans[0], "a > 1\n    && b\n\n    || c");
    assert_eq!(spans.last().unwrap(), "c");
    let (_, spans) = parse_agx(&l.decoded, &l.map).unwrap();
    let c = l
        .sources
        .get(spans[0].file)
        .line_col(spans.last().unwrap().start);
    assert_eq!((c.line, c.column), (5, 8));
}

#[test]
fn single_quoted_scalar() {
    let l = load("when: 'x == ''it\\''s'' && y'\n", "/when");
    assert_eq!(l.decoded, "x == 'it\\'s' && y");
    assert_eq!(
        l.agx(),
        [
            "x == ''it\\''s'' && y",
            "x == ''it\\''s''",
            "x",
            "''it\\''s''",
            "y"
        ]
    );
}

#[test]
fn double_quoted_scalar_with_escapes() {
    let l = load(
        "when: \"s == \\\"caf\\u00e9\\\" && n > 1\\t|| \\x41\"\n",
        "/when",
    );
    assert_eq!(l.decoded, "s == \"café\" && n > 1\t|| A");
    let spans = l.agx();
    assert_eq!(spans[4], "\\\"caf\\u00e9\\\"");
    assert_eq!(spans[6], "n");
    assert_eq!(spans.last().unwrap(), "\\x41");
    // A range ending in an escaped character includes the whole escape.
    let i = l.decoded.find('é').unwrap();
    assert_eq!(l.at(i, i + 2), ("1:18".into(), "\\u00e9".into()));
}

#[test]
fn double_quoted_scalar_folded_and_escaped_line_breaks() {
    let l = load("when: \"a >\n    1 && b\\\n   c\"\n", "/when");
    assert_eq!(l.decoded, "a > 1 && bc");
    let spans = l.agx();
    assert_eq!(spans[2], "a");
    assert_eq!(spans[3], "1");
    let (line, text) = l.at(
        l.decoded.find('1').unwrap(),
        l.decoded.find('1').unwrap() + 1,
    );
    assert_eq!((line.as_str(), text.as_str()), ("2:5", "1"));
    // `b\` + newline + `c` is one identifier `bc` in the decoded string; its span covers both.
    assert_eq!(spans.last().unwrap(), "b\\\n   c");
}

#[test]
fn literal_block_scalar() {
    let yaml = "nodes:\n  a:\n    when: |\n      nodes.b.outputs.n > 1 &&\n        params.flag\n    next: 1\n";
    let l = load(yaml, "/nodes/a/when");
    assert_eq!(l.decoded, "nodes.b.outputs.n > 1 &&\n  params.flag\n");
    let spans = l.agx();
    assert_eq!(spans[0], "nodes.b.outputs.n > 1 &&\n        params.flag");
    assert_eq!(spans.last().unwrap(), "params");
    let (pos, _) = l.at(l.decoded.find("params").unwrap(), l.decoded.len());
    assert_eq!(pos, "5:9");
}

#[test]
fn folded_block_scalar() {
    let yaml = "when: >-\n  len(x) > 0\n  and\n  y\n";
    let l = load(yaml, "/when");
    assert_eq!(l.decoded, "len(x) > 0 and y");
    let spans = l.agx();
    assert_eq!(spans[0], "len(x) > 0\n  and\n  y");
    assert_eq!(spans.last().unwrap(), "y");
    assert_eq!(l.at(15, 16).0, "4:3");
}

#[test]
fn json_string_with_unicode_escape() {
    let json = "{\"when\": \"len(x) > \\u0030 && \\\"\\u00e9\\\" in y\"}";
    let l = load(json, "/when");
    assert_eq!(l.decoded, "len(x) > 0 && \"é\" in y");
    let spans = l.agx();
    assert!(spans.contains(&"\\u0030".to_string()), "{spans:?}");
    assert!(spans.contains(&"\\\"\\u00e9\\\"".to_string()), "{spans:?}");
}

#[test]
fn diagnostics_point_into_the_file() {
    let l = load("x:\n  when: \"a &&\"\n", "/x/when");
    let d = parse_agx(&l.decoded, &l.map).unwrap_err();
    let s = d[0].span.unwrap();
    let lc = l.sources.get(s.file).line_col(s.start);
    assert_eq!((d[0].code, lc.line, lc.column), ("AG204", 2, 14));
}

fn texts(e: &Expr) -> Vec<String> {
    let ExprKind::Template { parts } = &e.kind else {
        panic!("{e:?}")
    };
    parts
        .iter()
        .map(|p| match p {
            TemplatePart::Text { text } => format!("text {text:?}"),
            TemplatePart::Expr { expr } => format!("expr {}", print(expr)),
        })
        .collect()
}

#[test]
fn template_parts_and_spans() {
    let l = load(
        "instructions: \"Fix ${{ nodes.t.outputs.report }} (try ${{ loop.iteration + 1 }})\"\n",
        "/instructions",
    );
    let (e, spans) = l.template();
    assert_eq!(
        texts(&e),
        [
            "text \"Fix \"",
            "expr nodes.t.outputs.report",
            "text \" (try \"",
            "expr loop.iteration + 1",
            "text \")\"",
        ]
    );
    assert_eq!(spans[0], l.text[15..l.text.len() - 2]);
    assert_eq!(spans[1], "nodes.t.outputs.report");
    assert!(spans.contains(&"loop.iteration + 1".to_string()));
}

#[test]
fn template_in_a_literal_block() {
    let yaml = "instructions: |\n  Hello ${{ params.name }},\n  see ${{ \"}}\" }}.\n";
    let l = load(yaml, "/instructions");
    let (e, spans) = l.template();
    assert_eq!(
        texts(&e),
        [
            "text \"Hello \"",
            "expr params.name",
            "text \",\\nsee \"",
            "expr \"}}\"",
            "text \".\\n\"",
        ]
    );
    assert_eq!(spans[1], "params.name");
    assert_eq!(spans.last().unwrap(), "\"}}\"");
}

fn template_errors(src: &str) -> Vec<(String, String, String)> {
    let map = ScalarMap::contiguous(crate::source::FileId(0), 0, src.len());
    parse_template(src, &map)
        .unwrap_err()
        .into_iter()
        .map(|d| {
            (
                d.code.to_string(),
                src[d.span.unwrap().range()].to_string(),
                d.message,
            )
        })
        .collect()
}

#[test]
fn template_decisions() {
    let map = |s: &str| ScalarMap::contiguous(crate::source::FileId(0), 0, s.len());
    let ok = |s: &str| texts(&parse_template(s, &map(s)).unwrap().0);
    // No placeholders: one text part; lone `}}` and `$` are text.
    assert_eq!(ok("a }} b $ {{c}}"), ["text \"a }} b $ {{c}}\""]);
    assert_eq!(ok(""), Vec::<String>::new());
    // A literal `${{` is written as a string expression.
    assert_eq!(ok("${{ \"${{\" }}"), ["expr \"${{\""]);
    // `}}` inside a string literal does not close the placeholder.
    assert_eq!(ok("${{ 'a }} b' }}!"), ["expr \"a }} b\"", "text \"!\""]);
    // Unbalanced quotes: closes at the first `}}`, and the string error is reported inside.
    assert_eq!(
        template_errors("${{ it's }} more"),
        [(
            "AG204".into(),
            "'s ".into(),
            "unterminated string: missing the closing `'`".into()
        )]
    );
    assert_eq!(
        template_errors("Hi ${{ params.name"),
        [(
            "AGC042".into(),
            "${{ params.name".into(),
            "`${{` is never closed by `}}`".into()
        )]
    );
    assert_eq!(
        template_errors("a ${{  }} b ${{ x && }}"),
        [
            (
                "AG204".into(),
                "${{  }}".into(),
                "empty `${{ }}` placeholder".into()
            ),
            (
                "AG204".into(),
                "".into(),
                "expected an operand after `&&`, found end of expression".into()
            )
        ]
    );
}

#[test]
fn template_printing_round_trips() {
    let map = |s: &str| ScalarMap::contiguous(crate::source::FileId(0), 0, s.len());
    let src = "Run ${{ len(x) - 1 }} of ${{ 'it\\'s' }}";
    let (e, _) = parse_template(src, &map(src)).unwrap();
    let printed = print(&e);
    assert_eq!(printed, "Run ${{ len(x) - 1 }} of ${{ \"it's\" }}");
    let (again, _) = parse_template(&printed, &map(&printed)).unwrap();
    assert_eq!(texts(&again), texts(&e));
    // Literal `${{` in text prints as a string placeholder, which renders the same text.
    let e = Expr {
        id: 0,
        kind: ExprKind::Template {
            parts: vec![TemplatePart::Text {
                text: "a ${{ b".into(),
            }],
        },
    };
    let printed = print(&e);
    assert_eq!(printed, "a ${{ \"${{\" }} b");
    let (again, _) = parse_template(&printed, &map(&printed)).unwrap();
    assert_eq!(
        texts(&again),
        ["text \"a \"", "expr \"${{\"", "text \" b\""]
    );
}

#[test]
fn ag211_detector() {
    let l = load("when: \"${{ nodes.a.outputs.ok }}\"\n", "/when");
    let d = template::find_interpolation(&l.decoded, &l.map);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "AG211");
    assert_eq!(
        &l.text[d[0].span.unwrap().range()],
        "${{ nodes.a.outputs.ok }}"
    );
    assert_eq!(
        d[0].help.as_deref(),
        Some("write the expression itself, without `${{ }}`: `nodes.a.outputs.ok`")
    );
    assert_eq!(parse_agx(&l.decoded, &l.map).unwrap_err()[0].code, "AG211");
    // `${{` inside a string literal is just text.
    let m = ScalarMap::contiguous(crate::source::FileId(0), 0, 12);
    assert!(template::find_interpolation("x == '${{'", &m).is_empty());
}

#[test]
fn corpus_ag211_and_ag204_fixtures() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/ags/invalid");
    if !dir.is_dir() {
        eprintln!("skipping: {} is absent", dir.display());
        return;
    }
    for (file, pointer, code) in [
        (
            "ag211-interpolation-in-expression.agraph.yaml",
            "/nodes/start/when",
            "AG211",
        ),
        (
            "ag204-bad-expression.agraph.yaml",
            "/nodes/start/success/criteria/0/expr",
            "AG204",
        ),
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let l = load(&text, pointer);
        let d = parse_agx(&l.decoded, &l.map).unwrap_err();
        assert_eq!(d[0].code, code, "{file}");
    }
}

#[test]
fn own_fixtures_trigger_their_codes() {
    // The full pipeline runs these through the AGS front end; here, only the expression layer.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ags");
    for (file, pointer, template, code) in [
        (
            "agc040-expression-too-deep.agraph.yaml",
            "/nodes/after/when",
            false,
            "AGC040",
        ),
        (
            "agc041-integer-out-of-range.agraph.yaml",
            "/nodes/after/when",
            false,
            "AGC041",
        ),
        (
            "agc042-unterminated-placeholder.agraph.yaml",
            "/nodes/step/instructions",
            true,
            "AGC042",
        ),
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert_eq!(
            text.lines().next(),
            Some(format!("# EXPECT: {code}").as_str())
        );
        let l = load(&text, pointer);
        let d = if template {
            parse_template(&l.decoded, &l.map).unwrap_err()
        } else {
            parse_agx(&l.decoded, &l.map).unwrap_err()
        };
        assert_eq!(d[0].code, code, "{file}");
    }
}

#[test]
fn crlf_and_explicit_indentation_indicator() {
    let yaml = "a:\r\n  when: |\r\n    x &&\r\n      y\r\n";
    let l = load(yaml, "/a/when");
    assert_eq!(l.decoded, "x &&\n  y\n");
    assert_eq!(l.agx(), ["x &&\r\n      y", "x", "y"]);
    let yaml = "a:\n  when: |2\n      x\n    || y\n";
    let l = load(yaml, "/a/when");
    assert_eq!(l.decoded, "  x\n|| y\n");
    assert_eq!(l.agx(), ["x\n    || y", "x", "y"]);
}
