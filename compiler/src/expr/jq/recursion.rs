//! AGC065: a jq `def` that calls itself before it can produce an output or stop.
//!
//! What is detected, soundly: a call of `f` (same name and arity, not shadowed by an inner
//! `def`) in a *strict* position of `f`'s own body, a position evaluated every time the body
//! is, before the body can yield anything. Such a recursion has no reachable base case: every
//! call of `f` makes another one first, so it ends only by an error or by the recursion limit
//! at run time (AGC043). Strict positions: the body itself; the left of `|`, `,`, `//`, `and`,
//! `or`, of `as` and of arithmetic and comparisons; the right of `|` and of arithmetic and
//! comparisons when the left always yields (`.`, literals, variables, `[…]`, `.a` …); the
//! inside of `[…]` and `-`; object keys and values in order while they always yield; the
//! condition of the first `if` branch; the body of `try`, `label` and of inner `def`s' scope;
//! the init of `reduce`/`foreach`; the head of a path.
//!
//! Not detected (no warning): recursion behind a condition or an alternative (`if … then f`,
//! `f // …`: a base case may be reachable, and whether it is cannot be decided), recursion
//! through a filter argument (`map(f)`), mutual recursion (`def f: g; def g: f;`), and a
//! generator such as `def f: ., f;` (it yields before recursing; `limit` and `first` stop it).

use agc_runtime::jq::jaq_core::load::parse::{BinaryOp, Def, Term};
use agc_runtime::jq::jaq_core::path::{Opt, Part};

/// Each `def` of `t` (at any depth) with a self-call in a strict position: the call's name
/// (a slice of the program text, for its span) and the def's arity.
pub(super) fn unguarded<'s>(t: &Term<&'s str>) -> Vec<(&'s str, usize)> {
    let mut out = Vec::new();
    defs_in(t, &mut out);
    out
}

/// Visits every `def` in `t` and checks it.
fn defs_in<'s>(t: &Term<&'s str>, out: &mut Vec<(&'s str, usize)>) {
    each_child(t, &mut |c| defs_in(c, out));
    if let Term::Def(defs, _) = t {
        for d in defs {
            if let Some(call) = strict_call(&d.body, d) {
                out.push((call, d.args.len()));
            }
            defs_in(&d.body, out);
        }
    }
}

fn each_child<'a, 's>(t: &'a Term<&'s str>, f: &mut impl FnMut(&'a Term<&'s str>)) {
    match t {
        Term::Id | Term::Recurse | Term::Num(_) | Term::Break(_) | Term::Var(_) => {}
        Term::Str(_, parts) => {
            for p in parts {
                if let agc_runtime::jq::jaq_core::load::lex::StrPart::Term(t) = p {
                    f(t)
                }
            }
        }
        Term::Arr(a) => a.iter().for_each(|a| f(a)),
        Term::Obj(kvs) => {
            for (k, v) in kvs {
                f(k);
                if let Some(v) = v {
                    f(v)
                }
            }
        }
        Term::Neg(t) | Term::Label(_, t) => f(t),
        Term::BinOp(l, _, r) => {
            f(l);
            f(r)
        }
        Term::Fold(_, xs, _, args) => {
            f(xs);
            args.iter().for_each(&mut *f)
        }
        Term::TryCatch(t, c) => {
            f(t);
            c.iter().for_each(|c| f(c))
        }
        Term::IfThenElse(bs, e) => {
            for (c, t) in bs {
                f(c);
                f(t)
            }
            e.iter().for_each(|e| f(e))
        }
        // Nested definitions' bodies are visited by `defs_in`, each for its own def.
        Term::Def(_, t) => f(t),
        Term::Call(_, args) => args.iter().for_each(&mut *f),
        Term::Path(h, path) => {
            f(h);
            for (part, _) in &path.0 {
                match part {
                    Part::Index(i) => f(i),
                    Part::Range(a, b) => {
                        a.iter().for_each(&mut *f);
                        b.iter().for_each(&mut *f)
                    }
                }
            }
        }
    }
}

/// A call of `d` in a strict position of `t`.
fn strict_call<'s>(t: &Term<&'s str>, d: &Def<&'s str>) -> Option<&'s str> {
    let me = |t: &Term<&'s str>| strict_call(t, d);
    match t {
        Term::Call(name, args) if *name == d.name && args.len() == d.args.len() => Some(*name),
        // A parameter named like `d` (arity 0) shadows it inside the body.
        Term::Call(..) => None,
        Term::Id | Term::Recurse | Term::Num(_) | Term::Break(_) | Term::Var(_) => None,
        Term::Str(_, parts) => {
            use agc_runtime::jq::jaq_core::load::lex::StrPart;
            for p in parts {
                if let StrPart::Term(t) = p {
                    if let Some(c) = me(t) {
                        return Some(c);
                    }
                    if !yields(t) {
                        return None;
                    }
                }
            }
            None
        }
        Term::Arr(a) => a.as_deref().and_then(me),
        Term::Neg(t) | Term::Label(_, t) | Term::TryCatch(t, _) => me(t),
        Term::Obj(kvs) => {
            for (k, v) in kvs {
                if let Some(c) = me(k) {
                    return Some(c);
                }
                if !yields(k) {
                    return None;
                }
                if let Some(v) = v {
                    if let Some(c) = me(v) {
                        return Some(c);
                    }
                    if !yields(v) {
                        return None;
                    }
                }
            }
            None
        }
        Term::BinOp(l, op, r) => {
            let then_right = match op {
                BinaryOp::Pipe(_) | BinaryOp::Math(_) | BinaryOp::Cmp(_) => yields(l),
                BinaryOp::Comma | BinaryOp::Alt | BinaryOp::Or | BinaryOp::And => false,
                // Assignments evaluate their sides in an order jq and jaq define differently.
                _ => return None,
            };
            me(l).or_else(|| then_right.then(|| me(r)).flatten())
        }
        Term::IfThenElse(bs, _) => bs.first().and_then(|(c, _)| me(c)),
        Term::Fold(_, _, _, args) => args.first().and_then(me),
        Term::Def(defs, t) => {
            // An inner def of the same name and arity shadows `d` in `t`.
            let shadowed = defs
                .iter()
                .any(|e| e.name == d.name && e.args.len() == d.args.len());
            if shadowed { None } else { me(t) }
        }
        Term::Path(h, _) => me(h),
    }
}

/// Whether `t` always yields at least one output or raises an error (never nothing).
fn yields(t: &Term<&str>) -> bool {
    match t {
        Term::Id | Term::Recurse | Term::Num(_) | Term::Var(_) | Term::Arr(_) => true,
        Term::Str(_, parts) => parts.iter().all(|p| match p {
            agc_runtime::jq::jaq_core::load::lex::StrPart::Term(t) => yields(t),
            _ => true,
        }),
        Term::Neg(t) => yields(t),
        Term::Obj(kvs) => kvs
            .iter()
            .all(|(k, v)| yields(k) && v.as_ref().is_none_or(yields)),
        Term::BinOp(l, BinaryOp::Pipe(None) | BinaryOp::Math(_) | BinaryOp::Cmp(_), r) => {
            yields(l) && yields(r)
        }
        Term::BinOp(l, BinaryOp::Comma, r) => yields(l) || yields(r),
        Term::Path(h, path) => {
            yields(h)
                && path.0.iter().all(|(part, opt)| {
                    matches!(opt, Opt::Essential) && matches!(part, Part::Index(i) if yields(i))
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agc_runtime::jq::jaq_core::load::{Lexer, Parser};

    fn found(src: &str) -> Vec<(String, usize)> {
        let tokens = Lexer::new(src).lex().unwrap();
        let term = Parser::new(&tokens).parse(|p| p.term()).unwrap();
        unguarded(&term)
            .into_iter()
            .map(|(n, a)| (n.to_string(), a))
            .collect()
    }

    #[test]
    fn recursion_without_a_base_case_is_found() {
        for src in [
            "def f: [f]; f",
            "def f: f; f",
            "def f: 1 + f; f",
            "def f: f | .a; f",
            "def f: .a | f; f",
            "def f: . as $x | f; f",
            "def f: {a: f}; f",
            "def f: try f catch 1; f",
            "def f: f // 1; f",
            "def f: \"\\(f)\"; f",
            "def g: def f: -f; f; g",
        ] {
            assert_eq!(found(src).len(), 1, "{src}");
        }
        assert_eq!(found("def f(g): [f(g)]; f(.)"), vec![("f".into(), 1)]);
    }

    #[test]
    fn recursion_that_may_stop_is_not_flagged() {
        for src in [
            "def f: if . > 3 then . else .+1 | f end; f",
            "def f: ., f; first(f)",
            "def f: 1 // f; f",
            "def f: .[] | f; f",
            "def f: select(. < 3) | f; f",
            "def f: empty | f; f",
            "def f: map(f); f",
            "def f(f): f; f(1)",
            "def f: def f: 1; f; f",
            "def f: f(1); def f(x): x; 1",
            "def f: .a? | f; f",
            "def f: g; def g: f; 1",
            "def f: .a = f; f",
        ] {
            assert!(found(src).is_empty(), "{src}: {:?}", found(src));
        }
    }
}
