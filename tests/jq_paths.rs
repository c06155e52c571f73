//! State paths listed by `parse_jq`: what the AWP front end checks against `state_schema`.

use agc::expr::jq::{JqPath, parse_jq};
use agc::source::FileId;
use agc::source::scalar::ScalarMap;

/// Paths of `src`, each with the text of its span.
fn paths(src: &str) -> Vec<String> {
    let map = ScalarMap::contiguous(FileId(0), 0, src.len());
    let prog = parse_jq(src, &map).unwrap_or_else(|d| panic!("{src}: {d:?}"));
    prog.paths
        .iter()
        .map(|(p, s): &(JqPath, _)| format!("{p} @ {}", &src[s.range()]))
        .collect()
}

macro_rules! case {
    ($name:ident, $src:expr, [$($want:expr),* $(,)?]) => {
        #[test]
        fn $name() {
            let want: Vec<&str> = vec![$($want),*];
            assert_eq!(paths($src), want);
        }
    };
}

case!(field_chain, ".a.b.c", [".a.b.c @ .a.b.c"]);
case!(
    pipe_select,
    r#".steps[] | select(.kind=="llm") | .model"#,
    [
        ".steps[] @ .steps[]",
        ".steps[].kind @ .kind",
        ".steps[].model @ .model"
    ]
);
case!(
    bare_iterate,
    ".[] | .name",
    [".[] @ .[]", ".[].name @ .name"]
);
case!(
    quoted_keys,
    r#"."a b" | .["c"]"#,
    [r#".["a b"] @ ."a b""#, r#".["a b"].c @ .["c"]"#]
);
case!(
    indices,
    ".items[0].id, .items[-1]",
    [".items[0].id @ .items[0].id", ".items[-1] @ .items[-1]"]
);
case!(slice, ".text[0:120]", [".text[:] @ .text[0:120]"]);
case!(
    dynamic_index,
    ".rows[.i]",
    [".i @ .i", ".rows[?] @ .rows[.i]"]
);
case!(optional, ".a?.b?", [".a.b @ .a?.b?"]);
case!(alternative, r#".title // "untitled""#, [".title @ .title"]);
case!(
    comparisons,
    r#".intent == "billing" and .confidence > 0.8"#,
    [".intent @ .intent", ".confidence @ .confidence"]
);
case!(
    if_branches,
    "if .ok then .result else .error end | .code",
    [
        ".ok @ .ok",
        ".result @ .result",
        ".error @ .error",
        ".result.code @ .code",
        ".error.code @ .code"
    ]
);
case!(
    object_construction,
    r#"{ result: { text: .ticket_text }, id, "n": .count }"#,
    [".ticket_text @ .ticket_text", ".id @ id", ".count @ .count"]
);
case!(
    variables_carry_paths,
    ".config as $c | $c.model, $c.limits[0]",
    [
        ".config @ .config",
        ".config.model @ $c.model",
        ".config.limits[0] @ $c.limits[0]"
    ]
);
case!(
    destructuring,
    ". as {user: {name: $n}, $tags} | $n, $tags[]",
    [".user.name @ $n", ".tags @ $tags", ".tags[] @ $tags[]"]
);
case!(
    map_reads_elements,
    "([.items[] | .price] | add), (.items | map(.qty))",
    [
        ".items[] @ .items[]",
        ".items[].price @ .price",
        ".items @ .items",
        ".items[].qty @ .qty"
    ]
);
case!(
    reduce_source_is_tracked_not_accumulator,
    "reduce .xs[] as $x (0; . + $x.n)",
    [".xs[] @ .xs[]", ".xs[].n @ $x.n"]
);
case!(
    untracked_after_fromjson,
    r#"(.raw | fromjson) as $d | $d.items, .other"#,
    [".raw @ .raw", ".other @ .other"]
);
case!(
    try_body_tracked_catch_not,
    "try .a.b catch .c",
    [".a.b @ .a.b"]
);
case!(
    string_interpolation,
    r#""Hello \(.user.name)! \(.n + 1)""#,
    [".user.name @ .user.name", ".n @ .n"]
);
case!(
    user_defs_are_not_followed,
    "def pick_model: .model; .steps[] | pick_model",
    [".steps[] @ .steps[]"]
);
case!(
    update_assign,
    ".count += 1 | .tags |= map(.x)",
    [".count @ .count", ".tags @ .tags", ".tags[].x @ .x"]
);
case!(recurse_is_untracked, ".. | .a?", []);
case!(getpath_is_untracked, r#"getpath(["a", "b"])"#, []);
case!(first_last, ".xs | first, last", [".xs @ .xs"]);
case!(
    comments_and_newlines,
    ".a # .not_me\n| .b",
    [".a @ .a", ".a.b @ .b"]
);
case!(
    awp_paperclip_style,
    r#"{ raw_chars: ((.text // "") | tostring | length), preview: ((.text // "") | tostring | .[0:120]) }"#,
    [".text @ .text", ".text @ .text"]
);

#[test]
fn first_and_last_without_arguments_index() {
    let got = paths(".xs | first | .id");
    assert_eq!(got, vec![".xs @ .xs", ".xs[0].id @ .id"]);
}

#[test]
fn spans_go_through_the_scalar_map() {
    // The program sits at byte 10 of the file.
    let src = ".a | .b";
    let map = ScalarMap::contiguous(FileId(3), 10, src.len());
    let prog = parse_jq(src, &map).unwrap();
    let spans: Vec<_> = prog
        .paths
        .iter()
        .map(|(_, s)| (s.file, s.start, s.end))
        .collect();
    assert_eq!(spans, vec![(FileId(3), 10, 12), (FileId(3), 15, 17)]);
}
