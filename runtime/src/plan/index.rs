//! Lookup tables over a [`Plan`]: what the scheduler needs in O(1).

use super::{Plan, PlanError};
// foldhash, not SipHash: every edge followed looks its target up by id (issue 41).
use crate::hash::HashMap;

impl Plan {
    /// Lookup tables over the plan (node ids to indices, edges per node, region bodies).
    /// Fails on an inconsistent plan, and on a plan that needs a feature of this crate that
    /// this build lacks ([`Plan::runtime_features`]).
    pub fn index(&self) -> Result<PlanIndex, PlanError> {
        self.check_features()?;
        PlanIndex::new(self)
    }
}

/// Indices into a plan's `nodes`, `edges` and `regions`.
///
/// - `node_of`: scoped id → node index.
/// - `incoming` / `outgoing`: edge indices per node, in plan order.
/// - `region_of_owner`: node index of an owner → region index.
/// - `scope_nodes`: per scope (root = index 0, region `r` = `r + 1`), its direct nodes in plan
///   order (the plan's execution order).
/// - `scope_entrypoints`: the same, for entrypoints.
/// - `node_scope`: each node's scope (0 for root, `r + 1` for region `r`).
/// - `local`: per scope, local id → node index (what `nodes.<id>` reads).
#[derive(Clone, Debug, Default)]
pub struct PlanIndex {
    pub node_of: HashMap<String, usize>,
    pub incoming: Vec<Vec<usize>>,
    pub outgoing: Vec<Vec<usize>>,
    pub region_of_owner: HashMap<usize, usize>,
    pub scope_nodes: Vec<Vec<usize>>,
    pub scope_entrypoints: Vec<Vec<usize>>,
    pub node_scope: Vec<usize>,
    pub local: Vec<HashMap<String, usize>>,
}

impl PlanIndex {
    pub(super) fn new(plan: &Plan) -> Result<PlanIndex, PlanError> {
        let n = plan.nodes.len();
        let mut node_of = HashMap::with_capacity_and_hasher(n, Default::default());
        for (i, node) in plan.nodes.iter().enumerate() {
            if node_of.insert(node.id.clone(), i).is_some() {
                return Err(PlanError(format!("node id `{}` appears twice", node.id)));
            }
        }
        let find = |id: &str, what: &str| -> Result<usize, PlanError> {
            node_of
                .get(id)
                .copied()
                .ok_or_else(|| PlanError(format!("{what} names unknown node `{id}`")))
        };
        let mut region_of_owner =
            HashMap::with_capacity_and_hasher(plan.regions.len(), Default::default());
        for (r, region) in plan.regions.iter().enumerate() {
            let owner = find(&region.owner, "a region owner")?;
            if region_of_owner.insert(owner, r).is_some() {
                return Err(PlanError(format!(
                    "node `{}` owns two regions",
                    region.owner
                )));
            }
        }
        let scopes = plan.regions.len() + 1;
        let mut node_scope = vec![0; n];
        let mut scope_nodes = vec![Vec::new(); scopes];
        let mut local = vec![HashMap::default(); scopes];
        local[0].reserve(plan.nodes.iter().filter(|n| n.region.is_none()).count());
        for (i, node) in plan.nodes.iter().enumerate() {
            let s = match &node.region {
                None => 0,
                Some(owner) => {
                    let o = find(owner, "a node's region")?;
                    region_of_owner
                        .get(&o)
                        .map(|r| r + 1)
                        .ok_or_else(|| PlanError(format!("node `{owner}` owns no region")))?
                }
            };
            node_scope[i] = s;
            scope_nodes[s].push(i);
            local[s].insert(node.local_id.clone(), i);
        }
        // A region's `nodes` list repeats what each node's `region` says; the two must agree,
        // so a hand-edited plan cannot run a body other than the one it lists.
        for (r, region) in plan.regions.iter().enumerate() {
            let mut listed = Vec::with_capacity(region.nodes.len());
            for id in &region.nodes {
                listed.push(find(id, "a region's node list")?);
            }
            listed.sort_unstable();
            let mut body = scope_nodes[r + 1].clone();
            body.sort_unstable();
            if listed != body {
                return Err(PlanError(format!(
                    "the region of `{}` lists nodes that do not say they are in it (or misses some)",
                    region.owner
                )));
            }
        }
        let mut scope_entrypoints = vec![Vec::new(); scopes];
        for id in &plan.entrypoints {
            let i = find(id, "an entrypoint")?;
            if node_scope[i] != 0 {
                return Err(PlanError(format!("entrypoint `{id}` is inside a region")));
            }
            scope_entrypoints[0].push(i);
        }
        for (r, region) in plan.regions.iter().enumerate() {
            for id in &region.entrypoints {
                let i = find(id, "a region entrypoint")?;
                if node_scope[i] != r + 1 {
                    return Err(PlanError(format!(
                        "entrypoint `{id}` of the region of `{}` is not in that region",
                        region.owner
                    )));
                }
                scope_entrypoints[r + 1].push(i);
            }
        }
        let mut incoming = vec![Vec::new(); n];
        let mut outgoing = vec![Vec::new(); n];
        for (e, edge) in plan.edges.iter().enumerate() {
            let from = find(&edge.from, "an edge")?;
            let to = find(&edge.to, "an edge")?;
            if node_scope[from] != node_scope[to] {
                return Err(PlanError(format!(
                    "edge `{}` → `{}` crosses a region boundary",
                    edge.from, edge.to
                )));
            }
            outgoing[from].push(e);
            incoming[to].push(e);
        }
        Ok(PlanIndex {
            node_of,
            incoming,
            outgoing,
            region_of_owner,
            scope_nodes,
            scope_entrypoints,
            node_scope,
            local,
        })
    }
}
