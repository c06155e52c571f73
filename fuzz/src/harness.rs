//! The properties the whole-document fuzz targets check, shared by the targets
//! (`fuzz/fuzz_targets/*.rs`) and by the replay test (`tests/fuzz_replay.rs`, which runs every
//! saved finding under `fuzz/regressions/<target>/` on stable, in CI).
//!
//! Every input must come back as diagnostics, never a panic, a hang or a stack overflow, and:
//! every diagnostic has a registered code (so `agc explain` knows it) and a span inside its
//! file (or none), and every output format renders.
//!
//! This file is included with `#[path]` by both users, so it depends on `agc`, `agc-runtime`,
//! `serde` and `serde_json` only (all four dependencies of both).

use agc::check::{CheckOptions, check_source};
use agc::diag::Diagnostic;
use agc::diag::render::{self, Format, Options};
use agc::source::{Limits, SourceMap, load};
use serde_json::{Map, Value};

/// Limits small enough that one input stays well under a second: fuzzing is about shapes,
/// not size (the size limits themselves have their own tests).
fn limits() -> Limits {
    Limits {
        max_file_bytes: 1 << 20,
        ..Limits::default()
    }
}

/// Options for whole-document checks: the workspace root is an empty folder, so that no
/// `subgraph.ref` an input invents can read a real file. One folder of a fixed name, shared by
/// every process (a folder per process id left one behind per fuzz worker and test run).
fn options() -> CheckOptions {
    static ROOT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let root = ROOT.get_or_init(|| {
        let dir = std::env::temp_dir().join("agc-fuzz-root");
        let _ = std::fs::create_dir_all(&dir);
        dir
    });
    CheckOptions {
        limits: limits(),
        root: Some(root.clone()),
        // The reference index's walks run on every input too (the language server's).
        xref: true,
        ..CheckOptions::default()
    }
}

/// The invariants every diagnostic list must hold.
fn assert_sane(diags: &[Diagnostic], sources: &SourceMap) {
    for d in diags {
        assert!(
            agc::diag::lookup(d.code).is_some(),
            "unregistered code {}: {}",
            d.code,
            d.message
        );
        if let Some(s) = d.span {
            assert!((s.file.0 as usize) < sources.len(), "{d:?}: unknown file");
            let len = sources.get(s.file).text.len();
            assert!(
                s.start <= s.end && s.end as usize <= len,
                "{d:?}: span outside {len}"
            );
        }
        for l in &d.labels {
            assert!(
                (l.span.file.0 as usize) < sources.len(),
                "{d:?}: label file"
            );
        }
    }
    for format in [Format::Human, Format::Json, Format::Sarif, Format::Github] {
        let out = render::render(format, diags, sources, Options::default());
        if matches!(format, Format::Json | Format::Sarif) {
            // Parsed, not built: a `Value` of every output was a third of `mutate`'s time.
            serde_json::from_str::<serde::de::IgnoredAny>(&out)
                .expect("JSON and SARIF output are JSON");
        }
    }
}

/// Target `load`: the YAML/JSON loader and dialect detection on arbitrary bytes.
pub fn load(data: &[u8]) {
    let mut sources = SourceMap::new();
    let (_, loaded) = load::load_bytes(&mut sources, "fuzz.yaml", data.to_vec(), limits());
    let mut diags = loaded.diags;
    if let Some(doc) = &loaded.doc
        && let Err(d) = agc::dialect::detect(doc)
    {
        diags.push(d);
    }
    assert_sane(&diags, &sources);
}

/// Target `split`: the YAML loader's split (a large file cut in two, its middle parsed on a
/// third thread and spliced back) on any text, whatever its size: the cuts it could choose (up
/// to 4, spread over the collection; each cut tried starts two threads) must each load exactly
/// what one stream loads, or give up. The depth limit is low for inputs of odd length, so that
/// nesting at the cut reaches it.
pub fn split(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let offset = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut limits = limits();
    if data.len() % 2 == 1 {
        limits.max_depth = 12;
    }
    if let Err(e) = agc::source::yaml::split_agrees(text, offset, limits, 4) {
        panic!("{e}");
    }
}

/// Target `check`: the whole `check` pipeline (load, detect, schema, semantic checks,
/// lowering, analyses) on arbitrary bytes, under a name of each dialect's.
pub fn check(data: &[u8]) {
    let names = [
        "fuzz.agraph.yaml",
        "workflow.yaml",
        "loop.yaml",
        "graphs/fuzz.yaml",
    ];
    let name = names[data.first().map_or(0, |b| *b as usize) % names.len()];
    check_bytes(name, data.to_vec());
}

fn check_bytes(name: &str, bytes: Vec<u8>) {
    let mut sources = SourceMap::new();
    let opts = options();
    let (file, loaded) = load::load_bytes(&mut sources, name, bytes, opts.limits);
    let checked = check_source(&mut sources, file, loaded, &opts, None);
    assert_sane(&checked.diags, &sources);
}

/// Seed documents for structure-aware mutation: agc's own examples and fixtures, one or more
/// per dialect (never third-party corpus files).
const SEEDS: [&str; 6] = [
    include_str!("../../examples/ags/changelog-release.agraph.yaml"),
    include_str!("../../tests/fixtures/ags/ag203-map-item-in-nested-loop.agraph.yaml"),
    include_str!("../../tests/fixtures/ags/ag121-second-branch-without-when.agraph.yaml"),
    include_str!("../../examples/agh/delivery.loop.yaml"),
    include_str!("../../examples/awp/support-triage.workflow.yaml"),
    include_str!("../../tests/fixtures/agent-graph/schema-invalid-unknown-node-kind.yaml"),
];

/// The seeds, loaded once per process (loading one again for every input only spent the
/// fuzzer's time on the same document).
fn seed_values() -> &'static [Value] {
    static VALUES: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    VALUES.get_or_init(|| {
        SEEDS
            .iter()
            .map(|seed| {
                let mut sources = SourceMap::new();
                let (_, loaded) =
                    load::load_str(&mut sources, "seed.yaml", seed.to_string(), limits());
                loaded.doc.expect("seed documents load").value.to_json()
            })
            .collect()
    })
}

/// Bytes read off the front of the input, zero when used up.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    fn index(&mut self, n: usize) -> usize {
        let v = u16::from_le_bytes([self.byte(), self.byte()]) as usize;
        if n == 0 { 0 } else { v % n }
    }

    fn word(&mut self) -> String {
        let len = (self.byte() % 12) as usize;
        (0..len)
            .map(|_| {
                let b = self.byte();
                // Mostly name characters, sometimes AGX/YAML punctuation.
                b"abcdefghijklmnopqrstuvwxyz_-.${}()[]0123456789 :'\"#"[(b % 51) as usize] as char
            })
            .collect()
    }
}

/// Target `mutate`: a seed document (chosen by the first byte) loaded, then changed by
/// structure-aware edits read from the rest (delete, retype, rename, duplicate, move, nest),
/// written back as YAML or as JSON, and checked. The documents stay valid YAML with wrong
/// shapes, which reach the schema and semantic checks far more often than random bytes.
pub fn mutate(data: &[u8]) {
    let mut b = Bytes(data);
    let index = b.byte() as usize % SEEDS.len();
    let seed = SEEDS[index];
    let mut value = seed_values()[index].clone();
    let edits = 1 + b.byte() % 8;
    for _ in 0..edits {
        edit(&mut value, &mut b);
    }
    let as_json = b.byte() % 4 == 0;
    let text = if as_json {
        serde_json::to_string_pretty(&value).unwrap_or_default()
    } else {
        to_yaml(&value)
    };
    let name = match seed {
        s if s.contains("AgenticGraph") => "fuzz.agraph.yaml",
        s if s.contains("agh.loop") || s.contains("compozy.loop") => "loop.yaml",
        s if s.contains("agent-graph.") => "graphs/fuzz.yaml",
        _ => "workflow.yaml",
    };
    check_bytes(name, text.into_bytes());
}

/// Every value of `v` in pre-order (an explicit stack, no recursion), each as its parent's
/// place in the list and the step from it: the paths are built only for the values picked
/// (building every value's path cloned every key of the document, for each edit).
fn walk(v: &Value) -> Vec<(usize, Option<Step<'_>>)> {
    let mut out = Vec::new();
    let mut stack: Vec<(usize, Option<Step<'_>>, &Value)> = vec![(usize::MAX, None, v)];
    while let Some((parent, step, v)) = stack.pop() {
        let me = out.len();
        out.push((parent, step));
        match v {
            Value::Object(m) => {
                for (k, c) in m {
                    stack.push((me, Some(Step::Key(k)), c));
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    stack.push((me, Some(Step::Index(i)), c));
                }
            }
            _ => {}
        }
    }
    out
}

/// The path from the root to the `i`-th value of a [`walk`].
fn path_of(list: &[(usize, Option<Step<'_>>)], mut i: usize) -> Vec<PathSeg> {
    let mut path = Vec::new();
    while let Some(&(parent, Some(step))) = list.get(i) {
        path.push(match step {
            Step::Key(k) => PathSeg::Key(k.to_string()),
            Step::Index(n) => PathSeg::Index(n),
        });
        i = parent;
    }
    path.reverse();
    path
}

#[derive(Clone, Copy, Debug)]
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

#[derive(Clone, Debug)]
enum PathSeg {
    Key(String),
    Index(usize),
}

fn get_mut<'v>(v: &'v mut Value, path: &[PathSeg]) -> Option<&'v mut Value> {
    let mut cur = v;
    for seg in path {
        cur = match (seg, cur) {
            (PathSeg::Key(k), Value::Object(m)) => m.get_mut(k)?,
            (PathSeg::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn edit(root: &mut Value, b: &mut Bytes<'_>) {
    let (path, other) = {
        let all = walk(root);
        let path = path_of(&all, b.index(all.len()));
        let other = path_of(&all, b.index(all.len()));
        (path, other)
    };
    let donor = get_mut(root, &other).map(|v| v.clone());
    let op = b.byte() % 10;
    let Some(target) = get_mut(root, &path) else {
        return;
    };
    match op {
        0 => *target = Value::Null,
        1 => *target = Value::from(b.index(5000) as i64 - 100),
        2 => *target = Value::String(b.word()),
        3 => *target = Value::Bool(b.byte().is_multiple_of(2)),
        4 => *target = Value::Array(vec![target.take()]),
        5 => *target = Value::Object(Map::new()),
        // Move another part of the document here (wrong shape, plausible content).
        6 => {
            if let Some(d) = donor {
                *target = d;
            }
        }
        // Delete an entry or item of a container.
        7 => match target {
            Value::Object(m) if !m.is_empty() => {
                let k = m.keys().nth(b.index(m.len())).cloned().unwrap_or_default();
                m.remove(&k);
            }
            Value::Array(a) if !a.is_empty() => {
                a.remove(b.index(a.len()));
            }
            _ => *target = Value::Null,
        },
        // Rename a key (typos, reserved names, ids with `-`, keywords).
        8 => {
            if let Value::Object(m) = target
                && !m.is_empty()
            {
                let k = m.keys().nth(b.index(m.len())).cloned().unwrap_or_default();
                if let Some(v) = m.remove(&k) {
                    let names = ["self", "in", "true", "a-b", "decision", "item", ""];
                    let new = match b.byte() % 3 {
                        0 => format!("{k}{}", b.word()),
                        1 => names[b.index(names.len())].to_string(),
                        _ => b.word(),
                    };
                    m.insert(new, v);
                }
            }
        }
        // Duplicate: an item repeated, or an entry copied under a second key.
        _ => match target {
            Value::Array(a) if !a.is_empty() => {
                let i = b.index(a.len());
                let v = a[i].clone();
                a.push(v);
            }
            Value::Object(m) if !m.is_empty() => {
                let k = m.keys().nth(b.index(m.len())).cloned().unwrap_or_default();
                if let Some(v) = m.get(&k).cloned() {
                    m.insert(format!("{k}_{}", b.word()), v);
                }
            }
            _ => {}
        },
    }
}

/// Block-style YAML for a JSON value: keys and strings JSON-quoted (valid YAML double-quoted
/// scalars), numbers, booleans and null as JSON writes them. An explicit stack, no recursion.
fn to_yaml(v: &Value) -> String {
    enum Item<'a> {
        Value(&'a Value, usize),
        Text(String),
    }
    let mut out = String::new();
    let mut stack = vec![Item::Value(v, 0)];
    while let Some(item) = stack.pop() {
        let (v, ind) = match item {
            Item::Text(t) => {
                out.push_str(&t);
                continue;
            }
            Item::Value(v, ind) => (v, ind),
        };
        let pad = " ".repeat(ind);
        match v {
            Value::Object(m) if !m.is_empty() => {
                let mut items = Vec::new();
                for (k, c) in m {
                    let key = serde_json::to_string(k).unwrap_or_default();
                    if is_block(c) {
                        items.push(Item::Text(format!("{pad}{key}:\n")));
                        items.push(Item::Value(c, ind + 2));
                    } else {
                        items.push(Item::Text(format!("{pad}{key}: {}\n", flow(c))));
                    }
                }
                stack.extend(items.into_iter().rev());
            }
            Value::Array(a) if !a.is_empty() => {
                let mut items = Vec::new();
                for c in a {
                    if is_block(c) {
                        items.push(Item::Text(format!("{pad}-\n")));
                        items.push(Item::Value(c, ind + 2));
                    } else {
                        items.push(Item::Text(format!("{pad}- {}\n", flow(c))));
                    }
                }
                stack.extend(items.into_iter().rev());
            }
            other => out.push_str(&format!("{pad}{}\n", flow(other))),
        }
    }
    out
}

fn is_block(v: &Value) -> bool {
    matches!(v, Value::Object(m) if !m.is_empty()) || matches!(v, Value::Array(a) if !a.is_empty())
}

/// A scalar or empty container on one line (JSON is valid YAML flow).
fn flow(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Target `template`: `${{ }}` templates (AGX inside text): a result or diagnostics, spans
/// inside the input.
pub fn template(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let map = agc::source::scalar::ScalarMap::contiguous(agc::source::FileId(0), 0, src.len());
    match agc::expr::parse_template(src, &map) {
        Ok((_, spans)) => {
            assert!(
                spans
                    .iter()
                    .all(|s| s.start <= s.end && s.end as usize <= src.len())
            );
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            for d in diags {
                let s = d.span.expect("template diagnostics have spans");
                assert!(s.start <= s.end && s.end as usize <= src.len(), "{d:?}");
            }
        }
    }
}

fn contiguous(src: &str) -> agc::source::scalar::ScalarMap {
    agc::source::scalar::ScalarMap::contiguous(agc::source::FileId(0), 0, src.len())
}

fn assert_inside(span: Option<agc::source::Span>, len: usize, what: &str) {
    let s = span.unwrap_or_else(|| panic!("{what} diagnostics have spans"));
    assert!(
        s.start <= s.end && s.end as usize <= len,
        "{what}: {s:?} outside {len}"
    );
}

/// Target `agx`: the AGX parser (result or diagnostics with spans inside the input; what
/// parses prints to text that parses back to the same printed form; where the path or
/// comparison shortcut applies, the parser builds the same tree) and, on the same text,
/// the `${{ }}` template parser.
pub fn agx(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    // The path and comparison shortcuts build what the parser builds, where they apply.
    if let Err(m) = agc::expr::agx::shortcut_agrees(src) {
        panic!("{m}");
    }
    match agc::expr::parse_agx(src, &contiguous(src)) {
        Ok((expr, spans)) => {
            assert!(spans.iter().all(|s| s.end as usize <= src.len()));
            let printed = agc::expr::print(&expr);
            let (again, _) = agc::expr::parse_agx(&printed, &contiguous(&printed))
                .unwrap_or_else(|d| panic!("{printed:?} (printed from {src:?}) fails: {d:?}"));
            assert_eq!(agc::expr::print(&again), printed);
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            for d in diags {
                assert_inside(d.span, src.len(), "AGX");
            }
        }
    }
    template(data);
}

/// Target `cel`: the CEL parser, with the print round trip to the same tree.
pub fn cel(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    match agc::expr::parse_cel(src, &contiguous(src)) {
        Ok((expr, spans)) => {
            assert!(
                spans
                    .iter()
                    .all(|s| s.start <= s.end && s.end as usize <= src.len())
            );
            let printed = agc::expr::print_cel(&expr);
            let (again, _) = agc::expr::parse_cel(&printed, &contiguous(&printed))
                .unwrap_or_else(|d| panic!("{printed:?} (printed from {src:?}) fails: {d:?}"));
            assert_eq!(again, expr, "round trip of {src:?} via {printed:?}");
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            for d in diags {
                assert_inside(d.span, src.len(), "CEL");
            }
        }
    }
}

/// Target `gotmpl`: agh's `{{ }}` values.
pub fn gotmpl(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    match agc::expr::parse_gotmpl(src, &contiguous(src)) {
        Ok((_, spans)) => {
            assert!(
                spans
                    .iter()
                    .all(|s| s.start <= s.end && s.end as usize <= src.len())
            );
        }
        Err(diags) => {
            for d in diags {
                assert_inside(d.span, src.len(), "template");
            }
        }
    }
}

/// Target `jq`: the jq parse wrapper (jaq) and the state-path listing.
pub fn jq(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    match agc::expr::jq::parse_jq(src, &contiguous(src)) {
        Ok(p) => {
            for (_, s) in &p.paths {
                assert_inside(Some(*s), src.len(), "jq path");
            }
            for d in &p.warnings {
                if d.span.is_some() {
                    assert_inside(d.span, src.len(), "jq warning");
                }
            }
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            for d in diags {
                assert_inside(d.span, src.len(), "jq");
            }
        }
    }
}

/// Small evaluation limits: every filter or expression ends well under a second.
fn eval_limits() -> agc_runtime::jq::Limits {
    agc_runtime::jq::Limits {
        stack: 2 << 20,
        depth: 200,
        memory: 16 << 20,
        time: std::time::Duration::from_millis(250),
    }
}

/// The input evaluated programs see.
fn eval_input() -> Value {
    serde_json::json!({"a": [1, "x", {"b": null, "c": [2.5, true]}], "n": 3, "s": "text"})
}

/// Target `jq_eval`: a jq filter that compiles is run under [`eval_limits`] (issue 47): it
/// ends with outputs or an error, never a crash, an abort or a hang; an exceeded limit is
/// `JqError::Limit` whatever the filter does with it (`try`, `?`, `//`).
pub fn jq_eval(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    if src.len() > 4096 {
        return;
    }
    let _ = agc_runtime::jq::run_jq_limited(src, eval_input(), eval_limits());
}

/// Target `expr_eval`: AGX (first byte even) or CEL (odd) text that parses and checks is
/// evaluated against fixed roots under a small step budget: a value or an error, never a
/// panic or a hang.
pub fn expr_eval(data: &[u8]) {
    let Some((&lang, rest)) = data.split_first() else {
        return;
    };
    let Ok(src) = std::str::from_utf8(rest) else {
        return;
    };
    let (parsed, lang) = if lang % 2 == 0 {
        (
            agc::expr::parse_agx(src, &contiguous(src)),
            agc_runtime::expr::Lang::Agx,
        )
    } else {
        (
            agc::expr::parse_cel(src, &contiguous(src)),
            agc_runtime::expr::Lang::Cel,
        )
    };
    let Ok((expr, _)) = parsed else {
        return;
    };
    let roots = match serde_json::json!({"params": eval_input(), "x": [1, 2, 3], "s": "abc"}) {
        Value::Object(m) => m,
        _ => return,
    };
    let env = agc_runtime::expr::eval::Env::from_json(&roots).with_max_steps(100_000);
    let _ = agc_runtime::expr::eval::eval_with(&expr, lang, &env);
}

/// Target `lsp_change`: the language server's change handler. A document is opened in the
/// workspace root of [`options`] and edited by the input: chunks split at `0x00`, each a
/// ranged edit (first byte odd: then four bytes of positions, the rest the new text) or a
/// whole new text, in UTF-16 or UTF-8 positions (the first byte's lowest bit). After every
/// edit the server must publish the diagnostics of that version, each range inside the text.
pub fn lsp_change(data: &[u8]) {
    use agc::lsp::{Encoding, Server};
    let enc = if data.first().is_some_and(|b| b & 1 == 1) {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    };
    let names = ["fuzz.agraph.yaml", "workflow.yaml", "loop.yaml"];
    let name = names[data.first().map_or(0, |b| *b as usize / 2) % names.len()];
    let opts = options();
    let path = opts.root.clone().unwrap_or_default().join(name);
    let uri = format!("file://{}", path.display());
    let mut server = Server::new(opts, enc);
    let mut chunks = data.get(1..).unwrap_or_default().split(|b| *b == 0);
    let first = String::from_utf8_lossy(chunks.next().unwrap_or_default());
    server.notify(
        "textDocument/didOpen",
        serde_json::json!({ "textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": first } }),
    );
    let mut version = 1;
    assert_published(&mut server, &uri, version);
    for chunk in chunks.take(64) {
        version += 1;
        let change = match chunk {
            [op, l1, c1, l2, c2, rest @ ..] if op & 1 == 1 => serde_json::json!({
                "range": {
                    "start": { "line": l1 % 32, "character": c1 },
                    "end": { "line": l2 % 32, "character": c2 } },
                "text": String::from_utf8_lossy(rest) }),
            _ => serde_json::json!({ "text": String::from_utf8_lossy(chunk) }),
        };
        server.notify(
            "textDocument/didChange",
            serde_json::json!({ "textDocument": { "uri": uri, "version": version },
                                "contentChanges": [change] }),
        );
        assert_published(&mut server, &uri, version);
        let at = serde_json::json!({
            "line": chunk.get(1).map_or(0, |b| b % 32),
            "character": chunk.get(2).copied().unwrap_or(0) });
        ask_everything(&mut server, &uri, at);
        // Answering (a refused rename checks the renamed text) publishes nothing.
        assert!(server.take_output().is_empty());
    }
}

/// Every request the server answers, at `at`: none may panic, and the edits it proposes
/// (rename, code actions) stay inside the text.
fn ask_everything(server: &mut agc::lsp::Server, uri: &str, at: Value) {
    let doc = serde_json::json!({ "uri": uri });
    let pos = serde_json::json!({ "textDocument": doc, "position": at });
    let whole = serde_json::json!({ "start": { "line": 0, "character": 0 },
                                    "end": { "line": 40, "character": 0 } });
    let lines = server.text(uri).map_or(0, |t| t.matches('\n').count());
    let asks = [
        (
            "textDocument/documentSymbol",
            serde_json::json!({ "textDocument": doc }),
        ),
        ("textDocument/hover", pos.clone()),
        ("textDocument/definition", pos.clone()),
        ("textDocument/completion", pos.clone()),
        ("textDocument/prepareRename", pos.clone()),
        ("textDocument/references", {
            let mut p = pos.clone();
            p["context"] = serde_json::json!({ "includeDeclaration": true });
            p
        }),
        ("textDocument/rename", {
            let mut p = pos.clone();
            p["newName"] = serde_json::json!("renamed_x");
            p
        }),
        (
            "textDocument/codeAction",
            serde_json::json!({ "textDocument": doc, "range": whole,
            "context": { "diagnostics": [] } }),
        ),
    ];
    for (method, params) in asks {
        let Ok(v) = agc::lsp::answer(server, method, params) else {
            continue;
        };
        let mut edits = Vec::new();
        if let Some(e) = v["changes"][uri].as_array() {
            edits.extend(e.iter());
        }
        for a in v.as_array().into_iter().flatten() {
            edits.extend(a["edit"]["changes"][uri].as_array().into_iter().flatten());
        }
        for e in edits {
            let line = e["range"]["end"]["line"].as_u64().unwrap_or(u64::MAX);
            assert!(
                line as usize <= lines,
                "{method}: an edit past line {lines}: {e}"
            );
        }
    }
}

/// The diagnostics of `version` were published once, with registered codes, inside the
/// lines of the text the server holds.
fn assert_published(server: &mut agc::lsp::Server, uri: &str, version: i32) {
    let out = server.take_output();
    let mine: Vec<&Value> = out
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
        .collect();
    assert_eq!(mine.len(), 1, "one publish per change: {out:?}");
    let params = &mine[0]["params"];
    assert_eq!(params["version"], version);
    let lines = server
        .text(uri)
        .expect("the document is open")
        .matches('\n')
        .count();
    for d in params["diagnostics"].as_array().into_iter().flatten() {
        for end in ["start", "end"] {
            let line = d["range"][end]["line"].as_u64().unwrap_or(u64::MAX);
            assert!(line as usize <= lines, "{d} past line {lines}");
        }
        let code = d["code"].as_str().unwrap_or_default();
        assert!(
            agc::diag::lookup(code).is_some(),
            "unregistered code {code}"
        );
    }
}
