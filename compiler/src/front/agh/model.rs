//! A read-only view of a Loop document: its version and its graph scopes.
//!
//! The document stays the loaded `serde_json::Value` (every field keeps its span through its
//! JSON pointer); this module only indexes it. A Loop has one root graph and one nested graph
//! per `sub-loop` body, at any depth: each is a [`Scope`], collected with an explicit stack
//! (no recursion over the document's nesting). Inside a body, nodes run under the qualified
//! id `<parent>__<child>` (upstream's `compiler_subloop.go`); [`Scope::prefix`] holds the
//! `<parent>__` part.

use crate::source::{Map, Value};
use std::collections::HashMap;

/// Which generation of the dialect a document is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// `agh.loop/v1` (compozy/agh).
    Agh,
    /// `compozy.loop/v1` (the renamed successor in compozy/compozy).
    Compozy,
}

impl Version {
    pub fn of(root: &Map) -> Version {
        match root.get("apiVersion").and_then(Value::as_str) {
            Some("compozy.loop/v1") => Version::Compozy,
            _ => Version::Agh,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Version::Agh => "agh.loop/v1",
            Version::Compozy => "compozy.loop/v1",
        }
    }

    /// The prefix of the daemon's native tool ids.
    pub fn native_prefix(self) -> &'static str {
        match self {
            Version::Agh => "agh__",
            Version::Compozy => "compozy__",
        }
    }

    /// The `{{ }}` functions this version's template environment defines, read from the loop
    /// compiler's own function map (`internal/loop/dsl/refs/template.go`, `funcMap` and
    /// `allowedBuiltinFunctions`): at the earliest source there is (compozy/compozy 8eeb8a381,
    /// the agh loop code as imported; compozy/agh keeps none of it) `json`, `toJson`, `join`,
    /// `default` and the builtin `len`, which agh.loop/v1 documents use (the watch-events
    /// fixture's `toJson`); compozy added `shellQuote` later (467a0f88c).
    pub fn template_functions(self) -> &'static [&'static str] {
        match self {
            Version::Agh => &["default", "join", "json", "len", "toJson"],
            Version::Compozy => &["default", "join", "json", "len", "shellQuote", "toJson"],
        }
    }
}

/// One node of a scope.
#[derive(Clone, Debug)]
pub struct NodeView<'d> {
    pub id: &'d str,
    pub class: &'d str,
    pub kind: &'d str,
    /// JSON pointer of the node object.
    pub ptr: String,
    pub v: &'d Map,
}

impl<'d> NodeView<'d> {
    pub fn get(&self, key: &str) -> Option<&'d Value> {
        self.v.get(key)
    }

    pub fn str(&self, key: &str) -> Option<&'d str> {
        self.v.get(key).and_then(Value::as_str)
    }

    pub fn int(&self, key: &str) -> i64 {
        self.v.get(key).and_then(Value::as_i64).unwrap_or(0)
    }

    pub fn params(&self) -> Option<&'d Map> {
        self.v.get("params").and_then(Value::as_object)
    }

    pub fn is(&self, class: &str, kind: &str) -> bool {
        self.class == class && self.kind == kind
    }

    pub fn field(&self, key: &str) -> String {
        format!("{}/{key}", self.ptr)
    }
}

/// One edge of a scope.
#[derive(Clone, Debug)]
pub struct EdgeView<'d> {
    pub from: &'d str,
    pub to: &'d str,
    pub ptr: String,
}

/// One graph: the root graph or a `sub-loop` body.
#[derive(Debug)]
pub struct Scope<'d> {
    /// JSON pointer of the graph object (`/graph`, `/graph/nodes/3/body`).
    pub ptr: String,
    /// `""` at the root, `<parent qualified id>__` in a body.
    pub prefix: String,
    /// The scope and node index of the owning `sub-loop`, for bodies.
    pub owner: Option<(usize, usize)>,
    pub nodes: Vec<NodeView<'d>>,
    pub edges: Vec<EdgeView<'d>>,
    /// Node index by id (the first node with that id).
    pub index: HashMap<&'d str, usize>,
}

impl<'d> Scope<'d> {
    pub fn node(&self, id: &str) -> Option<&NodeView<'d>> {
        self.index.get(id).map(|&i| &self.nodes[i])
    }

    /// Successor lists by node index (edges between known nodes only), in edge order.
    pub fn adjacency(&self) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
        let mut out = vec![Vec::new(); self.nodes.len()];
        let mut inc = vec![Vec::new(); self.nodes.len()];
        for e in &self.edges {
            if let (Some(&a), Some(&b)) = (self.index.get(e.from), self.index.get(e.to)) {
                out[a].push(b);
                inc[b].push(a);
            }
        }
        (out, inc)
    }
}

/// A graph waiting to be indexed: its value, pointer, id prefix and owner.
type Pending<'d> = (&'d Value, String, String, Option<(usize, usize)>);

/// Every scope of a Loop, the root first, bodies in document order (parents before children).
pub fn scopes(root: &Map) -> Vec<Scope<'_>> {
    let mut out = Vec::new();
    let mut pending: Vec<Pending<'_>> = Vec::new();
    if let Some(g) = root.get("graph") {
        pending.push((g, "/graph".into(), String::new(), None));
    }
    // Breadth-first, so that parents come before their bodies.
    let mut next = 0;
    while next < pending.len() {
        let (g, ptr, prefix, owner) = pending[next].clone();
        next += 1;
        let nodes = g.get("nodes").and_then(Value::as_array);
        let edges = g.get("edges").and_then(Value::as_array);
        // Exactly sized: a Loop of 10k nodes otherwise held a quarter more in spare room.
        let mut scope = Scope {
            ptr: ptr.clone(),
            prefix,
            owner,
            nodes: Vec::with_capacity(nodes.map_or(0, <[_]>::len)),
            edges: Vec::with_capacity(edges.map_or(0, <[_]>::len)),
            index: HashMap::with_capacity(nodes.map_or(0, <[_]>::len)),
        };
        let si = out.len();
        for (i, n) in nodes.into_iter().flatten().enumerate() {
            let Some(v) = n.as_object() else { continue };
            let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
            let view = NodeView {
                id: s("id"),
                class: s("class"),
                kind: s("kind"),
                ptr: format!("{ptr}/nodes/{i}"),
                v,
            };
            let ni = scope.nodes.len();
            scope.index.entry(view.id).or_insert(ni);
            if view.is("control", "sub-loop")
                && let Some(body) = v.get("body").filter(|b| b.is_object())
            {
                pending.push((
                    body,
                    format!("{}/body", view.ptr),
                    format!("{}{}__", scope.prefix, view.id),
                    Some((si, ni)),
                ));
            }
            scope.nodes.push(view);
        }
        for (i, e) in edges.into_iter().flatten().enumerate() {
            let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("");
            scope.edges.push(EdgeView {
                from: s("from"),
                to: s("to"),
                ptr: format!("{ptr}/edges/{i}"),
            });
        }
        out.push(scope);
    }
    out
}

/// Whether the Loop declares a start that carries a trigger payload.
pub fn has_trigger_start(root: &Map) -> bool {
    root.get("start")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|s| start_allows_trigger(s.get("kind").and_then(Value::as_str).unwrap_or("")))
}

/// `trigger`, `schedule` and `webhook` starts carry a payload.
pub fn start_allows_trigger(kind: &str) -> bool {
    matches!(kind, "trigger" | "schedule" | "webhook")
}

/// The reserved action kinds: the other action kinds are tool ids.
pub const RESERVED_ACTIONS: &[&str] = &["run-agent", "run-loop", "transform", "goal"];
