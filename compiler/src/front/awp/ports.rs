//! The declarations the plan takes from an AWP document's schemas: the graph's params (the
//! run's input) and the outputs of an interrupt or an `llm_call`, each with a self-contained
//! schema ([`super::defs`]).
//!
//! **Params.** The engine starts a run with an input object that becomes the initial state
//! (`state = {...input}`, validated against `state_schema`); jq reads its keys as `.key`, as
//! any state key. What the input may hold is declared in two places, and the params are
//! their union, in this order:
//!
//! 1. every top-level `state_schema` property (its `reducer` key stripped; `required` as the
//!    state schema's `required` says);
//! 2. every property of the `start` node's `config.input_schema` the state schema does not
//!    declare (`required` as the input schema says).
//!
//! A name both declare is one param: required when either requires it, its schema both
//! schemas (`allOf`), its type the state's unless that is `any`. agc differs from the engine
//! here on purpose: the engine never reads `input_schema` (research notes, AWP §2.3), agc
//! checks the input against it (types, `required`) so a run started with the wrong input fails
//! before its first node; and an input key that neither schema declares is refused
//! (`AG302`), where the engine would accept it into an open state. `agc explain AGC301` says
//! so.

use super::defs::carried;
use crate::ir::{Declared, Output, Param};
use crate::source::{Document, Value};
use std::collections::HashSet;

/// The graph's params: the state schema's properties, then the input schema's others.
pub fn params(root: &Value) -> Vec<Param> {
    let mut out: Vec<Param> = Vec::new();
    if let Some(state) = root.get("state_schema") {
        // The state schema as the engine compiles it: top-level `reducer` keys stripped.
        let mut json = state.to_json();
        if let Some(props) = json
            .get_mut("properties")
            .and_then(serde_json::Value::as_object_mut)
        {
            for p in props.values_mut() {
                if let Some(o) = p.as_object_mut() {
                    o.remove("reducer");
                }
            }
        }
        out = declared_props(state, &json);
    }
    let Some(input) = input_schema(root) else {
        return out;
    };
    let json = input.to_json();
    for p in declared_props(input, &json) {
        match out.iter_mut().find(|q| q.name == p.name) {
            Some(q) => merge(q, p),
            None => out.push(p),
        }
    }
    out
}

/// The `start` node's `config.input_schema` (the first `start` node's: the graph checks
/// report any other).
pub fn input_schema(root: &Value) -> Option<&Value> {
    root.get("nodes")?
        .as_array()?
        .iter()
        .find(|n| n.get("type").and_then(Value::as_str) == Some("start"))?
        .get("config")?
        .get("input_schema")
        .filter(|s| s.is_object())
}

/// One param per property of object schema `schema` (`json`: its JSON form, the root its
/// properties' references resolve against).
fn declared_props(schema: &Value, json: &serde_json::Value) -> Vec<Param> {
    let required = required(schema);
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, p)| Param {
            name: k.to_string(),
            ty: type_name(p),
            required: required.contains(k.as_str()),
            default: p.get("default").map(Value::to_json),
            decl: declared(p, property(json, k)),
        })
        .collect()
}

/// `q` (from the state schema) also declared by the input schema as `p`.
fn merge(q: &mut Param, p: Param) {
    q.required |= p.required;
    if q.ty.as_str() == "any" {
        q.ty = p.ty;
    }
    if q.default.is_none() {
        q.default = p.default;
    }
    let both = match (q.decl.schema.take(), p.decl.schema) {
        (Some(a), Some(b)) => Some(std::sync::Arc::new(serde_json::json!({"allOf": [
            std::sync::Arc::unwrap_or_clone(a),
            std::sync::Arc::unwrap_or_clone(b),
        ]}))),
        (a, b) => a.or(b),
    };
    q.decl.schema = both;
    if q.decl.enum_values.is_none() {
        q.decl.enum_values = p.decl.enum_values;
    }
    if q.decl.description.is_none() {
        q.decl.description = p.decl.description;
    }
}

/// Property `k` of the object schema `json`, self-contained.
fn property(json: &serde_json::Value, k: &str) -> serde_json::Value {
    let at = Document::child_pointer("/properties", k);
    carried(json, &at).unwrap_or(serde_json::Value::Bool(true))
}

fn required(schema: &Value) -> HashSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// One output per property of an object schema (a resume or output schema), each schema
/// self-contained.
pub fn outputs(schema: &Value) -> Vec<Output> {
    let required = required(schema);
    let json = schema.to_json();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, p)| Output {
            name: k.clone(),
            ty: type_name(p),
            required: required.contains(k.as_str()),
            decl: declared(p, property(&json, k)).into(),
        })
        .collect()
}

/// A declaration: `schema`, and `p`'s `enum` and `description`.
pub fn declared(p: &Value, schema: serde_json::Value) -> Declared {
    Declared {
        schema: Some(schema.into()),
        enum_values: p
            .get("enum")
            .and_then(Value::as_array)
            .map(|e| e.iter().map(Value::to_json).collect()),
        description: p.get("description").and_then(Value::as_str).map(Box::from),
        ..Declared::default()
    }
}

/// A schema's `type` as one name (`null` aside); `any` when absent or several.
pub fn type_name(p: &Value) -> crate::ir::ValueType {
    let ts: Vec<&str> = super::state::types(p)
        .unwrap_or_default()
        .into_iter()
        .filter(|t| *t != "null")
        .collect();
    match ts.as_slice() {
        [one] => (*one).into(),
        _ => "any".into(),
    }
}
