//! Checking a jq program without compiling the library with it.
//!
//! [`JqFilter::compile`](super::JqFilter::compile) parses and compiles jaq's core, standard
//! and JSON definitions together with the program, every time: about a millisecond in a
//! release build, ten in a debug one. Whether a program compiles depends on the library only
//! through the names and arities it defines, so [`check_filter`] compiles the program
//! against a prelude of *stubs*, one `def name(args): .;` per library definition, built once
//! per process from the real definitions (and the native filters' signatures). Undefined
//! names, arities and variable scoping are decided exactly as in the real compile; only the
//! bodies differ, and they are never run.

use super::error::{JqError, load_errors, undefined_errors};
use super::library::definitions;
use super::natives::functions;
use super::nesting;
use jaq_core::Bind;
use jaq_core::compile::Compiler;
use jaq_core::load::parse::{Def, Term};
use jaq_core::load::{Arena, File, Loader};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Signatures of the library by name: definitions (argument names) and native filters
/// (argument kinds), each name with all its arities.
struct Signatures {
    defs: HashMap<&'static str, Vec<Vec<&'static str>>>,
    natives: HashMap<&'static str, Vec<Box<[Bind]>>>,
}

fn signatures() -> &'static Signatures {
    static SIGS: OnceLock<Signatures> = OnceLock::new();
    SIGS.get_or_init(|| {
        let mut defs: HashMap<_, Vec<_>> = HashMap::new();
        for d in definitions() {
            defs.entry(d.name).or_default().push(d.args);
        }
        let mut natives: HashMap<_, Vec<_>> = HashMap::new();
        for (name, args, _) in functions() {
            natives.entry(name).or_default().push(args);
        }
        Signatures { defs, natives }
    })
}

/// Whether `src` lexes, parses and compiles (every filter, variable and label defined, no
/// module directives), with the same errors and ranges as
/// [`JqFilter::compile`](super::JqFilter::compile). Runs on the caller's thread: call it from
/// [`super::on_jq_stack`] or a thread with at least 8 MiB of stack.
pub fn check_filter(src: &str) -> Result<(), JqError> {
    if let Err(e) = nesting::check_nesting(src, nesting::MAX_NESTING) {
        return Err(JqError::TooDeep {
            at: e.at,
            len: e.len,
        });
    }
    let sigs = signatures();
    // Only the definitions whose names the program mentions: a stub calls nothing, so the
    // others cannot change whether the program compiles, and leaving them out keeps the
    // prelude a handful of definitions instead of hundreds. Looked up word by word, so the
    // cost follows the program, not the library.
    let words = words(src);
    let stubs = words.iter().flat_map(|w| {
        sigs.defs
            .get_key_value(w)
            .into_iter()
            .flat_map(|(name, arities)| arities.iter().map(move |args| (*name, args)))
            .map(|(name, args)| Def {
                name,
                args: args.clone(),
                body: Term::Id,
            })
    });
    let natives = words.iter().flat_map(|w| {
        sigs.natives
            .get_key_value(w)
            .into_iter()
            .flat_map(|(name, arities)| arities.iter().map(move |args| (*name, args.clone(), ())))
    });
    let arena = Arena::default();
    let modules = Loader::new(stubs)
        .load(
            &arena,
            File {
                code: src,
                path: (),
            },
        )
        .map_err(|errs| JqError::Compile(load_errors(src, errs)))?;
    Compiler::<&str, ()>::default()
        .with_funs(natives)
        .compile(modules)
        .map(|_| ())
        .map_err(|errs| JqError::Compile(undefined_errors(src, errs)))
}

/// Every identifier-like word of `src` (`name`, `@format`) once, in order of appearance: a
/// superset of the filters it calls.
fn words(src: &str) -> Vec<&str> {
    let b = src.as_bytes();
    let mut out: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if b[i] == b'@' {
            i += 1;
        }
        let word = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        if i > word {
            let w = &src[start..i];
            // Programs are short; a linear scan beats hashing for a few dozen words.
            if out.len() > 64 || !out.contains(&w) {
                out.push(w);
            }
        } else {
            i = start + 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jq::{CompileError, JqFilter};

    /// The stub check and the real compile agree, error for error.
    #[test]
    fn agrees_with_the_real_compile() {
        let programs = [
            ".a.b",
            "map(.x) | add",
            "lenght",
            "map",
            "$x",
            "def f($a): $a + 1; f(2)",
            "break $out",
            "label $out | 1, break $out",
            ".[0:2] | tostring",
            "(.a",
            "1 +",
            "import \"x\" as x; .",
            "{a: 1, \"b\": .c} | to_entries | from_entries",
            "try error(\"x\") catch .",
            "input",
            "$ENV",
            "ltrimstr(\"a\") | @csv",
            "reduce .[] as $i (0; . + $i)",
            "..|numbers",
            "[.[]?] | @base64 \"x\\(.)\" | @csv",
            "$__loc__",
            "limit(2; .[]) | first(.a) // last",
            ".a as [$x, {b: $y}] | $x + $y | tojson | fromjson | splits(\", \")",
            "def map(f): 1; map(.)",
            "getpath([\"a\"]) | paths(type == \"number\") | to_entries | with_entries(.)",
            "input_line_number, now, env, $ENV.x, halt_error",
            "@sh, @uri, @html, @tsv, @json, @text, @base32d",
            "not | ascii | implode | ltrimstr(1) | splits(1; 2) | test(\"a\")",
        ];
        for p in programs {
            assert!(words(p).len() < 40);
            let real = JqFilter::compile(p).err();
            let stub = check_filter(p).err();
            let errs = |e: Option<JqError>| -> Option<Vec<CompileError>> {
                match e {
                    Some(JqError::Compile(v)) => Some(v),
                    None => None,
                    Some(other) => panic!("{p}: {other:?}"),
                }
            };
            assert_eq!(errs(real), errs(stub), "{p}");
        }
    }
}
