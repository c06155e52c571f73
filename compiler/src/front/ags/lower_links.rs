//! The typed data-flow links of a lowered scope (`ir::Graph::links`): every
//! `nodes.X.outputs.Y` a node's inputs or guard, or an edge's guard, read.

use super::Lowerer;
use crate::hash::HashMap;
use crate::ir::{DataLink, InputSource, IrExpr, NodeId};
use crate::source::value::LINEAR_MAX;

impl Lowerer<'_> {
    /// Data-flow links of one scope instance: every `nodes.X.outputs.Y` read by a node's inputs
    /// or guard, or by an edge guard, becomes a typed link from X's output.
    pub(super) fn links(&mut self, ids: &HashMap<&str, NodeId>, first_edge: usize) {
        let mut members: Vec<NodeId> = ids.values().copied().collect();
        members.sort();
        // What each node reads, on several threads for a large scope (the expressions'
        // name chains are most of the work), in the members' order.
        let graph = &self.graph;
        let per_node = super::node::in_parts(&self.fields, &members, self.threads, |_, &n| {
            let node = &graph.nodes[n.index()];
            let mut found = Vec::new();
            let mut read = |at: String, e: &IrExpr| {
                found.extend(reads(e).into_iter().map(|(x, y)| (x, y, n, at.clone())));
            };
            for i in &node.inputs {
                match &i.source {
                    InputSource::Expr { expr: e } | InputSource::Template { template: e } => {
                        read(format!("inputs.{}", i.name), e)
                    }
                    _ => {}
                }
            }
            if let Some(g) = &node.guard {
                read("guard".into(), g);
            }
            found
        });
        let mut found: Vec<_> = per_node.into_iter().flatten().collect();
        for e in &self.graph.edges[first_edge..] {
            if let Some(g) = &e.guard {
                let at = format!("edge from {}", self.graph.nodes[e.from.index()].local_id);
                found.extend(reads(g).into_iter().map(|(x, y)| (x, y, e.to, at.clone())));
            }
        }
        // A read's type is its output's declared type. Outputs of a node are looked up by
        // name through an index made on the node's first read when it has many, so a node
        // with thousands of outputs each read once stays linear.
        let mut indexed: HashMap<NodeId, HashMap<&str, &str>> = HashMap::default();
        let mut links = Vec::with_capacity(found.len());
        for (x, y, to, at) in found {
            let Some(&from) = ids.get(x.as_str()) else {
                continue;
            };
            let outputs = &self.graph.nodes[from.index()].outputs;
            let ty = if outputs.len() <= LINEAR_MAX {
                outputs.iter().find(|o| o.name == y).map(|o| o.ty.as_str())
            } else {
                indexed
                    .entry(from)
                    .or_insert_with(|| {
                        let mut index = HashMap::default();
                        // The first of a repeated name, as the scan would find.
                        for o in outputs.iter().rev() {
                            index.insert(o.name.as_str(), o.ty.as_str());
                        }
                        index
                    })
                    .get(y.as_str())
                    .copied()
            };
            links.push(DataLink {
                from,
                output: y,
                to,
                at,
                ty: ty.unwrap_or("any").into(),
            });
        }
        self.graph.links.extend(links);
    }
}

/// `(node, output)` for every `nodes.X.outputs.Y` an expression reads.
fn reads(e: &IrExpr) -> Vec<(String, String)> {
    let Some(core) = &e.core else {
        return Vec::new();
    };
    crate::front::ags::names::chains(core)
        .into_iter()
        .filter(|c| c.root == "nodes" && c.path.len() >= 3 && c.path[1] == "outputs")
        .map(|c| (c.path[0].to_string(), c.path[2].to_string()))
        .collect()
}
