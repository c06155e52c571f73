//! `{{ }}` node tree → core [`Expr`]. The mapping is documented in the module above.

use agc_runtime::expr::{Expr, ExprKind, Literal, Macro, NodeId, TemplatePart};

use super::parser::{Arg, Base, BlockKind, Cmd, Node, Pipe, Range};
use crate::diag::Diagnostic;
use crate::expr::CODE_SYNTAX;
use crate::source::Span;
use crate::source::scalar::ScalarMap;

/// The functions agh's template environment defines, with their arity (the piped value
/// counts as the last argument).
pub const FUNCTIONS: &[(&str, usize)] = &[
    ("default", 2),
    ("join", 2),
    ("json", 1),
    ("len", 1),
    ("shellQuote", 1),
    ("toJson", 1),
];

pub fn allowed_list() -> String {
    FUNCTIONS
        .iter()
        .map(|(f, _)| *f)
        .collect::<Vec<_>>()
        .join(", ")
}

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

    fn alloc(&mut self, r: Range) -> NodeId {
        let id = self.spans.len() as NodeId;
        let s = self.map.span(r.0, r.1);
        self.spans.push(s);
        id
    }

    fn error(&mut self, r: Range, msg: String) {
        self.diags
            .push(Diagnostic::error(CODE_SYNTAX, msg).at(self.map.span(r.0, r.1)));
    }

    /// A template node over `nodes`; `dot` is the name the dot is bound to (`$` at the root,
    /// `$N` inside the N-th nested `range`/`with`), `depth` the block depth.
    pub fn template(&mut self, nodes: &[Node], span: Range, depth: usize) -> Expr {
        let id = self.alloc(span);
        // Exactly sized: a Loop's parsed templates live as long as its IR.
        let mut parts = Vec::with_capacity(nodes.len());
        for n in nodes {
            match n {
                Node::Text(t) => parts.push(TemplatePart::Text { text: t.clone() }),
                Node::Action(p) => parts.push(TemplatePart::Expr {
                    expr: self.pipe(p, depth),
                }),
                Node::Block {
                    kind,
                    pipe,
                    body,
                    els,
                    span,
                    open,
                } => parts.push(TemplatePart::Expr {
                    expr: self.block(*kind, pipe, body, els, *span, *open, depth),
                }),
            }
        }
        Expr {
            id,
            kind: ExprKind::Template { parts },
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn block(
        &mut self,
        kind: BlockKind,
        pipe: &Pipe,
        body: &[Node],
        els: &[Node],
        span: Range,
        open: Range,
        depth: usize,
    ) -> Expr {
        let id = self.alloc(span);
        let cond = self.truthy(pipe, depth);
        let then = match kind {
            BlockKind::If => self.template(body, span, depth),
            BlockKind::Range | BlockKind::With => {
                // join("", <range or [value]>.map($N, template))
                let join = self.alloc(span);
                let sep = self.alloc(open);
                let comp = self.alloc(span);
                let range = if kind == BlockKind::With {
                    let list = self.alloc(pipe.span);
                    let item = self.pipe(pipe, depth);
                    Expr {
                        id: list,
                        kind: ExprKind::List { items: vec![item] },
                    }
                } else {
                    self.pipe(pipe, depth)
                };
                let body = self.template(body, span, depth + 1);
                Expr {
                    id: join,
                    kind: ExprKind::Call {
                        function: "join".into(),
                        target: None,
                        args: vec![
                            Expr {
                                id: sep,
                                kind: ExprKind::Literal {
                                    value: Literal::String(String::new()),
                                },
                            },
                            Expr {
                                id: comp,
                                kind: ExprKind::Comprehension {
                                    mac: Macro::Map,
                                    range: Box::new(range),
                                    var: format!("${}", depth + 1),
                                    filter: None,
                                    body: Box::new(body),
                                },
                            },
                        ],
                    },
                }
            }
        };
        let otherwise = self.template(els, span, depth);
        Expr {
            id,
            kind: ExprKind::Conditional {
                cond: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
        }
    }

    fn truthy(&mut self, pipe: &Pipe, depth: usize) -> Expr {
        let id = self.alloc(pipe.span);
        let arg = self.pipe(pipe, depth);
        Expr {
            id,
            kind: ExprKind::Call {
                function: "truthy".into(),
                target: None,
                args: vec![arg],
            },
        }
    }

    /// `c1 | c2 | c3` is `c3(.., c2(.., c1))`: lowered from the last command back.
    pub fn pipe(&mut self, pipe: &Pipe, depth: usize) -> Expr {
        self.cmds(&pipe.cmds, pipe.span.0, depth)
    }

    fn cmds(&mut self, cmds: &[Cmd], start: usize, depth: usize) -> Expr {
        let Some((last, before)) = cmds.split_last() else {
            let id = self.alloc((start, start));
            return null(id);
        };
        let piped = !before.is_empty();
        let Some((name, nspan)) = &last.func else {
            if piped {
                self.error(
                    last.span,
                    "only a function can receive a piped value; this command is a value".into(),
                );
            }
            if last.args.len() > 1 {
                self.error(
                    last.args[1].span(),
                    "a value takes no arguments; only functions do".into(),
                );
            }
            return match last.args.first() {
                Some(a) => self.arg(a, depth),
                None => null(self.alloc(last.span)),
            };
        };
        let id = self.alloc((start, last.span.1));
        match FUNCTIONS.iter().find(|(f, _)| f == name) {
            None => self.error(
                *nspan,
                format!(
                    "unsupported template function \"{name}\"; allowed functions: {}",
                    allowed_list()
                ),
            ),
            Some((_, arity)) => {
                let n = last.args.len() + piped as usize;
                if n != *arity {
                    self.error(
                        last.span,
                        format!("`{name}` takes {arity} argument(s), got {n}"),
                    );
                }
            }
        }
        let mut args: Vec<Expr> = last.args.iter().map(|a| self.arg(a, depth)).collect();
        if piped {
            args.push(self.cmds(before, start, depth));
        }
        Expr {
            id,
            kind: ExprKind::Call {
                function: name.clone(),
                target: None,
                args,
            },
        }
    }

    fn dot(&mut self, r: Range, depth: usize) -> Expr {
        let id = self.alloc(r);
        Expr {
            id,
            kind: ExprKind::Ident {
                name: if depth == 0 {
                    "$".into()
                } else {
                    format!("${depth}")
                },
            },
        }
    }

    fn arg(&mut self, a: &Arg, depth: usize) -> Expr {
        match a {
            Arg::Lit(l, r) => {
                let id = self.alloc(*r);
                Expr {
                    id,
                    kind: ExprKind::Literal { value: l.clone() },
                }
            }
            Arg::Dot(r) => self.dot(*r, depth),
            Arg::Root(r) => self.dot(*r, 0),
            Arg::Paren(p, _) => self.pipe(p, depth),
            Arg::Path { base, segs, span } => {
                // At the root, `.a` (and `$.a` anywhere) is the root name `a`; otherwise every
                // segment is a field of the base.
                let rooted = matches!(base, Base::Root) || (*base == Base::Dot && depth == 0);
                let rest = if rooted { &segs[1..] } else { &segs[..] };
                // Pre-order: the outermost member first.
                let ids: Vec<NodeId> = rest
                    .iter()
                    .rev()
                    .map(|(_, r)| self.alloc((span.0, r.1)))
                    .collect();
                let mut e = if rooted {
                    let (name, r) = &segs[0];
                    let id = self.alloc(*r);
                    Expr {
                        id,
                        kind: ExprKind::Ident { name: name.clone() },
                    }
                } else if let Base::Paren(p) = base {
                    self.pipe(p, depth)
                } else {
                    self.dot((span.0, span.0 + 1), depth)
                };
                for (k, (field, _)) in rest.iter().enumerate() {
                    e = Expr {
                        id: ids[rest.len() - 1 - k],
                        kind: ExprKind::Member {
                            target: Box::new(e),
                            field: field.clone(),
                        },
                    };
                }
                e
            }
        }
    }
}

fn null(id: NodeId) -> Expr {
    Expr {
        id,
        kind: ExprKind::Literal {
            value: Literal::Null,
        },
    }
}
