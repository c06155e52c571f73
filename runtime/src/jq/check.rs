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

use super::{JqError, definitions, functions, load_errors, nesting, undefined_errors};
use jaq_core::load::parse::{Def, Term};
use jaq_core::load::{Arena, File, Loader};
use jaq_core::Bind;
use jaq_core::compile::Compiler;
use std::sync::OnceLock;

/// Signatures of the library: definitions (name, argument names) and native filters.
struct Signatures {
    defs: Vec<(&'static str, Vec<&'static str>)>,
    natives: Vec<(&'static str, Box<[Bind]>)>,
}

fn signatures() -> &'static Signatures {
    static SIGS: OnceLock<Signatures> = OnceLock::new();
    SIGS.get_or_init(|| Signatures {
        defs: definitions().map(|d| (d.name, d.args)).collect(),
        natives: functions().map(|(name, args, _)| (name, args)).collect(),
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
    let stubs = sigs.defs.iter().map(|(name, args)| Def {
        name: *name,
        args: args.clone(),
        body: Term::Id,
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
        .with_funs(
            sigs.natives
                .iter()
                .map(|(name, args)| (*name, args.clone(), ())),
        )
        .compile(modules)
        .map(|_| ())
        .map_err(|errs| JqError::Compile(undefined_errors(src, errs)))
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
        ];
        for p in programs {
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
