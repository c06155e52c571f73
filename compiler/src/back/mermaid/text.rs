//! The words a diagram shows, shared by the Mermaid and DOT writers: edge labels (the author's
//! own first), region headers in plain language, and shortening that cuts at word or token
//! boundaries.
//!
//! Expressions are shown the way a person would write them on a whiteboard: a reference path of
//! three segments or more keeps only its last one (`nodes.run_tests.outputs.failing_count` reads
//! `failing_count`), and a cut is made from the end, keeping what the condition is about
//! (`score >= target || …`, never `… || loop.iteration >= 6`).

use crate::ir::{Edge, EdgeKind, Graph, LoopMode, NodeKind, RegionId, RegionKind, SubgraphSource};

/// Longest edge label drawn from an expression, in characters.
pub const EDGE_MAX: usize = 40;
/// Width of an authored edge label's lines (at most two).
pub const LABEL_WIDTH: usize = 24;
/// Longest expression inside a region header.
pub const HEADER_EXPR_MAX: usize = 36;

/// The label an edge shows, if any: its own `label`, then its named outcomes (`on`, on
/// conditional and back edges), then the
/// branch name a decision picks (`… == "ready"` on an edge out of a decision shows `ready`),
/// then its guard, shortened. Failure edges say so; back edges show their bound.
pub fn edge_label(g: &Graph, e: &Edge) -> Option<String> {
    // Named outcomes say which way a branch goes; on a plain sequence or failure edge they
    // only restate the arrow (`completed`, `failed`) and are not drawn.
    let branching = matches!(e.kind, EdgeKind::Conditional | EdgeKind::Back);
    let on = (branching && !e.on.is_empty()).then(|| e.on.join(" | "));
    let label = e
        .label
        .as_deref()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| authored_label(g, l));
    let label = label.as_deref();
    let authored = match (label, on) {
        // Both: the label names the edge (an Agent Graph `repeat`), the outcomes when it is
        // taken (`repeat: partial`).
        (Some(l), Some(on)) => Some(words(&format!("{l}: {on}"), LABEL_WIDTH, 2)),
        (Some(l), None) => Some(words(l, LABEL_WIDTH, 2)),
        (None, Some(on)) => Some(words(&on, LABEL_WIDTH, 2)),
        (None, None) => None,
    };
    let guard = e.guard.as_ref().map(|x| x.source.as_str());
    let source_is_decision = matches!(g.node(e.from).kind, NodeKind::Decision | NodeKind::Gate);
    let derived = || {
        let g = guard?;
        if source_is_decision && let Some(branch) = branch_name(g) {
            return Some(words(&branch, EDGE_MAX, 1));
        }
        Some(expr(g, EDGE_MAX))
    };
    match e.kind {
        EdgeKind::Sequence => authored,
        EdgeKind::Conditional => authored.or_else(derived),
        EdgeKind::Failure => Some(match (authored, guard) {
            (Some(a), _) => a,
            (None, Some(g)) => format!("on failure: {}", expr(g, EDGE_MAX - 12)),
            (None, None) => "on failure".into(),
        }),
        EdgeKind::Back => {
            let bound = e
                .bound
                .map_or_else(|| "unbounded".to_string(), |b| format!("max {b}"));
            Some(match authored.or_else(derived) {
                Some(a) => format!("{a} · {bound}"),
                None => format!("repeat · {bound}"),
            })
        }
    }
}

/// `x == "value"` (or `'value'`, or `"value" == x`): the value, when the guard is one
/// comparison of something with one string literal. Decisions route on such comparisons.
pub(crate) fn branch_name(guard: &str) -> Option<String> {
    let toks: Vec<Tok> = tokens(guard)
        .into_iter()
        .filter(|t| t.kind != Kind::Space)
        .collect();
    let at = toks.iter().position(|t| t.text == "==")?;
    let (left, right) = (&toks[..at], &toks[at + 1..]);
    let literal = |side: &[Tok]| match side {
        [t] if t.kind == Kind::Str => Some(unquote(&t.text)),
        _ => None,
    };
    let plain = |side: &[Tok]| side.iter().all(|t| t.kind == Kind::Word || t.text == ".");
    if plain(left) && !left.is_empty() {
        literal(right)
    } else if plain(right) && !right.is_empty() {
        literal(left)
    } else {
        None
    }
}

fn unquote(s: &str) -> String {
    let inner = &s[1..s.len() - 1];
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The plain-language header of a region: `until failing_count == 0 · max 5`,
/// `for each page in pages · max 200 · 4 in parallel`, `uses publish_checks`.
pub fn region_header(g: &Graph, r: RegionId) -> String {
    match &g.region(r).kind {
        RegionKind::Loop {
            mode,
            condition,
            max_iterations,
            ..
        } => {
            let cond = condition
                .as_ref()
                .filter(|c| !c.source.trim().is_empty())
                .map(|c| expr(&c.source, HEADER_EXPR_MAX));
            let n = *max_iterations;
            match (mode, cond) {
                (LoopMode::Until, Some(c)) => format!("until {c} · {}", cap(n)),
                (LoopMode::While, Some(c)) => format!("while {c} · {}", cap(n)),
                _ if n == u32::MAX => "repeats without limit".into(),
                (LoopMode::Repeat, _) => format!("{n} times"),
                (_, None) => format!("up to {n} times"),
            }
        }
        RegionKind::Map {
            over,
            item,
            max_items,
            max_parallel,
            ..
        } => {
            let mut parts = vec![format!("for each {}", words(item, 24, 1))];
            if !over.source.trim().is_empty() {
                parts[0] = format!("{} in {}", parts[0], expr(&over.source, HEADER_EXPR_MAX));
            }
            if *max_items > 0 {
                parts.push(cap(*max_items));
            }
            parts.push(match max_parallel {
                0 | 1 => "one at a time".to_string(),
                n => format!("{n} in parallel"),
            });
            parts.join(" · ")
        }
        RegionKind::Subgraph { source, .. } => match source {
            SubgraphSource::Use(name) => format!("uses {name}"),
            SubgraphSource::Ref(uri) => format!("from {uri}"),
            SubgraphSource::Inline => "inline subgraph".into(),
            SubgraphSource::Unknown => "subgraph".into(),
            SubgraphSource::Graph { .. } => format!("subgraph {source}"),
        },
        RegionKind::Parallel => "in parallel".into(),
    }
}

/// Longest diagram title, in characters: Mermaid draws the title on one line, and a
/// description of several sentences made a 700-pixel graph 3,400 pixels wide.
pub const TITLE_MAX: usize = 64;

/// The diagram's title: the graph's title (AGS `title`; the description in the other dialects)
/// up to its first sentence's end, cut at a word to [`TITLE_MAX`] characters; a graph with no
/// title gets its name.
pub fn graph_title(g: &Graph) -> Option<String> {
    let folded = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let title = g.title.as_deref().map(folded).filter(|t| !t.is_empty());
    let Some(t) = title else {
        let name = folded(&g.id);
        return (!name.is_empty()).then(|| words(&name, TITLE_MAX, 1));
    };
    // The first sentence: up to a `.`, `!` or `?` followed by a space.
    let end = t
        .char_indices()
        .find(|&(i, c)| matches!(c, '.' | '!' | '?') && t[i + 1..].starts_with(' '))
        .map_or(t.len(), |(i, _)| i + 1);
    Some(words(&t[..end], TITLE_MAX, 1))
}

/// A label an author gave in a dialect's own vocabulary, in words: Agent Graph names its edge
/// kinds in camel case (`gatedBy` reads `gated by`).
pub fn authored_label(g: &Graph, label: &str) -> String {
    let camel = g.dialect == "agent-graph"
        && label.chars().all(|c| c.is_ascii_alphabetic())
        && label.starts_with(|c: char| c.is_ascii_lowercase());
    if !camel {
        return label.to_string();
    }
    let mut out = String::with_capacity(label.len() + 4);
    for c in label.chars() {
        if c.is_ascii_uppercase() {
            out.push(' ');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A bound as a reader says it: `max 5`, or `no limit` for the largest count (how front ends
/// write "unbounded").
pub fn cap(n: u32) -> String {
    if n == u32::MAX {
        "no limit".into()
    } else {
        format!("max {n}")
    }
}

/// The header with the region's kind named, for places that do not show the repetition
/// otherwise (folded owners, loop containers without a body): `loop until … · max 5`.
pub fn region_summary(g: &Graph, r: RegionId) -> String {
    let header = region_header(g, r);
    match g.region(r).kind {
        RegionKind::Loop { .. } => format!("loop {header}"),
        RegionKind::Map { .. } => format!("map {header}"),
        _ => header,
    }
}

/// A node's text: its id, then its title (when it says more than the id) cut to `width`
/// characters a line and `lines` lines, authored line breaks kept.
pub fn node_text(id: &str, title: Option<&str>, width: usize, lines: usize) -> String {
    match title.map(str::trim).filter(|t| !t.is_empty() && *t != id) {
        Some(t) => format!("{id}\n{}", words(t, width, lines)),
        None => id.to_string(),
    }
}

/// Text wrapped at word boundaries: each authored line (blank ones dropped, runs of whitespace
/// folded) is wrapped to `width` characters; at most `lines` lines are kept, and when text is
/// left over the last one ends with `…`. A single word longer than a line is cut.
pub fn words(text: &str, width: usize, lines: usize) -> String {
    let width = width.max(2);
    let lines = lines.max(1);
    let mut out: Vec<String> = Vec::new();
    let mut left_over = false;
    'text: for authored in text.lines() {
        let mut cur = String::new();
        let mut cur_len = 0;
        for w in authored.split_whitespace() {
            let n = w.chars().count();
            let (w, n) = if n > width {
                let head: String = w.chars().take(width - 1).collect();
                (format!("{head}…"), width)
            } else {
                (w.to_string(), n)
            };
            if cur_len > 0 && cur_len + 1 + n > width {
                if out.len() + 1 == lines {
                    out.push(cur);
                    left_over = true;
                    break 'text;
                }
                out.push(std::mem::take(&mut cur));
                cur_len = 0;
            }
            if cur_len > 0 {
                cur.push(' ');
                cur_len += 1;
            }
            cur.push_str(&w);
            cur_len += n;
        }
        if cur_len > 0 {
            if out.len() == lines {
                left_over = true;
                break;
            }
            out.push(cur);
        }
    }
    if left_over
        && let Some(last) = out.last_mut()
        && !last.ends_with('…')
    {
        *last = with_ellipsis(last, width);
    }
    out.join("\n")
}

/// `line…` in at most `width` characters, dropping its last word(s) (or characters, for a
/// single word) to make room.
fn with_ellipsis(line: &str, width: usize) -> String {
    if line.chars().count() < width {
        return format!("{line}…");
    }
    let room: String = line.chars().take(width.saturating_sub(1)).collect();
    let next_is_space = line.chars().nth(width.saturating_sub(1)) == Some(' ');
    let head = match room.rfind(' ') {
        _ if next_is_space => room.as_str(),
        Some(i) if i > 0 => &room[..i],
        _ => room.as_str(),
    };
    format!("{}…", head.trim_end())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Identifiers, numbers, dotted paths (`nodes.a.outputs.b`, `$x.y`, `1.5`).
    Word,
    /// A string literal, quotes included.
    Str,
    Space,
    /// Operators and punctuation (`==`, `&&`, `(`, `,`).
    Punct,
}

#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    text: String,
}

fn tokens(src: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let chars: Vec<char> = src.chars().collect();
    let mut i = 0;
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '$');
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        let kind = if c.is_whitespace() {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            Kind::Space
        } else if c == '"' || c == '\'' || c == '`' {
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
            Kind::Str
        } else if word(c) {
            while i < chars.len() && word(chars[i]) {
                i += 1;
            }
            Kind::Word
        } else {
            let two: String = chars[i..chars.len().min(i + 2)].iter().collect();
            i += if ["==", "!=", "<=", ">=", "&&", "||", "=~", "//", "?:"].contains(&two.as_str()) {
                2
            } else {
                1
            };
            Kind::Punct
        };
        let mut text: String = chars[start..i].iter().collect();
        if kind == Kind::Space {
            text = " ".into();
        }
        if kind == Kind::Str && (text.chars().count() < 2 || !text.ends_with(c)) {
            // An unterminated literal: show it as written.
            out.push(Tok {
                kind: Kind::Punct,
                text,
            });
            continue;
        }
        out.push(Tok { kind, text });
    }
    out
}

/// The last segment of a reference path of three or more segments (`nodes.x.outputs.y` → `y`,
/// jq's `.state.review.verdict` → `verdict`, `$.a.b.c` → `c`); numbers and shorter paths as
/// written.
fn simplify(word: &str) -> &str {
    let path = word.trim_start_matches(['.', '$']);
    let starts_alpha = path
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_');
    if starts_alpha && path.split('.').count() >= 3 && !path.ends_with('.') {
        path.rsplit('.').next().unwrap_or(word)
    } else {
        word
    }
}

/// A Go template that is one action (`{{ .a.b }}`, `{{- x -}}`) shown as its inside.
fn unwrap_template(src: &str) -> &str {
    let s = src.trim();
    match s.strip_prefix("{{").and_then(|r| r.strip_suffix("}}")) {
        Some(inner) if !inner.contains("{{") && !inner.contains("}}") => {
            inner.trim_start_matches('-').trim_end_matches('-').trim()
        }
        _ => s,
    }
}

/// An expression for a label: whitespace folded, reference paths simplified, and when longer
/// than `max` characters, cut from the end so that its subject stays: at the last top-level
/// `&&` / `||` (`and` / `or`) that leaves room (`score >= target || …`), else at the last token
/// that fits (`decision == "needs_remedi…`).
pub fn expr(src: &str, max: usize) -> String {
    let toks: Vec<Tok> = tokens(unwrap_template(src))
        .into_iter()
        .map(|t| match t.kind {
            Kind::Word => Tok {
                text: simplify(&t.text).to_string(),
                kind: t.kind,
            },
            _ => t,
        })
        .collect();
    let len = |ts: &[Tok]| ts.iter().map(|t| t.text.chars().count()).sum::<usize>();
    if len(&toks) <= max {
        return concat(&toks);
    }
    const JOIN: [&str; 4] = ["&&", "||", "and", "or"];
    let mut depth = 0i32;
    let mut best = None;
    let mut used = 0;
    for (i, t) in toks.iter().enumerate() {
        match t.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            // `kept op …`: the operands before the operator, whole.
            s if depth == 0 && t.kind != Kind::Str && JOIN.contains(&s) && i > 0 => {
                let kept = concat(&toks[..i]);
                let kept = kept.trim_end();
                if kept.chars().count() + s.len() + 3 <= max {
                    best = Some(format!("{kept} {s} …"));
                } else {
                    break;
                }
            }
            _ => {}
        }
        used += t.text.chars().count();
        if used > max {
            break;
        }
    }
    best.unwrap_or_else(|| cut_tokens(&toks, max))
}

fn concat(toks: &[Tok]) -> String {
    toks.iter().map(|t| t.text.as_str()).collect()
}

/// The leading tokens that fit in `max - 1` characters, then `…`; the first token that does
/// not fit is cut by characters when a useful part of it (4 characters or more) fits.
fn cut_tokens(toks: &[Tok], max: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    let room = max.saturating_sub(1);
    for t in toks {
        let n = t.text.chars().count();
        if used + n > room {
            if room - used >= 4 || out.trim().is_empty() {
                out.extend(t.text.chars().take(room - used));
            }
            break;
        }
        out.push_str(&t.text);
        used += n;
    }
    format!("{}…", out.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_paths_keep_their_last_segment() {
        assert_eq!(
            expr("nodes.run_tests.outputs.failing_count == 0", 40),
            "failing_count == 0"
        );
        assert_eq!(
            expr("len(nodes.link_audit.outputs.broken_links) > 0", 40),
            "len(broken_links) > 0"
        );
        // Short paths and numbers stay as written; jq and template paths read the same way.
        assert_eq!(expr("params.x >= 1.5", 40), "params.x >= 1.5");
        assert_eq!(expr(".x + 1.25", 40), ".x + 1.25");
        assert_eq!(expr(".state.review.verdict", 40), "verdict");
        assert_eq!(expr("{{- .steps.scan.output.items -}}", 40), "items");
        assert_eq!(expr("{{ a }} and {{ b }}", 40), "{{ a }} and {{ b }}");
    }

    #[test]
    fn cut_expressions_keep_their_subject() {
        // The held-out loop's condition: the first operand whole, the rest cut.
        assert_eq!(
            expr(
                "nodes.score.outputs.score >= params.target_score || loop.iteration >= 6",
                36
            ),
            "score >= params.target_score || …"
        );
        assert_eq!(
            expr("a == 1 && b == 2 && some_long_name_here == 3", 21),
            "a == 1 && b == 2 && …"
        );
        let e = expr(
            "nodes.release_readiness.outputs.decision == \"needs_remediation_of_many_things\"",
            40,
        );
        assert!(e.starts_with("decision == \"needs_remediation"), "{e}");
        assert!(e.ends_with('…') && e.chars().count() <= 40, "{e}");
        // Parentheses group: an operator inside them is not a top-level one.
        assert_eq!(
            expr(
                "contains(aaaaaaaaaaaaaaaa || bbbbbbbbbbbbbbbbbbbbb, cccccccccc)",
                20
            ),
            "contains(aaaaaaaaaa…"
        );
        // A string holding `||` is no operator.
        assert_eq!(
            expr("x == '||' && yyyyyyyyyyyyyyyyyyy", 16),
            "x == '||' && …"
        );
    }

    #[test]
    fn a_value_too_long_is_cut_at_its_end() {
        let e = expr("x == \"a very very very long value indeed\"", 20);
        assert!(e.starts_with("x == \"a very"), "{e}");
        assert!(e.ends_with('…'));
        assert!(e.chars().count() <= 20, "{e}");
    }

    #[test]
    fn branch_names_come_from_string_comparisons() {
        assert_eq!(
            branch_name("nodes.r.outputs.decision == \"ready\"").as_deref(),
            Some("ready")
        );
        assert_eq!(branch_name("'a b' == verdict").as_deref(), Some("a b"));
        // AWP switch cases (jq) and CEL guards read the same way.
        assert_eq!(
            branch_name(".state.review.verdict == \"approve\"").as_deref(),
            Some("approve")
        );
        assert_eq!(
            branch_name("state.review.verdict == 'needs \\'work\\''").as_deref(),
            Some("needs 'work'")
        );
        assert_eq!(branch_name("x == 1"), None);
        assert_eq!(branch_name("a == \"x\" && b == \"y\""), None);
        assert_eq!(branch_name("\"unterminated == x"), None);
    }

    #[test]
    fn titles_cut_at_words_and_keep_authored_lines() {
        assert_eq!(
            words("Diagnose and fix until the suite is green", 20, 1),
            "Diagnose and fix…"
        );
        assert_eq!(
            words("Diagnose and fix until the suite is green", 20, 2),
            "Diagnose and fix\nuntil the suite is…"
        );
        assert_eq!(
            words("Diagnose and fix until the suite is green", 20, 3),
            "Diagnose and fix\nuntil the suite is\ngreen"
        );
        assert_eq!(words("Two\nlines é ü 漢字", 20, 2), "Two\nlines é ü 漢字");
        assert_eq!(words("a\nb\nc", 20, 2), "a\nb…");
        assert_eq!(words("a  b\n\n  c ", 20, 3), "a b\nc");
        assert_eq!(words("Supercalifragilistic", 8, 1), "Superca…");
        assert_eq!(words("ab cd", 3, 1), "ab…");
        assert_eq!(words("abc def", 3, 1), "ab…");
    }

    #[test]
    fn graph_titles_stop_at_the_first_sentence_and_fit() {
        let mut g = Graph::new("awp", "paperclip-read-parallel".into());
        g.title = Some(
            "Read three sources in parallel. Then merge them and write a report with\n every \
             finding. A third sentence."
                .into(),
        );
        assert_eq!(
            graph_title(&g).as_deref(),
            Some("Read three sources in parallel.")
        );
        g.title = Some("One very long sentence that goes on and on well past what a title line holds without a stop".into());
        let t = graph_title(&g).unwrap();
        assert!(t.ends_with('…') && t.chars().count() <= TITLE_MAX, "{t}");
        assert!(t.starts_with("One very long sentence"), "{t}");
        // No description: the name.
        g.title = Some("  ".into());
        assert_eq!(graph_title(&g).as_deref(), Some("paperclip-read-parallel"));
        g.id = String::new();
        assert_eq!(graph_title(&g), None);
        // Version numbers and paths are not sentence ends.
        g.title = Some("Ship v1.2 of agc.io today".into());
        assert_eq!(
            graph_title(&g).as_deref(),
            Some("Ship v1.2 of agc.io today")
        );
    }

    #[test]
    fn agent_graph_edge_kinds_read_as_words() {
        let g = Graph::new("agent-graph", "g".into());
        assert_eq!(authored_label(&g, "gatedBy"), "gated by");
        assert_eq!(authored_label(&g, "requires"), "requires");
        assert_eq!(authored_label(&g, "Hold it"), "Hold it");
        let ags = Graph::new("ags", "g".into());
        assert_eq!(authored_label(&ags, "gatedBy"), "gatedBy");
    }

    #[test]
    fn tokens_survive_odd_input() {
        for s in ["\"", "'abc", "a\\", "é\"\\\"x", "((", "==", ""] {
            let _ = expr(s, 5);
            let _ = branch_name(s);
        }
    }
}
