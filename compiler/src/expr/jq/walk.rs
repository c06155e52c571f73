//! Lists the state paths a jq program reads, by walking jaq's syntax tree.
//!
//! Every sub-term is evaluated with an abstract *input*: the set of state paths its `.` can
//! stand for (the program's input is the state itself, the empty path). A path expression
//! applied to a tracked input is recorded, extended by its steps. The abstract input is
//! empty ("untracked") where the value no longer comes from the state by a path; nothing
//! is recorded below an untracked input.
//!
//! Tracked:
//! - `.a.b`, `."a"`, `.["a"]`, `.[0]`, `.[-1]`, `.[]`, `.[a:b]` (as a slice), `.[expr]` (as a
//!   dynamic step; `expr` itself is read from the same input as the path, as in jq);
//! - pipes (`l | r` reads `r` under `l`'s outputs), `,`, `//`, `if`, `try` (the body),
//!   `select`, `values`/`strings`/… (outputs are the input), `first`/`last`/`limit`/`nth`
//!   of a generator, `first`/`last` without arguments (`[0]` / `[-1]`);
//! - element-wise builtins (`map`, `map_values`, `sort_by`, `group_by`, `unique_by`,
//!   `min_by`, `max_by`, `any(f)`, `all(f)`): their argument reads under `[]`;
//! - variables bound by `path as $v | …` and by destructuring (`as [$a, $b]`, `as {a: $x}`,
//!   `as {$a}`), in `reduce` / `foreach` sources too: `.a as $d | $d.b` reads `.a.b`;
//! - object shorthand `{a}` (reads `.a`); assignment targets (`.a = 1`, `.a |= f` records
//!   `.a`, and `f` reads under it).
//!
//! Not tracked (no path is listed below them): results of other builtins (`fromjson`,
//! `to_entries`, `tostring`, `getpath`, `paths`, `env`, …), `..` / `recurse`, the
//! arguments of `with_entries`, `walk`, `recurse`, `while`, `until`, `repeat` (they run on
//! derived values), `reduce` / `foreach` accumulators, `catch` handlers (they see the error),
//! bodies of user `def`s and the arguments passed to them, and variables bound to
//! untracked values. Alternatives are capped at [`MAX_ALTERNATIVES`] paths per term; beyond
//! that the term becomes untracked. A bare `.` is not listed (it reads the whole state).
//!
//! The walk recurses over the tree, whose depth the nesting pre-scan bounds
//! (`agc_runtime::jq::nesting`), and runs on the jq thread (`on_jq_stack`).

use super::locate::Cursor;
use super::path::{JqPath, Seg};
use agc_runtime::jq::jaq_core::load::lex::StrPart;
use agc_runtime::jq::jaq_core::load::parse::{BinaryOp, Pattern, Term};
use agc_runtime::jq::jaq_core::path::{Part, Path};
use std::ops::Range;

/// Most alternative paths one term may stand for before it counts as untracked.
pub const MAX_ALTERNATIVES: usize = 16;

type T<'s> = Term<&'s str>;
/// Paths `.` may stand for; empty means untracked.
type Input = Vec<JqPath>;

/// What the walk found.
#[derive(Default)]
pub(crate) struct Found {
    /// Paths read, with their byte ranges in the program, in source order.
    pub paths: Vec<(JqPath, Range<usize>)>,
    /// Calls of builtins (not of local `def`s): name, arity, byte range of the name.
    pub calls: Vec<(String, usize, Range<usize>)>,
    /// Whether the state is read as a whole: `.` (the state itself) is an output of the
    /// program, is used as a value (`. == {}`, `[.]`), or is the input of a builtin that is not
    /// a path step (`tostring`, `keys`, `length`, `map(…)`).
    pub whole: bool,
}

pub(crate) struct Walk<'s> {
    cur: Cursor<'s>,
    found: Found,
    /// Variables in scope, innermost last.
    vars: Vec<(&'s str, Input)>,
    /// Filters defined by the program in scope (name, arity), innermost last.
    defs: Vec<(&'s str, usize)>,
}

pub(crate) fn walk(src: &str, term: &Term<&str>) -> Found {
    let mut w = Walk {
        cur: Cursor::new(src),
        found: Found::default(),
        vars: Vec::new(),
        defs: Vec::new(),
    };
    let out = w.term(term, &vec![JqPath::default()]);
    if out.iter().any(|p| p.0.is_empty()) {
        w.found.whole = true;
    }
    w.found
}

fn union(mut a: Input, b: Input) -> Input {
    for p in b {
        if !a.contains(&p) {
            a.push(p);
        }
    }
    if a.len() > MAX_ALTERNATIVES {
        a.clear();
    }
    a
}

fn extend(input: &Input, seg: &Seg) -> Input {
    input.iter().map(|p| p.with(seg.clone())).collect()
}

/// `"name"` as a plain string literal.
fn plain_str<'s>(t: &T<'s>) -> Option<&'s str> {
    match t {
        Term::Str(None, parts) => match parts.as_slice() {
            [StrPart::Str(s)] => Some(*s),
            _ => None,
        },
        _ => None,
    }
}

/// A literal index: `3`, `-1`.
fn int_lit(t: &T<'_>) -> Option<i64> {
    match t {
        Term::Num(n) => n.parse::<i64>().ok(),
        Term::Neg(inner) => match &**inner {
            Term::Num(n) => n.parse::<i64>().ok().map(|v| -v),
            _ => None,
        },
        _ => None,
    }
}

const SELECT_LIKE: &[&str] = &[
    "values",
    "nulls",
    "booleans",
    "numbers",
    "strings",
    "arrays",
    "objects",
    "iterables",
    "scalars",
];
const ELEMENTWISE: &[&str] = &[
    "map",
    "map_values",
    "sort_by",
    "group_by",
    "unique_by",
    "min_by",
    "max_by",
    "any",
    "all",
];
const DERIVED_ARGS: &[&str] = &[
    "with_entries",
    "walk",
    "recurse",
    "while",
    "until",
    "repeat",
    "paths",
    "leaf_paths",
];

impl<'s> Walk<'s> {
    fn term(&mut self, t: &T<'s>, input: &Input) -> Input {
        match t {
            Term::Id => {
                self.cur.dot();
                self.mark_whole(input);
                input.clone()
            }
            Term::Recurse => {
                self.mark_whole(input);
                Vec::new()
            }
            Term::Num(n) => {
                self.cur.seen(n);
                Vec::new()
            }
            Term::Str(fmt, parts) => {
                self.string(fmt, parts, input);
                Vec::new()
            }
            Term::Arr(inner) => {
                self.cur.char(b'[');
                if let Some(inner) = inner {
                    self.term(inner, input);
                }
                self.cur.char(b']');
                Vec::new()
            }
            Term::Obj(entries) => {
                self.cur.char(b'{');
                for (k, v) in entries {
                    self.obj_entry(k, v.as_ref(), input);
                }
                self.cur.char(b'}');
                Vec::new()
            }
            Term::Neg(inner) => {
                self.term(inner, input);
                Vec::new()
            }
            Term::BinOp(l, op, r) => self.binop(l, op, r, input),
            Term::Label(_, body) => self.term(body, input),
            Term::Break(x) => {
                self.cur.seen(x);
                Vec::new()
            }
            Term::Fold(_, xs, pat, args) => {
                let src = self.term(xs, input);
                let bound = self.pattern(pat, &src);
                let n = self.vars.len();
                self.vars.extend(bound);
                let untracked = Vec::new();
                for (i, a) in args.iter().enumerate() {
                    self.term(a, if i == 0 { input } else { &untracked });
                }
                self.vars.truncate(n);
                Vec::new()
            }
            Term::TryCatch(body, catch) => {
                let out = self.term(body, input);
                if let Some(c) = catch {
                    self.term(c, &Vec::new());
                }
                self.cur.question_marks();
                out
            }
            Term::IfThenElse(branches, els) => {
                let mut out = Vec::new();
                for (cond, then) in branches {
                    self.term(cond, input);
                    out = union(out, self.term(then, input));
                }
                match els {
                    Some(e) => union(out, self.term(e, input)),
                    None => union(out, input.clone()),
                }
            }
            Term::Def(defs, body) => {
                let (nd, nv) = (self.defs.len(), self.vars.len());
                self.defs
                    .extend(defs.iter().map(|d| (d.name, d.args.len())));
                for d in defs {
                    self.cur.seen(d.name);
                    let (nd2, nv2) = (self.defs.len(), self.vars.len());
                    for a in &d.args {
                        self.cur.seen(a);
                        if a.starts_with('$') {
                            self.vars.push((a, Vec::new()));
                        } else {
                            self.defs.push((a, 0));
                        }
                    }
                    self.term(&d.body, &Vec::new());
                    self.defs.truncate(nd2);
                    self.vars.truncate(nv2);
                }
                let out = self.term(body, input);
                self.defs.truncate(nd);
                self.vars.truncate(nv);
                out
            }
            Term::Call(name, args) => self.call(name, args, input),
            Term::Var(x) => {
                self.cur.seen(x);
                let found = self.vars.iter().rev().find(|(v, _)| v == x);
                found.map(|(_, p)| p.clone()).unwrap_or_default()
            }
            Term::Path(base, path) => self.path(base, path, input),
        }
    }

    fn string(&mut self, fmt: &Option<&'s str>, parts: &[StrPart<&'s str, T<'s>>], input: &Input) {
        if let Some(f) = fmt {
            self.cur.seen(f);
        }
        self.cur.string_open();
        for part in parts {
            match part {
                StrPart::Str(s) => {
                    self.cur.seen(s);
                }
                StrPart::Term(t) => {
                    self.term(t, input);
                }
                StrPart::Char(_) => {}
            }
        }
        self.cur.string_close();
    }

    /// An object key: a bare word (`{a: …}`) is only a slice, anything else a term.
    fn key(&mut self, k: &T<'s>, input: &Input) {
        match plain_str(k) {
            Some(s)
                if self
                    .cur
                    .range(s)
                    .is_some_and(|r| self.cur.byte_before(r.start) != Some(b'"')) =>
            {
                self.cur.seen(s);
            }
            _ => {
                self.term(k, input);
            }
        }
    }

    fn obj_entry(&mut self, k: &T<'s>, v: Option<&T<'s>>, input: &Input) {
        match (k, v) {
            (_, Some(v)) => {
                self.key(k, input);
                self.term(v, input);
            }
            // `{a}` / `{"a"}` is `{a: .a}`.
            (k, None) => match plain_str(k) {
                Some(name) => {
                    let quoted = self
                        .cur
                        .range(name)
                        .is_some_and(|r| self.cur.byte_before(r.start) == Some(b'"'));
                    let start = self.cur.range(name).map(|r| r.start - usize::from(quoted));
                    if quoted {
                        self.term(k, input);
                    } else {
                        self.cur.seen(name);
                    }
                    if let Some(start) = start {
                        let end = self.cur.at;
                        for p in extend(input, &Seg::Field(name.to_string())) {
                            self.record(p, start..end);
                        }
                    }
                }
                None => {
                    self.term(k, input);
                }
            },
        }
    }

    fn binop(&mut self, l: &T<'s>, op: &BinaryOp<&'s str>, r: &T<'s>, input: &Input) -> Input {
        match op {
            BinaryOp::Pipe(None) => {
                let mid = self.term(l, input);
                self.term(r, &mid)
            }
            BinaryOp::Pipe(Some(pat)) => {
                let src = self.term(l, input);
                let bound = self.pattern(pat, &src);
                let n = self.vars.len();
                self.vars.extend(bound);
                let out = self.term(r, input);
                self.vars.truncate(n);
                out
            }
            BinaryOp::Comma | BinaryOp::Alt => {
                let a = self.term(l, input);
                let b = self.term(r, input);
                union(a, b)
            }
            BinaryOp::Update => {
                let target = self.term(l, input);
                self.term(r, &target);
                input.clone()
            }
            BinaryOp::Assign | BinaryOp::UpdateMath(_) | BinaryOp::UpdateAlt => {
                self.term(l, input);
                self.term(r, input);
                input.clone()
            }
            BinaryOp::Or | BinaryOp::And | BinaryOp::Math(_) | BinaryOp::Cmp(_) => {
                self.term(l, input);
                self.term(r, input);
                Vec::new()
            }
        }
    }

    /// Variables bound by `pat` when it destructures a value at paths `src`.
    /// Variables bound by `pat` when it destructures a value at paths `src`. A variable
    /// inside an array or object pattern reads a sub-path, which is recorded at the variable.
    fn pattern(&mut self, pat: &Pattern<&'s str>, src: &Input) -> Vec<(&'s str, Input)> {
        let mut out = Vec::new();
        self.pattern_into(pat, src, &mut out, false);
        out
    }

    fn pattern_into(
        &mut self,
        pat: &Pattern<&'s str>,
        src: &Input,
        out: &mut Vec<(&'s str, Input)>,
        nested: bool,
    ) {
        match pat {
            Pattern::Var(x) => {
                let start = self.cur.seen(x);
                if let (true, Some(start)) = (nested, start) {
                    for p in src {
                        self.record(p.clone(), start..start + x.len());
                    }
                }
                out.push((x, src.clone()));
            }
            Pattern::Arr(items) => {
                self.cur.char(b'[');
                for (i, p) in items.iter().enumerate() {
                    self.pattern_into(p, &extend(src, &Seg::Index(i as i64)), out, true);
                }
                self.cur.char(b']');
            }
            Pattern::Obj(entries) => {
                self.cur.char(b'{');
                for (k, p) in entries {
                    let seg = match plain_str(k) {
                        Some(name) => {
                            // `{$a}`: the key slice is the name without `$`, inside the variable.
                            let shorthand = matches!(p, Pattern::Var(v)
                                if self.cur.range(v).map(|r| r.start + 1) == self.cur.range(name).map(|r| r.start));
                            if !shorthand {
                                self.key(k, &Vec::new());
                            }
                            Seg::Field(name.to_string())
                        }
                        None => {
                            self.term(k, &Vec::new());
                            Seg::Dynamic
                        }
                    };
                    self.pattern_into(p, &extend(src, &seg), out, true);
                }
                self.cur.char(b'}');
            }
        }
    }

    fn call(&mut self, name: &'s str, args: &[T<'s>], input: &Input) -> Input {
        self.cur.seen(name);
        let arity = args.len();
        let local = self
            .defs
            .iter()
            .rev()
            .any(|&(n, a)| n == name && a == arity);
        if local {
            for a in args {
                self.term(a, &Vec::new());
            }
            return Vec::new();
        }
        if let Some(r) = self.cur.range(name) {
            self.found.calls.push((name.to_string(), arity, r));
        }
        let path_like = SELECT_LIKE.contains(&name)
            || matches!(
                (name, arity),
                ("select", 1) | ("first" | "last", 0 | 1) | ("limit" | "nth", 2) | ("empty", 0)
            );
        if !path_like {
            self.mark_whole(input);
        }
        let untracked = Vec::new();
        match (name, args) {
            ("select", [f]) => {
                self.term(f, input);
                input.clone()
            }
            (n, []) if SELECT_LIKE.contains(&n) => input.clone(),
            ("first", []) => extend(input, &Seg::Index(0)),
            ("last", []) => extend(input, &Seg::Index(-1)),
            ("first" | "last", [f]) => self.term(f, input),
            ("limit" | "nth", [n, f]) => {
                self.term(n, input);
                self.term(f, input)
            }
            ("any" | "all", [generator, cond]) => {
                let each = self.term(generator, input);
                self.term(cond, &each);
                Vec::new()
            }
            (n, [f]) if ELEMENTWISE.contains(&n) => {
                self.term(f, &extend(input, &Seg::Iterate));
                Vec::new()
            }
            (n, _) if DERIVED_ARGS.contains(&n) => {
                for a in args {
                    self.term(a, &untracked);
                }
                Vec::new()
            }
            _ => {
                for a in args {
                    self.term(a, input);
                }
                Vec::new()
            }
        }
    }

    fn path(&mut self, base: &T<'s>, path: &Path<T<'s>>, input: &Input) -> Input {
        let parts = &path.0;
        // `.name` is one token: the identity and the first key share it.
        let key_token = matches!(base, Term::Id)
            && matches!(parts.first(), Some((Part::Index(k), _)) if self.is_key_token(k));
        let (mut cur, mut start) = if key_token {
            (input.clone(), None)
        } else {
            let start = match base {
                Term::Id => {
                    let at = self.cur.dot();
                    self.cur.at = at.map_or(self.cur.at, |a| a + 1);
                    at
                }
                Term::Var(x) => self.cur.range(x).map(|r| r.start),
                _ => None,
            };
            let out = if matches!(base, Term::Id) {
                input.clone()
            } else {
                self.term(base, input)
            };
            (out, start)
        };
        for (part, opt) in parts {
            let (seg, part_start) = self.part(part, input);
            start = start.or(part_start);
            cur = extend(&cur, &seg);
            if matches!(opt, agc_runtime::jq::jaq_core::path::Opt::Optional) {
                self.cur.question_marks();
            }
        }
        if let Some(start) = start {
            let end = self.cur.at.max(start);
            for p in &cur {
                self.record(p.clone(), start..end);
            }
        }
        cur
    }

    /// The state itself (the empty path) is used as a value here.
    fn mark_whole(&mut self, input: &Input) {
        if input.iter().any(|p| p.0.is_empty()) {
            self.found.whole = true;
        }
    }

    /// `k` is the key of a `.name` token (its slice directly follows a `.`).
    fn is_key_token(&self, k: &T<'s>) -> bool {
        plain_str(k).is_some_and(|s| {
            self.cur
                .range(s)
                .is_some_and(|r| self.cur.byte_before(r.start) == Some(b'.'))
                && s.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
    }

    /// Walks one path part; returns its step and where it starts.
    fn part(&mut self, part: &Part<T<'s>>, input: &Input) -> (Seg, Option<usize>) {
        match part {
            Part::Index(k) if self.is_key_token(k) => {
                let s = plain_str(k).unwrap_or_default();
                let start = self.cur.seen(s).map(|a| a - 1);
                (Seg::Field(s.to_string()), start)
            }
            Part::Index(k) => match self.cur.part_open() {
                Some((at, b'[')) => {
                    let seg = match (plain_str(k), int_lit(k)) {
                        (Some(s), _) => Seg::Field(s.to_string()),
                        (_, Some(i)) => Seg::Index(i),
                        _ => Seg::Dynamic,
                    };
                    self.term(k, input);
                    self.cur.char(b']');
                    (seg, Some(at))
                }
                Some((at, _)) => {
                    let seg = plain_str(k).map_or(Seg::Dynamic, |s| Seg::Field(s.to_string()));
                    self.term(k, input);
                    (seg, Some(at))
                }
                None => (Seg::Dynamic, None),
            },
            Part::Range(from, upto) => {
                let at = self.cur.char(b'[');
                if let Some(f) = from {
                    self.term(f, input);
                }
                if let Some(u) = upto {
                    self.term(u, input);
                }
                self.cur.char(b']');
                let seg = if from.is_none() && upto.is_none() {
                    Seg::Iterate
                } else {
                    Seg::Slice
                };
                (seg, at)
            }
        }
    }

    fn record(&mut self, p: JqPath, r: Range<usize>) {
        let r = if self.cur.lost {
            0..self.cur.src.len()
        } else {
            r
        };
        self.found.paths.push((p, r));
    }
}
