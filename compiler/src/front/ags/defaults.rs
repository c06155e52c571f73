//! `defaults` merging (SPEC §6.3): per block, key by key, node over default; arrays replaced,
//! `human` replaced whole; a scope's own `defaults` only (parents' do not flow into fragments).
//!
//! Decision: a default `intelligence` is never applied to `gate` nodes, since AG102 forbids
//! intelligence on gates and the canonical example has both (SPEC is silent; see
//! `agc explain AG102`).

use super::checker::node_type;
use super::scope::Scope;
use crate::source::Field;
use crate::source::{Map, Value};

/// A node's effective value of `block` after merging its scope's defaults, built for the IR
/// (a JSON copy; read one key with [`field`], which copies nothing).
pub fn merged(scope: &Scope<'_>, node: &Map, block: &str) -> Option<serde_json::Value> {
    let own = node.field(block);
    if block == "intelligence" && node_type(node) == "gate" {
        return own.map(Value::to_json);
    }
    let default = scope.obj.field("defaults").and_then(|d| d.field(block));
    match (default, own) {
        (None, own) => own.map(Value::to_json),
        (Some(d), None) => Some(d.to_json()),
        (Some(Value::Object(d)), Some(Value::Object(o))) if block != "human" => {
            // The defaults' keys in their order, the node's value over each; then the
            // node's other keys in its order.
            let mut m = serde_json::Map::with_capacity(d.len() + o.len());
            for (k, v) in d {
                m.insert(k.to_string(), o.get(k).unwrap_or(v).to_json());
            }
            for (k, v) in o {
                if !d.contains_key(k) {
                    m.insert(k.to_string(), v.to_json());
                }
            }
            Some(serde_json::Value::Object(m))
        }
        (Some(_), Some(o)) => Some(o.to_json()),
    }
}

/// One key of a node's effective `block` (what `merged(..).get(key)` gives), borrowed: no
/// merged copy is built.
pub fn field<'v>(scope: &'v Scope<'_>, node: &'v Map, block: &str, key: &str) -> Option<&'v Value> {
    let own = node.field(block);
    if block == "intelligence" && node_type(node) == "gate" {
        return own?.field(key);
    }
    let default = scope.obj.field("defaults").and_then(|d| d.field(block));
    match (default, own) {
        (None, own) => own?.field(key),
        (Some(d), None) => d.field(key),
        (Some(Value::Object(d)), Some(Value::Object(o))) if block != "human" => {
            o.field(key).or_else(|| d.field(key))
        }
        (Some(_), Some(o)) => o.field(key),
    }
}

/// A node's effective value of a scalar `block` (such as `join`), borrowed.
pub fn scalar<'v>(scope: &'v Scope<'_>, node: &'v Map, block: &str) -> Option<&'v Value> {
    node.field(block)
        .or_else(|| scope.obj.field("defaults").and_then(|d| d.field(block)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::ags::scope::ScopeKind;
    use serde_json::json;

    /// `field` answers what the merged block would, for every way the two sides combine.
    #[test]
    fn field_agrees_with_merged() {
        let graph = json!({
            "defaults": {
                "constraints": {"seed": 1, "determinism": "strict"},
                "human": {"role": "reviewer", "required": true},
                "intelligence": {"tier": "standard"},
                "join": "any"
            },
            "nodes": {
                "own": {"constraints": {"seed": 2}, "human": {"role": "owner"}},
                "bare": {},
                "gate": {"type": "gate"},
                "scalar": {"constraints": 3}
            }
        });
        let graph = Value::from(graph);
        let obj = graph.as_object().unwrap();
        let scope = Scope::new(ScopeKind::Root, String::new(), obj);
        for (_, node) in scope.nodes() {
            for block in ["constraints", "human", "intelligence", "failure"] {
                let m = merged(&scope, node, block);
                for key in ["seed", "determinism", "role", "required", "tier"] {
                    assert_eq!(
                        field(&scope, node, block, key).map(Value::to_json),
                        m.as_ref().and_then(|m| m.get(key)).cloned(),
                        "{block}.{key}"
                    );
                }
            }
            assert_eq!(
                scalar(&scope, node, "join").map(Value::to_json),
                merged(&scope, node, "join")
            );
        }
    }
}
