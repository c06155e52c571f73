//! [`JqFilter`]: a program compiled against agc's library and run under [`Limits`], and the
//! one-shot [`run_jq`] (see the module docs of [`crate::jq`]).

use super::error::{JqError, load_errors, undefined_errors};
use super::library::{definitions, shorten};
use super::meter::{self, Limits, MAX_OUTPUTS};
use super::natives::{D, functions};
use super::{instrument, nesting, value};
use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars};
use serde_json::Value;

/// The name of the definition that holds the program (callable from jq text, so the loader can
/// call it; a program that defines the same name only shadows it inside itself).
const MAIN: &str = "__agc_main__";

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
