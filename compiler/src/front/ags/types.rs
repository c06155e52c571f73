//! Static types of what AGS expressions read, from declarations: `value_type` (and `schema`) on
//! params, inputs and outputs. One environment per scope (the `nodes` root alone can hold every
//! node of a 100k-node scope, so it is built once, not per expression); `self` is replaced per
//! position.
//!
//! Runtime representations (SPEC §9.1): `file`, `directory`, `reference` are strings;
//! `file_set` is a list of strings; `artifact` is an object with at least `id`. `number` is
//! AGX's number (int or float): typed `Double`, which the checker treats as a number.

use super::names::outputs_of;
use super::scope::Scope;
use crate::expr::check::TypeEnv;
use crate::expr::types::Type;
use crate::hash::HashSet;
use crate::source::Field;
use crate::source::{Map, Value};

/// The type of a param, input or output spec (`type` plus optional `schema`).
pub fn of_spec(spec: &Value) -> Type {
    if let Some(schema) = spec.field("schema")
        && schema.is_object()
    {
        let t = Type::from_json_schema(schema);
        if !t.is_dyn() {
            return t;
        }
    }
    match spec.field("type").and_then(Value::as_str).unwrap_or("any") {
        "string" | "text" | "markdown" | "file" | "directory" | "reference" => Type::String,
        "number" => Type::Double,
        "integer" => Type::Int,
        "boolean" => Type::Bool,
        "array" => Type::list(Type::Dyn),
        "file_set" => Type::list(Type::String),
        "object" => Type::open(Vec::<(String, Type)>::new()),
        // `json` is any JSON value (SPEC §9.1), an array included.
        "artifact" => Type::open([("id", Type::String)]),
        _ => Type::Dyn,
    }
}

fn object_of(specs: Option<&Value>) -> Type {
    Type::closed(
        specs
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), of_spec(v))),
    )
}

/// The type of `nodes.<id>` for one node.
fn node_type(root: &Map, node: &Map) -> Type {
    let outputs = match outputs_of(root, node) {
        None => Type::open(Vec::<(String, Type)>::new()),
        Some(names) => {
            let declared = node.field("outputs").and_then(Value::as_object);
            let mut fields: Vec<(String, Type)> = names
                .into_iter()
                .map(|n| {
                    let ty = match declared.and_then(|d| d.get(&n)) {
                        Some(spec) => of_spec(spec),
                        None if n == "decision" => Type::String,
                        None => Type::Dyn,
                    };
                    (n, ty)
                })
                .collect();
            fields.sort_by(|a, b| a.0.cmp(&b.0));
            Type::closed(fields)
        }
    };
    Type::closed([
        ("outputs", outputs),
        ("status", Type::String),
        ("attempts", Type::Int),
        ("duration_seconds", Type::Double),
        ("decision", Type::String),
    ])
}

/// The environment of one scope (without `self`). `nodes` holds the scope's nodes named in
/// `only` (all of them when `None`): reading another is an unknown field, which the checks
/// leave to name resolution (AG203/AG206), so the subset types every expression alike.
pub fn scope_env(
    root: &Map,
    scope: &Scope<'_>,
    bare: &[String],
    previous: Option<&[String]>,
    only: Option<&HashSet<&str>>,
) -> TypeEnv {
    let params = scope.obj.field("params").or_else(|| root.field("params"));
    let mut env = TypeEnv::new()
        .with("params", object_of(params))
        .with(
            "context",
            Type::closed(
                root.field("context")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            if v.is_string() {
                                Type::String
                            } else {
                                Type::Dyn
                            },
                        )
                    }),
            ),
        )
        .with(
            "attachments",
            Type::closed(
                root.field("attachments")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|a| a.field("name").and_then(Value::as_str))
                    .map(|n| (n.to_string(), Type::Dyn)),
            ),
        )
        .with(
            "graph",
            Type::closed(
                ["id", "title", "objective", "version", "description"].map(|f| (f, Type::String)),
            ),
        )
        .with(
            "nodes",
            Type::closed(match only {
                None => scope
                    .nodes()
                    .map(|(id, n)| (id.as_str().to_owned(), node_type(root, n)))
                    .collect(),
                Some(ids) => {
                    // Looked up by name, not found by a walk over the scope: a large scope's
                    // positions are typed in parts, each naming few of its nodes.
                    let nodes = scope.obj.field("nodes").and_then(Value::as_object);
                    let mut named: Vec<(usize, &str, &Map)> = ids
                        .iter()
                        .filter_map(|&id| {
                            let (i, n) = nodes?.get_full(id)?;
                            Some((i, id, n.as_object()?))
                        })
                        .collect();
                    // In the scope's order, as a walk gives them.
                    named.sort_unstable_by_key(|&(i, _, _)| i);
                    named
                        .into_iter()
                        .map(|(_, id, n)| (id.to_owned(), node_type(root, n)))
                        .collect::<Vec<(String, Type)>>()
                }
            }),
        )
        .with("outputs", Type::open(Vec::<(String, Type)>::new()))
        .with("env", Type::open(Vec::<(String, Type)>::new()));
    if let Some(previous) = previous {
        // `loop.previous` holds the loop's collected outputs (absent on the first iteration).
        env.insert(
            "loop",
            Type::closed([
                ("index", Type::Int),
                ("iteration", Type::Int),
                (
                    "previous",
                    Type::closed(previous.iter().map(|k| (k.clone(), Type::Dyn))),
                ),
            ]),
        );
    }
    for (i, name) in bare.iter().enumerate() {
        if super::structure::RESERVED_ROOTS.contains(&name.as_str()) && name != "item" {
            continue; // AGC111: a map may not hide a namespace root
        }
        // `as` then `index_as` per enclosing map: items are unknown, indexes integers.
        env.insert(name.clone(), if i % 2 == 1 { Type::Int } else { Type::Dyn });
    }
    env
}

/// The type of `self` for a node.
pub fn self_type(node: &Map) -> Type {
    Type::closed([
        ("id", Type::String),
        ("attempt", Type::Int),
        ("inputs", object_of(node.field("inputs"))),
        ("outputs", object_of(node.field("outputs"))),
    ])
}
