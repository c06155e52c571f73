//! `{{ }}` templates and CEL conditions checked against the namespace.
//!
//! Both are parsed by the shared parsers (`expr::gotmpl`, `expr::cel`) into the core form
//! with file spans per node; this module walks the core form for references:
//!
//! - **Templates.** A field chain `.a.b` is the path `a.b`; inside `range X` / `with X` the
//!   dot is re-scoped to X's path, so `{{ range .item }}{{ .id }}` reads `item.id` (and
//!   `{{ range .nodes.r.output.issues }}{{ .id }}` reads `nodes.r.output.issues.id`, which
//!   resolves through the array's `items`). A field of a dot whose scope is not a plain path
//!   (`range (json .x)`) is rejected ("unresolved scope"), as upstream does. Functions the
//!   document's version does not define (`shellQuote` before compozy) are
//!   `unresolvable_path` with a "not supported in this version" message.
//! - **CEL.** Select chains rooted at a namespace name, with `x["lit"]` adding a segment and
//!   a numeric index adding none (`issues[0].id` is checked as `issues.id`); comprehension
//!   variables are locals. The condition is type-checked by the one checker under upstream's
//!   declared variable types (`inputs`, `nodes`, `trigger`, `event`: `map(string, dyn)`;
//!   `item`: `dyn`; `index`, `generation`: `int`), and its type must be exactly `bool`
//!   (`condition_not_bool`; a bare `inputs.flag` is `dyn` and rejected, as in agh). An
//!   undeclared name, an unknown function or operands no value could satisfy fail to
//!   compile: `unresolvable_path`, as upstream reports every compile error.
//!
//! Per condition, as upstream: a compile error stops there; otherwise every path error is
//! reported; the bool check runs only when the paths are clean.

use super::namespace::{CONDITION_NOT_BOOL, Namespace, UNRESOLVABLE_PATH};
use crate::diag::Diagnostic;
use crate::expr::check::{TypeEnv, TypeErrorKind, check};
use crate::expr::types::Type;
use crate::source::Span;
use agc_runtime::expr::{Expr, ExprKind, Lang, Literal, TemplatePart};

/// One reference found in an expression: its path and where it is written.
#[derive(Clone, Debug)]
pub struct Ref {
    pub path: Vec<String>,
    pub span: Span,
}

/// The direct children of a core node, in source order.
fn children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Literal { .. } | ExprKind::Ident { .. } => Vec::new(),
        ExprKind::Member { target, .. } | ExprKind::Has { target, .. } => vec![target],
        ExprKind::Index { target, index } => vec![target, index],
        ExprKind::Unary { operand, .. } => vec![operand],
        ExprKind::Binary { left, right, .. } => vec![left, right],
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => vec![cond, then, otherwise],
        ExprKind::Call { target, args, .. } => target.iter().map(|t| &**t).chain(args).collect(),
        ExprKind::List { items } => items.iter().collect(),
        ExprKind::Map { entries } => entries.iter().flat_map(|(k, v)| [k, v]).collect(),
        ExprKind::Comprehension {
            range,
            filter,
            body,
            ..
        } => std::iter::once(&**range)
            .chain(filter.iter().map(|f| &**f))
            .chain(std::iter::once(&**body))
            .collect(),
        ExprKind::Template { parts } => parts
            .iter()
            .filter_map(|p| match p {
                TemplatePart::Expr { expr } => Some(expr),
                TemplatePart::Text { .. } => None,
            })
            .collect(),
    }
}

fn span_of(spans: &[Span], e: &Expr) -> Span {
    spans.get(e.id as usize).copied().unwrap_or_default()
}

/// A member chain `base.a.b` as (base, [a, b]); `None` when the base is not a name.
fn chain(e: &Expr) -> Option<(&str, Vec<String>)> {
    let mut segs = Vec::new();
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::Member { target, field } => {
                segs.push(field.clone());
                cur = target;
            }
            ExprKind::Ident { name } => {
                segs.reverse();
                return Some((name, segs));
            }
            _ => return None,
        }
    }
}

/// Template references and scope errors.
pub struct TemplateWalk<'a> {
    spans: &'a [Span],
    functions: &'a [&'a str],
    version: &'a str,
    pub refs: Vec<Ref>,
    pub diags: Vec<Diagnostic>,
    /// `$N` → the path the dot is bound to (`None`: not a plain path).
    scopes: Vec<(String, Option<Vec<String>>)>,
}

impl<'a> TemplateWalk<'a> {
    pub fn run(e: &Expr, spans: &'a [Span], functions: &'a [&'a str], version: &'a str) -> Self {
        let mut w = TemplateWalk {
            spans,
            functions,
            version,
            refs: Vec::new(),
            diags: Vec::new(),
            scopes: Vec::new(),
        };
        w.walk(e);
        // `if`/`range`/`with` read their pipeline twice in the core form (the truth test and
        // the body): keep each reference and finding once.
        let mut seen = std::collections::HashSet::new();
        w.refs.retain(|r| seen.insert((r.path.clone(), r.span)));
        let mut seen = std::collections::HashSet::new();
        w.diags.retain(|d| seen.insert((d.message.clone(), d.span)));
        w
    }

    /// The path a dot-rooted chain denotes, if it is one; reports unresolved scopes.
    fn path(&mut self, e: &Expr) -> Option<Vec<String>> {
        let (base, segs) = chain(e)?;
        if base == "$" {
            return Some(segs);
        }
        if base.starts_with('$') {
            let bound = self
                .scopes
                .iter()
                .rev()
                .find(|(v, _)| v == base)
                .map(|(_, p)| p.clone());
            return match bound.flatten() {
                Some(mut p) => {
                    p.extend(segs);
                    Some(p)
                }
                None if segs.is_empty() => None,
                None => {
                    self.diags.push(
                        Diagnostic::error(
                            UNRESOLVABLE_PATH,
                            format!(
                                "`.{}` has an unresolved scope: the enclosing `range`/`with` \
does not range over a plain path",
                                segs.join(".")
                            ),
                        )
                        .at(span_of(self.spans, e)),
                    );
                    None
                }
            };
        }
        let mut p = vec![base.to_string()];
        p.extend(segs);
        Some(p)
    }

    fn walk(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Member { .. } | ExprKind::Ident { .. } if chain(e).is_some() => {
                if let Some(p) = self.path(e)
                    && !p.is_empty()
                {
                    self.refs.push(Ref {
                        path: p,
                        span: span_of(self.spans, e),
                    });
                }
            }
            ExprKind::Comprehension {
                range, var, body, ..
            } => {
                // `with X` ranges over `[X]`.
                let over = match &range.kind {
                    ExprKind::List { items } if items.len() == 1 => &items[0],
                    _ => &**range,
                };
                self.walk(range);
                let bound = if chain(over).is_some() {
                    // Quietly: the walk above reported any scope error already.
                    let n = self.diags.len();
                    let p = self.path(over);
                    self.diags.truncate(n);
                    p
                } else {
                    None
                };
                self.scopes.push((var.clone(), bound));
                self.walk(body);
                self.scopes.pop();
            }
            ExprKind::Call { function, .. } => {
                let user = matches!(
                    function.as_str(),
                    "default" | "json" | "len" | "shellQuote" | "toJson"
                );
                if user && !self.functions.contains(&function.as_str()) {
                    self.diags.push(
                        Diagnostic::error(
                            UNRESOLVABLE_PATH,
                            format!(
                                "template function \"{function}\" is not supported in {}; \
allowed functions: {}",
                                self.version,
                                self.functions.join(", ")
                            ),
                        )
                        .at(span_of(self.spans, e)),
                    );
                }
                for c in children(e) {
                    self.walk(c);
                }
            }
            _ => {
                for c in children(e) {
                    self.walk(c);
                }
            }
        }
    }
}

/// The CEL roots, typed as upstream declares them.
pub fn cel_env() -> TypeEnv {
    let map = || Type::map(Type::String, Type::Dyn);
    TypeEnv::new()
        .with("inputs", map())
        .with("nodes", map())
        .with("item", Type::Dyn)
        .with("index", Type::Int)
        .with("trigger", map())
        .with("generation", Type::Int)
        .with("event", map())
}

const CEL_ROOTS: &[&str] = &[
    "inputs",
    "nodes",
    "item",
    "index",
    "trigger",
    "generation",
    "event",
];

/// CEL references (paths rooted at namespace names; comprehension variables are locals).
pub fn cel_refs(e: &Expr, spans: &[Span]) -> Vec<Ref> {
    let mut out = Vec::new();
    let mut locals: Vec<String> = Vec::new();
    cel_walk(e, spans, &mut locals, &mut out);
    out
}

/// `a.b["c"][0].d` → (root a, [b, c, d]); numeric indexes add no segment.
fn cel_chain(e: &Expr) -> Option<(&str, Vec<String>)> {
    let mut segs = Vec::new();
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::Member { target, field } => {
                segs.push(field.clone());
                cur = target;
            }
            ExprKind::Index { target, index } => {
                match &index.kind {
                    ExprKind::Literal {
                        value: Literal::String(s),
                    } => segs.push(s.clone()),
                    ExprKind::Literal {
                        value: Literal::Int(_) | Literal::Uint(_),
                    } => {}
                    _ => return None,
                }
                cur = target;
            }
            ExprKind::Ident { name } => {
                segs.reverse();
                return Some((name, segs));
            }
            _ => return None,
        }
    }
}

fn cel_walk(e: &Expr, spans: &[Span], locals: &mut Vec<String>, out: &mut Vec<Ref>) {
    if let Some((root, segs)) = cel_chain(e)
        && !locals.iter().any(|l| l == root)
        && CEL_ROOTS.contains(&root)
    {
        let mut path = vec![root.to_string()];
        path.extend(segs);
        out.push(Ref {
            path,
            span: span_of(spans, e),
        });
        // A non-literal index inside the chain still reads its own references.
        return;
    }
    if let ExprKind::Comprehension {
        range,
        var,
        filter,
        body,
        ..
    } = &e.kind
    {
        cel_walk(range, spans, locals, out);
        locals.push(var.clone());
        if let Some(f) = filter {
            cel_walk(f, spans, locals, out);
        }
        cel_walk(body, spans, locals, out);
        locals.pop();
        return;
    }
    for c in children(e) {
        cel_walk(c, spans, locals, out);
    }
}

/// The compile-level findings of a CEL condition: type errors that are compile errors upstream
/// (`unresolvable_path`), then, when `paths_ok`, the bool check. Unknown roots are reported by
/// the caller's path walk, so the checker's own `UnknownRoot` is left out unless the name is
/// no namespace root at all (an undeclared name, a compile error in cel-go).
pub fn cel_types(e: &Expr, spans: &[Span]) -> (Vec<Diagnostic>, Type) {
    let (ty, errors) = check(e, Lang::Cel, &cel_env());
    let diags = errors
        .into_iter()
        .filter(|t| t.kind != TypeErrorKind::UnknownField)
        .map(|t| {
            let span = spans.get(t.node as usize).copied().unwrap_or_default();
            let msg = match t.kind {
                TypeErrorKind::UnknownRoot => format!(
                    "{}; the CEL environment declares {}",
                    t.message,
                    CEL_ROOTS.join(", ")
                ),
                _ => t.message,
            };
            Diagnostic::error(UNRESOLVABLE_PATH, msg).at(span)
        })
        .collect();
    (diags, ty)
}

/// The CEL roots typed from the declarations: inputs by their type, node outputs by their
/// JSON Schemas (numbers as doubles, as CEL sees JSON data), everything else `dyn`. Objects
/// stay open: unknown paths are the path check's business. `nodes` is set per scope with
/// [`nodes_type`] (built once for the Loop, the inputs are not rebuilt per scope: a Loop of
/// thousands of inputs and sub-loops would cost their product).
pub fn typed_env(inputs: &std::collections::HashMap<String, crate::source::Value>) -> TypeEnv {
    let mut ins: Vec<(String, Type)> = inputs
        .iter()
        .map(|(k, s)| {
            let t = match s.get("type").and_then(crate::source::Value::as_str) {
                Some("number") => Type::Double,
                Some("boolean") => Type::Bool,
                _ => Type::String,
            };
            (k.clone(), t)
        })
        .collect();
    ins.sort_by(|a, b| a.0.cmp(&b.0));
    TypeEnv::new()
        .with("inputs", open_object(ins))
        .with("nodes", open_object(Vec::new()))
        .with("item", Type::Dyn)
        .with("index", Type::Int)
        .with("trigger", Type::Dyn)
        .with("generation", Type::Int)
        .with("event", Type::Dyn)
}

/// The type of the `nodes` root in one scope: each node's status and output.
pub fn nodes_type(nodes: &super::namespace::NodeSchemas<'_>) -> Type {
    let mut ns: Vec<(String, Type)> = nodes
        .iter()
        .map(|(k, s)| {
            let out = s.as_ref().map_or(Type::Dyn, |s| {
                Type::from_json_schema(s).json_numbers_as_double()
            });
            (
                k.clone(),
                open_object(vec![
                    ("status".into(), Type::String),
                    ("output".into(), open_all(out)),
                ]),
            )
        })
        .collect();
    ns.sort_by(|a, b| a.0.cmp(&b.0));
    open_object(ns)
}

fn open_object(fields: Vec<(String, Type)>) -> Type {
    Type::Object {
        fields: fields.into_iter().collect(),
        open: true,
    }
}

/// The type with every object opened (bounded by the schema depth limit of its source).
fn open_all(t: Type) -> Type {
    match t {
        Type::Object { fields, .. } => Type::Object {
            fields: fields.into_iter().map(|(k, v)| (k, open_all(v))).collect(),
            open: true,
        },
        Type::List(t) => Type::list(open_all(*t)),
        Type::Map(k, v) => Type::map(*k, open_all(*v)),
        other => other,
    }
}

/// Type errors that no value of the declared types could avoid.
pub fn certain(kind: TypeErrorKind) -> bool {
    matches!(
        kind,
        TypeErrorKind::BadOperands | TypeErrorKind::NotBool | TypeErrorKind::WrongArity
    )
}

/// `condition_not_bool` for a type that is not exactly `bool`.
pub fn not_bool(ty: &Type, span: Span) -> Option<Diagnostic> {
    (*ty != Type::Bool).then(|| {
        Diagnostic::error(
            CONDITION_NOT_BOOL,
            format!("the condition must return bool, but its type is {ty}"),
        )
        .at(span)
        .with_help(
            "compare explicitly: a value read from the namespace is `dyn` (write \
`inputs.flag == true`, not `inputs.flag`)",
        )
    })
}

/// Checks paths against a namespace: one diagnostic per failing reference, and the
/// "cannot be proven" warnings for outputs of nodes without a declared schema.
pub fn check_paths(ns: &Namespace<'_>, refs: &[Ref]) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for r in refs {
        match ns.validate(&r.path) {
            Err(e) => {
                let mut d = Diagnostic::error(e.code, e.message).at(r.span);
                d.help = e.help;
                d.fix = e
                    .fix
                    .map(|(wrong, right)| Box::new(crate::diag::Fix::Replace { wrong, right }));
                errors.push(d);
            }
            Ok(()) if ns.unproven(&r.path) => warnings.push(
                Diagnostic::warning(
                    UNRESOLVABLE_PATH,
                    format!(
                        "node `{}` has no declared output schema; path `{}` cannot be proven",
                        r.path[1],
                        r.path.join(".")
                    ),
                )
                .at(r.span)
                .with_help("declare the node's output with `produces` (or its kind's schema)"),
            ),
            Ok(()) => {}
        }
    }
    (errors, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;
    use crate::source::scalar::ScalarMap;

    fn template_paths(src: &str, fns: &[&str]) -> (Vec<String>, Vec<String>) {
        let map = ScalarMap::contiguous(FileId(0), 0, src.len());
        let (e, spans) = crate::expr::parse_gotmpl(src, &map).expect("parses");
        let w = TemplateWalk::run(&e, &spans, fns, "v");
        let paths = w.refs.iter().map(|r| r.path.join(".")).collect();
        let errs = w.diags.iter().map(|d| d.message.clone()).collect();
        (paths, errs)
    }

    const ALL: &[&str] = &["default", "join", "json", "len", "shellQuote", "toJson"];

    #[test]
    fn range_and_with_rescope_the_dot() {
        let (p, e) = template_paths(
            "{{ range .nodes.r.output.issues }}{{ .id }}{{ $.inputs.x }}{{ end }}\
{{ with .item }}{{ .title }}{{ end }}",
            ALL,
        );
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(
            p,
            vec![
                "nodes.r.output.issues",
                "nodes.r.output.issues.id",
                "inputs.x",
                "item",
                "item.title"
            ]
        );
    }

    #[test]
    fn a_field_of_an_unresolved_scope_is_refused() {
        let (_, e) = template_paths("{{ range (json .inputs.x) }}{{ .id }}{{ end }}", ALL);
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("unresolved scope"), "{e:?}");
        // The bare dot of such a scope is fine.
        let (_, e) = template_paths("{{ range (json .inputs.x) }}{{ . }}{{ end }}", ALL);
        assert!(e.is_empty());
    }

    #[test]
    fn functions_outside_the_version_are_refused() {
        let (_, e) = template_paths("{{ len .inputs.x }}", &["default", "join", "json"]);
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("\"len\" is not supported in v"), "{e:?}");
        // `if` and `range` lower to internal calls, never refused.
        let (_, e) = template_paths(
            "{{ if .inputs.x }}{{ range .inputs.y }}{{ end }}{{ end }}",
            &["json"],
        );
        assert!(e.is_empty(), "{e:?}");
    }

    #[test]
    fn cel_paths_skip_locals_and_numeric_indexes() {
        let src = "nodes.g.output.issues[0].id == 'x' && nodes.g.output.m[\"k\"] > 1 \
&& nodes.g.output.issues.all(i, i.sev != item)";
        let map = ScalarMap::contiguous(FileId(0), 0, src.len());
        let (e, spans) = crate::expr::parse_cel(src, &map).expect("parses");
        let paths: Vec<String> = cel_refs(&e, &spans)
            .iter()
            .map(|r| r.path.join("."))
            .collect();
        assert_eq!(
            paths,
            vec![
                "nodes.g.output.issues.id",
                "nodes.g.output.m.k",
                "nodes.g.output.issues",
                "item"
            ]
        );
        let (d, ty) = cel_types(&e, &spans);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(ty, Type::Bool);
    }
}
