//! `defaults` merging (SPEC §6.3): per block, key by key, node over default; arrays replaced,
//! `human` replaced whole; a scope's own `defaults` only (parents' do not flow into fragments).
//!
//! Decision: a default `intelligence` is never applied to `gate` nodes, since AG102 forbids
//! intelligence on gates and the canonical example has both (SPEC is silent; see
//! `agc explain AG102`).

use super::node_type;
use super::scope::Scope;
use serde_json::{Map, Value};

/// A node's effective value of `block` after merging its scope's defaults.
pub fn merged(scope: &Scope<'_>, node: &Map<String, Value>, block: &str) -> Option<Value> {
    let own = node.get(block);
    if block == "intelligence" && node_type(node) == "gate" {
        return own.cloned();
    }
    let default = scope.obj.get("defaults").and_then(|d| d.get(block));
    match (default, own) {
        (None, own) => own.cloned(),
        (Some(d), None) => Some(d.clone()),
        (Some(Value::Object(d)), Some(Value::Object(o))) if block != "human" => {
            let mut m = d.clone();
            for (k, v) in o {
                m.insert(k.clone(), v.clone());
            }
            Some(Value::Object(m))
        }
        (Some(_), Some(o)) => Some(o.clone()),
    }
}
