//! The one static type checker over the core expression form.
//!
//! [`check`] walks an [`Expr`] once, gives every node a [`Type`], and reports what is
//! certainly wrong as [`TypeError`]s: unknown functions and wrong arities (from the runtime's
//! function table, the same one the evaluator uses), unknown roots, unknown fields of closed
//! objects, operands no value of their types could make work, and non-boolean conditions.
//! It keeps going after an error (the failing node gets `Dyn`), so one pass reports all.
//!
//! It is gradual: `Dyn` never causes an error, and operator checks mirror the evaluator's
//! rules per language (AGX: ordering needs numbers or strings; CEL: same-kind arithmetic and
//! ordering, numbers across kinds). Equality is never an error (it is `false` across types in
//! both languages).
//!
//! Error codes are not decided here: the dialect front ends map [`TypeErrorKind`]s to their
//! codes (AGS: AG204 for functions, arity and operand types; AG203 for unknown roots ...) and
//! node ids to spans through their side tables. The walk recurses along the tree, whose depth
//! the parsers bound; past [`MAX_DEPTH`] it stops with a `Dyn` and no further errors.

mod ops;

#[cfg(test)]
mod tests;

use agc_runtime::expr::functions::{self, CallError, Function, Ret, Style};
use agc_runtime::expr::{Expr, ExprKind, Lang, Literal, Macro, NodeId, TemplatePart, UnaryOp};
use agc_runtime::value::Kind;
use indexmap::IndexMap;

use super::types::Type;

/// Deepest nesting the checker follows (the evaluator's limit too).
pub const MAX_DEPTH: u32 = agc_runtime::expr::eval::MAX_DEPTH;

/// The roots an expression may read, with their types.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TypeEnv {
    roots: IndexMap<String, Type>,
}

impl TypeEnv {
    /// An environment with no roots.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a root.
    pub fn with(mut self, name: impl Into<String>, ty: Type) -> Self {
        self.insert(name, ty);
        self
    }

    /// Adds (or replaces) a root.
    pub fn insert(&mut self, name: impl Into<String>, ty: Type) {
        self.roots.insert(name.into(), ty);
    }

    /// A root's type.
    pub fn get(&self, name: &str) -> Option<&Type> {
        self.roots.get(name)
    }

    /// The roots, in insertion order.
    pub fn roots(&self) -> impl Iterator<Item = (&str, &Type)> {
        self.roots.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// What went wrong, for the front ends to map to their codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeErrorKind {
    /// No such function (or method) in the language's library.
    UnknownFunction,
    /// A known function called with the wrong number of arguments.
    WrongArity,
    /// A root name the environment does not declare.
    UnknownRoot,
    /// A field a closed object does not have.
    UnknownField,
    /// Operand or argument types that no value of theirs could make work.
    BadOperands,
    /// A condition or logical operand that is certainly not a boolean.
    NotBool,
}

/// A static type error at one node.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeError {
    pub node: NodeId,
    pub kind: TypeErrorKind,
    pub message: String,
}

impl std::fmt::Display for TypeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The result of [`check_typed`]: the expression's type, errors, and every node's type.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    pub ty: Type,
    pub errors: Vec<TypeError>,
    /// The type of each node, by id.
    pub types: IndexMap<NodeId, Type>,
}

/// Checks `expr` under `lang` against `env`: its type and every error found.
pub fn check(expr: &Expr, lang: Lang, env: &TypeEnv) -> (Type, Vec<TypeError>) {
    let c = check_typed(expr, lang, env);
    (c.ty, c.errors)
}

/// Like [`check`], also returning every node's type (for plans and code generation).
pub fn check_typed(expr: &Expr, lang: Lang, env: &TypeEnv) -> Checked {
    let mut c = Checker {
        lang,
        env,
        locals: Vec::new(),
        errors: Vec::new(),
        types: IndexMap::new(),
        depth: 0,
    };
    let ty = c.check(expr);
    Checked {
        ty,
        errors: c.errors,
        types: c.types,
    }
}

struct Checker<'a> {
    lang: Lang,
    env: &'a TypeEnv,
    locals: Vec<(String, Type)>,
    errors: Vec<TypeError>,
    types: IndexMap<NodeId, Type>,
    depth: u32,
}

impl Checker<'_> {
    fn error(&mut self, node: NodeId, kind: TypeErrorKind, message: impl Into<String>) -> Type {
        self.errors.push(TypeError {
            node,
            kind,
            message: message.into(),
        });
        Type::Dyn
    }

    fn name(&self, t: &Type) -> String {
        t.describe(self.lang)
    }

    fn check(&mut self, e: &Expr) -> Type {
        if self.depth >= MAX_DEPTH {
            return Type::Dyn;
        }
        self.depth += 1;
        let ty = self.check_kind(e);
        self.depth -= 1;
        self.types.insert(e.id, ty.clone());
        ty
    }

    fn check_kind(&mut self, e: &Expr) -> Type {
        let id = e.id;
        match &e.kind {
            ExprKind::Literal { value } => literal_type(value),
            ExprKind::Ident { name } => self.ident(id, name),
            ExprKind::Member { target, field } => {
                if let Some(t) = self.root_path(e) {
                    return t;
                }
                let t = self.check(target);
                self.field(id, &t, field)
            }
            ExprKind::Index { target, index } => self.index(id, target, index),
            ExprKind::Unary { op, operand } => self.unary(id, *op, operand),
            ExprKind::Binary { op, left, right } => {
                let l = self.check(left);
                let r = self.check(right);
                self.binary(id, *op, (left.id, l), (right.id, r))
            }
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => {
                self.condition(cond, "condition");
                let a = self.check(then);
                let b = self.check(otherwise);
                a.join(&b)
            }
            ExprKind::Call {
                function,
                target,
                args,
            } => self.call(id, function, target.as_deref(), args),
            ExprKind::List { items } => {
                let mut elem: Option<Type> = None;
                for item in items {
                    let t = self.check(item);
                    elem = Some(elem.map_or(t.clone(), |e| e.join(&t)));
                }
                Type::list(elem.unwrap_or(Type::Dyn))
            }
            ExprKind::Map { entries } => self.map_literal(entries),
            ExprKind::Has { target, field } => {
                let t = self.check(target);
                match &t {
                    Type::Object { .. } => {
                        self.field(id, &t, field);
                    }
                    Type::Map(..) | Type::Dyn => {}
                    other => {
                        let msg = format!("has() needs a map, got {}", self.name(other));
                        self.error(id, TypeErrorKind::BadOperands, msg);
                    }
                }
                Type::Bool
            }
            ExprKind::Comprehension {
                mac,
                range,
                var,
                filter,
                body,
            } => self.comprehension(*mac, range, var, filter.as_deref(), body),
            ExprKind::Template { parts } => {
                for part in parts {
                    if let TemplatePart::Expr { expr } = part {
                        self.check(expr);
                    }
                }
                Type::String
            }
        }
    }

    /// `root.a.b.c` over a root of the environment, resolved by reference: the root's type
    /// (which can be an object with one field per node of a 100k-node graph) is never cloned,
    /// only the type at the end of the path. Intermediate nodes get no entry in `types`.
    /// `None` when the path leaves plain closed/open objects, so the general path reports it.
    fn root_path(&mut self, e: &Expr) -> Option<Type> {
        let mut fields = Vec::new();
        let mut cur = e;
        let root = loop {
            match &cur.kind {
                ExprKind::Member { target, field } => {
                    fields.push(field.as_str());
                    cur = target;
                }
                ExprKind::Ident { name } => break name.as_str(),
                _ => return None,
            }
        };
        if self.locals.iter().any(|(n, _)| n == root) {
            return None;
        }
        let mut t = self.env.get(root)?;
        for f in fields.iter().rev() {
            t = match t {
                Type::Object { fields, .. } => fields.get(*f)?,
                _ => return None,
            };
        }
        Some(t.clone())
    }

    fn ident(&mut self, id: NodeId, name: &str) -> Type {
        if let Some((_, t)) = self.locals.iter().rev().find(|(n, _)| n == name) {
            return t.clone();
        }
        if let Some(t) = self.env.get(name) {
            return t.clone();
        }
        if self.lang == Lang::Cel && Kind::from_cel_ident(name).is_some() {
            return Type::Dyn;
        }
        self.error(
            id,
            TypeErrorKind::UnknownRoot,
            format!("unknown name `{name}`"),
        )
    }

    /// `target.field` given the target's type.
    fn field(&mut self, id: NodeId, target: &Type, field: &str) -> Type {
        match target {
            Type::Object { fields, open } => match fields.get(field) {
                Some(t) => t.clone(),
                None if *open => Type::Dyn,
                None => {
                    let known: Vec<&str> = fields.keys().map(String::as_str).collect();
                    let msg = if known.is_empty() {
                        format!("no field `{field}` here: this object has no fields")
                    } else {
                        format!("no field `{field}`; known fields: {}", known.join(", "))
                    };
                    self.error(id, TypeErrorKind::UnknownField, msg)
                }
            },
            Type::Map(_, v) => (**v).clone(),
            Type::Dyn => Type::Dyn,
            Type::Null if self.lang == Lang::Agx => Type::Null,
            other => {
                let msg = format!("cannot read field `{field}` of type {}", self.name(other));
                self.error(id, TypeErrorKind::BadOperands, msg)
            }
        }
    }

    fn index(&mut self, id: NodeId, target: &Expr, index: &Expr) -> Type {
        let t = self.check(target);
        let i = self.check(index);
        match (&t, &i) {
            (Type::Dyn, _) => Type::Dyn,
            (Type::List(elem), Type::Int | Type::Uint | Type::Dyn) => (**elem).clone(),
            (Type::List(elem), Type::Double) if self.lang == Lang::Cel => (**elem).clone(),
            (Type::Map(_, v), _) => (**v).clone(),
            (Type::Object { .. }, _) => match &index.kind {
                ExprKind::Literal {
                    value: Literal::String(f),
                } => self.field(id, &t, f),
                _ => Type::Dyn,
            },
            (Type::Null, _) if self.lang == Lang::Agx => Type::Null,
            (Type::List(_), other) => {
                let msg = format!("list index must be an integer, got {}", self.name(other));
                self.error(id, TypeErrorKind::BadOperands, msg)
            }
            (other, _) => {
                let msg = format!("cannot index type {}", self.name(other));
                self.error(id, TypeErrorKind::BadOperands, msg)
            }
        }
    }

    fn unary(&mut self, id: NodeId, op: UnaryOp, operand: &Expr) -> Type {
        match op {
            UnaryOp::Not => {
                self.condition(operand, "`!`");
                Type::Bool
            }
            UnaryOp::Neg => {
                let t = self.check(operand);
                match ops::negate(self.lang, &t) {
                    Some(r) => r,
                    None => {
                        let msg = format!("`-` cannot take {}", self.name(&t));
                        self.error(id, TypeErrorKind::BadOperands, msg)
                    }
                }
            }
        }
    }

    /// Checks an expression that must be a boolean; reports `NotBool` at it otherwise.
    fn condition(&mut self, e: &Expr, what: &str) {
        let t = self.check(e);
        if !matches!(t, Type::Bool | Type::Dyn) {
            let msg = format!("{what} needs a boolean, got {}", self.name(&t));
            self.error(e.id, TypeErrorKind::NotBool, msg);
        }
    }

    fn binary(
        &mut self,
        id: NodeId,
        op: agc_runtime::expr::BinaryOp,
        (lid, l): (NodeId, Type),
        (rid, r): (NodeId, Type),
    ) -> Type {
        use agc_runtime::expr::BinaryOp as B;
        if matches!(op, B::And | B::Or) {
            let sym = if op == B::And { "`&&`" } else { "`||`" };
            for (nid, t) in [(lid, &l), (rid, &r)] {
                if !matches!(t, Type::Bool | Type::Dyn) {
                    let msg = format!("{sym} needs booleans, got {}", self.name(t));
                    self.error(nid, TypeErrorKind::NotBool, msg);
                }
            }
            return Type::Bool;
        }
        match ops::binary(self.lang, op, &l, &r) {
            Ok(t) => t,
            Err(()) => {
                let msg = ops::mismatch_message(self.lang, op, &self.name(&l), &self.name(&r));
                self.error(id, TypeErrorKind::BadOperands, msg)
            }
        }
    }

    fn call(&mut self, id: NodeId, name: &str, target: Option<&Expr>, args: &[Expr]) -> Type {
        let mut types = Vec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            types.push(self.check(t));
        }
        for a in args {
            types.push(self.check(a));
        }
        let function = match functions::resolve(self.lang, name, target.is_some(), args.len()) {
            Ok(f) => f,
            Err(e) => {
                let kind = match e {
                    CallError::WrongArity { .. } => TypeErrorKind::WrongArity,
                    _ => TypeErrorKind::UnknownFunction,
                };
                let mut msg = e.to_string();
                if kind == TypeErrorKind::UnknownFunction
                    && let Some(hint) = other_style_hint(self.lang, name, target.is_some())
                {
                    msg.push_str(&hint);
                }
                return self.error(id, kind, msg);
            }
        };
        match call_result(function, &types) {
            Some(t) => t,
            None => {
                let names: Vec<String> = types.iter().map(|t| self.name(t)).collect();
                let msg = format!("no overload of `{name}` takes ({})", names.join(", "));
                self.error(id, TypeErrorKind::BadOperands, msg)
            }
        }
    }

    fn map_literal(&mut self, entries: &[(Expr, Expr)]) -> Type {
        let (mut key, mut value): (Option<Type>, Option<Type>) = (None, None);
        for (k, v) in entries {
            let kt = self.check(k);
            if !matches!(
                kt,
                Type::Bool | Type::Int | Type::Uint | Type::String | Type::Dyn
            ) {
                let msg = format!("a {} cannot be a map key", self.name(&kt));
                self.error(k.id, TypeErrorKind::BadOperands, msg);
            }
            let vt = self.check(v);
            key = Some(key.map_or(kt.clone(), |x| x.join(&kt)));
            value = Some(value.map_or(vt.clone(), |x| x.join(&vt)));
        }
        Type::map(key.unwrap_or(Type::Dyn), value.unwrap_or(Type::Dyn))
    }

    fn comprehension(
        &mut self,
        mac: Macro,
        range: &Expr,
        var: &str,
        filter: Option<&Expr>,
        body: &Expr,
    ) -> Type {
        let r = self.check(range);
        let elem = match &r {
            Type::List(t) => (**t).clone(),
            Type::Map(k, _) => (**k).clone(),
            Type::Object { .. } => Type::String,
            Type::Dyn => Type::Dyn,
            other => {
                let msg = format!("cannot iterate over {}", self.name(other));
                self.error(range.id, TypeErrorKind::BadOperands, msg)
            }
        };
        self.locals.push((var.to_string(), elem.clone()));
        let result = match mac {
            Macro::All | Macro::Exists | Macro::ExistsOne => {
                self.condition(body, "the predicate");
                Type::Bool
            }
            Macro::Filter => {
                self.condition(body, "the filter");
                Type::list(elem)
            }
            Macro::Map => {
                if let Some(f) = filter {
                    self.condition(f, "the filter");
                }
                Type::list(self.check(body))
            }
        };
        self.locals.pop();
        result
    }
}

/// The result type of a call whose argument types are `types` (receiver first), or `None`
/// when no overload can take them.
fn call_result(function: &Function, types: &[Type]) -> Option<Type> {
    let mut result: Option<Type> = None;
    for overload in function.overloads_with(types.len()) {
        let fits = overload
            .params
            .iter()
            .zip(types)
            .all(|(p, t)| t.kinds().kinds().any(|k| p.contains(k)));
        if !fits {
            continue;
        }
        let r = match overload.result {
            Ret::Kind(k) => Type::of_kind(k),
            Ret::ListOf(k) => Type::list(Type::of_kind(k)),
            Ret::Dyn => Type::Dyn,
            Ret::Arg(n) => types.get(n).cloned().unwrap_or(Type::Dyn),
            Ret::Join(a, b) => match (types.get(a), types.get(b)) {
                (Some(Type::Null), Some(t)) | (Some(t), Some(Type::Null)) => t.clone(),
                (Some(x), Some(y)) => x.join(y),
                _ => Type::Dyn,
            },
        };
        result = Some(result.map_or(r.clone(), |x| x.join(&r)));
    }
    result
}

/// "did you mean `x.f()`" when the name exists in the other call style.
fn other_style_hint(lang: Lang, name: &str, receiver: bool) -> Option<String> {
    let other = if receiver {
        Style::Global
    } else {
        Style::Receiver
    };
    functions::functions(lang)
        .iter()
        .any(|f| f.name == name && f.style == other)
        .then(|| match other {
            Style::Receiver => format!(" (it is a method: call it as `x.{name}(...)`)"),
            Style::Global => format!(" (it is a function: call it as `{name}(x, ...)`)"),
        })
}

fn literal_type(l: &Literal) -> Type {
    match l {
        Literal::Null => Type::Null,
        Literal::Bool(_) => Type::Bool,
        Literal::Int(_) => Type::Int,
        Literal::Uint(_) => Type::Uint,
        Literal::Double(_) => Type::Double,
        Literal::String(_) => Type::String,
        Literal::Bytes(_) => Type::Bytes,
    }
}
