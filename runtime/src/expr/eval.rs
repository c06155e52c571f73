//! The one evaluator of the core expression form.
//!
//! [`eval`] evaluates an [`Expr`] under one language's semantics against variables given as
//! JSON; [`eval_with`] takes an [`Env`] (JSON variables plus typed [`Value`] overrides and a
//! step budget). Errors are values ([`EvalError`], naming the node that failed); nothing here
//! panics on any tree or input.
//!
//! Semantics per language (decisions marked *agc*; the research notes say why):
//!
//! - **AGX** (AGS 1.0 `docs/expressions.md` §4): no truthiness (`&&`, `||`, `!` and
//!   conditions need booleans); `&&`/`||` short-circuit left to right (*agc*: both harnesses
//!   do); `==` across kinds is false, numbers compare by value (`1 == 1.0`); ordering needs two
//!   numbers or two strings; `+` adds numbers and concatenates strings or arrays; integer
//!   `+ - * %` stay integers and overflowing `i64` is an error (*agc*: Python has big ints);
//!   `/` is true division and always gives a float (*agc*, as both harnesses); `%` is floored
//!   like Python's (*agc*: the reference is Python); division or modulo by zero is an error.
//!   A missing key, a member of `null` or an index past the end reads as `null` (AGS: "a
//!   declared name whose value is absent at run time gives null"); a member of any other
//!   non-object is an error, and so is an unknown root name.
//! - **CEL** (the CEL language definition): JSON variables are seen as cel-go sees JSON
//!   decoded by Go, every number a double ([`Value::from_json_doubles`]); typed roots given
//!   with [`Env::with`] (agh's `index`, `generation`) keep their kinds. int64/uint64 overflow and integer division by
//!   zero are errors, doubles follow IEEE; no mixed-kind arithmetic; ordering works within a
//!   kind and across the numeric kinds; `&&`/`||` absorb errors commutatively (`false &&
//!   error` and `error && false` are both `false`), as do `all`/`exists`; a missing map key or
//!   field is an error ("no such key"); `has()` tests presence; bare type names (`int`,
//!   `string` ...) evaluate to type values unless a variable shadows them.
//! - **Gotmpl** (agh `{{ }}`): lookups of missing keys are errors (`missingkey=error`);
//!   there are no operators (a lowering never produces them; evaluating one is an error).
//!
//! Templates ([`ExprKind::Template`]) concatenate their parts; how a value renders is in
//! [`render`]. Recursion follows the tree, whose depth the parsers bound; as a second guard
//! the evaluator stops at [`MAX_DEPTH`] nested nodes, [`Env::max_steps`] caps the total
//! number of node evaluations (comprehensions multiply work by their range sizes), and
//! [`DEFAULT_MAX_BUILT`] caps what concatenation builds (a step can copy a large value).

mod access;
mod builtins;
use builtins::RegexCache;
mod ops;
pub mod render;
pub mod time;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;

use indexmap::IndexMap;

use super::functions::{self, CallError};
use super::{Expr, ExprKind, Lang, Literal, Macro, NodeId, TemplatePart, UnaryOp};
use crate::value::{Key, Kind, Value, ValueMap, map_get};

/// Deepest nesting the evaluator follows before giving up with an error.
pub const MAX_DEPTH: u32 = 512;

/// Default cap on node evaluations per [`eval`] call.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000;

/// Default cap on what one evaluation builds by concatenation (`+` of strings, bytes or
/// lists): the total length of the results, in bytes or items. A step copies its operands, so
/// steps alone do not bound memory (`x.map(a, big + big)`).
pub const DEFAULT_MAX_BUILT: u64 = 64 << 20;

/// An evaluation error: which node failed and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    pub node: NodeId,
    pub message: String,
    /// Whether an evaluation limit was exceeded (steps, nesting, what concatenation built),
    /// rather than the expression being wrong for its input.
    pub limit: bool,
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}

/// Variables for evaluation: a JSON object of roots, plus typed values that take precedence.
#[derive(Clone, Debug)]
pub struct Env<'a> {
    json: Option<&'a serde_json::Map<String, serde_json::Value>>,
    /// Roots read after `json`'s, borrowed from a caller that keeps them for many
    /// evaluations (a run's params and context: never copied per evaluation).
    shared: Option<&'a serde_json::Map<String, serde_json::Value>>,
    values: IndexMap<String, Value>,
    /// A root read entry by entry ([`Env::with_entries`]).
    entries: Option<EntriesRoot<'a>>,
    max_steps: u64,
    max_built: u64,
}

/// A root whose entries' fields are looked up when an expression reads them, instead of
/// being built into one JSON object first: a run's `nodes`, where reading
/// `nodes.a.outputs.x` borrows `a`'s outputs instead of copying a view of `a` per read.
pub trait Entries {
    /// `<root>.<name>.<field>`.
    fn field(&self, name: &str, field: &str) -> Field<'_>;
}

/// What [`Entries::field`] finds.
pub enum Field<'a> {
    /// The root has no entry `name`.
    NoEntry,
    /// The entry has no such field.
    NoField,
    /// An object, borrowed.
    Map(&'a serde_json::Map<String, serde_json::Value>),
    /// Any value, built for the read.
    Value(serde_json::Value),
}

/// The root [`Env::with_entries`] names, and where its entries are found.
#[derive(Clone, Copy)]
struct EntriesRoot<'a> {
    name: &'a str,
    entries: &'a dyn Entries,
}

impl fmt::Debug for EntriesRoot<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EntriesRoot({})", self.name)
    }
}

impl Default for Env<'_> {
    fn default() -> Self {
        Env {
            json: None,
            shared: None,
            values: IndexMap::new(),
            entries: None,
            max_steps: DEFAULT_MAX_STEPS,
            max_built: DEFAULT_MAX_BUILT,
        }
    }
}

impl<'a> Env<'a> {
    /// An empty environment.
    pub fn new() -> Self {
        Self::default()
    }

    /// Roots read from a JSON object (converted lazily, only along the paths read).
    pub fn from_json(vars: &'a serde_json::Map<String, serde_json::Value>) -> Self {
        Env {
            json: Some(vars),
            ..Self::default()
        }
    }

    /// Roots read when `from_json`'s have no such name (converted lazily too).
    pub fn with_shared(mut self, shared: &'a serde_json::Map<String, serde_json::Value>) -> Self {
        self.shared = Some(shared);
        self
    }

    /// The JSON root `name`: the own roots first, then the shared ones.
    pub(crate) fn json_root(&self, name: &str) -> Option<&'a serde_json::Value> {
        self.json
            .and_then(|m| m.get(name))
            .or_else(|| self.shared.and_then(|m| m.get(name)))
    }

    /// The root `name` read entry by entry from `entries`, before the JSON roots. An
    /// expression may read it only as `name.<entry>.<field>...` (a member of a member of the
    /// root), which its caller checks: read any other way (the bare root, `name[...]`, a node
    /// function) it is an unknown name.
    pub fn with_entries(mut self, name: &'a str, entries: &'a dyn Entries) -> Self {
        self.entries = Some(EntriesRoot { name, entries });
        self
    }

    /// Adds (or replaces) a root with a typed value.
    pub fn with(mut self, name: impl Into<String>, value: Value) -> Self {
        self.values.insert(name.into(), value);
        self
    }

    /// Sets the cap on node evaluations.
    pub fn with_max_steps(mut self, max_steps: u64) -> Self {
        self.max_steps = max_steps;
        self
    }

    /// The cap on node evaluations.
    pub fn max_steps(&self) -> u64 {
        self.max_steps
    }

    /// Sets the cap on what concatenation builds ([`DEFAULT_MAX_BUILT`]).
    pub fn with_max_built(mut self, max_built: u64) -> Self {
        self.max_built = max_built;
        self
    }
}

/// Evaluates `expr` under `lang`'s semantics with `vars` as the roots.
pub fn eval(
    expr: &Expr,
    lang: Lang,
    vars: &serde_json::Map<String, serde_json::Value>,
) -> Result<Value, EvalError> {
    eval_with(expr, lang, &Env::from_json(vars))
}

/// Evaluates `expr` under `lang`'s semantics in `env`.
pub fn eval_with(expr: &Expr, lang: Lang, env: &Env<'_>) -> Result<Value, EvalError> {
    let mut ev = Evaluator {
        lang,
        env,
        locals: Vec::new(),
        depth: 0,
        steps: 0,
        built: 0,
        regexes: HashMap::new(),
    };
    ev.eval(expr)
}

struct Evaluator<'a, 'e> {
    lang: Lang,
    env: &'a Env<'e>,
    locals: Vec<(String, Value)>,
    depth: u32,
    steps: u64,
    /// Bytes or items built by concatenation so far (see [`DEFAULT_MAX_BUILT`]).
    built: u64,
    regexes: RegexCache,
}

fn err(node: NodeId, message: impl Into<String>) -> EvalError {
    EvalError {
        node,
        message: message.into(),
        limit: false,
    }
}

/// An exceeded evaluation limit.
fn limit_err(node: NodeId, message: impl Into<String>) -> EvalError {
    EvalError {
        limit: true,
        ..err(node, message)
    }
}

impl Evaluator<'_, '_> {
    fn eval(&mut self, e: &Expr) -> Result<Value, EvalError> {
        self.steps += 1;
        if self.steps > self.env.max_steps {
            return Err(limit_err(e.id, "evaluation step limit exceeded"));
        }
        if self.depth >= MAX_DEPTH {
            return Err(limit_err(e.id, "expression nested too deeply"));
        }
        self.depth += 1;
        let result = self.eval_kind(e);
        self.depth -= 1;
        result
    }

    /// A thin dispatcher: each form has its own method, so that the frame that recursion
    /// repeats stays small (debug builds give every temporary of a function its own slot).
    fn eval_kind(&mut self, e: &Expr) -> Result<Value, EvalError> {
        let id = e.id;
        match &e.kind {
            ExprKind::Literal { value } => Ok(literal(value)),
            ExprKind::Ident { name } => self.root(id, name),
            ExprKind::Member { .. } | ExprKind::Index { .. } => self.access(e),
            ExprKind::Unary { op, operand } => self.unary(id, *op, operand),
            ExprKind::Binary { op, left, right } => self.binary(id, *op, left, right),
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => self.conditional(cond, then, otherwise),
            ExprKind::Call {
                function,
                target,
                args,
            } => self.call(id, function, target.as_deref(), args),
            ExprKind::List { items } => self.list(items),
            ExprKind::Map { entries } => self.map(entries),
            ExprKind::Has { target, field } => self.has(id, target, field),
            ExprKind::Comprehension {
                mac,
                range,
                var,
                filter,
                body,
            } => self.comprehension(*mac, range, var, filter.as_deref(), body),
            ExprKind::Template { parts } => self.template(parts),
        }
    }

    fn unary(&mut self, id: NodeId, op: UnaryOp, operand: &Expr) -> Result<Value, EvalError> {
        let v = self.eval(operand)?;
        match op {
            UnaryOp::Not => match v {
                Value::Bool(b) => Ok(Value::Bool(!b)),
                other => Err(err(id, self.not_bool("!", &other))),
            },
            UnaryOp::Neg => ops::negate(self.lang, v).map_err(|m| err(id, m)),
        }
    }

    fn conditional(
        &mut self,
        cond: &Expr,
        then: &Expr,
        otherwise: &Expr,
    ) -> Result<Value, EvalError> {
        match self.eval(cond)? {
            Value::Bool(true) => self.eval(then),
            Value::Bool(false) => self.eval(otherwise),
            other => Err(err(cond.id, self.not_bool("?:", &other))),
        }
    }

    fn list(&mut self, items: &[Expr]) -> Result<Value, EvalError> {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            out.push(self.eval(item)?);
        }
        Ok(Value::List(out))
    }

    fn map(&mut self, entries: &[(Expr, Expr)]) -> Result<Value, EvalError> {
        let mut out = ValueMap::with_capacity(entries.len());
        for (k, v) in entries {
            let key = self.eval(k)?;
            let key = Key::from_value(&key).ok_or_else(|| {
                err(
                    k.id,
                    format!("a {} cannot be a map key", self.kind_name(key.kind())),
                )
            })?;
            if out.contains_key(&key) {
                return Err(err(k.id, format!("duplicate map key {}", key.to_text())));
            }
            let value = self.eval(v)?;
            out.insert(key, value);
        }
        Ok(Value::Map(out))
    }

    fn has(&mut self, id: NodeId, target: &Expr, field: &str) -> Result<Value, EvalError> {
        match self.eval(target)? {
            Value::Map(m) => Ok(Value::Bool(
                map_get(&m, &Key::String(field.to_string())).is_some(),
            )),
            other => Err(err(
                id,
                format!("has() needs a map, got {}", self.kind_name(other.kind())),
            )),
        }
    }

    fn template(&mut self, parts: &[TemplatePart]) -> Result<Value, EvalError> {
        let mut out = String::new();
        for part in parts {
            match part {
                TemplatePart::Text { text } => out.push_str(text),
                TemplatePart::Expr { expr } => {
                    let v = self.eval(expr)?;
                    out.push_str(&render::render(self.lang, &v).map_err(|m| err(expr.id, m))?);
                }
            }
        }
        Ok(Value::String(out))
    }

    fn kind_name(&self, kind: Kind) -> &'static str {
        match self.lang {
            Lang::Agx => kind.agx_name(),
            _ => kind.cel_name(),
        }
    }

    fn not_bool(&self, op: &str, v: &Value) -> String {
        format!("`{op}` needs a boolean, got {}", self.kind_name(v.kind()))
    }

    fn binary(
        &mut self,
        id: NodeId,
        op: super::BinaryOp,
        left: &Expr,
        right: &Expr,
    ) -> Result<Value, EvalError> {
        use super::BinaryOp as B;
        if matches!(op, B::And | B::Or) {
            return self.logical(op == B::And, left, right);
        }
        if self.lang == Lang::Gotmpl {
            return Err(err(id, "operators are not part of the template language"));
        }
        let l = self.eval(left)?;
        let r = self.eval(right)?;
        if op == B::Add {
            let len = |v: &Value| match v {
                Value::String(s) => s.len() as u64,
                Value::Bytes(b) => b.len() as u64,
                Value::List(l) => l.len() as u64,
                _ => 0,
            };
            self.built = self.built.saturating_add(len(&l) + len(&r));
            if self.built > self.env.max_built {
                return Err(limit_err(
                    id,
                    format!(
                        "the evaluation built more than {} bytes or items by concatenation",
                        self.env.max_built
                    ),
                ));
            }
        }
        ops::binary(self.lang, op, l, r).map_err(|m| err(id, m))
    }

    fn logical(&mut self, and: bool, left: &Expr, right: &Expr) -> Result<Value, EvalError> {
        let name = if and { "&&" } else { "||" };
        // The value that decides the result on its own: false for `&&`, true for `||`.
        let decisive = !and;
        let l = match self.eval(left) {
            Ok(Value::Bool(b)) => Ok(b),
            Ok(other) => Err(err(left.id, self.not_bool(name, &other))),
            Err(e) => Err(e),
        };
        match &l {
            Ok(b) if *b == decisive => return Ok(Value::Bool(*b)),
            // CEL evaluates the right side even after an error: it may decide the result.
            Err(_) if self.lang != Lang::Cel => return l.map(Value::Bool),
            _ => {}
        }
        let r = match self.eval(right) {
            Ok(Value::Bool(b)) => Ok(b),
            Ok(other) => Err(err(right.id, self.not_bool(name, &other))),
            Err(e) => Err(e),
        };
        match (l, r) {
            (_, Ok(b)) if b == decisive => Ok(Value::Bool(b)),
            (Err(e), _) | (Ok(_), Err(e)) => Err(e),
            (Ok(_), Ok(b)) => Ok(Value::Bool(b)),
        }
    }

    fn call(
        &mut self,
        id: NodeId,
        name: &str,
        target: Option<&Expr>,
        args: &[Expr],
    ) -> Result<Value, EvalError> {
        let function = functions::resolve(self.lang, name, target.is_some(), args.len())
            .map_err(|e| err(id, e.to_string()))?;
        let mut values = Vec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            values.push(self.eval(t)?);
        }
        for a in args {
            values.push(self.eval(a)?);
        }
        let kinds: Vec<Kind> = values.iter().map(Value::kind).collect();
        if function.select(&kinds).is_none() {
            let e = CallError::NoOverload {
                name: name.to_string(),
                got: kinds,
                lang: self.lang,
            };
            return Err(err(id, e.to_string()));
        }
        if self.lang == Lang::Agx {
            let text = |v: &Value| match v {
                Value::String(s) => s.clone(),
                _ => String::new(),
            };
            let status = |me: &Self, node: &str| {
                me.path("nodes", &[node, "status"])
                    .map(|v| text(&v))
                    .unwrap_or_default()
            };
            match name {
                "succeeded" => {
                    return Ok(Value::Bool(status(self, &text(&values[0])) == "succeeded"));
                }
                "failed" => {
                    let s = status(self, &text(&values[0]));
                    return Ok(Value::Bool(s == "failed" || s == "blocked"));
                }
                "skipped" => return Ok(Value::Bool(status(self, &text(&values[0])) == "skipped")),
                "output" => {
                    let (node, output) = (text(&values[0]), text(&values[1]));
                    return Ok(self
                        .path("nodes", &[&node, "outputs", &output])
                        .unwrap_or(Value::Null));
                }
                _ => {}
            }
        }
        builtins::call(
            self.lang,
            function.name,
            function.style,
            values,
            &mut self.regexes,
        )
        .map_err(|m| err(id, m))
    }

    fn comprehension(
        &mut self,
        mac: Macro,
        range: &Expr,
        var: &str,
        filter: Option<&Expr>,
        body: &Expr,
    ) -> Result<Value, EvalError> {
        let items: Vec<Value> = match self.eval(range)? {
            Value::List(items) => items,
            Value::Map(m) => m.keys().map(Key::to_value).collect(),
            other => {
                return Err(err(
                    range.id,
                    format!("cannot iterate over a {}", self.kind_name(other.kind())),
                ));
            }
        };
        let mut first_error: Option<EvalError> = None;
        let mut count = 0usize;
        let mut out = Vec::new();
        for item in items {
            self.locals.push((var.to_string(), item));
            let result = self.comprehension_step(mac, filter, body);
            let item = self.locals.pop().map(|(_, v)| v).unwrap_or(Value::Null);
            match (mac, result) {
                (Macro::All, Ok(Iteration::Pred(false))) => return Ok(Value::Bool(false)),
                (Macro::Exists, Ok(Iteration::Pred(true))) => return Ok(Value::Bool(true)),
                (Macro::All | Macro::Exists, Err(e)) => {
                    first_error.get_or_insert(e);
                }
                (Macro::ExistsOne, Ok(Iteration::Pred(true))) => count += 1,
                (Macro::Filter, Ok(Iteration::Pred(true))) => out.push(item),
                (_, Ok(Iteration::Mapped(v))) => out.push(v),
                (_, Err(e)) => return Err(e),
                _ => {}
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        Ok(match mac {
            Macro::All => Value::Bool(true),
            Macro::Exists => Value::Bool(false),
            Macro::ExistsOne => Value::Bool(count == 1),
            Macro::Map | Macro::Filter => Value::List(out),
        })
    }

    /// One iteration: the predicate's boolean, or for `map` the mapped value (or a skip when
    /// its filter says no).
    fn comprehension_step(
        &mut self,
        mac: Macro,
        filter: Option<&Expr>,
        body: &Expr,
    ) -> Result<Iteration, EvalError> {
        if mac == Macro::Map {
            if let Some(f) = filter {
                match self.eval(f)? {
                    Value::Bool(false) => return Ok(Iteration::Skip),
                    Value::Bool(true) => {}
                    other => return Err(err(f.id, self.not_bool("filter", &other))),
                }
            }
            return Ok(Iteration::Mapped(self.eval(body)?));
        }
        match self.eval(body)? {
            Value::Bool(b) => Ok(Iteration::Pred(b)),
            other => Err(err(body.id, self.not_bool("predicate", &other))),
        }
    }
}

enum Iteration {
    Pred(bool),
    Skip,
    Mapped(Value),
}

fn literal(l: &Literal) -> Value {
    match l {
        Literal::Null => Value::Null,
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Int(i) => Value::Int(*i),
        Literal::Uint(u) => Value::Uint(*u),
        Literal::Double(d) => Value::Double(*d),
        Literal::String(s) => Value::String(s.clone()),
        Literal::Bytes(b) => Value::Bytes(b.clone()),
    }
}
