//! Name resolution in AGX (SPEC §16.2): every reference an expression makes is checked against
//! the declarations visible at its position — AG202 (a sealed fragment reading outside),
//! AG203 (undeclared name), AG205 (`secrets`), AG206 (undeclared output) — and reads of other
//! nodes are collected for the predecessor rule (AG201), which is answered per scope in one
//! batch.

use super::positions::Access;
use super::scope::Scope;
use crate::diag::Diagnostic;
use crate::hash::HashSet;
use crate::source::Field;
use crate::source::Span;
use crate::source::{Map, Value};
use agc_runtime::expr::{Expr, ExprKind, Literal};

/// A reference chain: a root name and the member names after it (`nodes.a.outputs.x`).
#[derive(Debug)]
pub struct Chain<'e> {
    pub root: &'e str,
    pub path: Vec<&'e str>,
    /// Node id of the outermost expression of the chain (for its span).
    pub node: u32,
}

/// A read of another node, for the predecessor rule.
#[derive(Debug, Clone)]
pub struct NodeRead {
    pub target: String,
    pub span: Span,
    pub output: Option<String>,
    /// A read of the reading node itself is legal here: where its outputs exist (success
    /// criteria, checkpoints after outputs, the failure ladder), or on an edge's `when`,
    /// whose own source counts as run (ags.md §2.5). Elsewhere the node has not run yet
    /// (AG201).
    pub own_ok: bool,
}

/// Every reference chain in an expression, plus calls of the node-state functions
/// (`output("id", "name")`, `succeeded("id")`, ...) with literal arguments, as chains.
pub fn chains(expr: &Expr) -> Vec<Chain<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        match &e.kind {
            ExprKind::Ident { name } => out.push(Chain {
                root: name,
                path: Vec::new(),
                node: e.id,
            }),
            ExprKind::Member { .. } | ExprKind::Index { .. } => {
                let mut path = Vec::new();
                let mut cur = e;
                loop {
                    match &cur.kind {
                        ExprKind::Member { target, field } => {
                            path.push(field.as_str());
                            cur = target;
                        }
                        ExprKind::Index { target, index } => {
                            stack.push(index);
                            match &index.kind {
                                ExprKind::Literal {
                                    value: Literal::String(s),
                                } => path.push(s.as_str()),
                                // A dynamic index ends what can be checked statically.
                                _ => path.clear(),
                            }
                            cur = target;
                        }
                        _ => break,
                    }
                }
                path.reverse();
                match &cur.kind {
                    ExprKind::Ident { name } => out.push(Chain {
                        root: name,
                        path,
                        node: e.id,
                    }),
                    _ => stack.push(cur),
                }
            }
            ExprKind::Call {
                function,
                target,
                args,
            } => {
                if target.is_none()
                    && let Some(ExprKind::Literal {
                        value: Literal::String(id),
                    }) = args.first().map(|a| &a.kind)
                {
                    match (function.as_str(), args.get(1).map(|a| &a.kind)) {
                        (
                            "output",
                            Some(ExprKind::Literal {
                                value: Literal::String(name),
                            }),
                        ) => out.push(Chain {
                            root: "nodes",
                            path: vec![id, "outputs", name],
                            node: e.id,
                        }),
                        ("succeeded" | "failed" | "skipped", _) => out.push(Chain {
                            root: "nodes",
                            path: vec![id, "status"],
                            node: e.id,
                        }),
                        _ => {}
                    }
                }
                e.push_children(&mut stack);
            }
            _ => e.push_children(&mut stack),
        }
    }
    out.sort_by_key(|c| c.node);
    out
}

/// What a scope declares, computed once per scope.
pub struct ScopeNames<'a> {
    pub params: HashSet<&'a str>,
    /// Bare identifiers bound by enclosing maps, in `(as, index_as)` pairs.
    pub bare: Vec<String>,
    /// `loop` is readable (inside a loop body).
    pub in_loop: bool,
    /// Inside a loop body: the keys `loop.previous` holds (the loop's `collect` keys; for a
    /// fragment, those every loop using it collects), sorted.
    pub previous: Vec<String>,
}

/// A name an expression reads that does not exist, whose "did you mean" is looked for after
/// the pass (in document order, within the document's budget: see `Checker::suggest_for`).
#[derive(Clone, Debug, PartialEq)]
pub enum Unknown {
    /// `nodes.<id>`: among the scope's node ids.
    Node(String),
    /// `params.<name>`: among the declared parameters.
    Param(String),
    /// `nodes.<node>.outputs.<output>`: among the node's declared outputs.
    Output { node: String, output: String },
}

/// The declared outputs of a node, including the implicit ones (ags.md §2.5). `root` is the
/// document's root mapping, where a `subgraph.use` finds its fragment.
pub fn outputs_of(root: &Map, node: &Map) -> Option<HashSet<String>> {
    let mut set: HashSet<String> = node
        .field("outputs")
        .and_then(Value::as_object)
        .map(|o| o.keys().map(|k| k.as_str().to_owned()).collect())
        .unwrap_or_default();
    let ty = super::checker::node_type(node);
    if matches!(ty, "decision" | "gate") {
        set.insert("decision".into());
    }
    for (block, field) in [
        ("gate", "collect"),
        ("loop", "collect"),
        ("map", "collect"),
        ("subgraph", "outputs_from"),
    ] {
        if let Some(m) = node
            .field(block)
            .and_then(|b| b.field(field))
            .and_then(Value::as_object)
        {
            set.extend(m.keys().map(|k| k.as_str().to_owned()));
        }
    }
    if let Some(s) = node.field("subgraph")
        && s.field("outputs_from").is_none()
    {
        // Without `outputs_from` the child's outputs are copied verbatim (SPEC §7.6).
        let child = child_outputs(root, s)?;
        if let Some(o) = child.and_then(Value::as_object) {
            set.extend(o.keys().map(|k| k.as_str().to_owned()));
        }
    }
    Some(set)
}

/// The `outputs` mapping of a subgraph block's child, which a node without `outputs_from`
/// copies verbatim: `Some(None)` when the child declares none, `None` when it is not known
/// here (a `ref`, whose document is loaded later, or a `use` naming no fragment: AG132).
fn child_outputs<'v>(root: &'v Map, s: &'v Value) -> Option<Option<&'v Value>> {
    if let Some(i) = s.field("inline") {
        return Some(i.field("outputs"));
    }
    let name = s.field("use").and_then(Value::as_str)?;
    let fragment = root.field("subgraphs")?.field(name)?;
    Some(fragment.field("outputs"))
}

/// Whether `node` declares the output `name` (ags.md §2.5, the implicit ones included), as
/// [`outputs_of`] would say but without building the set: an expression pass asks this once
/// per read, and a node with many outputs read many times would otherwise cost the product.
/// `None` where the outputs are not known here (a `subgraph.ref` without `outputs_from`).
pub fn declares_output(root: &Map, node: &Map, name: &str) -> Option<bool> {
    let in_map = |v: Option<&Value>| {
        v.and_then(Value::as_object)
            .is_some_and(|m| m.field(name).is_some())
    };
    if in_map(node.field("outputs")) {
        return Some(true);
    }
    if name == "decision" && matches!(super::checker::node_type(node), "decision" | "gate") {
        return Some(true);
    }
    for (block, field) in [
        ("gate", "collect"),
        ("loop", "collect"),
        ("map", "collect"),
        ("subgraph", "outputs_from"),
    ] {
        if in_map(node.field(block).and_then(|b| b.field(field))) {
            return Some(true);
        }
    }
    if let Some(s) = node.field("subgraph")
        && s.field("outputs_from").is_none()
    {
        return child_outputs(root, s).map(in_map);
    }
    Some(false)
}

/// Checks one expression's references. `scopes[si]` is the scope the expression is read in.
#[allow(clippy::too_many_arguments)]
pub fn check(
    scopes: &[Scope<'_>],
    si: usize,
    names: &ScopeNames<'_>,
    root: &Map,
    access: &Access,
    expr: &Expr,
    spans: &[Span],
    ptr: &str,
    diags: &mut Vec<Diagnostic>,
    reads: &mut Vec<NodeRead>,
    unknown: &mut Vec<(usize, Unknown)>,
) {
    let scope = &scopes[si];
    let span_of = |id: u32| spans.get(id as usize).copied().unwrap_or_default();
    // `nodes.build-docs.outputs.site`: one AG203 over the path instead of one per half.
    let hyphens = super::hyphen::find(expr, spans, scope);
    let own_ok = access.self_outputs || access.self_node.is_none();
    let mut halves: HashSet<u32> = HashSet::default();
    for h in &hyphens {
        halves.extend(h.parts.iter().copied());
        let output = match h.rest.as_slice() {
            [o, name, ..] if o == "outputs" => Some(name.clone()),
            _ => None,
        };
        diags.push(
            Diagnostic::new(
                "AG203",
                format!(
                    "`{}` reads as a subtraction: the node id `{}` holds `-`",
                    h.written(),
                    h.id
                ),
            )
            .at(h.span)
            .with_label_text(format!(
                "AGX reads this as `{}`",
                h.written().replace('-', " - ")
            ))
            .with_pointer(ptr)
            .with_help(h.advice()),
        );
        reads.push(NodeRead {
            target: h.id.clone(),
            span: h.span,
            output,
            own_ok,
        });
    }
    for c in chains(expr) {
        if halves.contains(&c.node) {
            continue;
        }
        let span = span_of(c.node);
        // Where this chain's first diagnostic goes (an unknown name is its only one).
        let at = diags.len();
        let mut err = |code: &'static str, msg: String, help: Option<String>| {
            let mut d = Diagnostic::new(code, msg).at(span).with_pointer(ptr);
            d.help = help;
            diags.push(d);
        };
        let first = c.path.first().copied();
        match c.root {
            "secrets" => err(
                "AG205",
                "expressions cannot read `secrets`".into(),
                Some(
                    "secrets are injected into a node's environment, never into expressions".into(),
                ),
            ),
            "params" => {
                if let Some(p) = first
                    && !names.params.contains(p)
                {
                    unknown.push((at, Unknown::Param(p.to_string())));
                    err(
                        "AG203",
                        format!("`params.{p}` is not a declared parameter"),
                        None,
                    );
                }
            }
            "context" => {
                if let Some(k) = first
                    && root.field("context").and_then(|c| c.field(k)).is_none()
                {
                    err(
                        "AG203",
                        format!("`context.{k}` is not declared in `context`"),
                        None,
                    );
                }
            }
            "attachments" => {
                if let Some(a) = first {
                    let found = root
                        .field("attachments")
                        .and_then(Value::as_array)
                        .is_some_and(|v| {
                            v.iter()
                                .any(|x| x.field("name").and_then(Value::as_str) == Some(a))
                        });
                    if !found {
                        err(
                            "AG203",
                            format!("`attachments.{a}` is not a declared attachment"),
                            None,
                        );
                    }
                }
            }
            "graph" => {
                if let Some(f) = first
                    && !matches!(f, "id" | "title" | "objective" | "version" | "description")
                {
                    err(
                        "AG203",
                        format!("`graph.{f}` is not a graph field"),
                        Some("readable: graph.id, graph.title, graph.objective, graph.version, graph.description".into()),
                    );
                }
            }
            "env" => {
                let node = access.self_node.as_deref().and_then(|n| scope.node(n));
                let declared = |name: &str| {
                    node.and_then(|n| n.field("requirements"))
                        .and_then(|r| r.field("environment"))
                        .is_some_and(|e| match e {
                            Value::Array(a) => a.iter().any(|x| {
                                x.as_str() == Some(name)
                                    || x.field("name").and_then(Value::as_str) == Some(name)
                            }),
                            Value::Object(o) => o.contains_key(name),
                            _ => false,
                        })
                };
                if let Some(v) = first
                    && !declared(v)
                {
                    err(
                        "AG203",
                        format!("`env.{v}` is not in this node's `requirements.environment`"),
                        None,
                    );
                }
            }
            "loop" => {
                if !names.in_loop {
                    err(
                        "AG203",
                        "`loop` is only readable inside a loop body".into(),
                        None,
                    );
                } else if let Some(f) = first
                    && !matches!(f, "index" | "iteration" | "previous")
                {
                    err(
                        "AG203",
                        format!("`loop.{f}` is not a loop field"),
                        Some("readable: loop.index, loop.iteration, loop.previous".into()),
                    );
                } else if first == Some("previous")
                    && let Some(k) = c.path.get(1)
                    && names
                        .previous
                        .binary_search_by(|p| p.as_str().cmp(k))
                        .is_err()
                {
                    // `loop.previous` holds the previous iteration's collected outputs.
                    err(
                        "AG206",
                        format!("`loop.previous.{k}`: the loop collects no output `{k}`"),
                        Some(if names.previous.is_empty() {
                            "`loop.previous` holds the loop's `collect` outputs, and it has none"
                                .into()
                        } else {
                            format!("the loop collects: {}", names.previous.join(", "))
                        }),
                    );
                }
            }
            "outputs" => {
                if !access.outputs_root {
                    err("AG203", "`outputs` is only readable in graph outputs, graph success and `outputs_from`".into(), None);
                } else if let (Some(o), Some(child)) = (first, &access.child_outputs)
                    && let Some(owner) = scope.node(child)
                {
                    let child_outputs = child_declared_outputs(root, owner);
                    if let Some(set) = child_outputs
                        && !set.contains(o)
                    {
                        err(
                            "AG206",
                            format!("the subgraph of `{child}` declares no output `{o}`"),
                            None,
                        );
                    }
                } else if let Some(o) = first
                    && access.child_outputs.is_none()
                    && scope
                        .obj
                        .field("outputs")
                        .and_then(|x| x.field(o))
                        .is_none()
                {
                    err(
                        "AG206",
                        format!("`outputs.{o}` is not a declared output of this graph"),
                        None,
                    );
                }
            }
            "self" => {
                let Some(me) = access.self_node.as_deref().and_then(|n| scope.node(n)) else {
                    err(
                        "AG203",
                        "`self` is only readable within a node".into(),
                        None,
                    );
                    continue;
                };
                match (first, c.path.get(1)) {
                    (Some("id" | "attempt"), _) | (None, _) => {}
                    (Some("inputs"), Some(i)) => {
                        if me.field("inputs").and_then(|x| x.field(i)).is_none() {
                            err(
                                "AG203",
                                format!("`self.inputs.{i}` is not a declared input"),
                                None,
                            );
                        }
                    }
                    (Some("outputs"), Some(o)) => {
                        if let Some(me_id) = &access.self_node {
                            reads.push(NodeRead {
                                target: me_id.to_string(),
                                span,
                                output: Some(o.to_string()),
                                // Outside its positions `self.outputs` is AG203 already.
                                own_ok: true,
                            });
                        }
                        if !access.self_outputs {
                            err("AG203", "`self.outputs` is only readable in success criteria and checkpoints after outputs".into(), None);
                        } else if declares_output(root, me, o) == Some(false) {
                            err(
                                "AG206",
                                format!("`self.outputs.{o}` is not a declared output"),
                                None,
                            );
                        }
                    }
                    (Some(f), _) => err(
                        "AG203",
                        format!("`self.{f}` is not readable"),
                        Some(
                            "readable: self.id, self.attempt, self.inputs.*, self.outputs.*".into(),
                        ),
                    ),
                }
            }
            "nodes" => {
                let Some(target) = first else { continue };
                let target = if target == "self" {
                    match &access.self_node {
                        Some(s) => s.as_str(),
                        None => target,
                    }
                } else {
                    target
                };
                let Some(node) = scope.node(target) else {
                    let elsewhere = scopes.iter().any(|s| s.has_node(target));
                    if elsewhere && scope.is_sealed() {
                        err(
                            "AG202",
                            format!(
                                "`nodes.{target}` is outside this fragment; fragments are sealed"
                            ),
                            Some("pass the value in through the fragment's params".into()),
                        );
                    } else {
                        // Its "did you mean" is looked for later, in document order, within
                        // the document's budget (this may run on several threads).
                        unknown.push((at, Unknown::Node(target.to_string())));
                        err(
                            "AG203",
                            format!("`nodes.{target}` is not a node of this scope"),
                            None,
                        );
                    }
                    continue;
                };
                let mut output = None;
                match (c.path.get(1).copied(), c.path.get(2).copied()) {
                    (Some("outputs"), Some(o)) => {
                        if declares_output(root, node, o) == Some(false) {
                            unknown.push((
                                at,
                                Unknown::Output {
                                    node: target.to_string(),
                                    output: o.to_string(),
                                },
                            ));
                            err("AG206", format!("`{target}` declares no output `{o}`"), None);
                        }
                        output = Some(o.to_string());
                    }
                    (Some("outputs" | "status" | "attempts" | "duration_seconds" | "decision"), _) | (None, _) => {}
                    (Some(f), _) => err(
                        "AG203",
                        format!("`nodes.{target}.{f}` is not readable"),
                        Some("readable: .outputs.<name>, .status, .attempts, .duration_seconds, .decision".into()),
                    ),
                }
                reads.push(NodeRead {
                    target: target.to_string(),
                    span,
                    output,
                    own_ok,
                });
            }
            bare => {
                if !names.bare.iter().any(|b| b == bare) {
                    err(
                        "AG203",
                        format!("`{bare}` is not a namespace root or a map variable here"),
                        Some("roots: graph, params, context, attachments, nodes, self, loop, outputs, env".into()),
                    );
                }
            }
        }
    }
}

/// The outputs a subgraph node's child declares, when known.
fn child_declared_outputs(root: &Map, owner: &Map) -> Option<HashSet<String>> {
    let s = owner.field("subgraph")?;
    let child = if let Some(name) = s.field("use").and_then(Value::as_str) {
        root.field("subgraphs")?.field(name)?
    } else {
        s.field("inline")?
    };
    Some(
        child
            .field("outputs")
            .and_then(Value::as_object)
            .map(|o| o.keys().map(|k| k.to_string()).collect())
            .unwrap_or_default(),
    )
}

impl super::checker::Checker<'_> {
    /// The "did you mean" of a name an expression reads that does not exist, within the
    /// document's budget: the name the help shows, what is written and what to write
    /// instead.
    pub(super) fn suggest_for(
        &self,
        scope: &super::scope::Scope<'_>,
        names: &ScopeNames<'_>,
        name: &Unknown,
    ) -> Option<(String, String, String)> {
        match name {
            Unknown::Node(id) => {
                let s = self.suggest(scope, id)?;
                Some((s.clone(), id.clone(), s))
            }
            Unknown::Param(p) => {
                let s = self.suggestions.closest(p, names.params.iter().copied())?;
                Some((
                    format!("params.{s}"),
                    format!("params.{p}"),
                    format!("params.{s}"),
                ))
            }
            Unknown::Output { node, output } => {
                let root = self.doc.value.as_object()?;
                let declared = scope.node(node).and_then(|n| outputs_of(root, n))?;
                let s = self
                    .suggestions
                    .closest(output, declared.iter().map(String::as_str))?;
                // `outputs.x`: the output's own name, not a node id that is spelt the same.
                Some((
                    s.to_string(),
                    format!("outputs.{output}"),
                    format!("outputs.{s}"),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `declares_output` answers as membership in `outputs_of` would, for every kind of node
    /// and for names declared in each place or nowhere.
    #[test]
    fn declares_output_agrees_with_outputs_of() {
        let root = Value::from(json!({"subgraphs": {"f": {"outputs": {"r": {}}}, "g": {}}}));
        let root = root.as_object().unwrap();
        let nodes = [
            json!({"type": "subgraph", "subgraph": {"use": "f"}}),
            json!({"type": "subgraph", "subgraph": {"use": "g"}}),
            json!({"type": "subgraph", "subgraph": {"use": "nowhere"}}),
            json!({"outputs": {"a": {}}}),
            json!({"type": "decision", "outputs": {"a": {}}}),
            json!({"type": "gate", "gate": {"collect": {"g": "x"}}}),
            json!({"type": "loop", "loop": {"collect": {"l": "x"}}, "outputs": {"a": {}}}),
            json!({"type": "map", "map": {"collect": {"m": "x"}}}),
            json!({"type": "subgraph", "subgraph": {"use": "f", "outputs_from": {"s": "x"}}}),
            json!({"type": "subgraph", "subgraph": {"inline": {"outputs": {"i": {}}}}}),
            json!({"type": "subgraph", "subgraph": {"ref": "x.yaml"}}),
            json!({"type": "subgraph", "subgraph": {"ref": "x.yaml", "outputs_from": {"s": "x"}}}),
            json!({"type": "task", "outputs": "not a mapping"}),
            json!({}),
        ];
        for node in &nodes {
            let node = Value::from(node);
            let node = node.as_object().unwrap();
            let set = outputs_of(root, node);
            for name in ["a", "decision", "g", "l", "m", "s", "i", "r", "x", ""] {
                assert_eq!(
                    declares_output(root, node, name),
                    set.as_ref().map(|s| s.contains(name)),
                    "{node:?} {name}"
                );
            }
        }
        // A `use` without `outputs_from` copies its fragment's outputs (SPEC §7.6).
        let used = Value::from(json!({"type": "subgraph", "subgraph": {"use": "f"}}));
        assert_eq!(
            declares_output(root, used.as_object().unwrap(), "r"),
            Some(true)
        );
    }
}
