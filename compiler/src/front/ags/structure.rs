//! Layer 2 (referential) checks of SPEC §18.1: AG111–AG117, AG121–AG124, AG141–AG142,
//! AG151–AG153. One pass per scope; every finding is reported.

use super::checker::Checker;
use super::scope::EffEdge;
use super::scope::{Scope, ScopeKind, strings};
use crate::diag::Diagnostic;
use crate::hash::{HashMap, HashSet};
use crate::source::Field;
use crate::source::{Map, Str, Value};

/// Names no binding may take (SPEC Appendix B): the AGX namespace roots, and `item`,
/// reserved for a future default `map.as`.
pub(super) const RESERVED_ROOTS: [&str; 11] = [
    "graph",
    "params",
    "context",
    "attachments",
    "nodes",
    "self",
    "loop",
    "outputs",
    "env",
    "secrets",
    "item",
];

const TIERS: [&str; 4] = ["minimal", "standard", "advanced", "frontier"];

fn tier_level(tier: &str) -> Option<u64> {
    TIERS.iter().position(|t| *t == tier).map(|i| i as u64 + 1)
}

impl Checker<'_> {
    pub(super) fn check_scope(&mut self, scope: &Scope<'_>) {
        let edges = &scope.graph().edges;
        self.check_ids(scope);
        self.check_references(scope);
        if self.stopped() {
            return;
        }
        self.check_entrypoints(scope, edges);
        self.check_joins(scope, edges);
        self.check_cycles(scope, edges);
        if self.stopped() {
            return;
        }
        for (id, node) in scope.nodes() {
            let ptr = scope.node_ptr(id);
            self.check_decision(node, &ptr);
            self.check_intelligence(node, &ptr);
            self.check_fallbacks(scope, id, node, &ptr);
            self.check_map_bindings(node, &ptr);
        }
        if let Some(d) = scope
            .obj
            .field("defaults")
            .and_then(|d| d.field("intelligence"))
        {
            self.check_tier(d, &format!("{}/defaults/intelligence", scope.ptr));
        }
    }

    /// AGC111: `map.as` or `map.index_as` is a reserved name (SPEC Appendix B), which would
    /// hide a namespace root in the body, or both bind the same name.
    fn check_map_bindings(&mut self, node: &Map, ptr: &str) {
        let Some(map) = node.field("map") else {
            return;
        };
        let name_as = map.field("as").and_then(Value::as_str);
        let index_as = map.field("index_as").and_then(Value::as_str);
        for (field, name) in [("as", name_as), ("index_as", index_as)] {
            // `item` is reserved as the future default of `map.as` (SPEC Appendix B): binding
            // the element to it agrees with that default, binding the index to it does not.
            if let Some(name) = name
                && RESERVED_ROOTS.contains(&name)
                && !(field == "as" && name == "item")
            {
                self.error(
                    "AGC111",
                    &format!("{ptr}/map/{field}"),
                    format!("`map.{field}: {name}` binds a reserved name"),
                    Some(format!(
                        "`{name}` is reserved (SPEC Appendix B); choose another name, such as `{name}_item`"
                    )),
                );
            }
        }
        if let (Some(a), Some(i)) = (name_as, index_as.or(Some("index")))
            && a == i
        {
            let field = if index_as.is_some() { "index_as" } else { "as" };
            self.error(
                "AGC111",
                &format!("{ptr}/map/{field}"),
                format!("`map.as` and `map.index_as` both bind `{a}`"),
                Some(if index_as.is_some() {
                    "the element and its index need two names".into()
                } else {
                    "`index_as` defaults to `index`: name the element otherwise, or set `index_as`"
                        .into()
                }),
            );
        }
    }

    fn check_ids(&mut self, scope: &Scope<'_>) {
        for (id, _) in scope.nodes() {
            if id == "self" {
                self.error_key(
                    "AG117",
                    &scope.node_ptr(id),
                    "`self` is reserved and cannot be a node id",
                    "rename the node; `self` refers to the current node in expressions",
                );
            }
        }
    }

    fn check_references(&mut self, scope: &Scope<'_>) {
        for (id, node) in scope.nodes() {
            for (i, dep) in strings(node.field("depends_on")) {
                if !scope.has_node(dep) {
                    let ptr = format!("{}/depends_on/{i}", scope.node_ptr(id));
                    self.unknown_node(
                        "AG114",
                        &ptr,
                        format!("`depends_on` names `{dep}`, which is not a node of this scope"),
                        scope,
                        dep,
                    );
                }
            }
        }
        for (i, e) in scope.edges() {
            for end in ["from", "to"] {
                if let Some(target) = e.field(end).and_then(Value::as_str)
                    && !scope.has_node(target)
                {
                    let ptr = format!("{}/edges/{i}/{end}", scope.ptr);
                    self.unknown_node(
                        "AG113",
                        &ptr,
                        format!("edge `{end}` names `{target}`, which is not a node of this scope"),
                        scope,
                        target,
                    );
                }
            }
        }
    }

    fn check_entrypoints(&mut self, scope: &Scope<'_>, edges: &[EffEdge<'_>]) {
        let incoming: HashMap<&str, &EffEdge<'_>> = edges.iter().map(|e| (e.to, e)).collect();
        for (i, ep) in scope.entrypoints() {
            let ptr = format!("{}/entrypoints/{i}", scope.ptr);
            if !scope.has_node(ep) {
                let (code, msg) = match scope.kind {
                    ScopeKind::Root => (
                        "AG115",
                        format!("entrypoint `{ep}` is not a node of the graph"),
                    ),
                    _ => (
                        "AG133",
                        format!("entrypoint `{ep}` is not a node of this fragment"),
                    ),
                };
                self.unknown_node(code, &ptr, msg, scope, ep);
            } else if let Some(e) = incoming.get(ep) {
                let span = self.doc.span(&e.ptr(scope));
                let d = self
                    .diag(
                        "AG112",
                        &ptr,
                        format!("entrypoint `{ep}` has an incoming edge from `{}`", e.from),
                    )
                    .with_label(span, "the incoming edge")
                    .with_help("entrypoints start the graph; remove the edge or the entrypoint");
                self.push(d);
            }
        }
    }

    fn check_joins(&mut self, scope: &Scope<'_>, edges: &[EffEdge<'_>]) {
        let mut incoming: HashMap<&str, usize> = HashMap::default();
        for e in edges {
            *incoming.entry(e.to).or_default() += 1;
        }
        let default_join = format!("{}/defaults/join", scope.ptr);
        for (id, node) in scope.nodes() {
            // The effective join: the node's own, else its scope's `defaults.join` (SPEC §6.3).
            let join = super::defaults::scalar(scope, node, "join").and_then(Value::as_str);
            if join != Some("n_of") {
                continue;
            }
            let have = incoming.get(id.as_str()).copied().unwrap_or(0);
            if node.field("join").is_none() && have == 0 {
                continue; // an inherited join of a node without incoming edges never applies
            }
            if node.field("join").is_none() && node.field("join_count").is_none() {
                // The schema requires `join_count` with `join: n_of`; `defaults` cannot carry
                // one, so every node that inherits `n_of` must set its own.
                let ptr = scope.node_ptr(id);
                let d = Diagnostic::error(
                    "AG001",
                    format!("`{id}` inherits `join: n_of` from `defaults` but sets no `join_count`"),
                )
                .at(self.doc.key_span(&ptr))
                .with_pointer(ptr)
                .with_label(self.doc.span(&default_join), "`join: n_of` comes from here")
                .with_help(format!(
                    "add `join_count` to `{id}` (how many incoming edges must be active), or set its own `join`"
                ));
                self.push(d);
            }
            if let Some(n) = node.field("join_count").and_then(Value::as_u64)
                && n as usize > have
            {
                self.error(
                    "AG116",
                    &format!("{}/join_count", scope.node_ptr(id)),
                    format!("`join_count` is {n}, but only {have} edge(s) lead into `{id}`"),
                    Some("the join can never fire; lower `join_count` or add edges".into()),
                );
            }
        }
    }

    /// AG111: every cycle of the effective edge set, once per strongly connected component.
    fn check_cycles(&mut self, scope: &Scope<'_>, edges: &[EffEdge<'_>]) {
        let index = &scope.graph().index;
        let pairs: Vec<(usize, usize)> =
            edges.iter().map(|e| (index[e.from], index[e.to])).collect();
        let sccs = crate::analysis::cycles::cyclic_components(index.len(), &pairs);
        let mut out: Vec<Vec<usize>> = vec![Vec::new(); index.len()];
        for (i, e) in edges.iter().enumerate() {
            out[index[e.from]].push(i);
        }
        for comp in sccs {
            let members: HashSet<usize> = comp.iter().copied().collect();
            let start = comp[0];
            // BFS inside the component from its first node until an edge returns to it; the
            // parents then spell one cycle.
            let mut parent: HashMap<usize, usize> = HashMap::default();
            let mut queue = std::collections::VecDeque::from([start]);
            let mut closing = None;
            'bfs: while let Some(at) = queue.pop_front() {
                for &i in &out[at] {
                    let e = &edges[i];
                    if !members.contains(&index[e.to]) {
                        continue;
                    }
                    let to = index[e.to];
                    if to == start {
                        closing = Some(i);
                        break 'bfs;
                    }
                    if let std::collections::hash_map::Entry::Vacant(v) = parent.entry(to) {
                        v.insert(i);
                        queue.push_back(to);
                    }
                }
            }
            let Some(closing) = closing else { continue };
            let mut names = vec![edges[closing].to];
            let mut at = index[edges[closing].from];
            names.push(edges[closing].from);
            while at != start {
                let e = &edges[parent[&at]];
                names.push(e.from);
                at = index[e.from];
            }
            names.reverse();
            let d = self
                .diag(
                    "AG111",
                    &edges[closing].ptr(scope),
                    format!("cycle in the effective edges: {}", names.join(" → ")),
                )
                .with_help(
                    "graphs are acyclic; express iteration with a `loop` node and its bound",
                );
            self.push(d);
        }
    }

    fn check_decision(&mut self, node: &Map, ptr: &str) {
        let ty = node.field("type").and_then(Value::as_str).unwrap_or("task");
        if matches!(ty, "decision" | "gate")
            && node
                .field("outputs")
                .and_then(|o| o.field("decision"))
                .is_some()
        {
            self.error_key(
                "AG122",
                &format!("{ptr}/outputs/decision"),
                "`decision` is a reserved output of decision and gate nodes",
                "rename the output; the selected label is exposed as `outputs.decision`",
            );
        }
        let Some(dec) = node.field("decision").and_then(Value::as_object) else {
            return;
        };
        let expression = dec.field("evaluator").and_then(Value::as_str) == Some("expression");
        let mut labels: HashMap<&str, usize> = HashMap::default();
        for (i, b) in dec
            .field("branches")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let bptr = format!("{ptr}/decision/branches/{i}");
            if let Some(label) = b.field("label").and_then(Value::as_str) {
                if let Some(first) = labels.get(label) {
                    let first_span = self
                        .doc
                        .span(&format!("{ptr}/decision/branches/{first}/label"));
                    let d = self
                        .diag(
                            "AG124",
                            &format!("{bptr}/label"),
                            format!("branch label `{label}` is declared twice"),
                        )
                        .with_label(first_span, "first declared here");
                    self.push(d);
                } else {
                    labels.insert(label, i);
                }
            }
            if expression && b.field("when").is_none() {
                self.error(
                    "AG121",
                    &bptr,
                    "branch has no `when`, but the decision is evaluated by expression".to_string(),
                    Some("add a `when` expression, or use `evaluator: agent`".into()),
                );
            }
        }
        if let Some(def) = dec.field("default_branch").and_then(Value::as_str)
            && !labels.contains_key(def)
        {
            let mut known: Vec<&str> = labels.keys().copied().collect();
            known.sort_unstable();
            self.error(
                "AG123",
                &format!("{ptr}/decision/default_branch"),
                format!("`default_branch` is `{def}`, which is not a branch label"),
                Some(format!("declared labels: {}", known.join(", "))),
            );
        }
    }

    fn check_intelligence(&mut self, node: &Map, ptr: &str) {
        if let Some(i) = node.field("intelligence") {
            self.check_tier(i, &format!("{ptr}/intelligence"));
        }
        for (i, c) in node
            .field("success")
            .and_then(|s| s.field("criteria"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if let Some(j) = c.field("judge_intelligence") {
                self.check_tier(j, &format!("{ptr}/success/criteria/{i}/judge_intelligence"));
            }
        }
    }

    /// AG141 (tier vs level) and AG142 (escalate_to below tier) on one intelligence block.
    fn check_tier(&mut self, intel: &Value, ptr: &str) {
        let Some(tier) = intel.field("tier").and_then(Value::as_str) else {
            return;
        };
        let Some(level) = tier_level(tier) else {
            return;
        };
        if let Some(l) = intel.field("level").and_then(Value::as_u64)
            && l != level
        {
            self.error(
                "AG141",
                &format!("{ptr}/level"),
                format!("`level` is {l}, but tier `{tier}` is level {level}"),
                Some("minimal=1, standard=2, advanced=3, frontier=4".into()),
            );
        }
        if let Some(up) = intel.field("escalate_to").and_then(Value::as_str)
            && let Some(ul) = tier_level(up)
            && ul < level
        {
            self.error(
                "AG142",
                &format!("{ptr}/escalate_to"),
                format!("`escalate_to` is `{up}`, below the node's tier `{tier}`"),
                Some("escalation goes to a higher tier".into()),
            );
        }
    }

    /// AG113 for failure-ladder node references, AG151, AG152, AG153.
    fn check_fallbacks(&mut self, scope: &Scope<'_>, id: &str, node: &Map, ptr: &str) {
        let Some(failure) = node.field("failure").and_then(Value::as_object) else {
            return;
        };
        let outputs = |n: &Map| -> Vec<String> {
            n.field("outputs")
                .and_then(Value::as_object)
                .map(|o| {
                    o.iter()
                        .filter(|(_, v)| {
                            v.field("required").and_then(Value::as_bool) != Some(false)
                        })
                        .map(|(k, _)| k.to_string())
                        .collect()
                })
                .unwrap_or_default()
        };
        let criteria: HashSet<&str> = node
            .field("success")
            .and_then(|s| s.field("criteria"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c.field("id").and_then(Value::as_str))
            .collect();
        let declared_outputs: HashSet<&str> = node
            .field("outputs")
            .and_then(Value::as_object)
            .map(|o| o.keys().map(Str::as_str).collect())
            .unwrap_or_default();
        for (i, step) in failure
            .field("fallback")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let sptr = format!("{ptr}/failure/fallback/{i}");
            match step.field("strategy").and_then(Value::as_str) {
                Some("alternate_node") => {
                    let Some(alt) = step.field("node").and_then(Value::as_str) else {
                        continue;
                    };
                    match scope.node(alt) {
                        None => {
                            self.unknown_node(
                                "AG113",
                                &format!("{sptr}/node"),
                                format!("alternate node `{alt}` is not a node of this scope"),
                                scope,
                                alt,
                            );
                        }
                        Some(alt_node) => {
                            let have: HashSet<String> = alt_node
                                .field("outputs")
                                .and_then(Value::as_object)
                                .map(|o| o.keys().map(|k| k.to_string()).collect())
                                .unwrap_or_default();
                            let missing: Vec<String> = outputs(node)
                                .into_iter()
                                .filter(|o| !have.contains(o))
                                .collect();
                            if !missing.is_empty() {
                                self.error(
                                    "AG151",
                                    &format!("{sptr}/node"),
                                    format!(
                                        "alternate node `{alt}` does not provide required output(s) of `{id}`: {}",
                                        missing.join(", ")
                                    ),
                                    Some("declare the same outputs on the alternate node".into()),
                                );
                            }
                        }
                    }
                }
                Some("relax_criteria") => {
                    for (j, c) in strings(step.field("criteria")) {
                        if !criteria.contains(c) {
                            self.error(
                                "AG153",
                                &format!("{sptr}/criteria/{j}"),
                                format!("`relax_criteria` names `{c}`, which is not a criterion of `{id}`"),
                                None,
                            );
                        }
                    }
                }
                Some("degrade_outputs") => {
                    for (j, o) in strings(step.field("outputs")) {
                        if !declared_outputs.contains(o) {
                            self.error(
                                "AG153",
                                &format!("{sptr}/outputs/{j}"),
                                format!("`degrade_outputs` names `{o}`, which is not an output of `{id}`"),
                                None,
                            );
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some(esc) = failure.field("escalation")
            && esc.field("to").and_then(Value::as_str) == Some("node")
            && let Some(target) = esc.field("node").and_then(Value::as_str)
            && !scope.has_node(target)
        {
            self.unknown_node(
                "AG113",
                &format!("{ptr}/failure/escalation/node"),
                format!("escalation node `{target}` is not a node of this scope"),
                scope,
                target,
            );
        }
        if let Some(comp) = failure.field("compensation").and_then(Value::as_str) {
            let cptr = format!("{ptr}/failure/compensation");
            match scope.node(comp) {
                None => {
                    self.unknown_node(
                        "AG113",
                        &cptr,
                        format!("compensation node `{comp}` is not a node of this scope"),
                        scope,
                        comp,
                    );
                }
                Some(c) => {
                    if c.field("failure")
                        .and_then(|f| f.field("compensation"))
                        .is_some()
                    {
                        let other = self
                            .doc
                            .span(&format!("{}/failure/compensation", scope.node_ptr(comp)));
                        let d = self
                            .diag(
                                "AG152",
                                &cptr,
                                format!("compensation node `{comp}` has a compensation of its own"),
                            )
                            .with_label(other, "its own compensation")
                            .with_help("compensation does not nest");
                        self.push(d);
                    }
                }
            }
        }
    }
}
