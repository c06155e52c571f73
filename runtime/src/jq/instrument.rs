//! Puts [`super::meter`]'s checks into a parsed jq program (and into jaq's library, once).
//!
//! The rewrite keeps the program's meaning; only agc's natives (names starting with `!`, which
//! jq text cannot spell) are added:
//!
//! - `def f(a): body;` becomes `def f(a): !tick | body;`. `!tick` is the identity (in paths and
//!   updates too), and `body` stays in tail position, so jaq's tail-call handling is kept.
//! - `t[]`, `t[]?` and `..` become `(t[] | !tick)`, `(t[]? | !tick)` and `(.. | !tick)`; the
//!   path parts after an iteration apply to the ticked term (`.a[].b` is `(.a[] | !tick).b`),
//!   which is the same path.
//! - `l * r` becomes `!mul(l; r)` (same order of outputs: `l`'s outer, `r`'s inner, as jaq's
//!   `*`), and `l *= r` becomes `r as $x | l |= !mul(.; $x)`, what jaq defines `*=` to be.
//! - `[f]`, `{…}`, assignments and updates (`l = r`, `l |= r`, `l += r` …) and calls of jaq's
//!   native filters become `(t | !deep)`: the operations that can make a value deeper.
//! - `fromjson`, a native in jaq, is renamed `!fromjson` and defined as
//!   `def fromjson: !jsonnest | !fromjson;` (the text's nesting is checked before jaq parses it).
//! - `range/3`, a native in jaq, is renamed `!range` and defined as
//!   `def range($from; $upto; $by): !range($from; $upto; $by) | !tick;`.
//!
//! The recursion follows the program's nesting, which [`super::nesting`] bounds before parsing.

use super::meter::{DEEP, FROMJSON, JSON_NEST, MUL, RANGE, TICK};
use jaq_core::load::parse::{BinaryOp, Def, Pattern, Term};
use jaq_core::ops::Math;
use jaq_core::path::{Part, Path};
use std::collections::HashSet;
use std::sync::OnceLock;

/// The variable `l *= r` binds `r` to (no jq text can name it).
const MUL_VAR: &str = "$!mul";

fn tick() -> Term<&'static str> {
    Term::Call(TICK, Vec::new())
}

/// `t | !deep`: the depth check of what `t` builds.
fn deep(t: Term<&str>) -> Term<&str> {
    pipe(t, Term::Call(DEEP, Vec::new()))
}

/// Whether `name/arity` is one of jaq's native filters (their outputs are depth-checked).
fn native(name: &str, arity: usize) -> bool {
    static NATIVES: OnceLock<HashSet<(&'static str, usize)>> = OnceLock::new();
    NATIVES
        .get_or_init(|| {
            super::natives::functions()
                .map(|(name, args, _)| (name, args.len()))
                .filter(|(name, _)| !name.starts_with('!'))
                .collect()
        })
        .contains(&(name, arity))
}

/// `def fromjson: !jsonnest | !fromjson;` (to be instrumented with the rest of the library).
pub(super) fn fromjson_def() -> Def<&'static str> {
    Def {
        name: "fromjson",
        args: Vec::new(),
        body: pipe(
            Term::Call(JSON_NEST, Vec::new()),
            Term::Call(FROMJSON, Vec::new()),
        ),
    }
}

fn pipe<'s>(l: Term<&'s str>, r: Term<&'s str>) -> Term<&'s str> {
    Term::BinOp(Box::new(l), BinaryOp::Pipe(None), Box::new(r))
}

/// `def range($from; $upto; $by): !range($from; $upto; $by) | !tick;` (to be instrumented
/// with the rest of the library).
pub(super) fn range_def() -> Def<&'static str> {
    let args = ["$from", "$upto", "$by"];
    let call = Term::Call(RANGE, args.iter().map(|a| Term::Var(*a)).collect());
    Def {
        name: "range",
        args: args.to_vec(),
        body: pipe(call, tick()),
    }
}

/// A definition with ticks: at the start of its body, and inside it.
pub(super) fn def(d: Def<&str>) -> Def<&str> {
    Def {
        name: d.name,
        args: d.args,
        body: pipe(tick(), term(d.body)),
    }
}

/// A term with ticks after its iterations and `!mul` for its `*`.
pub(super) fn term(t: Term<&str>) -> Term<&str> {
    match t {
        Term::Id | Term::Num(_) | Term::Break(_) | Term::Var(_) => t,
        Term::Recurse => pipe(Term::Recurse, tick()),
        Term::Str(fmt, parts) => Term::Str(fmt, parts.into_iter().map(str_part).collect()),
        Term::Arr(a) => deep(Term::Arr(a.map(|a| Box::new(term(*a))))),
        Term::Obj(kvs) => deep(Term::Obj(
            kvs.into_iter()
                .map(|(k, v)| (term(k), v.map(term)))
                .collect(),
        )),
        Term::Neg(t) => Term::Neg(Box::new(term(*t))),
        Term::BinOp(l, BinaryOp::Math(Math::Mul), r) => Term::Call(MUL, vec![term(*l), term(*r)]),
        Term::BinOp(l, BinaryOp::UpdateMath(Math::Mul), r) => Term::BinOp(
            Box::new(term(*r)),
            BinaryOp::Pipe(Some(Pattern::Var(MUL_VAR))),
            Box::new(deep(Term::BinOp(
                Box::new(term(*l)),
                BinaryOp::Update,
                Box::new(Term::Call(MUL, vec![Term::Id, Term::Var(MUL_VAR)])),
            ))),
        ),
        Term::BinOp(
            l,
            op @ (BinaryOp::Assign
            | BinaryOp::Update
            | BinaryOp::UpdateMath(_)
            | BinaryOp::UpdateAlt),
            r,
        ) => deep(Term::BinOp(Box::new(term(*l)), op, Box::new(term(*r)))),
        Term::BinOp(l, op, r) => {
            let op = match op {
                BinaryOp::Pipe(Some(p)) => BinaryOp::Pipe(Some(pattern(p))),
                op => op,
            };
            Term::BinOp(Box::new(term(*l)), op, Box::new(term(*r)))
        }
        Term::Label(x, t) => Term::Label(x, Box::new(term(*t))),
        Term::Fold(kind, xs, p, args) => Term::Fold(
            kind,
            Box::new(term(*xs)),
            pattern(p),
            args.into_iter().map(term).collect(),
        ),
        Term::TryCatch(t, c) => Term::TryCatch(Box::new(term(*t)), c.map(|c| Box::new(term(*c)))),
        Term::IfThenElse(branches, els) => Term::IfThenElse(
            branches
                .into_iter()
                .map(|(c, t)| (term(c), term(t)))
                .collect(),
            els.map(|e| Box::new(term(*e))),
        ),
        Term::Def(defs, t) => Term::Def(defs.into_iter().map(def).collect(), Box::new(term(*t))),
        Term::Call(name, args) => {
            let wrap = native(name, args.len());
            let call = Term::Call(name, args.into_iter().map(term).collect());
            if wrap { deep(call) } else { call }
        }
        Term::Path(head, path) => self::path(term(*head), path),
    }
}

fn str_part<'s>(
    p: jaq_core::load::lex::StrPart<&'s str, Term<&'s str>>,
) -> jaq_core::load::lex::StrPart<&'s str, Term<&'s str>> {
    use jaq_core::load::lex::StrPart;
    match p {
        StrPart::Term(t) => StrPart::Term(term(t)),
        p => p,
    }
}

fn pattern(p: Pattern<&str>) -> Pattern<&str> {
    match p {
        Pattern::Var(_) => p,
        Pattern::Arr(ps) => Pattern::Arr(ps.into_iter().map(pattern).collect()),
        Pattern::Obj(kvs) => Pattern::Obj(
            kvs.into_iter()
                .map(|(k, p)| (term(k), pattern(p)))
                .collect(),
        ),
    }
}

/// `head` followed by `path`, with a tick after each iteration part.
fn path<'s>(mut head: Term<&'s str>, path: Path<Term<&'s str>>) -> Term<&'s str> {
    let mut parts = Vec::new();
    for (part, opt) in path.0 {
        let iterates = matches!(part, Part::Range(None, None));
        let part = match part {
            Part::Index(i) => Part::Index(term(i)),
            Part::Range(from, upto) => Part::Range(from.map(term), upto.map(term)),
        };
        parts.push((part, opt));
        if iterates {
            let done = Term::Path(Box::new(head), Path(std::mem::take(&mut parts)));
            head = pipe(done, tick());
        }
    }
    if parts.is_empty() {
        head
    } else {
        Term::Path(Box::new(head), Path(parts))
    }
}
