//! [`JqError`] and [`CompileError`]: why a jq program did not compile or run.

use super::meter::Exceeded;
use super::meter::MAX_OUTPUTS;
use serde_json::Value;
use std::fmt;

/// Why a jq program did not produce its outputs.
#[derive(Clone, Debug, PartialEq)]
pub enum JqError {
    /// The filter nests deeper than [`super::nesting::MAX_NESTING`] (byte range of the culprit).
    TooDeep { at: usize, len: usize },
    /// The filter does not lex or parse, loads a module, or refers to undefined names.
    Compile(Vec<CompileError>),
    /// The filter raised an error; `value` is what `try … catch` would see.
    Runtime { message: String, value: Value },
    /// The filter called `halt` / `halt_error`.
    Halt(i32),
    /// More than [`MAX_OUTPUTS`] outputs.
    TooManyOutputs,
    /// The input nests deeper than [`super::value::MAX_VALUE_DEPTH`].
    InputTooDeep,
    /// An output is not JSON (too deep, or an object key that is not a string).
    BadOutput(String),
    /// The evaluation exceeded one of its [`super::Limits`].
    Limit(Exceeded),
    /// The jq thread could not start, or jaq panicked (a bug in jaq).
    Internal(String),
}

impl fmt::Display for JqError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JqError::TooDeep { at, .. } => write!(f, "jq program nests too deeply (at byte {at})"),
            JqError::Compile(errs) => {
                let msgs: Vec<_> = errs.iter().map(|e| e.message.as_str()).collect();
                write!(f, "invalid jq program: {}", msgs.join("; "))
            }
            JqError::Runtime { message, .. } => write!(f, "jq error: {message}"),
            JqError::Halt(code) => write!(f, "jq program halted with exit code {code}"),
            JqError::TooManyOutputs => {
                write!(f, "jq program produced more than {MAX_OUTPUTS} outputs")
            }
            JqError::InputTooDeep => write!(f, "jq input nests too deeply"),
            JqError::BadOutput(m) => write!(f, "jq output is not JSON: {m}"),
            JqError::Limit(e) => write!(f, "jq evaluation stopped: {e}"),
            JqError::Internal(m) => write!(f, "internal jq failure: {m}"),
        }
    }
}

impl std::error::Error for JqError {}

/// What kind of problem a [`CompileError`] is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileErrorKind {
    /// A character sequence that is no jq token (unclosed string, bad escape, `&`).
    Lex,
    /// Tokens that do not form a jq program.
    Parse,
    /// `import` / `include`: modules cannot be loaded.
    Module,
    /// A name that is not defined: `what` is `filter`, `variable`, `label` or `module`;
    /// `arity` is the number of arguments for filters.
    Undefined {
        what: &'static str,
        name: String,
        arity: Option<usize>,
    },
}

/// One problem found while compiling a filter, with its byte range in the filter text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    pub kind: CompileErrorKind,
    pub message: String,
    pub range: std::ops::Range<usize>,
}

/// Compiler errors (undefined names) with byte ranges in `src`.
pub(super) fn undefined_errors<P>(
    src: &str,
    errs: jaq_core::compile::Errors<&str, P>,
) -> Vec<CompileError> {
    let mut out = Vec::new();
    for (_file, undefs) in errs {
        for (name, undef) in undefs {
            let arity = match undef {
                jaq_core::compile::Undefined::Filter(n) => Some(n),
                _ => None,
            };
            let what = undef.as_str();
            let message = match arity {
                Some(n) => format!("undefined {what} `{name}/{n}`"),
                None => format!("undefined {what} `{name}`"),
            };
            out.push(CompileError {
                kind: CompileErrorKind::Undefined {
                    what,
                    name: name.to_string(),
                    arity,
                },
                message,
                range: jaq_core::load::span(src, name),
            });
        }
    }
    out
}

/// Loader errors with byte ranges in `src`.
pub(super) fn load_errors(src: &str, errs: jaq_core::load::Errors<&str, ()>) -> Vec<CompileError> {
    use jaq_core::load::Error;
    let mut out = Vec::new();
    let mut push = |kind, message, range| {
        out.push(CompileError {
            kind,
            message,
            range,
        })
    };
    for (_file, err) in errs {
        match err {
            Error::Io(items) => {
                for (path, msg) in items {
                    let m = format!("cannot load jq module \"{path}\": {msg}");
                    push(CompileErrorKind::Module, m, jaq_core::load::span(src, path));
                }
            }
            Error::Lex(items) => {
                for (expect, rest) in items {
                    let at = jaq_core::load::span(src, rest).start;
                    // One character (or nothing at the end) where lexing stopped.
                    let end = at + rest.chars().next().map_or(0, char::len_utf8);
                    let m = match expect {
                        jaq_core::load::lex::Expect::Token => match rest.chars().next() {
                            Some(c @ (')' | ']' | '}')) => format!("unmatched `{c}`"),
                            Some(c) => format!("unexpected character `{c}`"),
                            None => "unexpected end of program".to_string(),
                        },
                        e => format!("expected {}", e.as_str()),
                    };
                    push(CompileErrorKind::Lex, m, at..end);
                }
            }
            Error::Parse(items) => {
                for (expect, found) in items {
                    let r = jaq_core::load::span(src, found);
                    let want = match expect {
                        jaq_core::load::parse::Expect::Just(tok) => format!("`{tok}`"),
                        jaq_core::load::parse::Expect::Nothing => "end of program".to_string(),
                        other => other.as_str().to_string(),
                    };
                    let m = if found.is_empty() {
                        format!("expected {want}, found end of program")
                    } else {
                        format!("expected {want}, found `{}`", excerpt(found))
                    };
                    // A bracketed block is reported at its opening delimiter.
                    let r = if found.len() > 1 && found.starts_with(['(', '[', '{']) {
                        r.start..r.start + 1
                    } else {
                        r
                    };
                    push(CompileErrorKind::Parse, m, r);
                }
            }
        }
    }
    out
}

/// The first line of a token, at most 24 characters.
fn excerpt(tok: &str) -> String {
    let line = tok.lines().next().unwrap_or("");
    let mut s: String = line.chars().take(24).collect();
    if s.len() < tok.len() {
        s.push('…');
    }
    s
}
