//! Advisory warnings (they fail only under `--strict`): AG901, AG902, AG903, AG905, AG906,
//! AG907, AG908, AG909. (AG904, an output nobody reads, needs the expression references and
//! lives with the data-flow checks.)

use super::checker::Checker;
use super::checker::node_type;
use super::defaults;
use super::scope::{Scope, strings};
use crate::hash::HashSet;
use crate::source::Field;
use crate::source::{Map, Value};

impl Checker<'_> {
    pub(super) fn check_advisories(&mut self, scopes: &[Scope<'_>]) {
        let mut any_estimate = false;
        for s in scopes {
            self.duplicate_dependencies(s);
            self.unreachable(s);
            for (id, node) in s.nodes() {
                let ptr = s.node_ptr(id);
                any_estimate |= node
                    .field("estimate")
                    .and_then(|e| e.field("cost_usd"))
                    .is_some();
                if defaults::field(s, node, "intelligence", "tier").and_then(Value::as_str)
                    == Some("frontier")
                    && defaults::field(s, node, "intelligence", "rationale").is_none()
                    && node.field("rationale").is_none()
                {
                    self.warn(
                        "AG905",
                        &format!("{ptr}/intelligence"),
                        format!("`{id}` uses the frontier tier without a `rationale`"),
                        "say why the most expensive tier is needed",
                    );
                }
                if defaults::field(s, node, "constraints", "determinism").and_then(Value::as_str)
                    == Some("strict")
                    && defaults::field(s, node, "constraints", "seed").is_none()
                {
                    self.warn(
                        "AG907",
                        &format!("{ptr}/constraints"),
                        format!("`{id}` asks for strict determinism without a `seed`"),
                        "add `constraints.seed`",
                    );
                }
                if node_type(node) == "task" && node.field("success").is_none() {
                    // The merged block's keys, read where they are (no merged copy).
                    let req = |key| defaults::field(s, node, "requirements", key);
                    let writes = req("workspace").and_then(Value::as_str) == Some("read_write")
                        || strings(req("permissions"))
                            .any(|(_, p)| agc_runtime::plan::has_side_effects(p));
                    if writes {
                        self.warn_key(
                            "AG902",
                            &ptr,
                            format!("`{id}` has side effects but no `success` block"),
                            "add `success.criteria` that check what the task changed",
                        );
                    }
                }
                self.judgement_only(id, node, &ptr);
                if let Some(r) = node.field("subgraph").and_then(|s| s.field("ref"))
                    && let Some(uri) = r.field("uri").and_then(Value::as_str)
                    && !(uri.starts_with('.') || uri.starts_with('/'))
                    && r.field("integrity").is_none()
                {
                    self.warn(
                        "AG909",
                        &format!("{ptr}/subgraph/ref/uri"),
                        format!("`{uri}` is not a local reference and has no `integrity`"),
                        "pin the content with `integrity: sha256-…` (see `agc explain AG909`)",
                    );
                }
            }
        }
        let root = scopes.first().map(|s| s.obj);
        let graph_cost = root
            .and_then(|r| r.field("constraints"))
            .and_then(|c| c.field("max_cost_usd"))
            .is_some();
        if !graph_cost && !any_estimate {
            let d = self
                .diag(
                    "AG908",
                    "/id",
                    "the graph bounds its cost nowhere: no `constraints.max_cost_usd` and no `estimate.cost_usd`".into(),
                )
                .with_help("add `constraints.max_cost_usd` at the top level");
            self.push(d);
        }
    }

    fn warn(&mut self, code: &'static str, ptr: &str, msg: String, help: &str) {
        let d = self.diag(code, ptr, msg).with_help(help);
        self.push(d);
    }

    fn warn_key(&mut self, code: &'static str, ptr: &str, msg: String, help: &str) {
        let d = crate::diag::Diagnostic::new(code, msg)
            .at(self.doc.key_span(ptr))
            .with_pointer(ptr)
            .with_help(help);
        self.push(d);
    }

    fn duplicate_dependencies(&mut self, s: &Scope<'_>) {
        let explicit: HashSet<(&str, &str)> = s
            .edges()
            .filter_map(|(_, e)| Some((e.field("from")?.as_str()?, e.field("to")?.as_str()?)))
            .collect();
        for (id, node) in s.nodes() {
            for (i, dep) in strings(node.field("depends_on")) {
                if explicit.contains(&(dep, id.as_str())) {
                    self.warn(
                        "AG901",
                        &format!("{}/depends_on/{i}", s.node_ptr(id)),
                        format!("`{dep}` → `{id}` is declared both here and as an explicit edge"),
                        "keep one of the two declarations",
                    );
                }
            }
        }
    }

    /// AG903: nodes no path from an entrypoint reaches.
    fn unreachable(&mut self, s: &Scope<'_>) {
        let index = &s.graph().index;
        let edges = &s.graph().edges;
        let mut out: Vec<Vec<usize>> = vec![Vec::new(); index.len()];
        for e in edges {
            out[index[e.from]].push(index[e.to]);
        }
        let starts = s.entrypoints().filter_map(|(_, ep)| index.get(ep).copied());
        let seen =
            crate::analysis::cycles::reachable(index.len(), starts, |n| out[n].iter().copied());
        // A compensation node runs only to undo what another node did (agc-runtime runs it
        // when the run fails): nothing needs to reach it.
        let compensating: Vec<&str> = s.compensations().map(|(_, c)| c).collect();
        for (i, (id, _)) in index.iter().enumerate() {
            if !seen[i] && !compensating.contains(id) {
                self.warn_key(
                    "AG903",
                    &s.node_ptr(id),
                    format!("no path from an entrypoint reaches `{id}`"),
                    "connect it with an edge or `depends_on`, list it as an entrypoint, or remove it",
                );
            }
        }
    }

    /// AG906: every required criterion is a judgement (llm_judge or human).
    fn judgement_only(&mut self, id: &str, node: &Map, ptr: &str) {
        let criteria: Vec<&Value> = node
            .field("success")
            .and_then(|s| s.field("criteria"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|c| c.field("severity").and_then(Value::as_str) != Some("advisory"))
            .collect();
        if !criteria.is_empty()
            && criteria.iter().all(|c| {
                matches!(
                    c.field("kind").and_then(Value::as_str),
                    Some("llm_judge" | "human")
                )
            })
        {
            self.warn(
                "AG906",
                &format!("{ptr}/success/criteria"),
                format!("every required criterion of `{id}` is a judgement (llm_judge or human)"),
                "add a deterministic criterion (command, file_exists, expression, ...)",
            );
        }
    }
}
