//! `agc eval --lang LANG EXPR [--vars FILE.json] [--input FILE.json]`: evaluate one expression
//! the way agc and its runners do, for debugging conditions.
//!
//! - Prints the result as one compact JSON value (jq: each output on its own line, like
//!   `jq -c`; templates: the rendered string as is) and exits 0.
//! - A static error (syntax, unknown function, wrong arity, unknown root) prints the coded
//!   diagnostic with a caret under the expression and exits 1.
//! - An evaluation error prints its message and exits 1.
//! - jq reads its input from `--input FILE`, else from standard input when it is not a
//!   terminal (`echo '{"a":1}' | agc eval --lang jq .a`), as jq does: a stream of JSON values,
//!   the filter run on each in turn. Decision: standard input holding no value (`</dev/null`,
//!   a test harness's closed stdin) runs the filter once on `null`, as without input, where
//!   jq would print nothing. Both are read by the bounded reader (`--max-file-size`).
//! - jq runs under limits (recursion, value depth, memory, time: `--eval-stack`,
//!   `--eval-depth`, `--eval-memory`, `--eval-timeout` alias `--timeout`, see
//!   `agc_runtime::jq::meter`): an exceeded limit is AGC043 and exits 2, whatever the filter
//!   (`def f: [f]; f`, `[range(1e9)]`, `def f: f; f`). The thread it runs on is also given up
//!   past the time limit and a grace, in case one native operation runs long (exit 2 too).
//!   AGX, CEL and the templates always end: they have no recursion, and their evaluator caps
//!   the steps and depth it follows.

use super::ColorArg;
use crate::diag::Diagnostic;
use crate::expr::check::{TypeEnv, TypeErrorKind};
use crate::expr::types::Type;
use crate::source::scalar::ScalarMap;
use crate::source::{SourceFile, SourceMap, Span};
use agc_runtime::expr::Lang;
use serde_json::{Map, Value};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub(crate) enum EvalLang {
    Agx,
    Cel,
    Jq,
    AgxTemplate,
    AghTemplate,
}

#[derive(clap::Args, Debug)]
pub(crate) struct EvalArgs {
    /// The expression language.
    #[arg(long, value_enum)]
    lang: EvalLang,
    /// The expression (or template, or jq filter). It may start with `-` (`'-2 * -3'`): a
    /// positional value is never read as a flag.
    #[arg(allow_hyphen_values = true)]
    expr: String,
    /// A JSON object of roots for agx, cel and templates, e.g. {"params": {...}, "nodes": {...}}.
    #[arg(long, value_name = "FILE.json")]
    vars: Option<PathBuf>,
    /// The input value for jq (default: standard input when it is not a terminal, else null).
    #[arg(long, value_name = "FILE.json")]
    input: Option<PathBuf>,
    #[command(flatten)]
    limits: super::eval_limits::EvalLimitArgs,
    /// When to colour diagnostics.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    color: ColorArg,
    #[command(flatten)]
    limit: super::LimitArg,
}

/// The JSON in `path`, or the error line to print (with its code when a read was refused:
/// AGC017 not a regular file, AGC012 over the limit, AGC001 unreadable).
fn read_json(path: &std::path::Path, limit: usize) -> Result<Value, String> {
    let text =
        crate::fsio::read_text(path, limit).map_err(|e| refused(&e, &path.to_string_lossy()))?;
    serde_json::from_str(&text).map_err(|e| format!("error: `{}` is not JSON: {e}", path.display()))
}

/// A refused read as its error line, `error[CODE]: …`.
fn refused(e: &crate::fsio::read::ReadError, shown: &str) -> String {
    format!("error[{}]: {}", e.code(), e.message(shown))
}

/// jq's inputs: `--input`'s value, else the JSON values on standard input when it is not a
/// terminal, else (or when it holds none) `null`.
fn jq_inputs(args: &EvalArgs) -> Result<Vec<Value>, String> {
    use std::io::IsTerminal;
    if let Some(p) = &args.input {
        return read_json(p, args.limit.bytes).map(|v| vec![v]);
    }
    if std::io::stdin().is_terminal() {
        return Ok(vec![Value::Null]);
    }
    let name = crate::source::load::STDIN_NAME;
    let bytes = crate::fsio::read::read(std::path::Path::new("-"), args.limit.bytes)
        .map_err(|e| refused(&e, name))?;
    let values = serde_json::Deserializer::from_slice(&bytes)
        .into_iter::<Value>()
        .collect::<Result<Vec<Value>, _>>()
        .map_err(|e| format!("error: `{name}` is not JSON: {e}"))?;
    Ok(if values.is_empty() {
        vec![Value::Null]
    } else {
        values
    })
}

pub(crate) fn run(args: EvalArgs) -> i32 {
    let mut sources = SourceMap::new();
    let file = sources.add(SourceFile::new("<expr>", args.expr.clone()));
    let map = ScalarMap::contiguous(file, 0, args.expr.len());
    if args.lang == EvalLang::Jq {
        return run_jq(&args, &map, &sources);
    }
    let vars = match &args.vars {
        None => Map::new(),
        Some(p) => match read_json(p, args.limit.bytes) {
            Ok(Value::Object(m)) => m,
            Ok(_) => {
                eprintln!("error: `--vars` must hold a JSON object of roots");
                return 2;
            }
            Err(e) => {
                eprintln!("{e}");
                return 2;
            }
        },
    };
    let src = args.expr.as_str();
    let (parsed, lang) = match args.lang {
        EvalLang::Agx => (crate::expr::parse_agx(src, &map), Lang::Agx),
        EvalLang::AgxTemplate => (crate::expr::parse_template(src, &map), Lang::Agx),
        EvalLang::Cel => (crate::expr::parse_cel(src, &map), Lang::Cel),
        EvalLang::AghTemplate => (crate::expr::parse_gotmpl(src, &map), Lang::Gotmpl),
        EvalLang::Jq => unreachable!("handled above"),
    };
    let (expr, spans) = match parsed {
        Ok(x) => x,
        Err(mut diags) => return report(&mut diags, &sources, args.color),
    };
    // Static errors: the roots given are known (their JSON shape is not a declaration, so they
    // are typed dynamically); unknown functions, arity and unknown roots are caught here.
    let mut env = TypeEnv::new();
    for k in vars.keys() {
        env.insert(k.clone(), Type::Dyn);
    }
    let code = match args.lang {
        EvalLang::Agx | EvalLang::AgxTemplate => "AG204",
        _ => "unresolvable_path",
    };
    let (_, errors) = crate::expr::check::check(&expr, lang, &env);
    let mut diags: Vec<Diagnostic> = errors
        .into_iter()
        .filter(|e| !matches!(e.kind, TypeErrorKind::UnknownField))
        .map(|e| {
            let span = spans
                .get(e.node as usize)
                .copied()
                .unwrap_or(Span::point(file, 0));
            Diagnostic::error(code, e.message).at(span)
        })
        .collect();
    if !diags.is_empty() {
        return report(&mut diags, &sources, args.color);
    }
    match agc_runtime::expr::eval::eval(&expr, lang, &vars) {
        Ok(v) => {
            let out = if matches!(args.lang, EvalLang::AgxTemplate | EvalLang::AghTemplate) {
                match v.to_json() {
                    Value::String(s) => s,
                    other => other.to_string(),
                }
            } else {
                v.to_json().to_string()
            };
            super::out(&format!("{out}\n"));
            0
        }
        Err(e) => {
            eprintln!("error: evaluation failed: {}", e.message);
            1
        }
    }
}

fn run_jq(args: &EvalArgs, map: &ScalarMap, sources: &SourceMap) -> i32 {
    if let Err(mut diags) = crate::expr::jq::parse_jq(&args.expr, map) {
        return report(&mut diags, sources, args.color);
    }
    let inputs = match jq_inputs(args) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let limits = args.limits.limits(agc_runtime::jq::Limits::DEFAULT);
    let runs = inputs.len().max(1) as u32;
    let (tx, rx) = std::sync::mpsc::channel();
    let filter = args.expr.clone();
    let spawned = std::thread::Builder::new()
        .name("agc-eval-jq".into())
        .spawn(move || {
            let mut all = Vec::new();
            for input in inputs {
                match agc_runtime::jq::run_jq_limited(&filter, input, limits) {
                    Ok(outputs) => all.extend(outputs),
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
            let _ = tx.send(Ok(all));
        });
    if let Err(e) = spawned {
        eprintln!("error: cannot start the jq thread: {e}");
        return 2;
    }
    // The time limit is checked as the filter runs; this deadline is a second guard, for one
    // native operation that runs long. On it the thread is abandoned; the process exits. Each
    // input has the time limit of its own.
    let grace = (limits.time + limits.time / 2 + std::time::Duration::from_secs(1)) * runs;
    let result = match rx.recv_timeout(grace) {
        Ok(r) => r,
        Err(_) => Err(agc_runtime::jq::JqError::Limit(
            agc_runtime::jq::Exceeded::Time(limits.time),
        )),
    };
    match result {
        Ok(outputs) => {
            let mut text = String::new();
            for v in outputs {
                text.push_str(&format!("{v}\n"));
            }
            super::out(&text);
            0
        }
        Err(agc_runtime::jq::JqError::Limit(e)) => {
            eprintln!(
                "error[AGC043]: the jq filter exceeded an evaluation limit: {e}; `{}` raises it",
                super::eval_limits::flag_for(&e)
            );
            2
        }
        Err(e) => {
            eprintln!("error: evaluation failed: {e}");
            1
        }
    }
}

fn report(diags: &mut [Diagnostic], sources: &SourceMap, color: ColorArg) -> i32 {
    super::print_diagnostics(
        diags,
        sources,
        super::FormatArg::Human,
        color,
        super::Stream::Stderr,
        false,
        false,
    );
    1
}
