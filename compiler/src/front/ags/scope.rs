//! Scopes of an AGS document: the root graph, named fragments (`subgraphs`), and the bodies of
//! loop, map and inline-subgraph nodes. Each scope has its own node namespace and edge set.

use crate::source::Field;
use crate::source::tree::escape_token;
use crate::source::{Map, Str, Value};
use indexmap::IndexMap;
use std::sync::OnceLock;

use crate::hash::FastState;

/// Node ids of a scope in declaration order, with their index.
pub type NodeIndex<'a> = IndexMap<&'a str, usize, FastState>;

/// Where an effective edge was declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin<'a> {
    /// `edges[i]`.
    Edge(usize),
    /// `nodes.<node>.depends_on[i]`.
    DependsOn(&'a str, usize),
}

#[derive(Clone, Debug)]
pub struct EffEdge<'a> {
    pub from: &'a str,
    pub to: &'a str,
    /// `sequence`, `conditional` or `on_failure`.
    pub kind: &'a str,
    pub when: Option<&'a str>,
    pub label: Option<&'a str>,
    pub origin: Origin<'a>,
    pub implicit: bool,
}

impl EffEdge<'_> {
    /// Pointer to the explicit edge, or to the `depends_on` item, in `scope`.
    pub fn ptr(&self, scope: &Scope<'_>) -> String {
        match self.origin {
            Origin::Edge(i) => format!("{}/edges/{i}", scope.ptr),
            Origin::DependsOn(id, i) => {
                format!("{}/nodes/{}/depends_on/{i}", scope.ptr, escape_token(id))
            }
        }
    }
}

/// A scope's node index and effective edges, computed once per scope.
#[derive(Debug, Default)]
pub struct ScopeGraph<'a> {
    pub index: NodeIndex<'a>,
    pub edges: Vec<EffEdge<'a>>,
}

/// Where a scope comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScopeKind {
    Root,
    /// A named fragment in `subgraphs`.
    Fragment(String),
    /// The body of a loop, map or inline subgraph; the owner node's index in its scope.
    Body {
        parent: usize,
        owner: String,
    },
}

/// One scope: a graph or fragment object and its pointer.
#[derive(Debug)]
pub struct Scope<'a> {
    pub kind: ScopeKind,
    /// JSON pointer of the scope object (`""` for the root).
    pub ptr: String,
    pub obj: &'a Map,
    /// The node index and effective edges, computed on first use ([`Scope::graph`], in
    /// [`super::edges`]).
    pub(super) graph: OnceLock<ScopeGraph<'a>>,
}

/// A clone starts without the computed graph (it is recomputed on demand).
impl Clone for Scope<'_> {
    fn clone(&self) -> Self {
        Scope::new(self.kind.clone(), self.ptr.clone(), self.obj)
    }
}

impl<'a> Scope<'a> {
    pub fn new(kind: ScopeKind, ptr: String, obj: &'a Map) -> Self {
        Scope {
            kind,
            ptr,
            obj,
            graph: OnceLock::new(),
        }
    }

    /// The `nodes` mapping (empty when absent or malformed).
    pub fn nodes(&self) -> impl Iterator<Item = (&'a Str, &'a Map)> + 'a {
        self.obj
            .field("nodes")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|m| m.iter())
            .filter_map(|(k, v)| v.as_object().map(|o| (k, o)))
    }

    /// How many entries `nodes` has (an upper bound of [`Scope::nodes`]).
    pub fn node_count(&self) -> usize {
        self.obj
            .field("nodes")
            .and_then(Value::as_object)
            .map_or(0, Map::len)
    }

    pub fn node(&self, id: &str) -> Option<&'a Map> {
        self.obj.field("nodes")?.field(id)?.as_object()
    }

    pub fn has_node(&self, id: &str) -> bool {
        match self.graph.get() {
            Some(g) => g.index.contains_key(id),
            None => self.node(id).is_some(),
        }
    }

    pub fn node_ptr(&self, id: &str) -> String {
        format!("{}/nodes/{}", self.ptr, escape_token(id))
    }

    pub fn edges(&self) -> impl Iterator<Item = (usize, &'a Map)> + 'a {
        self.obj
            .field("edges")
            .and_then(Value::as_array)
            .into_iter()
            .flat_map(|a| a.iter().enumerate())
            .filter_map(|(i, v)| v.as_object().map(|o| (i, o)))
    }

    /// `(node, its compensation node)` for every node with `failure.compensation`.
    pub fn compensations(&self) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        self.nodes().filter_map(|(id, n)| {
            let c = n.field("failure")?.field("compensation")?.as_str()?;
            Some((id.as_str(), c))
        })
    }

    pub fn entrypoints(&self) -> impl Iterator<Item = (usize, &'a str)> + 'a {
        strings(self.obj.field("entrypoints"))
    }

    pub fn is_sealed(&self) -> bool {
        self.kind != ScopeKind::Root
    }
}

/// `(index, string)` for every string item of an array value.
pub fn strings(v: Option<&Value>) -> impl Iterator<Item = (usize, &str)> {
    v.and_then(Value::as_array)
        .into_iter()
        .flat_map(|a| a.iter().enumerate())
        .filter_map(|(i, v)| v.as_str().map(|s| (i, s)))
}

/// All scopes of a document, parents before children (a work list, not recursion).
pub fn collect(root: &Map) -> Vec<Scope<'_>> {
    let mut scopes = vec![Scope::new(ScopeKind::Root, String::new(), root)];
    if let Some(frags) = root.field("subgraphs").and_then(Value::as_object) {
        for (name, f) in frags {
            if let Some(obj) = f.as_object() {
                scopes.push(Scope::new(
                    ScopeKind::Fragment(name.to_string()),
                    format!("/subgraphs/{}", escape_token(name)),
                    obj,
                ));
            }
        }
    }
    let mut i = 0;
    while i < scopes.len() {
        let nodes: Vec<_> = scopes[i].nodes().collect();
        for (id, node) in nodes {
            for (block, field) in [("loop", "body"), ("map", "body"), ("subgraph", "inline")] {
                if let Some(body) = node
                    .field(block)
                    .and_then(|b| b.field(field))
                    .and_then(Value::as_object)
                {
                    scopes.push(Scope::new(
                        ScopeKind::Body {
                            parent: i,
                            owner: id.to_string(),
                        },
                        format!("{}/{block}/{field}", scopes[i].node_ptr(id)),
                        body,
                    ));
                }
            }
        }
        i += 1;
    }
    scopes
}
