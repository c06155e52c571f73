//! `route`: one evaluated route resolved into what to run and read (`agent-graph.route.v1`).
//!
//! Upstream's `resolveRoute` (`src/router.ts`, 0.2.6): re-evaluate; a differing expected revision
//! fails with `route-revision-stale` before the id lookup; an unknown id fails with
//! `route-stale`; receipts naming another Provider fail with
//! `resource-receipts-provider-mismatch`. Resources come from the node (or, for a gate resolved
//! by session authority, from `delegated.resources` when set), are looked up by resource id
//! first and then by path; an `agent` action's Skill is prepended to `required`. `readState` is
//! `current` when a receipt matches (id and digest, or id and revision for dynamic resources).

use super::Error;
use super::eval::{Candidate, evaluate};
use super::model::{Action, FileRef, Input, Node, NodeKind, NodeResources, Provider, Resource};
use serde::Serialize;
use serde_json::{Map, Value};

/// `agent-graph.resource-location.v1`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    pub schema: &'static str,
    pub id: String,
    pub kind: String,
    pub media_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub materialize: Option<Materialize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_state: Option<&'static str>,
}

/// `materialize: { resourceId }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Materialize {
    pub resource_id: String,
}

/// A route's `action`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteAction {
    pub id: String,
    pub runner: String,
    pub effect: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill: Option<Location>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Location>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Location>,
}

/// One `commandPlan` item.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanItem {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handler: Option<String>,
    pub effect: String,
    pub cwd: &'static str,
    pub working_directory: String,
}

/// `resources: { required, recommended }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Resources {
    pub required: Vec<Location>,
    pub recommended: Vec<Location>,
}

/// `afterAction`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AfterAction {
    pub evaluate: bool,
    pub record_node: String,
}

/// `agent-graph.route.v1`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Route {
    pub schema: &'static str,
    pub provider: String,
    pub revision: String,
    pub route_id: String,
    pub graph: String,
    pub node: String,
    pub status_code: &'static str,
    pub reason_code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub availability: &'static str,
    pub call_path: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<RouteAction>,
    pub command_plan: Vec<PlanItem>,
    pub resources: Resources,
    /// The gate block as written, then `resolution`, `inspectionAction`, `resolutionAction`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<Map<String, Value>>,
    pub diagnostics: Vec<Value>,
    pub after_action: AfterAction,
}

/// Resolves `route_id` of `graph` at `entry` under `input`.
pub fn resolve(
    provider: &Provider,
    graph: &str,
    entry: &str,
    route_id: &str,
    input: &Input,
    expected_revision: Option<&str>,
) -> Result<Route, Error> {
    let evaluated = evaluate(provider, graph, entry, input)?;
    let revision = evaluated.evaluation.revision.clone();
    if let Some(expected) = expected_revision
        && expected != revision
    {
        return Err(Error::new(
            "route-revision-stale",
            format!("Expected revision {expected}, current revision is {revision}"),
        ));
    }
    let Some(candidate) = evaluated
        .candidates
        .iter()
        .find(|c| c.summary.route_id == route_id)
    else {
        return Err(Error::new(
            "route-stale",
            format!("Route {route_id} is not available at revision {revision}"),
        ));
    };
    if let Some(r) = &input.receipts
        && r.provider != provider.id
    {
        return Err(Error::new(
            "resource-receipts-provider-mismatch",
            format!(
                "Resource receipts target Provider {}, current Provider is {}",
                r.provider, provider.id
            ),
        ));
    }
    let node = provider
        .graphs
        .get(&candidate.summary.graph)
        .and_then(|g| g.nodes.iter().find(|n| n.id == candidate.summary.node))
        .ok_or_else(|| Error::new("route-stale", format!("Route {route_id} has no node")))?;
    let r = Router {
        provider,
        input,
        revision: &revision,
    };
    let resources = r.resources(node, candidate)?;
    let action = if node.kind == NodeKind::Action {
        r.action(node.action.as_deref())
    } else {
        None
    };
    let gate = if node.kind == NodeKind::Gate {
        Some(r.gate(node, candidate))
    } else {
        None
    };
    let s = &candidate.summary;
    Ok(Route {
        schema: "agent-graph.route.v1",
        provider: provider.id.clone(),
        revision: revision.clone(),
        route_id: s.route_id.clone(),
        graph: s.graph.clone(),
        node: s.node.clone(),
        status_code: s.status_code,
        reason_code: s.reason_code.clone(),
        hint: s.hint.clone(),
        availability: s.availability,
        call_path: candidate.call_path.clone(),
        action: action.map(|a| r.route_action(a)),
        command_plan: action.map(|a| r.plan(a)).unwrap_or_default(),
        resources,
        gate,
        diagnostics: Vec::new(),
        after_action: AfterAction {
            evaluate: true,
            record_node: candidate.state_key.clone(),
        },
    })
}

struct Router<'a> {
    provider: &'a Provider,
    input: &'a Input,
    revision: &'a str,
}

impl<'a> Router<'a> {
    fn action(&self, path: Option<&str>) -> Option<&'a Action> {
        path.and_then(|p| self.provider.actions.get(p))
    }

    fn locate(&self, resource: &Resource) -> Location {
        match &resource.content {
            Some(file) => Location {
                schema: "agent-graph.resource-location.v1",
                id: resource.id.clone(),
                kind: resource.kind.clone(),
                media_type: resource.media_type.clone(),
                revision: None,
                digest: Some(file.digest.clone()),
                file_path: Some(file.path.clone()),
                materialize: None,
                read_state: None,
            },
            None => Location {
                schema: "agent-graph.resource-location.v1",
                id: resource.id.clone(),
                kind: resource.kind.clone(),
                media_type: resource.media_type.clone(),
                revision: Some(self.revision.to_string()),
                digest: None,
                file_path: None,
                materialize: Some(Materialize {
                    resource_id: resource.id.clone(),
                }),
                read_state: None,
            },
        }
    }

    /// Upstream `locateResource`: by id first, then by (normalised) path.
    fn locate_reference(&self, reference: &str) -> Result<Location, Error> {
        let resources = &self.provider.resources;
        let found = resources.iter().find(|r| r.id == reference).or_else(|| {
            let norm = normalize_relative(reference);
            resources.iter().find(|r| r.path == norm)
        });
        found.map(|r| self.locate(r)).ok_or_else(|| {
            Error::new(
                "resource-missing",
                format!("Provider {} has no resource {reference}", self.provider.id),
            )
        })
    }

    fn skill(&self, action: &Action) -> Option<Location> {
        let skill = action.skill.as_ref().filter(|_| action.runner == "agent")?;
        Some(static_location(
            &skill.file,
            format!("skill.{}", skill.name.as_deref().unwrap_or("agent-skill")),
            "skill",
            "text/markdown",
        ))
    }

    fn resources(&self, node: &Node, candidate: &Candidate) -> Result<Resources, Error> {
        let delegated = node
            .delegated
            .as_ref()
            .and_then(|d| d.resources.as_ref())
            .filter(|_| {
                node.kind == NodeKind::Gate
                    && candidate.gate_resolution == Some("session-authority")
            });
        let empty = NodeResources::default();
        let selected = delegated.or(node.resources.as_ref()).unwrap_or(&empty);
        let mut required = selected
            .required
            .iter()
            .map(|r| self.locate_reference(r))
            .collect::<Result<Vec<_>, _>>()?;
        let recommended = selected
            .recommended
            .iter()
            .map(|r| self.locate_reference(r))
            .collect::<Result<Vec<_>, _>>()?;
        if node.kind == NodeKind::Action
            && let Some(skill) = self
                .action(node.action.as_deref())
                .and_then(|a| self.skill(a))
        {
            required.insert(0, skill);
        }
        Ok(Resources {
            required: self.annotate(required),
            recommended: self.annotate(recommended),
        })
    }

    fn annotate(&self, locations: Vec<Location>) -> Vec<Location> {
        locations
            .into_iter()
            .map(|l| self.annotate_one(l))
            .collect()
    }

    fn annotate_one(&self, mut l: Location) -> Location {
        let current = self.input.receipts.as_ref().is_some_and(|set| {
            set.receipts.iter().any(|r| {
                r.id == l.id
                    && if l.materialize.is_some() {
                        l.revision.is_some() && r.revision == l.revision
                    } else {
                        l.digest.is_some() && r.digest == l.digest
                    }
            })
        });
        l.read_state = Some(if current { "current" } else { "read-required" });
        l
    }

    fn route_action(&self, action: &Action) -> RouteAction {
        let schema = |f: &Option<FileRef>, dir: &str| {
            f.as_ref().map(|f| {
                self.annotate_one(static_location(
                    f,
                    format!("schema.{}.{dir}", action.id),
                    "schema",
                    "application/schema+json",
                ))
            })
        };
        RouteAction {
            id: action.id.clone(),
            runner: action.runner.clone(),
            effect: action.effect.clone(),
            skill: self.skill(action).map(|l| self.annotate_one(l)),
            input_schema: schema(&action.input_schema, "input"),
            output_schema: schema(&action.output_schema, "output"),
        }
    }

    fn plan(&self, action: &Action) -> Vec<PlanItem> {
        let (cwd, working_directory) = if action.cwd_provider {
            ("provider", self.provider.root.clone())
        } else {
            ("workspace", self.input.workspace.clone())
        };
        let item = |command: Option<String>, handler: Option<String>| PlanItem {
            command,
            handler,
            effect: action.effect.clone(),
            cwd,
            working_directory: working_directory.clone(),
        };
        match action.runner.as_str() {
            "command" => vec![item(action.command.clone(), None)],
            "script" => {
                let runtime = match action.runtime.as_deref() {
                    Some("python") => "python3",
                    Some("shell") => "sh",
                    Some("bun") => "bun",
                    _ => "node",
                };
                let mut command = format!(
                    "{runtime} {}",
                    shell_quote(action.entry.as_deref().unwrap_or_default())
                );
                for a in &action.args {
                    command.push(' ');
                    command.push_str(&shell_quote(a));
                }
                vec![item(Some(command), None)]
            }
            "host" => vec![item(None, action.handler.clone())],
            _ => Vec::new(),
        }
    }

    fn gate(&self, node: &Node, candidate: &Candidate) -> Map<String, Value> {
        let mut out = node
            .gate
            .as_ref()
            .map(|g| g.raw.clone())
            .unwrap_or_default();
        let session = candidate.gate_resolution == Some("session-authority");
        out.insert(
            "resolution".to_string(),
            Value::String(candidate.gate_resolution.unwrap_or("user").to_string()),
        );
        let skip = session && node.delegated.as_ref().is_some_and(|d| d.skip_inspection);
        let inspection = if skip {
            None
        } else {
            self.action(node.inspection_action.as_deref())
        };
        let delegated_resolution = node
            .delegated
            .as_ref()
            .and_then(|d| d.resolution_action.as_deref())
            .filter(|_| session);
        let resolution = self.action(delegated_resolution.or(node.resolution_action.as_deref()));
        for (key, action) in [
            ("inspectionAction", inspection),
            ("resolutionAction", resolution),
        ] {
            if let Some(a) = action {
                let mut m = Map::new();
                m.insert(
                    "action".to_string(),
                    serde_json::to_value(self.route_action(a)).unwrap_or_default(),
                );
                m.insert(
                    "commandPlan".to_string(),
                    serde_json::to_value(self.plan(a)).unwrap_or_default(),
                );
                out.insert(key.to_string(), Value::Object(m));
            }
        }
        out
    }
}

fn static_location(file: &FileRef, id: String, kind: &str, media_type: &str) -> Location {
    Location {
        schema: "agent-graph.resource-location.v1",
        id,
        kind: kind.to_string(),
        media_type: media_type.to_string(),
        revision: None,
        digest: Some(file.digest.clone()),
        file_path: Some(file.path.clone()),
        materialize: None,
        read_state: None,
    }
}

/// Single-quotes a shell word, writing an embedded `'` as `'"'"'` (as upstream does).
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\"'\"'"))
}

/// A provider-relative path with `.` segments and `x/..` pairs removed, `/`-separated (the
/// key under which the model stores actions and resources).
pub fn normalize_relative(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_like_upstream() {
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\"'\"'s'");
    }

    #[test]
    fn normalizes_paths() {
        assert_eq!(
            normalize_relative("./actions/../actions/a.yaml"),
            "actions/a.yaml"
        );
        assert_eq!(normalize_relative("resources//x.md"), "resources/x.md");
    }
}
