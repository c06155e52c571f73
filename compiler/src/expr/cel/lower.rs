//! CEL syntax tree → core [`Expr`], with file spans and the macro expansions.
//!
//! Node ids are assigned in pre-order (a node before its children, children in source order;
//! a map's entries key then value). The span table is indexed by id and holds file spans
//! through the [`ScalarMap`].
//!
//! Macros, expanded only at their exact arity, as cel-go does (otherwise the call stays a
//! call and the checker reports the unknown function):
//! - `has(a.f)` → [`ExprKind::Has`]; any other single argument is an error.
//! - `r.all(x, p)`, `r.exists(x, p)`, `r.exists_one(x, p)`, `r.filter(x, p)`, `r.map(x, t)`
//!   and `r.map(x, p, t)` → [`ExprKind::Comprehension`] (three-argument `map` sets `filter`);
//!   the variable must be a simple name.
//!
//! `.name` (root-scope name) lowers to the plain identifier: agc has no containers, so the
//! root scope is the only scope. Message construction `T{..}` is rejected here, with the span
//! of the whole literal.

use agc_runtime::expr::{Expr, ExprKind, Literal, Macro, NodeId};

use super::ast::{Ast, AstKind, Lit, MAX_HEIGHT};
use super::lexer::RESERVED;
use crate::diag::Diagnostic;
use crate::expr::{CODE_SYNTAX, CODE_TOO_DEEP};
use crate::source::Span;
use crate::source::scalar::ScalarMap;

pub struct Lowerer<'m> {
    map: &'m ScalarMap,
    pub spans: Vec<Span>,
    pub diags: Vec<Diagnostic>,
}

impl<'m> Lowerer<'m> {
    pub fn new(map: &'m ScalarMap) -> Self {
        Lowerer {
            map,
            spans: Vec::new(),
            diags: Vec::new(),
        }
    }

    fn span(&self, r: (usize, usize)) -> Span {
        self.map.span(r.0, r.1)
    }

    fn alloc(&mut self, r: (usize, usize)) -> NodeId {
        let id = self.spans.len() as NodeId;
        let s = self.span(r);
        self.spans.push(s);
        id
    }

    fn error(&mut self, r: (usize, usize), msg: String, help: Option<&str>) {
        let mut d = Diagnostic::error(CODE_SYNTAX, msg).at(self.span(r));
        if let Some(h) = help {
            d = d.with_help(h);
        }
        self.diags.push(d);
    }

    /// Lowers one tree. Recursion depth is bounded by [`MAX_HEIGHT`] (the tree cannot be higher).
    pub fn lower(&mut self, ast: &Ast) -> Expr {
        debug_assert!(ast.height <= MAX_HEIGHT + 1);
        let id = self.alloc(ast.span);
        let kind = match &ast.kind {
            AstKind::Lit(l) => ExprKind::Literal { value: lit(l) },
            AstKind::IntOutOfRange => {
                self.error(
                    ast.span,
                    "int literal is out of range (int is 64-bit signed)".into(),
                    Some("the largest int is 9223372036854775807; add a `u` suffix for a uint"),
                );
                ExprKind::Literal {
                    value: Literal::Int(0),
                }
            }
            AstKind::TooDeep => {
                self.diags.push(
                    Diagnostic::error(
                        CODE_TOO_DEEP,
                        format!("expression is nested more than {MAX_HEIGHT} levels deep"),
                    )
                    .at(self.span(ast.span))
                    .with_help("split the expression, or use a list with `in` or a macro"),
                );
                ExprKind::Literal {
                    value: Literal::Null,
                }
            }
            AstKind::Ident { name, .. } => {
                self.check_name(name, ast.span, "an identifier");
                ExprKind::Ident { name: name.clone() }
            }
            AstKind::Select {
                target,
                field,
                field_span,
            } => {
                self.check_name(field, *field_span, "a field name");
                ExprKind::Member {
                    target: Box::new(self.lower(target)),
                    field: field.clone(),
                }
            }
            AstKind::Index { target, index } => ExprKind::Index {
                target: Box::new(self.lower(target)),
                index: Box::new(self.lower(index)),
            },
            AstKind::Call {
                target,
                function,
                function_span,
                args,
            } => {
                self.check_name(function, *function_span, "a function name");
                return self.call(id, target.as_deref(), function, args);
            }
            AstKind::Unary { op, operand } => ExprKind::Unary {
                op: *op,
                operand: Box::new(self.lower(operand)),
            },
            AstKind::Binary { op, left, right } => ExprKind::Binary {
                op: *op,
                left: Box::new(self.lower(left)),
                right: Box::new(self.lower(right)),
            },
            AstKind::Cond {
                cond,
                then,
                otherwise,
            } => ExprKind::Conditional {
                cond: Box::new(self.lower(cond)),
                then: Box::new(self.lower(then)),
                otherwise: Box::new(self.lower(otherwise)),
            },
            AstKind::List(items) => ExprKind::List {
                items: items.iter().map(|i| self.lower(i)).collect(),
            },
            AstKind::Map(entries) => ExprKind::Map {
                entries: entries
                    .iter()
                    .map(|(k, v)| (self.lower(k), self.lower(v)))
                    .collect(),
            },
            AstKind::Message { type_name, .. } => {
                let name = dotted_name(type_name).unwrap_or_else(|| "…".into());
                self.error(
                    ast.span,
                    format!("message construction `{name}{{…}}` is not supported"),
                    Some("agc has no protobuf message types; write a map literal `{\"field\": value}`"),
                );
                ExprKind::Literal {
                    value: Literal::Null,
                }
            }
        };
        Expr { id, kind }
    }

    fn check_name(&mut self, name: &str, r: (usize, usize), what: &str) {
        if RESERVED.contains(&name) {
            self.error(
                r,
                format!("`{name}` is a reserved word and cannot be {what}"),
                Some("CEL reserves: as break const continue else for function if import let loop package namespace return var void while"),
            );
        }
    }

    fn call(&mut self, id: NodeId, target: Option<&Ast>, function: &str, args: &[Ast]) -> Expr {
        if target.is_none() && function == "has" && args.len() == 1 {
            let kind = match &args[0].kind {
                AstKind::Select { target, field, .. } => ExprKind::Has {
                    target: Box::new(self.lower(target)),
                    field: field.clone(),
                },
                _ => {
                    self.error(
                        args[0].span,
                        "invalid argument to has(): it takes a field selection".into(),
                        Some("write `has(a.b)` to test whether `a` has the field `b`"),
                    );
                    ExprKind::Literal {
                        value: Literal::Bool(false),
                    }
                }
            };
            return Expr { id, kind };
        }
        let mac = match (function, args.len()) {
            ("all", 2) => Some(Macro::All),
            ("exists", 2) => Some(Macro::Exists),
            ("exists_one", 2) => Some(Macro::ExistsOne),
            ("filter", 2) => Some(Macro::Filter),
            ("map", 2 | 3) => Some(Macro::Map),
            _ => None,
        };
        if let (Some(range), Some(mac)) = (target, mac) {
            let var = match &args[0].kind {
                AstKind::Ident {
                    name,
                    leading_dot: false,
                } => name.clone(),
                _ => {
                    self.error(
                        args[0].span,
                        format!(
                            "the first argument of `{function}` must be a simple variable name"
                        ),
                        Some("write, for example, `list.all(x, x > 0)`"),
                    );
                    String::new()
                }
            };
            self.check_name(&var, args[0].span, "a variable name");
            let range = Box::new(self.lower(range));
            let (filter, body) = if args.len() == 3 {
                (Some(Box::new(self.lower(&args[1]))), self.lower(&args[2]))
            } else {
                (None, self.lower(&args[1]))
            };
            return Expr {
                id,
                kind: ExprKind::Comprehension {
                    mac,
                    range,
                    var,
                    filter,
                    body: Box::new(body),
                },
            };
        }
        Expr {
            id,
            kind: ExprKind::Call {
                function: function.to_string(),
                target: target.map(|t| Box::new(self.lower(t))),
                args: args.iter().map(|a| self.lower(a)).collect(),
            },
        }
    }
}

fn lit(l: &Lit) -> Literal {
    match l {
        Lit::Null => Literal::Null,
        Lit::Bool(b) => Literal::Bool(*b),
        Lit::Int(i) => Literal::Int(*i),
        Lit::Uint(u) => Literal::Uint(*u),
        Lit::Double(d) => Literal::Double(*d),
        Lit::String(s) => Literal::String(s.clone()),
        Lit::Bytes(b) => Literal::Bytes(b.clone()),
    }
}

/// `a.b.C` as text, if the tree is a plain dotted name.
fn dotted_name(ast: &Ast) -> Option<String> {
    match &ast.kind {
        AstKind::Ident { name, leading_dot } => {
            Some(format!("{}{name}", if *leading_dot { "." } else { "" }))
        }
        AstKind::Select { target, field, .. } => Some(format!("{}.{field}", dotted_name(target)?)),
        _ => None,
    }
}
