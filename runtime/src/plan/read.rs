//! Reading plans: the format tag checked first ([`Plan::from_json`], [`Plan::from_value`]),
//! and plans of older formats upgraded step by step to the current one: a plan written
//! before `agc.plan/v3` gets the typed semantics it left to the dialect, derived exactly as
//! the runtime decided them while running before; a plan written before `agc.plan/v4` or
//! `agc.plan/v5` gets the typed fields its `attributes` and `exprs` held (below). This (with the compiler's
//! lowering) is the only place that reads `source.dialect` to decide how a plan runs.
//!
//! Before `agc.plan/v3`:
//!
//! - `semantics` from the dialect: AWP a workflow state whose reducers were `attrs.reducers`
//!   (moved out of `attrs`), collected jq outputs, `null` as a value, switch decisions and
//!   assignment state updates; Agent Graph a fact store; agh the loop namespace and
//!   generations; AGS's expression errors stop the run unless `policy.on_expression_error` is
//!   `false`; every dialect but AGS decides by its edges and takes an expression error's
//!   reading.
//! - A node that may retry gets the backoff of its dialect's attributes: AGS
//!   `attributes.failure.retry`, AWP `attributes.retry` ([`Backoff::ags`], [`Backoff::awp`]);
//!   the others retried at once. (A plan that already says its backoff keeps it.)
//! - A map's `min_successes` moves from its owner's `attributes.map`. (The subgraph source
//!   strings and the map policy strings are read by their types.)
//!
//! Before `agc.plan/v4`:
//!
//! - A node's `attributes.failure` becomes its `failure` ([`Failure::from_block`], the same
//!   reading lowering makes), with `exprs` `fallback.<i>.when` and `escalation.message`
//!   moved into it; an escalation `message` without its expression (a hand-written plan) is
//!   the literal text, as the runtime showed it. What the ladder does not hold stays in
//!   `attributes.failure` ([`Failure::residue`]).
//! - A node's `attributes.human` becomes its `human` ([`HumanCheckpoint::list_from`]), with
//!   `exprs` `human.<i>.when` and `human.<i>.prompt` moved into it; a prompt without its
//!   expression is the literal text, as the runtime showed it, and a `when` without one is
//!   kept uncompiled (the runtime asks such a checkpoint, RT062).
//! - A node's `attributes.success` becomes its `success` ([`Success::from_block`]), with
//!   `exprs` `criteria.<id>` and `criteria.<id>.target` moved into it, and what it does not
//!   hold staying in `attributes.success` ([`Success::residue`]); `attributes.decision`
//!   becomes its `decision` ([`Decision::from_block`]), with `exprs` `branches.<label>`.
//!
//! Before `agc.plan/v5`:
//!
//! - A node's `attributes.gate` becomes its `gate` ([`Gate::from_block`]), its
//!   `attributes.wait` its `wait` ([`Wait::from_block`]) and its `attributes.resume_schema`
//!   its `resume_schema`; a state update's `attributes.transform: inputs` becomes its
//!   `produces: inputs`, and its `attributes.input_ref` its `produces: {param}`; a
//!   synthetic join's `attributes.fork` becomes its `fork`; a region owner's
//!   `attributes.<loop|map|subgraph>` `body_params`, `on_max_iterations` and
//!   `on_over_limit` become its `body` ([`Body::from_block`]), the rest staying there.
//! - `attrs.policy`'s `default_human_timeout_seconds` and `on_human_timeout` become the
//!   plan's `human_timeouts` ([`HumanTimeouts::from_policy`]).
//!
//! Within `agc.plan/v5` (the format was not released between them), for a plan of any
//! format:
//!
//! - `attrs.policy.on_node_failure` becomes the plan's `on_node_failure`
//!   (a policy left empty leaves).
//! - `attrs.attachments` becomes the plan's `attachments` ([`Attachment::list_from`]).
//! - `attrs.state_schema` becomes the plan's `state_schema` (when it is an object: the runtime
//!   used no other).
//! - A node whose `attributes.requirements` rule out side effects gets `side_effects: false`
//!   ([`may_have_side_effects`]; the requirements stay).
//! - Under agh's loop rules, a loop's `attributes.generations` becomes its `generations`
//!   ([`Generations::from_block`]) and a gate's `attributes.routes` its `routes`
//!   ([`Routes::from_block`]), with the revision limit its `attributes.max_revisions` and
//!   the Loop's `watch` give ([`Routes::revision_limit`]); a fan-out's
//!   `attributes.batch_size` above 1 becomes its `body.batch_size` (the attribute stays).

use super::policy::may_have_side_effects;
use super::{Attachment, Body, Gate, Generations, HumanTimeouts, NodeKind, Produces, Routes, Wait};
use super::{
    Backoff, Decision, Decisions, Expr, ExprLang, ExpressionErrors, FORMAT, FORMATS_READ, Failure,
    HumanCheckpoint, JqOutputs, LoopRules, Namespace, Node, Plan, PlanError, Reducer, RegionKind,
    Semantics, StateModel, StateUpdates, Success,
};
use serde::Deserialize;
use serde_json::Value;

impl Plan {
    /// Reads a plan from JSON text, checking the format tag; a plan of an older format is
    /// read into the current one (`upgrade`).
    pub fn from_json(text: &str) -> Result<Plan, PlanError> {
        // The tag decides first: a plan of another format is refused by name rather than by
        // the first field this runtime does not understand. It is read on its own only when
        // the plan does not read (a separate pass over the text before every read cost a
        // quarter of loading a large plan).
        match serde_json::from_str::<Plan>(text) {
            Ok(plan) => {
                check_format(&plan.format)?;
                Ok(plan.current())
            }
            Err(e) => {
                #[derive(Deserialize)]
                struct Tag {
                    format: Option<String>,
                }
                if let Ok(Tag { format: Some(f) }) = serde_json::from_str::<Tag>(text) {
                    check_format(&f)?;
                }
                Err(PlanError(e.to_string()))
            }
        }
    }

    /// [`Plan::from_json`] for a plan already parsed into a JSON value.
    pub fn from_value(value: Value) -> Result<Plan, PlanError> {
        if let Some(f) = value.get("format").and_then(Value::as_str) {
            check_format(f)?;
        }
        let plan: Plan = serde_json::from_value(value).map_err(|e| PlanError(e.to_string()))?;
        Ok(plan.current())
    }

    /// The plan in the current format: an older one upgraded, and one written before the
    /// last typed fields of its format moved into them (`early_v5`).
    fn current(mut self) -> Plan {
        if self.format != FORMAT {
            upgrade(&mut self);
        }
        early_v5(&mut self);
        self
    }
}

/// Refuses a format tag this runtime does not read, naming it.
fn check_format(f: &str) -> Result<(), PlanError> {
    if FORMATS_READ.contains(&f) {
        return Ok(());
    }
    let (last, rest) = FORMATS_READ.split_last().expect("formats");
    let rest = rest.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>();
    Err(PlanError(format!(
        "unsupported plan format `{f}` (this runtime reads {} and `{last}`)",
        rest.join(", ")
    )))
}

/// Reads a plan of an older format into the current form, one format at a time.
fn upgrade(plan: &mut Plan) {
    if matches!(plan.format.as_str(), "agc.plan/v1" | "agc.plan/v2") {
        upgrade_to_v3(plan);
    }
    if plan.format != "agc.plan/v4" {
        for n in &mut plan.nodes {
            typed_failure(n);
            typed_human(n);
            typed_success(n);
        }
    }
    for n in &mut plan.nodes {
        typed_v4_attributes(n);
    }
    human_timeouts(plan);
    plan.format = FORMAT.to_string();
}

/// A v4 node's `attributes.gate`, `attributes.wait`, `attributes.resume_schema`, and a
/// state update's `attributes.transform: inputs` and `attributes.input_ref`, as its typed
/// `gate`, `wait`, `resume_schema` and `produces`.
fn typed_v4_attributes(n: &mut Node) {
    let attrs = &mut n.attributes;
    if let Some(block) = attrs.shift_remove("gate") {
        n.gate = Gate::from_block(&block).map(Box::new);
    }
    if let Some(block) = attrs.shift_remove("wait") {
        n.wait = Wait::from_block(&block).map(Box::new);
    }
    if let Some(schema) = attrs.shift_remove("resume_schema") {
        n.resume_schema = Some(Box::new(schema));
    }
    for block in ["loop", "map", "subgraph"] {
        let Some(Value::Object(b)) = attrs.get(block) else {
            continue;
        };
        if let Some(body) = Body::from_block(&Value::Object(b.clone())) {
            n.body = Some(Box::new(body));
        }
        match Body::residue(b) {
            Some(rest) => attrs[block] = Value::Object(rest),
            None => {
                attrs.shift_remove(block);
            }
        }
    }
    if n.kind == NodeKind::Join
        && let Some(fork) = attrs.shift_remove("fork")
    {
        n.fork = Some(match fork {
            Value::String(s) => s,
            other => other.to_string(),
        });
    }
    if n.kind != NodeKind::StateUpdate {
        return;
    }
    if attrs.get("transform").and_then(Value::as_str) == Some("inputs") {
        attrs.shift_remove("transform");
        n.produces = Some(Produces::Inputs);
    } else if let Some(Value::String(name)) = attrs.get("input_ref") {
        n.produces = Some(Produces::Param(name.clone()));
        attrs.shift_remove("input_ref");
    }
}

/// What a plan written before the last typed fields of `agc.plan/v5` (or of an older
/// format) kept in attributes, moved into those fields; a plan that has them already is left
/// as it is. Only a plan that follows agh's loop rules has generations and routing tables.
fn early_v5(plan: &mut Plan) {
    // Only a schema object was ever used.
    if let Some(schema) = plan.attrs.shift_remove("state_schema")
        && schema.is_object()
    {
        plan.state_schema = Some(schema);
    }
    if let Some(list) = plan.attrs.shift_remove("attachments") {
        plan.attachments = Attachment::list_from(&list);
    }
    if let Some(Value::Object(policy)) = plan.attrs.get_mut("policy")
        && let Some(v) = policy.shift_remove("on_node_failure")
    {
        // One this runtime does not know reads as the default, as the runtime read it.
        plan.on_node_failure = serde_json::from_value(v).unwrap_or_default();
        if policy.is_empty() {
            plan.attrs.shift_remove("policy");
        }
    }
    let agh = plan.semantics.loop_rules == LoopRules::Generations;
    let mut routed = Vec::new();
    for (i, n) in plan.nodes.iter_mut().enumerate() {
        if n.attributes.is_empty() {
            continue;
        }
        // Decided from the requirements the attributes keep (a plan that decided it already
        // decided it the same way).
        if n.side_effects && n.attributes.contains_key("requirements") {
            n.side_effects = may_have_side_effects(n.attributes.get("requirements"));
        }
        if agh
            && n.kind == NodeKind::Loop
            && let Some(block) = n.attributes.shift_remove("generations")
        {
            n.generations = Some(Generations::from_block(&block));
        }
        if agh
            && n.kind == NodeKind::Gate
            && let Some(block) = n.attributes.shift_remove("routes")
        {
            n.routes = Some(Box::new(Routes::from_block(&block)));
            routed.push(i);
        }
        // The chunks of an agh fan-out's branches (the attribute as written stays).
        if agh
            && n.kind == NodeKind::Map
            && n.body.as_ref().is_none_or(|b| b.batch_size.is_none())
            && let Some(size) = n.attributes.get("batch_size").and_then(Value::as_u64)
            && size > 1
        {
            n.body.get_or_insert_default().batch_size = Some(size);
        }
    }
    // A moved table's revision limit, from the gate's `max_revisions` as written and whether
    // the Loop watches (the runtime decided it so while running).
    let watch = plan
        .nodes
        .iter()
        .any(|n| n.generations.is_some_and(|g| g.watch));
    for i in routed {
        let n = &mut plan.nodes[i];
        let own = n.attributes.get("max_revisions").and_then(Value::as_u64);
        if let Some(routes) = &mut n.routes {
            routes.max_revisions = Routes::revision_limit(own.unwrap_or(0), watch);
        }
    }
}

/// A v3 node's `attributes.failure` and its expressions as its typed `failure` (a ladder
/// the node has already, in a plan that holds both forms, stays when they say nothing more).
fn typed_failure(n: &mut Node) {
    let Some(block) = n.attributes.get("failure") else {
        return;
    };
    let exprs = &mut n.exprs;
    let location = &n.location;
    n.failure = Failure::from_block(block, |key| {
        let e = exprs.shift_remove(key);
        if e.is_some() || key != "escalation.message" {
            return e;
        }
        let text = block.get("escalation")?.get("message")?.as_str()?;
        Some(literal(text, location))
    })
    .map(Box::new)
    .or(n.failure.take());
    match Failure::<Expr>::residue(block) {
        Some(rest) => n.attributes["failure"] = rest,
        None => {
            n.attributes.shift_remove("failure");
        }
    }
}

/// A v3 node's `attributes.human` and its expressions as its typed `human`.
fn typed_human(n: &mut Node) {
    let Some(list) = n.attributes.shift_remove("human") else {
        return;
    };
    let exprs = &mut n.exprs;
    let location = &n.location;
    n.human = HumanCheckpoint::list_from(&list, |key| {
        let e = exprs.shift_remove(key);
        if e.is_some() {
            return e;
        }
        // `human.<i>.<field>` written without its compiled form.
        let mut parts = key.splitn(3, '.').skip(1);
        let i: usize = parts.next()?.parse().ok()?;
        let field = parts.next()?;
        let text = list.get(i)?.get(field)?.as_str()?;
        Some(match field {
            "prompt" => literal(text, location),
            _ => Expr {
                lang: ExprLang::Agx,
                source: text.to_string(),
                core: None,
                location: location.clone(),
            },
        })
    });
}

/// A v3 node's `attributes.success` and `attributes.decision` and their expressions as its
/// typed `success` and `decision`.
fn typed_success(n: &mut Node) {
    let exprs = &mut n.exprs;
    if let Some(block) = n.attributes.get("success") {
        n.success = Success::from_block(block, |key| exprs.shift_remove(key))
            .map(Box::new)
            .or(n.success.take());
        match Success::<Expr>::residue(block) {
            Some(rest) => n.attributes["success"] = rest,
            None => {
                n.attributes.shift_remove("success");
            }
        }
    }
    if let Some(block) = n.attributes.shift_remove("decision") {
        n.decision = Decision::from_block(&block, |key| exprs.shift_remove(key)).map(Box::new);
    }
}

/// A v4 plan's `attrs.policy` human-timeout defaults as its typed `human_timeouts` (the
/// policy's other keys stay; a policy left empty leaves).
fn human_timeouts(plan: &mut Plan) {
    let Some(Value::Object(policy)) = plan.attrs.get_mut("policy") else {
        return;
    };
    plan.human_timeouts = HumanTimeouts::from_policy(&Value::Object(policy.clone()));
    for key in HumanTimeouts::HELD {
        policy.shift_remove(key);
    }
    if policy.is_empty() {
        plan.attrs.shift_remove("policy");
    }
}

/// A template that renders `text` as it stands.
fn literal(text: &str, location: &super::Location) -> Expr {
    use crate::expr::{Expr as Core, ExprKind, Literal};
    Expr {
        lang: ExprLang::AgxTemplate,
        source: text.to_string(),
        core: Some(Core {
            id: 0,
            kind: ExprKind::Literal {
                value: Literal::String(text.to_string()),
            },
        }),
        location: location.clone(),
    }
}

/// Reads an `agc.plan/v1` or `agc.plan/v2` plan into the `agc.plan/v3` form.
fn upgrade_to_v3(plan: &mut Plan) {
    let dialect = plan.source.dialect.clone();
    plan.semantics = semantics_of(&dialect, plan);
    for n in &mut plan.nodes {
        if n.retry.max_attempts > 1 && n.retry.backoff.is_none() {
            n.retry.backoff = match dialect.as_str() {
                "ags" => Some(Backoff::ags(
                    n.attributes.get("failure").and_then(|f| f.get("retry")),
                )),
                "awp" => Some(Backoff::awp(n.attributes.get("retry"))),
                _ => None,
            };
        }
    }
    let mut owners = std::collections::HashMap::new();
    for (i, n) in plan.nodes.iter().enumerate() {
        owners.insert(n.id.clone(), i);
    }
    for r in &mut plan.regions {
        let RegionKind::Map { min_successes, .. } = &mut r.kind else {
            continue;
        };
        let Some(&owner) = owners.get(&r.owner) else {
            continue;
        };
        let attrs = &mut plan.nodes[owner].attributes;
        let Some(Value::Object(map)) = attrs.get_mut("map") else {
            continue;
        };
        if let Some(v) = map.shift_remove("min_successes") {
            *min_successes = v.as_u64().map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        }
        if map.is_empty() {
            attrs.shift_remove("map");
        }
    }
}

/// The semantics the runtime gave a plan of `dialect` before they were written down.
fn semantics_of(dialect: &str, plan: &mut Plan) -> Semantics {
    let plain = Semantics {
        expression_errors: ExpressionErrors::Reading,
        decisions: Decisions::Edges,
        ..Semantics::default()
    };
    match dialect {
        "ags" => {
            let policy = plan
                .attrs
                .get("policy")
                .and_then(|p| p.get("on_expression_error"))
                .and_then(Value::as_str);
            Semantics {
                expression_errors: match policy {
                    Some("false") => ExpressionErrors::Reading,
                    _ => ExpressionErrors::Stop,
                },
                decisions: Decisions::Handler,
                ..Semantics::default()
            }
        }
        "awp" => {
            let reducers = match plan.attrs.shift_remove("reducers") {
                Some(Value::Object(m)) => m
                    .into_iter()
                    .map(|(k, v)| (k, Reducer::named(v.as_str().unwrap_or(""))))
                    .collect(),
                _ => Default::default(),
            };
            Semantics {
                state: StateModel::Workflow { reducers },
                jq_outputs: JqOutputs::Collected,
                null_is_value: true,
                decisions: Decisions::Switch,
                state_updates: StateUpdates::Assignments,
                ..plain
            }
        }
        "agent-graph" => Semantics {
            state: StateModel::Facts,
            ..plain
        },
        "agh" => Semantics {
            namespace: Namespace::Loop,
            loop_rules: LoopRules::Generations,
            ..plain
        },
        _ => plain,
    }
}
