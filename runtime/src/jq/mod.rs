//! jq evaluation through jaq (`jaq-core` + `jaq-std` + `jaq-json`).
//!
//! AWP documents carry jq programs (switch `when`, `set_state` assignments, input and output
//! mappings); runners evaluate them here and the compiler checks them with the same crates,
//! so both agree on what a program means.
//!
//! [`run_jq`] compiles a filter with jaq's core, standard and JSON definitions, runs it on one
//! input and returns **all** outputs, in order. Errors are values ([`JqError`]), never panics.
//!
//! [`check_filter`] answers "would this compile?" without building a runnable filter: it
//! compiles the program against the *signatures* of the library (collected once per process),
//! which costs microseconds where compiling the library itself costs milliseconds. The
//! compiler checks programs with it.
//!
//! Bounds:
//! - **Nesting**: the filter text is pre-scanned ([`nesting`]) and rejected above
//!   [`nesting::MAX_NESTING`], because jaq's parser and compiler recurse.
//! - **Recursion, memory, time**: every evaluation runs under [`Limits`] (stack used by
//!   recursion, bytes held, wall-clock time), checked by ticks that `instrument` puts into
//!   the program and the library ([`meter`] says where and why that covers every loop). An
//!   exceeded limit is [`JqError::Limit`], never a stack overflow or an out-of-memory abort:
//!   `def f: [f]; f`, `[range(1e9)]`, `last(range(1e18))` and `"x" * 1e10` all end so.
//! - **Outputs**: at most [`MAX_OUTPUTS`] (10,000) outputs are collected; one more is
//!   [`JqError::TooManyOutputs`]. This stops top-level generators that never end, such as
//!   `repeat(1)`, `range(1e18)` or `recurse(. + 1)`.
//! - **Values**: inputs and outputs nested deeper than [`value::MAX_VALUE_DEPTH`] are errors.
//! - `halt`/`halt_error` become [`JqError::Halt`] (jaq's own helper would exit the process).
//! - `input`, `inputs` and `$ENV` are not defined (no input stream, no environment);
//!   `env` and `now` exist but make results depend on the host. `debug` and `stderr` are
//!   silent (jaq routes them to the `log` crate).

/// jaq's core crate, re-exported so the compiler parses with exactly the version runners run.
pub use jaq_core;

mod check;
mod depth;
mod instrument;
pub mod meter;
pub mod nesting;
pub mod value;

pub use check::check_filter;
pub use meter::{Exceeded, Limits, run_limits, set_run_limits};

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars};
use serde_json::Value;
use std::fmt;

/// Most outputs [`run_jq`] collects before failing with [`JqError::TooManyOutputs`].
pub const MAX_OUTPUTS: usize = 10_000;

type D = meter::Metered;

/// The name of the definition that holds the program (callable from jq text, so the loader can
/// call it; a program that defines the same name only shadows it inside itself).
const MAIN: &str = "__agc_main__";

/// Why a jq program did not produce its outputs.
#[derive(Clone, Debug, PartialEq)]
pub enum JqError {
    /// The filter nests deeper than [`nesting::MAX_NESTING`] (byte range of the culprit).
    TooDeep { at: usize, len: usize },
    /// The filter does not lex or parse, loads a module, or refers to undefined names.
    Compile(Vec<CompileError>),
    /// The filter raised an error; `value` is what `try … catch` would see.
    Runtime { message: String, value: Value },
    /// The filter called `halt` / `halt_error`.
    Halt(i32),
    /// More than [`MAX_OUTPUTS`] outputs.
    TooManyOutputs,
    /// The input nests deeper than [`value::MAX_VALUE_DEPTH`].
    InputTooDeep,
    /// An output is not JSON (too deep, or an object key that is not a string).
    BadOutput(String),
    /// The evaluation exceeded one of its [`Limits`].
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

/// A compiled jq filter, reusable across inputs.
///
/// Unlike [`run_jq`], [`JqFilter::compile`] and [`JqFilter::run`] work on the caller's
/// thread: call them from [`on_jq_stack`] or a thread with at least 8 MiB of stack.
pub struct JqFilter {
    filter: jaq_core::Filter<D>,
}

impl JqFilter {
    /// Compiles `src` with jaq's core, standard and JSON definitions, with the checks of
    /// [`meter`] put in (see `instrument`).
    pub fn compile(src: &str) -> Result<JqFilter, JqError> {
        if let Err(e) = nesting::check_nesting(src, nesting::MAX_NESTING) {
            return Err(JqError::TooDeep {
                at: e.at,
                len: e.len,
            });
        }
        let arena = Arena::default();
        // The program is parsed here to be instrumented, then loaded as the body of `MAIN`.
        // Text that does not parse as a term (a syntax error, a module directive) is loaded
        // as is, for the loader's errors.
        let Some(main) = jaq_core::load::parse(src, |p| p.term()) else {
            let errs = Loader::new(definitions())
                .load(
                    &arena,
                    File {
                        code: src,
                        path: (),
                    },
                )
                .err()
                .unwrap_or_default();
            return Err(JqError::Compile(load_errors(src, errs)));
        };
        let main = instrument::def(jaq_core::load::parse::Def {
            name: MAIN,
            args: Vec::new(),
            body: main,
        });
        let modules = Loader::new(definitions().map(shorten).chain([main]))
            .load(
                &arena,
                File {
                    code: MAIN,
                    path: (),
                },
            )
            .map_err(|errs| JqError::Compile(load_errors(src, errs)))?;
        let filter = Compiler::default()
            .with_funs(functions())
            .compile(modules)
            .map_err(|errs| JqError::Compile(undefined_errors(src, errs)))?;
        Ok(JqFilter { filter })
    }

    /// Runs the filter on `input` under [`Limits::DEFAULT`].
    pub fn run(&self, input: &Value) -> Result<Vec<Value>, JqError> {
        self.run_limited(input, Limits::DEFAULT)
    }

    /// Runs the filter on `input`, collecting at most [`MAX_OUTPUTS`] outputs, under `limits`
    /// (recursion is measured from this call's stack frame). Call it from a thread with
    /// [`meter::thread_stack`] bytes of stack ([`on_stack`]).
    pub fn run_limited(&self, input: &Value, limits: Limits) -> Result<Vec<Value>, JqError> {
        let meter = meter::Meter::start(limits);
        let input = value::to_val(input).map_err(|_| JqError::InputTooDeep)?;
        let data = meter::Data {
            lut: &self.filter.lut,
            meter: &meter,
        };
        let ctx = Ctx::<D>::new(data, Vars::new([]));
        let mut out = Vec::new();
        for item in self.filter.id.run((ctx, input)) {
            if let Some(e) = meter.exceeded() {
                return Err(JqError::Limit(e));
            }
            if out.len() == MAX_OUTPUTS {
                return Err(JqError::TooManyOutputs);
            }
            match item {
                Ok(v) => {
                    out.push(value::from_val(&v).map_err(|e| JqError::BadOutput(format!("{e:?}")))?)
                }
                Err(exn) => {
                    return Err(match exn.get_err() {
                        Ok(err) => {
                            let message = err.to_string();
                            let value = value::from_val(&err.into_val()).unwrap_or(Value::Null);
                            JqError::Runtime { message, value }
                        }
                        Err(exn) => match exn.get_halt() {
                            Ok(code) => JqError::Halt(code),
                            Err(_) => JqError::Runtime {
                                message: "internal jaq control flow escaped".into(),
                                value: Value::Null,
                            },
                        },
                    });
                }
            }
        }
        // A limit whose halt the program swallowed (`(… // 1)`) still fails the evaluation.
        match meter.exceeded() {
            Some(e) => Err(JqError::Limit(e)),
            None => Ok(out),
        }
    }
}

/// Compiles `filter` and runs it on `input`, returning every output in order.
///
/// Runs on a fresh thread with a [`JQ_STACK`] stack (see [`on_jq_stack`]), so the caller's
/// stack size does not matter and a panic inside jaq becomes [`JqError::Internal`].
pub fn run_jq(filter: &str, input: Value) -> Result<Vec<Value>, JqError> {
    run_jq_limited(filter, input, Limits::DEFAULT)
}

/// [`run_jq`] under `limits`, on a thread with [`meter::thread_stack`] bytes of stack.
pub fn run_jq_limited(filter: &str, input: Value, limits: Limits) -> Result<Vec<Value>, JqError> {
    let filter = filter.to_owned();
    on_stack(meter::thread_stack(&limits), move || {
        JqFilter::compile(&filter)?.run_limited(&input, limits)
    })
    .and_then(|r| r)
}

/// Stack reserved for jaq work by [`on_jq_stack`]: 64 MiB of address space (only the pages
/// touched are committed). Programs within [`nesting::MAX_NESTING`] need well under 4 MiB;
/// the rest is headroom for values up to [`value::MAX_VALUE_DEPTH`] deep.
pub const JQ_STACK: usize = 64 << 20;

/// Runs `f` on a new thread with a [`JQ_STACK`] stack and waits for it.
///
/// jaq's parser, compiler and evaluator recurse; how much stack a program needs depends on
/// its shape (measured: 255 nested `[` need more than 1 MiB in a debug build). Running on a
/// thread of known size makes the nesting limit safe whatever thread the caller is on.
/// Fails with [`JqError::Internal`] if the thread cannot start or `f` panics.
pub fn on_jq_stack<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, JqError> {
    on_stack(JQ_STACK, f)
}

/// Runs `f` on a new thread with `stack` bytes of stack and waits for it (see [`on_jq_stack`]).
pub fn on_stack<T: Send + 'static>(
    stack: usize,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, JqError> {
    let handle = std::thread::Builder::new()
        .name("agc-jq".into())
        .stack_size(stack)
        .spawn(f)
        .map_err(|e| JqError::Internal(format!("cannot start the jq thread: {e}")))?;
    handle
        .join()
        .map_err(|_| JqError::Internal("jaq panicked".into()))
}

/// jaq's core, standard-library and JSON definitions, then agc's jq-compatibility
/// definitions (`compat.jq`, which replace jaq's versions of `join`, `from_entries`,
/// `ltrimstr`, `rtrimstr`, `gamma` and add `leaf_paths`, `@csv`, `@tsv`).
///
/// The definitions are parsed once per process and cloned for each use: every
/// [`JqFilter::compile`] loads them, and parsing jaq's library from its text was most of the
/// cost of compiling a small program (`awp-jq` in the bench prints the rate).
pub fn definitions() -> impl Iterator<Item = jaq_core::load::parse::Def<&'static str>> {
    static PRELUDE: std::sync::OnceLock<Vec<jaq_core::load::parse::Def<&'static str>>> =
        std::sync::OnceLock::new();
    PRELUDE
        .get_or_init(|| {
            [instrument::range_def(), instrument::fromjson_def()]
                .into_iter()
                .chain(jaq_core::defs())
                .chain(jaq_std::defs())
                .chain(jaq_json::defs())
                .chain(compat_definitions())
                .map(instrument::def)
                .collect()
        })
        .iter()
        .cloned()
}

/// A library definition, seen with the program's lifetime.
fn shorten<'s>(d: jaq_core::load::parse::Def<&'static str>) -> jaq_core::load::parse::Def<&'s str> {
    d
}

/// The definitions in `compat.jq` (a constant; a test checks that it parses).
fn compat_definitions() -> impl Iterator<Item = jaq_core::load::parse::Def<&'static str>> {
    jaq_core::load::parse(include_str!("compat.jq"), |p| p.defs())
        .into_iter()
        .flatten()
}

/// Every filter name a program may call, with its arity, sorted and without duplicates.
/// Listed once per process: listing parses the whole standard library, and the checker asks
/// for the list on every undefined filter it suggests a name for (that parse was four fifths
/// of the `jq` fuzz target's time).
pub fn known_filters() -> &'static [(&'static str, usize)] {
    static KNOWN: std::sync::OnceLock<Vec<(&'static str, usize)>> = std::sync::OnceLock::new();
    KNOWN.get_or_init(|| {
        let mut names: Vec<_> = definitions()
            .map(|d| (d.name, d.args.len()))
            .chain(functions().map(|(name, args, _)| (name, args.len())))
            .filter(|(name, _)| !name.starts_with('!') && !name.ends_with("_empty"))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    })
}

/// jaq's natives (`range/3` renamed [`meter::RANGE`]: the library's `range/3` ticks) and agc's.
fn functions() -> impl Iterator<Item = jaq_core::native::Fun<D>> {
    jaq_core::funs::<D>()
        .chain(jaq_std::funs::<D>())
        .chain(jaq_json::funs::<D>())
        .map(|(name, args, f)| match name {
            "range" if args.len() == 3 => (meter::RANGE, args, f),
            "fromjson" if args.is_empty() => (meter::FROMJSON, args, f),
            _ => (name, args, f),
        })
        .chain(meter::natives())
}

/// Compiler errors (undefined names) with byte ranges in `src`.
fn undefined_errors<P>(src: &str, errs: jaq_core::compile::Errors<&str, P>) -> Vec<CompileError> {
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
fn load_errors(src: &str, errs: jaq_core::load::Errors<&str, ()>) -> Vec<CompileError> {
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

#[cfg(test)]
mod tests;

#[cfg(test)]
mod limits_tests;
