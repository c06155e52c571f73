//! A read-only view of a schema-valid AWP document: nodes by index and id, edges, and the
//! successors each node type really routes to.
//!
//! Built in one pass over `nodes` and `edges`; every accessor tolerates missing or mistyped
//! fields (the view is also built for documents whose semantic checks fail).

use crate::analysis::grouped::Grouped;
use crate::source::value::map::key_hash;
use crate::source::{Map, Value};
use hashbrown::HashTable;

/// The synthetic source of the entry edge.
pub const START: &str = "__start__";

/// One node of the document, at `/nodes/<index>`.
pub struct NodeRef<'d> {
    pub index: usize,
    pub id: &'d str,
    pub ty: &'d str,
    pub value: &'d Map,
}

impl<'d> NodeRef<'d> {
    pub fn ptr(&self) -> String {
        format!("/nodes/{}", self.index)
    }

    /// `config`, when it is an object.
    pub fn config(&self) -> Option<&'d Map> {
        self.value.get("config").and_then(Value::as_object)
    }

    /// A string field of `config`.
    pub fn config_str(&self, key: &str) -> Option<&'d str> {
        self.config()?.get(key)?.as_str()
    }
}

/// The first of `nodes` with id `id`, through their `by_id` table.
fn first_of(by_id: &HashTable<u32>, nodes: &[NodeRef<'_>], id: &str) -> Option<usize> {
    by_id
        .find(key_hash(id), |&j| nodes[j as usize].id == id)
        .map(|&j| j as usize)
}

/// One edge, at `/edges/<index>`.
pub struct EdgeRef<'d> {
    pub index: usize,
    pub source: &'d str,
    pub target: &'d str,
}

/// One parallel branch: its name and entry, at `/nodes/<node>/config/branches/<index>`.
pub struct Branch<'d> {
    pub index: usize,
    pub name: &'d str,
    pub entry: &'d str,
}

/// The document's graph as written.
pub struct Model<'d> {
    pub nodes: Vec<NodeRef<'d>>,
    /// The first node of each id: positions in `nodes` hashed by the id there (4 bytes a
    /// node, where a map keyed by the ids took 40 at a wide workflow's peak).
    by_id: HashTable<u32>,
    pub edges: Vec<EdgeRef<'d>>,
    /// Static edges leaving each node (edge indices, in document order), in one array.
    out: Grouped<usize>,
    /// Edges whose source is `__start__`.
    pub start_edges: Vec<usize>,
}

impl<'d> Model<'d> {
    pub fn new(root: &'d Map) -> Model<'d> {
        // Sized once: a wide workflow's tables grown by doubling held up to twice their room
        // (and both old and new tables while they moved) at the check's peak.
        let listed = root
            .get("nodes")
            .and_then(Value::as_array)
            .unwrap_or_default();
        let mut nodes = Vec::with_capacity(listed.len());
        let mut by_id = HashTable::with_capacity(listed.len());
        for (index, v) in listed.iter().enumerate() {
            let Some(value) = v.as_object() else {
                continue;
            };
            let id = value.get("id").and_then(Value::as_str).unwrap_or_default();
            let ty = value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let first = first_of(&by_id, &nodes, id).is_none();
            nodes.push(NodeRef {
                index,
                id,
                ty,
                value,
            });
            if first {
                let at = nodes.len() as u32 - 1;
                by_id.insert_unique(key_hash(id), at, |&j| key_hash(nodes[j as usize].id));
            }
        }
        let listed = root
            .get("edges")
            .and_then(Value::as_array)
            .unwrap_or_default();
        let mut edges = Vec::with_capacity(listed.len());
        let mut start_edges = Vec::new();
        // (source node, edge) of every static edge, grouped by node below.
        let mut from = Vec::with_capacity(listed.len());
        for (index, v) in listed.iter().enumerate() {
            let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default();
            let (source, target) = (field("source"), field("target"));
            if source == START {
                start_edges.push(edges.len());
            } else if let Some(n) = first_of(&by_id, &nodes, source) {
                from.push((n, edges.len()));
            }
            edges.push(EdgeRef {
                index,
                source,
                target,
            });
        }
        let out = Grouped::new(nodes.len(), &from);
        Model {
            nodes,
            by_id,
            edges,
            out,
            start_edges,
        }
    }

    /// The static edges leaving node `n` (edge indices, in document order).
    pub fn out(&self, n: usize) -> &[usize] {
        self.out.of(n)
    }

    /// The node (position in [`Model::nodes`]) an id names.
    pub fn node(&self, id: &str) -> Option<usize> {
        first_of(&self.by_id, &self.nodes, id)
    }

    /// Where execution begins: the target of the first `__start__` edge, if it is a node.
    pub fn entry(&self) -> Option<usize> {
        let e = self.start_edges.first()?;
        self.node(self.edges[*e].target)
    }

    /// The single static successor of a node that must have exactly one outgoing edge.
    pub fn next(&self, n: usize) -> Option<usize> {
        match self.out(n) {
            [e] => self.node(self.edges[*e].target),
            _ => None,
        }
    }

    /// A switch's case targets and default, in order, with their pointers.
    pub fn switch_targets(&self, n: usize) -> Vec<(String, &'d str)> {
        let node = &self.nodes[n];
        let mut out = Vec::new();
        let Some(cfg) = node.config() else {
            return out;
        };
        let base = format!("{}/config", node.ptr());
        for (i, c) in cfg
            .get("cases")
            .and_then(Value::as_array)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            if let Some(t) = c.get("target").and_then(Value::as_str) {
                out.push((format!("{base}/cases/{i}/target"), t));
            }
        }
        if let Some(d) = cfg.get("default").and_then(Value::as_str) {
            out.push((format!("{base}/default"), d));
        }
        out
    }

    /// A parallel node's branches.
    pub fn branches(&self, n: usize) -> Vec<Branch<'d>> {
        self.nodes[n]
            .config()
            .and_then(|c| c.get("branches"))
            .and_then(Value::as_array)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(index, b)| Branch {
                index,
                name: b.get("name").and_then(Value::as_str).unwrap_or_default(),
                entry: b.get("entry").and_then(Value::as_str).unwrap_or_default(),
            })
            .collect()
    }

    /// The join target of a parallel node: the target of its one outgoing edge.
    pub fn join_target(&self, n: usize) -> Option<usize> {
        self.next(n)
    }

    /// Where control can go after node `n`, as the engine routes: a switch by its cases and
    /// default (its static edges are ignored), a parallel to its branch entries and its join
    /// target, `end` nowhere, every other node along its static edges.
    pub fn successors(&self, n: usize) -> Vec<usize> {
        match self.nodes[n].ty {
            "switch" => self
                .switch_targets(n)
                .into_iter()
                .filter_map(|(_, t)| self.node(t))
                .collect(),
            "end" => Vec::new(),
            "parallel" => {
                let mut s: Vec<usize> = self
                    .branches(n)
                    .iter()
                    .filter_map(|b| self.node(b.entry))
                    .collect();
                s.extend(self.join_target(n));
                s
            }
            _ => self
                .out(n)
                .iter()
                .filter_map(|&e| self.node(self.edges[e].target))
                .collect(),
        }
    }

    /// The ids of every node, for suggestions.
    pub fn ids(&self) -> impl Iterator<Item = &'d str> + '_ {
        self.nodes.iter().map(|n| n.id)
    }
}
