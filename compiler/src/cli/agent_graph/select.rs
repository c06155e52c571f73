//! Which Provider, graph, entry (and route) `evaluate` and `route` work on: the positional
//! arguments, or a Skill binding (`--skill`, with `--registry` for `provider:` locators), in
//! upstream's order (`providerContext`, then `selectedGraph`):
//!
//! 1. the registry, the binding and its Provider manifest; the Provider is loaded (its loader
//!    errors refuse it); the binding is checked against it (`provider-id-mismatch`,
//!    `skill-graph-missing`, `skill-entry-missing`);
//! 2. the number of positional arguments (`route-arguments-invalid` for route, as upstream;
//!    `option-invalid` for evaluate, where upstream's argument parser refuses them);
//! 3. an explicit graph or `--entry` that differs from the binding's (`skill-graph-conflict`,
//!    `skill-entry-conflict`); without a binding, a graph is required
//!    (`graph-selection-missing`) and the entry defaults to `default`.
//!
//! Without `--skill` the arguments are `PROVIDER GRAPH [ROUTE_ID]` (PROVIDER defaults to the
//! current folder, as upstream's `--manifest provider.yaml`); with it, the Provider comes from
//! the binding and the arguments are upstream's: `[GRAPH]` for evaluate, `[ROUTE_ID]` for route.

use super::{AgFormat, StateArgs, fail, provider, structured};
use crate::front::agent_graph::skill;
use agc_runtime::agent_graph::Error;
use agc_runtime::agent_graph::model::Provider;
use std::path::Path;

/// What the command works on.
pub(crate) struct Selected {
    pub provider: Provider,
    pub graph: String,
    pub entry: String,
    pub route_id: Option<String>,
}

fn error(format: AgFormat, code: &'static str, message: String) -> i32 {
    fail(format, &Error::new(code, message), Vec::new())
}

/// Selects, or prints why not and gives the exit status.
pub(crate) fn select(targets: &[String], a: &StateArgs, route: bool) -> Result<Selected, i32> {
    let format = a.format;
    let Some(skill_path) = &a.skill else {
        let root = targets.first().map_or(".", String::as_str);
        let provider = provider(Path::new(root), format)?;
        if targets.len() > if route { 3 } else { 2 } {
            return Err(too_many(format, route));
        }
        let Some(graph) = targets.get(1) else {
            return Err(error(
                format,
                "graph-selection-missing",
                "Graph is required when no --skill binding is active".to_string(),
            ));
        };
        return Ok(Selected {
            provider,
            graph: graph.clone(),
            entry: a.entry.clone().unwrap_or_else(|| "default".to_string()),
            route_id: targets.get(2).cloned(),
        });
    };
    let registry = match &a.registry {
        Some(r) => {
            Some(skill::read_registry(r, structured).map_err(|e| fail(format, &e, Vec::new()))?)
        }
        None => None,
    };
    let binding =
        skill::resolve(skill_path, registry.as_ref()).map_err(|e| fail(format, &e, Vec::new()))?;
    let provider = provider(&binding.manifest_path, format)?;
    binding
        .verify(&provider)
        .map_err(|e| fail(format, &e, Vec::new()))?;
    if targets.len() > 1 {
        return Err(too_many(format, route));
    }
    let (graph, route_id) = if route {
        (None, targets.first())
    } else {
        (targets.first(), None)
    };
    if let Some(g) = graph
        && *g != binding.graph
    {
        return Err(error(
            format,
            "skill-graph-conflict",
            format!(
                "Skill selects Graph {}; explicit Graph {g} is not allowed",
                binding.graph
            ),
        ));
    }
    if let Some(e) = &a.entry
        && *e != binding.entry
    {
        return Err(error(
            format,
            "skill-entry-conflict",
            format!(
                "Skill selects Entry {}; explicit Entry {e} is not allowed",
                binding.entry
            ),
        ));
    }
    Ok(Selected {
        provider,
        graph: binding.graph,
        entry: binding.entry,
        route_id: route_id.cloned(),
    })
}

fn too_many(format: AgFormat, route: bool) -> i32 {
    if route {
        error(
            format,
            "route-arguments-invalid",
            "Too many route arguments".to_string(),
        )
    } else {
        error(format, "option-invalid", "Too many arguments".to_string())
    }
}
