//! Expression evaluation inside a scope instance: building the roots (`params`, `context`,
//! `graph`, `nodes`, `self`, `loop`, map item names) an expression reads.
//!
//! Only the `nodes.<id>` entries an expression names are built, so evaluating a guard costs
//! what the guard reads, not the size of the scope.

use super::check::kind_name;
use super::{RunId, State};
use crate::expr::eval::{Env, eval_with};
use crate::expr::{Expr as CoreExpr, ExprKind, Lang, TemplatePart};
use crate::plan::{Expr, ExprLang, Namespace};
use crate::value::Value as RtValue;
use serde_json::{Map, Value};

/// Cap on evaluation steps per expression (bounds guards, inputs and collects).
pub const MAX_STEPS: u64 = 200_000;

/// How an evaluation error that is an exceeded limit ends (jq's in `dialects.rs`, the core
/// languages' in [`State::eval`]): such an error fails the attempt with a class, where other
/// expression errors fail the node's input (`launch.rs`).
pub(super) const LIMIT: &str = " (AGC043)";

/// Whether the evaluation error `msg` is an exceeded limit (see [`LIMIT`]).
pub(super) fn is_limit(msg: &str) -> bool {
    msg.ends_with(LIMIT)
}

/// Names `nodes.<name>` that `e` reads (or `self`), without duplicates.
pub(super) fn node_refs(e: &CoreExpr, out: &mut Vec<String>) {
    root_refs(e, "nodes", true, out);
}

/// Names `<root>.<name>` that `e` reads, without duplicates; with `literal_args`, also the
/// string literals passed to calls (`output("id", ...)` names nodes by string).
pub(super) fn root_refs(e: &CoreExpr, root: &str, literal_args: bool, out: &mut Vec<String>) {
    walk(e, |e| match &e.kind {
        ExprKind::Member { target, field } => {
            if let ExprKind::Ident { name } = &target.kind
                && name == root
                && !out.contains(field)
            {
                out.push(field.clone());
            }
        }
        // `output(id, name)` and the `succeeded(id)` family name nodes by string.
        ExprKind::Call { args, .. } if literal_args => {
            for a in args {
                if let ExprKind::Literal {
                    value: crate::expr::Literal::String(s),
                } = &a.kind
                    && !out.contains(s)
                {
                    out.push(s.clone());
                }
            }
        }
        _ => {}
    });
}

/// The root names `e` reads (every identifier in it, without duplicates). An evaluation
/// reaches a root only by its name, or `nodes` through the node functions ([`node_refs`]),
/// so a root no identifier names need not be built.
pub(super) fn idents(e: &CoreExpr, out: &mut Vec<String>) {
    walk(e, |e| {
        if let ExprKind::Ident { name } = &e.kind
            && !out.contains(name)
        {
            out.push(name.clone());
        }
    });
}

/// Calls `visit` on every node of `e` (iteratively: no recursion that follows input depth).
fn walk<'e>(e: &'e CoreExpr, mut visit: impl FnMut(&'e CoreExpr)) {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        visit(e);
        match &e.kind {
            ExprKind::Literal { .. } | ExprKind::Ident { .. } => {}
            ExprKind::Member { target, .. } | ExprKind::Has { target, .. } => stack.push(target),
            ExprKind::Index { target, index } => {
                stack.push(target);
                stack.push(index);
            }
            ExprKind::Unary { operand, .. } => stack.push(operand),
            ExprKind::Binary { left, right, .. } => {
                stack.push(left);
                stack.push(right);
            }
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => {
                stack.push(cond);
                stack.push(then);
                stack.push(otherwise);
            }
            ExprKind::Call { target, args, .. } => {
                if let Some(t) = target {
                    stack.push(t);
                }
                stack.extend(args.iter());
            }
            ExprKind::List { items } => stack.extend(items.iter()),
            ExprKind::Map { entries } => {
                for (k, v) in entries {
                    stack.push(k);
                    stack.push(v);
                }
            }
            ExprKind::Comprehension {
                range,
                filter,
                body,
                ..
            } => {
                stack.push(range);
                if let Some(f) = filter {
                    stack.push(f);
                }
                stack.push(body);
            }
            ExprKind::Template { parts } => {
                for p in parts {
                    if let TemplatePart::Expr { expr } = p {
                        stack.push(expr);
                    }
                }
            }
        }
    }
}

/// What an expression is evaluated against besides the scope: the node it belongs to (for
/// `self`) and extra roots (`inputs` for templates).
#[derive(Default)]
pub struct Anchor<'a> {
    pub run: Option<RunId>,
    pub inputs: Option<&'a Map<String, Value>>,
}

/// An empty object, for a root that is not set.
fn empty() -> &'static Map<String, Value> {
    static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
    &EMPTY
}

impl State {
    /// The graph's params (the run's, defaults filled).
    pub(crate) fn params(&self) -> &Map<String, Value> {
        match self.graph_roots.get("params") {
            Some(Value::Object(m)) => m,
            _ => empty(),
        }
    }

    /// The run's context.
    pub(crate) fn context(&self) -> &Map<String, Value> {
        match self.graph_roots.get("context") {
            Some(Value::Object(m)) => m,
            _ => empty(),
        }
    }

    /// The params a scope sees: its own (a subgraph's bound params, a body's declared
    /// ones), else the graph's; borrowed, never copied.
    pub(crate) fn scope_params(&self, scope: usize) -> &Map<String, Value> {
        match self.scopes[scope].vars.get("params") {
            Some(Value::Object(p)) => p,
            _ => self.params(),
        }
    }

    /// The roots an expression in `scope` sees besides [`State::graph_roots`] (which the
    /// evaluation borrows: `params` unless the scope has its own, `context`, agh `inputs`).
    /// Only the roots `core` names are built ([`idents`]): the others cannot be read.
    fn roots(&self, scope: usize, core: &CoreExpr, anchor: &Anchor<'_>) -> Map<String, Value> {
        let sc = &self.scopes[scope];
        let mut read = Vec::new();
        idents(core, &mut read);
        let reads = |name: &str| read.iter().any(|r| r == name);
        let mut roots = Map::new();
        if reads("attachments") {
            roots.insert("attachments".into(), self.attachments());
        }
        if reads("graph") {
            let mut graph = Map::new();
            graph.insert("id".into(), Value::from(self.plan.graph.id.clone()));
            if let Some(t) = &self.plan.graph.title {
                graph.insert("title".into(), Value::from(t.clone()));
            }
            roots.insert("graph".into(), Value::Object(graph));
        }
        for (k, v) in &sc.vars {
            if reads(k) {
                roots.insert(k.clone(), v.clone());
            }
        }
        let mut names = Vec::new();
        node_refs(core, &mut names);
        let mut nodes = Map::new();
        for name in &names {
            if let Some(&node) = self.idx.local[sc.kind].get(name)
                && let Some(run) = sc.run_of(&self.pos, node)
            {
                nodes.insert(name.clone(), self.node_view(run));
            }
        }
        let own = names.iter().any(|n| n == "self");
        if let Some(run) = anchor.run.filter(|_| own || reads("self")) {
            let mut me = match self.node_view(run) {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            me.insert(
                "id".into(),
                Value::from(self.plan.nodes[self.runs[run].node].local_id.clone()),
            );
            me.insert("attempt".into(), Value::from(self.runs[run].attempt.max(1)));
            if let Some(i) = anchor.inputs.or(self.runs[run].inputs.as_ref()) {
                me.insert("inputs".into(), Value::Object(i.clone()));
            }
            if own {
                nodes.insert("self".into(), Value::Object(me.clone()));
            }
            roots.insert("self".into(), Value::Object(me));
        }
        roots.insert("nodes".into(), Value::Object(nodes));
        if self.plan.semantics.namespace == Namespace::Loop {
            // agh: `.inputs` are the Loop's inputs (the graph params, defaults filled; a
            // sub-loop sees its Loop's: in `graph_roots`), and `generation` is the number of
            // the generation running: 1-based, as upstream's (research §4.2: never below 1).
            if let Some(i) = sc.iteration {
                roots.insert("generation".into(), Value::from(i + 1));
            }
        } else if let Some(i) = anchor.inputs.filter(|_| reads("inputs")) {
            roots.insert("inputs".into(), Value::Object(i.clone()));
        }
        roots
    }

    /// `attachments.<name>`: the declared attachment's `path` (or `uri`), a reference the
    /// handler resolves; the runtime reads no files. (AGS leaves the value's form to the
    /// harness.)
    fn attachments(&self) -> Value {
        let mut m = Map::new();
        for a in self
            .plan
            .attrs
            .get("attachments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = a.get("name").and_then(Value::as_str) {
                let v = a
                    .get("path")
                    .or_else(|| a.get("uri"))
                    .cloned()
                    .unwrap_or(Value::Null);
                m.insert(name.to_string(), v);
            }
        }
        Value::Object(m)
    }

    /// `nodes.<id>` as expressions see it: status, outputs, attempts, decision.
    fn node_view(&self, run: RunId) -> Value {
        let r = &self.runs[run];
        let mut m = Map::new();
        m.insert("status".into(), Value::from(r.status.as_str()));
        m.insert(
            "outputs".into(),
            Value::Object(r.outputs.clone().unwrap_or_default()),
        );
        m.insert("attempts".into(), Value::from(r.attempts.len() as u64));
        // agh reads a node's result as `.nodes.<id>.output`: its one output, `output`.
        if self.plan.semantics.namespace == Namespace::Loop {
            let out = r.outputs.as_ref().and_then(|o| o.get("output")).cloned();
            m.insert("output".into(), out.unwrap_or(Value::Null));
        }
        if let Some(d) = &r.decision {
            m.insert("decision".into(), Value::from(d.clone()));
        }
        Value::Object(m)
    }

    /// Evaluates a plan expression in `scope`. Languages without a core form here (jq, fact)
    /// are errors for now.
    pub(crate) fn eval(
        &self,
        scope: usize,
        e: &Expr,
        anchor: &Anchor<'_>,
    ) -> Result<Value, String> {
        self.eval_as(scope, e, anchor, true)
    }

    /// Renders a template to its text: like [`State::eval`], but a `{{ }}` template that is
    /// exactly one action renders to a string too (an agh transform's `template` entry).
    pub(crate) fn render(
        &self,
        scope: usize,
        e: &Expr,
        anchor: &Anchor<'_>,
    ) -> Result<Value, String> {
        self.eval_as(scope, e, anchor, false)
    }

    /// `keep_type`: a `{{ }}` value that is exactly one action keeps the action's type.
    fn eval_as(
        &self,
        scope: usize,
        e: &Expr,
        anchor: &Anchor<'_>,
        keep_type: bool,
    ) -> Result<Value, String> {
        let lang = match e.lang {
            ExprLang::Agx | ExprLang::AgxTemplate => Lang::Agx,
            ExprLang::Cel => Lang::Cel,
            ExprLang::GoTemplate => Lang::Gotmpl,
            ExprLang::Jq => return self.eval_jq(&e.source),
            ExprLang::Fact => return self.eval_facts(&e.source).map(Value::Bool),
        };
        let Some(core) = &e.core else {
            return Err(format!("expression `{}` has no core form", e.source));
        };
        // agh: a value that is exactly one `{{ action }}` keeps the action's type (a fan-out's
        // `collection: "{{ .nodes.tasks.output.tasks }}"` is the list, not its text).
        let core = match &core.kind {
            ExprKind::Template { parts } if keep_type && e.lang == ExprLang::GoTemplate => {
                match parts.as_slice() {
                    [TemplatePart::Expr { expr }] => expr,
                    _ => core,
                }
            }
            _ => core,
        };
        let roots = self.roots(scope, core, anchor);
        let env = Env::from_json(&roots)
            .with_shared(&self.graph_roots)
            .with_max_steps(MAX_STEPS);
        eval_with(core, lang, &env)
            .map(|v| to_json(&v))
            .map_err(|err| {
                let limit = if err.limit { LIMIT } else { "" };
                format!("`{}`: {}{limit}", e.source, err.message)
            })
    }

    /// Evaluates a guard: true, false, or an error (a non-boolean is an error).
    pub(crate) fn eval_bool(
        &self,
        scope: usize,
        e: &Expr,
        anchor: &Anchor<'_>,
    ) -> Result<bool, String> {
        match self.eval(scope, e, anchor)? {
            Value::Bool(b) => Ok(b),
            // jq's truth: everything but `false` and `null` holds.
            Value::Null if e.lang == ExprLang::Jq => Ok(false),
            _ if e.lang == ExprLang::Jq => Ok(true),
            other => Err(format!(
                "`{}` gave {} where a boolean is needed",
                e.source,
                kind_name(&other)
            )),
        }
    }
}

fn to_json(v: &RtValue) -> Value {
    v.to_json()
}
