//! The graph rules the AWP schema leaves out (research note §2.2, §2.4, §2.9): unique ids,
//! endpoints, the one `__start__` edge, one start and one end node, out-degrees, switch
//! targets, parallel branches (entries, `n ≤ m`, convergence on the join target, node types
//! allowed inside), and reachability.
//!
//! Every walk is iterative and visits each node once per walk; a branch walk is bounded by the
//! branch's own nodes (a nested parallel is crossed by its join target, its branches are
//! walked for that parallel), so the whole pass is linear in the document for non-overlapping
//! branches.

use super::checker::Checker;
use super::model::{Model, START};
use crate::analysis::cycles;
use crate::source::Value;
use std::collections::HashMap;

impl Checker<'_> {
    pub(super) fn check_graph(&mut self, m: &Model<'_>) {
        self.check_ids(m);
        self.check_edges(m);
        self.check_counts(m);
        self.check_out_degrees(m);
        self.check_routes(m);
        self.check_branches(m);
        self.check_reachability(m);
    }

    fn check_ids(&mut self, m: &Model<'_>) {
        for (i, n) in m.nodes.iter().enumerate() {
            if n.id == START {
                // Upstream accepts the name, but its edges cannot be told from the synthetic
                // start's: every edge from `__start__` is an entry point, none is the node's.
                let at = format!("{}/id", n.ptr());
                let d = self
                    .diag(
                        "AGC250",
                        &at,
                        "a node may not be named `__start__`: edges from `__start__` are the \
                         workflow's entry, not this node's"
                            .into(),
                    )
                    .with_help("rename the node");
                self.diags.push(d);
            }
            let first = m.node(n.id).unwrap_or(i);
            if first != i {
                let at = format!("{}/id", n.ptr());
                let first_at = format!("{}/id", m.nodes[first].ptr());
                let d = self
                    .diag(
                        "duplicate-node-id",
                        &at,
                        format!("node id `{}` is used by an earlier node", n.id),
                    )
                    .with_label(self.doc.span(&first_at), "first defined here")
                    .with_help("give every node its own id; the engine would keep only the last");
                self.diags.push(d);
            }
        }
    }

    fn check_edges(&mut self, m: &Model<'_>) {
        for e in &m.edges {
            for (field, id) in [("source", e.source), ("target", e.target)] {
                if (field == "source" && id == START) || m.node(id).is_some() {
                    continue;
                }
                let at = format!("/edges/{}/{field}", e.index);
                let msg = if id == START {
                    "`__start__` is a source only; no edge may lead to it".to_string()
                } else {
                    format!("edge {field} `{id}` names no node")
                };
                let d = self.diag("edge-endpoint-missing", &at, msg);
                let d = self.with_suggestion(d, m, id);
                self.diags.push(d);
            }
        }
        match m.start_edges.as_slice() {
            [] => {
                let d = self
                    .diag(
                        "start-edge-missing",
                        "/edges",
                        "no edge leaves `__start__`, so the workflow has no entry point".into(),
                    )
                    .with_help("add `{source: __start__, target: <start node id>}`");
                self.diags.push(d);
            }
            [first, rest @ ..] => {
                let first_at = format!("/edges/{}", m.edges[*first].index);
                for e in rest {
                    let at = format!("/edges/{}", m.edges[*e].index);
                    let d = self
                        .diag(
                            "start-edge-multiple",
                            &at,
                            "a second edge leaves `__start__`; a workflow has one entry point"
                                .into(),
                        )
                        .with_label(self.doc.span(&first_at), "the first edge from `__start__`");
                    self.diags.push(d);
                }
            }
        }
    }

    fn check_counts(&mut self, m: &Model<'_>) {
        for (ty, code) in [("start", "start-node-count"), ("end", "end-node-count")] {
            let of: Vec<usize> = (0..m.nodes.len())
                .filter(|&i| m.nodes[i].ty == ty)
                .collect();
            match of.as_slice() {
                [] => {
                    let d = self.diag(
                        code,
                        "/nodes",
                        format!("the workflow has no `{ty}` node; the engine requires exactly one"),
                    );
                    self.diags.push(d);
                }
                [first, rest @ ..] => {
                    for &n in rest {
                        let d = self
                            .diag(
                                code,
                                &m.nodes[n].ptr(),
                                format!("a second `{ty}` node; the engine requires exactly one"),
                            )
                            .with_label(
                                self.doc.span(&m.nodes[*first].ptr()),
                                format!("the first `{ty}` node"),
                            );
                        self.diags.push(d);
                    }
                }
            }
        }
    }

    fn check_out_degrees(&mut self, m: &Model<'_>) {
        // A missing out-edge that another finding already explains is not reported again
        // (AGC245 is agc's own code; the named rules say more): a node whose id is duplicated
        // (its edges are split between two nodes), every node while an edge source names no
        // node or there is no `end` node to lead to, and nodes inside parallel
        // branches (`branch-not-converging` covers them).
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for n in &m.nodes {
            *counts.entry(n.id).or_default() += 1;
        }
        let mut explained = vec![false; m.nodes.len()];
        // An edge whose source names no node was meant to leave some node (the typo is
        // reported); which one cannot be known, so no node is called edgeless meanwhile.
        let dangling = m
            .edges
            .iter()
            .any(|e| e.source != START && m.node(e.source).is_none());
        let no_end = dangling || !m.nodes.iter().any(|n| n.ty == "end");
        for p in 0..m.nodes.len() {
            if m.nodes[p].ty != "parallel" {
                continue;
            }
            let Some(join) = m.join_target(p) else {
                continue;
            };
            let entries: Vec<usize> = m
                .branches(p)
                .iter()
                .filter_map(|b| m.node(b.entry))
                .collect();
            for u in walk_branches(m, &entries, join).nodes {
                explained[u] = true;
            }
        }
        for (i, n) in m.nodes.iter().enumerate() {
            if m.node(n.id) != Some(i) || counts[n.id] > 1 || n.id == START {
                // Duplicated: its edges belong to whichever node the engine keeps; named
                // `__start__` (AGC250): it has no edges of its own.
                continue;
            }
            let out = m.out(i);
            match n.ty {
                "switch" => {}
                "end" => {
                    for &e in out {
                        let at = format!("/edges/{}", m.edges[e].index);
                        let d = self.diag(
                            "AGC246",
                            &at,
                            format!("an edge leaves the `end` node `{}`", n.id),
                        );
                        self.diags.push(d);
                    }
                }
                _ if out.is_empty() && (explained[i] || no_end) => {}
                _ if out.is_empty() => {
                    let what = if n.ty == "parallel" {
                        "; its one edge names the join target"
                    } else {
                        ""
                    };
                    let d = self.diag(
                        "AGC245",
                        &n.ptr(),
                        format!("`{}` ({}) has no outgoing edge{what}", n.id, n.ty),
                    );
                    self.diags.push(d);
                }
                _ => {
                    let first_at = format!("/edges/{}", m.edges[out[0]].index);
                    for &e in &out[1..] {
                        let at = format!("/edges/{}", m.edges[e].index);
                        let d = self
                            .diag(
                                "multiple-outgoing-edges",
                                &at,
                                format!(
                                    "a second edge leaves `{}` ({}); only a switch routes to \
several nodes",
                                    n.id, n.ty
                                ),
                            )
                            .with_label(self.doc.span(&first_at), "the first edge")
                            .with_help(
                                "route with a `switch` node, or fork with a `parallel` node",
                            );
                        self.diags.push(d);
                    }
                }
            }
        }
    }

    /// Switch targets, branch entries, `n ≤ m`.
    fn check_routes(&mut self, m: &Model<'_>) {
        for (i, n) in m.nodes.iter().enumerate() {
            match n.ty {
                "switch" => {
                    for (at, t) in m.switch_targets(i) {
                        if m.node(t).is_none() {
                            let d = self.diag(
                                "switch-target-missing",
                                &at,
                                format!("switch target `{t}` names no node"),
                            );
                            let d = self.with_suggestion(d, m, t);
                            self.diags.push(d);
                        }
                    }
                }
                "parallel" => {
                    let branches = m.branches(i);
                    for b in &branches {
                        if m.node(b.entry).is_none() {
                            let at = format!("{}/config/branches/{}/entry", n.ptr(), b.index);
                            let d = self.diag(
                                "branch-entry-missing",
                                &at,
                                format!(
                                    "branch `{}` enters at `{}`, which names no node",
                                    b.name, b.entry
                                ),
                            );
                            let d = self.with_suggestion(d, m, b.entry);
                            self.diags.push(d);
                        }
                    }
                    let cfg = n.config();
                    let join = cfg.and_then(|c| c.get("join")).and_then(Value::as_str);
                    let count = cfg.and_then(|c| c.get("n")).and_then(Value::as_u64);
                    if join == Some("n_of_m")
                        && let Some(k) = count
                        && k as usize > branches.len()
                    {
                        let at = format!("{}/config/n", n.ptr());
                        let d = self.diag(
                            "n-of-m-exceeds-branches",
                            &at,
                            format!(
                                "`n_of_m` waits for {k} branches, but `{}` has {}",
                                n.id,
                                branches.len()
                            ),
                        );
                        self.diags.push(d);
                    }
                }
                _ => {}
            }
        }
    }

    /// Convergence of every branch on its join target, and the node types allowed inside.
    fn check_branches(&mut self, m: &Model<'_>) {
        // Each interrupt / unsupported node is reported once, for the first branch found.
        let mut reported = vec![false; m.nodes.len()];
        for p in 0..m.nodes.len() {
            if m.nodes[p].ty != "parallel" || m.node(m.nodes[p].id) != Some(p) {
                continue;
            }
            let Some(join) = m.join_target(p) else {
                continue; // AGC245 or multiple-outgoing-edges already
            };
            let branches = m.branches(p);
            let entries: Vec<Option<usize>> = branches.iter().map(|b| m.node(b.entry)).collect();
            // All branches walked together, each node once, credited to the first branch
            // that reaches it: branches that share a long tail before the join cost that
            // tail once, not once per branch.
            let walk = walk_branches(
                m,
                &entries.iter().flatten().copied().collect::<Vec<_>>(),
                join,
            );
            let failing = walk.not_converging(join);
            let mut found = walk.nodes.iter().zip(&walk.first).peekable();
            let mut entry_index = 0usize;
            for (b, entry) in branches.iter().zip(&entries) {
                let Some(entry) = *entry else {
                    continue;
                };
                let this = entry_index;
                entry_index += 1;
                let branch_at = format!("{}/config/branches/{}", m.nodes[p].ptr(), b.index);
                if entry == join {
                    let d = self.diag(
                        "branch-not-converging",
                        &branch_at,
                        format!(
                            "branch `{}` is empty: its entry `{}` is the join target",
                            b.name, b.entry
                        ),
                    );
                    self.diags.push(d);
                    continue;
                }
                while let Some((&u, _)) = found.next_if(|(_, first)| **first == this) {
                    let node = &m.nodes[u];
                    let code = match node.ty {
                        "interrupt" => "INTERRUPT_IN_PARALLEL_BRANCH",
                        "subworkflow" | "agent_delegate" => "AGC247",
                        _ => continue,
                    };
                    if std::mem::replace(&mut reported[u], true) {
                        continue;
                    }
                    let msg = if code == "INTERRUPT_IN_PARALLEL_BRANCH" {
                        format!(
                            "INTERRUPT_IN_PARALLEL_BRANCH: node \"{}\" (interrupt) is not allowed \
on parallel \"{}\" branch \"{}\"",
                            node.id, m.nodes[p].id, b.name
                        )
                    } else {
                        format!(
                            "`{}` ({}) cannot run inside parallel `{}` (branch `{}`)",
                            node.id, node.ty, m.nodes[p].id, b.name
                        )
                    };
                    let d = self
                        .diag(code, &node.ptr(), msg)
                        .with_label(self.doc.span(&branch_at), "the branch that reaches it")
                        .with_help("move it before the parallel node or after its join target");
                    self.diags.push(d);
                }
                // The branch does not converge: name the nearest node it reaches (fewest
                // edges from its entry) from which the join target cannot be reached.
                if let Some(&bad) = failing.get(&entry) {
                    let node = &m.nodes[bad];
                    let why = match node.ty {
                        "end" => "ends the workflow inside the branch",
                        _ if flow_successors(m, bad).is_empty() => "has nowhere to go",
                        _ => "cannot reach it",
                    };
                    let d = self
                        .diag(
                            "branch-not-converging",
                            &branch_at,
                            format!(
                                "branch `{}` of `{}` does not converge on the join target `{}`",
                                b.name, m.nodes[p].id, m.nodes[join].id
                            ),
                        )
                        .with_label(self.doc.span(&node.ptr()), format!("`{}` {why}", node.id))
                        .with_help(format!(
                            "every path of a branch must lead to `{}`, the target of the \
parallel node's edge",
                            m.nodes[join].id
                        ));
                    self.diags.push(d);
                }
            }
        }
    }

    fn check_reachability(&mut self, m: &Model<'_>) {
        let Some(entry) = m.entry() else {
            return;
        };
        let seen = cycles::reachable(m.nodes.len(), [entry], |u| m.successors(u));
        for (i, n) in m.nodes.iter().enumerate() {
            if !seen[i] && m.node(n.id) == Some(i) && n.id != START {
                let d = self.diag(
                    "AGC240",
                    &n.ptr(),
                    format!(
                        "`{}` can never run: no path leads to it from `__start__`",
                        n.id
                    ),
                );
                self.diags.push(d);
            }
        }
    }

    /// Adds "did you mean" for an unknown node id.
    fn with_suggestion(
        &self,
        d: crate::diag::Diagnostic,
        m: &Model<'_>,
        id: &str,
    ) -> crate::diag::Diagnostic {
        match self.suggestions.closest(id, m.ids()) {
            Some(s) => d.with_suggestion(id, s),
            None => d,
        }
    }
}

/// The nodes of a parallel's branches ([`walk_branches`]): reachable from an entry without
/// passing the join target, a nested parallel crossed by its own join target. `succ` holds
/// each node's successors in the branch (the join target included).
pub(super) struct BranchWalk {
    pub nodes: Vec<usize>,
    /// Which entry (an index in the entries walked) found each node.
    pub first: Vec<usize>,
    pub succ: HashMap<usize, Vec<usize>>,
}

/// Successors inside a branch: a nested parallel goes on at its join target (its branches
/// belong to it), everything else as [`Model::successors`].
pub(super) fn flow_successors(m: &Model<'_>, n: usize) -> Vec<usize> {
    if m.nodes[n].ty == "parallel" {
        m.join_target(n).into_iter().collect()
    } else {
        m.successors(n)
    }
}

/// The nodes of a parallel's branches walked together: each reachable from some entry without
/// passing the join target, once, in depth-first order from each entry in turn (a node an
/// earlier entry reached is not entered again: everything after it was found then).
pub(super) fn walk_branches(m: &Model<'_>, entries: &[usize], join: usize) -> BranchWalk {
    let mut succ = HashMap::new();
    let mut nodes = Vec::new();
    let mut first = Vec::new();
    for (k, &entry) in entries.iter().enumerate() {
        if entry == join || succ.contains_key(&entry) {
            continue;
        }
        succ.insert(entry, Vec::new());
        nodes.push(entry);
        first.push(k);
        let mut stack = vec![entry];
        while let Some(u) = stack.pop() {
            let next = flow_successors(m, u);
            for &v in &next {
                if v != join && !succ.contains_key(&v) {
                    succ.insert(v, Vec::new());
                    nodes.push(v);
                    first.push(k);
                    stack.push(v);
                }
            }
            succ.insert(u, next);
        }
    }
    BranchWalk { nodes, first, succ }
}

impl BranchWalk {
    /// For every node of the walk from which some path (not through the join target) leads
    /// to a node that cannot reach the join target: the nearest such node (fewest edges; ties
    /// by walk order). A branch entered at one of them does not converge. One backward pass
    /// from the join target (the shared reachability walk, [`cycles::reachable`], over the
    /// walk's nodes numbered in walk order, the join target last) and one from the stuck
    /// nodes, in walk order, so the same document names the same node.
    fn not_converging(&self, join: usize) -> HashMap<usize, usize> {
        // Every successor of a walked node is walked, or is the join target (never walked).
        let last = self.nodes.len();
        let local: HashMap<usize, usize> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, &u)| (u, i))
            .chain([(join, last)])
            .collect();
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); last + 1];
        for (i, u) in self.nodes.iter().enumerate() {
            for v in &self.succ[u] {
                preds[local[v]].push(i);
            }
        }
        let ok = cycles::reachable(last + 1, [last], |v| preds[v].iter().copied());
        let mut nearest: HashMap<usize, usize> = HashMap::new();
        let mut queue = std::collections::VecDeque::new();
        for (i, &n) in self.nodes.iter().enumerate() {
            if !ok[i] {
                nearest.insert(i, n);
                queue.push_back(i);
            }
        }
        while let Some(v) = queue.pop_front() {
            let bad = nearest[&v];
            for &u in &preds[v] {
                if let std::collections::hash_map::Entry::Vacant(e) = nearest.entry(u) {
                    e.insert(bad);
                    queue.push_back(u);
                }
            }
        }
        nearest
            .into_iter()
            .map(|(i, bad)| (self.nodes[i], bad))
            .collect()
    }
}
