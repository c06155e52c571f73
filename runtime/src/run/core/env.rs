//! Expression evaluation inside a scope instance: building the roots (`params`, `context`,
//! `graph`, `nodes`, `self`, `loop`, map item names) an expression reads.
//!
//! Only the `nodes.<id>` entries an expression names are built, so evaluating a guard costs
//! what the guard reads, not the size of the scope; and an expression that reads `nodes`
//! only as `nodes.<id>.<field>...` (an input's `from: nodes.a.outputs.x`) builds no view at
//! all: the evaluator asks for the one field ([`NodesOf`]), and a node's outputs are read
//! where the run holds them instead of copied into a view per read.

use super::check::kind_name;
use super::{RunId, State};
use crate::expr::eval::{Entries, Env, Field, eval_with};
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

/// What an expression reads, found in one walk over it.
struct Reads<'e> {
    /// The root names: every identifier, without duplicates. An evaluation reaches a root
    /// only by its name, or `nodes` through the node functions, so a root no identifier
    /// names need not be built.
    roots: Vec<&'e str>,
    /// The `nodes.<name>` it reads (or `self`), and the string literals passed to calls
    /// (`output("id", ...)` names nodes by string), without duplicates: as [`node_refs`].
    nodes: Vec<&'e str>,
    /// Whether it reads `nodes` only as `nodes.<id>.<field>...` (a member of a member of it),
    /// calls no function (the node functions read `nodes` by name), binds no variable (which
    /// could shadow it) and does not name `self`: then `nodes` can be read entry by entry
    /// ([`Env::with_entries`]).
    nodes_by_entry: bool,
}

impl<'e> Reads<'e> {
    fn of(e: &'e CoreExpr) -> Reads<'e> {
        fn add<'e>(list: &mut Vec<&'e str>, name: &'e str) {
            if !list.contains(&name) {
                list.push(name);
            }
        }
        let mut r = Reads {
            roots: Vec::new(),
            nodes: Vec::new(),
            nodes_by_entry: true,
        };
        let (mut uses, mut chains) = (0usize, 0usize);
        walk(e, |e| match &e.kind {
            ExprKind::Ident { name } => {
                uses += usize::from(name == "nodes");
                add(&mut r.roots, name);
            }
            ExprKind::Member { target, field } => match &target.kind {
                ExprKind::Ident { name } if name == "nodes" => add(&mut r.nodes, field),
                ExprKind::Member { target, .. } => {
                    chains += usize::from(
                        matches!(&target.kind, ExprKind::Ident { name } if name == "nodes"),
                    );
                }
                _ => {}
            },
            ExprKind::Call { args, .. } => {
                r.nodes_by_entry = false;
                for a in args {
                    if let ExprKind::Literal {
                        value: crate::expr::Literal::String(s),
                    } = &a.kind
                    {
                        add(&mut r.nodes, s);
                    }
                }
            }
            ExprKind::Comprehension { .. } => r.nodes_by_entry = false,
            _ => {}
        });
        r.nodes_by_entry &= uses == chains && !r.nodes.contains(&"self");
        r
    }

    /// Whether it names the root `name`.
    fn root(&self, name: &str) -> bool {
        self.roots.contains(&name)
    }
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
    /// Only the roots `core` names are built ([`Reads`]): the others cannot be read.
    fn roots(&self, scope: usize, core: &CoreExpr, anchor: &Anchor<'_>) -> Map<String, Value> {
        let sc = &self.scopes[scope];
        let read = Reads::of(core);
        let mut roots = Map::new();
        if read.root("attachments") {
            roots.insert("attachments".into(), self.attachments());
        }
        if read.root("graph") {
            let mut graph = Map::new();
            graph.insert("id".into(), Value::from(self.plan.graph.id.clone()));
            if let Some(t) = &self.plan.graph.title {
                graph.insert("title".into(), Value::from(t.clone()));
            }
            roots.insert("graph".into(), Value::Object(graph));
        }
        for (k, v) in &sc.vars {
            if read.root(k) {
                roots.insert(k.clone(), v.clone());
            }
        }
        let own = read.nodes.contains(&"self");
        // `nodes.<id>.<field>` alone is read from the runs where they are ([`NodesOf`]).
        let lazy = read.nodes_by_entry;
        let mut nodes = Map::new();
        for &name in read.nodes.iter().filter(|_| !lazy) {
            if let Some(run) = self.run_named(scope, name) {
                nodes.insert(name.to_string(), self.node_view(run));
            }
        }
        if let Some(run) = anchor.run.filter(|_| own || read.root("self")) {
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
        if lazy {
            roots.shift_remove("nodes");
        } else {
            roots.insert("nodes".into(), Value::Object(nodes));
        }
        if self.plan.semantics.namespace == Namespace::Loop {
            // agh: `.inputs` are the Loop's inputs (the graph params, defaults filled; a
            // sub-loop sees its Loop's: in `graph_roots`), and `generation` is the number of
            // the generation running: 1-based, as upstream's (research §4.2: never below 1).
            if let Some(i) = sc.iteration {
                roots.insert("generation".into(), Value::from(i + 1));
            }
        } else if let Some(i) = anchor.inputs.filter(|_| read.root("inputs")) {
            roots.insert("inputs".into(), Value::Object(i.clone()));
        }
        roots
    }

    /// `attachments.<name>`: the declared attachment's `path` (or `uri`), a reference the
    /// handler resolves; the runtime reads no files. (AGS leaves the value's form to the
    /// harness.)
    fn attachments(&self) -> Value {
        let mut m = Map::new();
        for a in &self.plan.attachments {
            m.insert(a.name.clone(), a.reference());
        }
        Value::Object(m)
    }

    /// The run of the node `name` (a local id) in `scope`'s instance: what `nodes.<name>`
    /// reads.
    fn run_named(&self, scope: usize, name: &str) -> Option<RunId> {
        let sc = &self.scopes[scope];
        let &node = self.idx.local[sc.kind].get(name)?;
        sc.run_of(&self.pos, node)
    }

    /// `nodes.<id>` as expressions see it: the [`VIEW_FIELDS`] it has ([`State::view_field`]).
    fn node_view(&self, run: RunId) -> Value {
        let mut m = Map::new();
        for field in VIEW_FIELDS {
            match self.view_field(run, field) {
                Field::Map(o) => m.insert(field.into(), Value::Object(o.clone())),
                Field::Value(v) => m.insert(field.into(), v),
                Field::NoEntry | Field::NoField => None,
            };
        }
        Value::Object(m)
    }

    /// The field `field` of run `run`'s view (`nodes.<id>.<field>`): `status`, `outputs`
    /// (borrowed), `attempts`, agh's `output` (a node's result read as
    /// `.nodes.<id>.output`: its one output), `decision` when one was made.
    fn view_field(&self, run: RunId, field: &str) -> Field<'_> {
        let r = &self.runs[run];
        match field {
            "status" => Field::Value(Value::from(r.status.as_str())),
            "outputs" => Field::Map(r.outputs.as_ref().unwrap_or_else(|| empty())),
            "attempts" => Field::Value(Value::from(r.attempts.len() as u64)),
            "output" if self.plan.semantics.namespace == Namespace::Loop => {
                let out = r.outputs.as_ref().and_then(|o| o.get("output")).cloned();
                Field::Value(out.unwrap_or(Value::Null))
            }
            "decision" => match &r.decision {
                Some(d) => Field::Value(Value::from(d.clone())),
                None => Field::NoField,
            },
            _ => Field::NoField,
        }
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
        let nodes = NodesOf { state: self, scope };
        let mut env = Env::from_json(&roots)
            .with_shared(&self.graph_roots)
            .with_max_steps(MAX_STEPS);
        if !roots.contains_key("nodes") {
            env = env.with_entries("nodes", &nodes);
        }
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

/// The fields of a node's view, in the order [`State::node_view`] writes them.
const VIEW_FIELDS: [&str; 5] = ["status", "outputs", "attempts", "output", "decision"];

/// A scope's `nodes` read entry by entry: `nodes.<id>.outputs` borrows the run's outputs
/// instead of copying its view (an input `from: nodes.a.outputs.x` reads one value).
struct NodesOf<'s> {
    state: &'s State,
    scope: usize,
}

impl Entries for NodesOf<'_> {
    fn field(&self, name: &str, field: &str) -> Field<'_> {
        match self.state.run_named(self.scope, name) {
            Some(run) => self.state.view_field(run, field),
            None => Field::NoEntry,
        }
    }
}

fn to_json(v: &RtValue) -> Value {
    v.to_json()
}
