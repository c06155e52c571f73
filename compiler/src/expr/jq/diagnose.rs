//! Runs the checks of [`super::parse_jq`] on the jq thread and turns findings into
//! diagnostics.

use super::path::JqPath;
use super::walk;
use crate::diag::Diagnostic;
use crate::source::scalar::ScalarMap;
use agc_runtime::jq::jaq_core::load::{Lexer, Parser};
use agc_runtime::jq::nesting::MAX_NESTING;
use agc_runtime::jq::{CompileErrorKind, JqError, check_filter, known_filters, on_jq_stack};
use std::ops::Range;

/// A finding with a byte range in the program text.
pub(super) struct Finding {
    code: &'static str,
    message: String,
    pub range: Range<usize>,
    help: Option<String>,
}

impl Finding {
    fn new(code: &'static str, message: impl Into<String>, range: Range<usize>) -> Finding {
        Finding {
            code,
            message: message.into(),
            range,
            help: None,
        }
    }

    fn help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }

    pub fn into_diagnostic(self, map: &ScalarMap) -> Diagnostic {
        let d =
            Diagnostic::new(self.code, self.message).at(map.span(self.range.start, self.range.end));
        match self.help {
            Some(h) => d.with_help(h),
            None => d,
        }
    }
}

#[derive(Default)]
pub(super) struct Analysis {
    pub errors: Vec<Finding>,
    pub warnings: Vec<Finding>,
    pub paths: Vec<(JqPath, Range<usize>)>,
    /// Whether the program reads the state as a whole (see [`walk::Found::whole`]).
    pub whole: bool,
}

/// Builtins whose results depend on the host, or that AWP's engine turns into failures.
const HOST_DEPENDENT: &[(&str, usize, &str)] = &[
    (
        "env",
        0,
        "reads the process environment, so results differ between hosts",
    ),
    (
        "now",
        0,
        "reads the clock, so results differ between runs and replays",
    ),
    ("localtime", 0, "depends on the host time zone"),
    ("strflocaltime", 1, "depends on the host time zone"),
    (
        "debug",
        0,
        "writes to stderr; AWP's engine (jq-wasm) fails the node on any stderr output",
    ),
    (
        "debug",
        1,
        "writes to stderr; AWP's engine (jq-wasm) fails the node on any stderr output",
    ),
    (
        "stderr",
        0,
        "writes to stderr; AWP's engine (jq-wasm) fails the node on any stderr output",
    ),
    (
        "halt",
        0,
        "stops the jq program; AWP's engine reports it as a failure",
    ),
    ("halt_error", 0, "stops the jq program with an error"),
    ("halt_error", 1, "stops the jq program with an error"),
];

pub(super) fn analyse(src: &str) -> Analysis {
    analyse_many(vec![src.to_string()])
        .pop()
        .unwrap_or_default()
}

/// [`analyse`] for many programs, all on one jq thread (one thread start per batch, not per
/// program).
pub(super) fn analyse_many(srcs: Vec<String>) -> Vec<Analysis> {
    let lens: Vec<usize> = srcs.iter().map(String::len).collect();
    match on_jq_stack(move || srcs.iter().map(|s| analyse_here(s)).collect()) {
        Ok(a) => a,
        Err(e) => lens
            .into_iter()
            .map(|len| Analysis {
                errors: vec![Finding::new(
                    "jq-syntax",
                    format!("jq program could not be checked: {e}"),
                    0..len,
                )],
                ..Analysis::default()
            })
            .collect(),
    }
}

fn analyse_here(src: &str) -> Analysis {
    let mut a = check(src);
    // Ranges past the end of the program (a token that runs to the end) are clamped, so they
    // map inside the scalar.
    for f in a.errors.iter_mut().chain(a.warnings.iter_mut()) {
        f.range.end = f.range.end.min(src.len());
        f.range.start = f.range.start.min(f.range.end);
    }
    a
}

fn check(src: &str) -> Analysis {
    let mut a = Analysis::default();
    match check_filter(src) {
        Ok(_) => {}
        Err(JqError::TooDeep { at, len }) => {
            a.errors.push(
                Finding::new(
                    "AGC062",
                    format!("jq program nests too deeply (more than {MAX_NESTING} levels)"),
                    at..at + len,
                )
                .help("split the program with `def`s, or spread the work over several steps"),
            );
            return a;
        }
        Err(JqError::Compile(errs)) => {
            a.errors.extend(
                errs.into_iter()
                    .filter_map(|e| surrogate_escape(src, compile_finding(e))),
            );
            return a;
        }
        Err(other) => {
            a.errors
                .push(Finding::new("jq-syntax", other.to_string(), 0..src.len()));
            return a;
        }
    }
    // jaq accepted the program; parse it again, this time keeping the syntax tree.
    let tokens = match Lexer::new(src).lex() {
        Ok(t) => t,
        Err(_) => return a, // unreachable: the loader lexed the same text
    };
    let term = match Parser::new(&tokens).parse(|p| p.term()) {
        Ok(t) => t,
        Err(_) => {
            // The loader accepts a leading `module {…};`, a bare term parse does not.
            let at = src.find("module").unwrap_or(0);
            a.errors.push(
                Finding::new(
                    "AGC063",
                    "jq module directives are not supported",
                    at..at + 6,
                )
                .help("remove the `module` line; a workflow jq program is a single filter"),
            );
            return a;
        }
    };
    let found = walk::walk(src, &term);
    for (name, arity, range) in found.calls {
        if let Some((_, _, why)) = HOST_DEPENDENT
            .iter()
            .find(|(n, k, _)| *n == name && *k == arity)
        {
            a.warnings
                .push(Finding::new("AGC064", format!("`{name}` {why}"), range));
        }
    }
    for (call, arity) in super::recursion::unguarded(&term) {
        let range = agc_runtime::jq::jaq_core::load::span(src, call);
        a.warnings.push(
            Finding::new(
                "AGC065",
                format!(
                    "`{call}/{arity}` calls itself before it can yield or stop: the recursion \
                     has no reachable base case (at run time it fails with AGC043)"
                ),
                range,
            )
            .help(format!(
                "give it a base case first, e.g. `if COND then . else … | {call} end`"
            )),
        );
    }
    a.paths = found.paths;
    a.whole = found.whole;
    a
}

/// A lexer error at the hex digits of a `\\u` escape for a UTF-16 surrogate (`\\ud83d`): jq
/// reads a pair of them as one character, jaq refuses both halves with "expected 4-digit
/// hexadecimal UTF-8 code point", which reads as if the digits were missing. Say what is
/// refused and, for a pair, which character to write instead (docs/jq-differences.md); the
/// pair's second half is then not reported again (`None`).
fn surrogate_escape(src: &str, f: Finding) -> Option<Finding> {
    let hex_at = |at: usize| {
        src.get(at..at + 4)
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    };
    let Some(unit) = hex_at(f.range.start).filter(|u| (0xD800..0xE000).contains(u)) else {
        return Some(f);
    };
    let after_high = f.range.start >= 6
        && src.get(f.range.start - 2..f.range.start) == Some("\\u")
        && hex_at(f.range.start - 6).is_some_and(|h| (0xD800..0xDC00).contains(&h));
    if unit >= 0xDC00 && after_high {
        return None;
    }
    let pair = if unit < 0xDC00 && src.get(f.range.start + 4..f.range.start + 6) == Some("\\u") {
        hex_at(f.range.start + 6)
            .filter(|lo| (0xDC00..0xE000).contains(lo))
            .and_then(|lo| char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (lo - 0xDC00)))
    } else {
        None
    };
    let message = format!(
        "`\\u{}` is a UTF-16 surrogate escape, which jaq (the jq agc checks and runs with) does \
         not read",
        &src[f.range.start..f.range.start + 4]
    );
    let help = match pair {
        Some(c) => format!(
            "write the character itself (`{c}`, U+{:04X}) instead of the escape pair",
            c as u32
        ),
        None => "write the character itself instead of the escape".to_string(),
    };
    Some(Finding::new(f.code, message, f.range).help(help))
}

fn compile_finding(e: agc_runtime::jq::CompileError) -> Finding {
    match e.kind {
        CompileErrorKind::Lex | CompileErrorKind::Parse => {
            Finding::new("jq-syntax", e.message, e.range)
        }
        CompileErrorKind::Module => Finding::new(
            "AGC063",
            "jq modules are not supported (`import` / `include`)",
            e.range,
        )
        .help("define the filters you need with `def` inside the program"),
        CompileErrorKind::Undefined { what, name, arity } => {
            let f = Finding::new("AGC061", e.message, e.range);
            match (name.as_str(), arity) {
                ("input" | "inputs", _) | ("$ENV" | "$__loc__", None) => f.help(
                    "a workflow jq program sees only its input (the state); there is no input stream or environment",
                ),
                (_, Some(n)) => match suggestion(&name, n) {
                    Some(s) => f.help(format!("did you mean `{s}`?")),
                    None => f,
                },
                _ if what == "variable" => f.help("bind it first, e.g. `.x as $x | …`"),
                _ => f,
            }
        }
    }
}

/// The closest known filter name with the same arity (see [`max_distance`]), or the same
/// name with its real arities.
fn suggestion(name: &str, arity: usize) -> Option<String> {
    let known = known_filters();
    if let Some((n, _)) = known.iter().find(|(n, a)| *n == name && *a != arity) {
        let arities: Vec<String> = known
            .iter()
            .filter(|(k, _)| k == n)
            .map(|(k, a)| format!("{k}/{a}"))
            .collect();
        return Some(arities.join("` or `"));
    }
    known
        .iter()
        .filter(|(_, a)| *a == arity)
        .map(|(n, _)| (crate::diag::suggest::distance(name, n), *n))
        .filter(|(d, _)| *d <= max_distance(name))
        .min()
        .map(|(_, n)| n.to_string())
}

/// How many edits a suggestion may be away: none for names of one or two characters.
fn max_distance(name: &str) -> usize {
    match name.chars().count() {
        0..=2 => 0,
        3..=4 => 1,
        _ => 2,
    }
}
