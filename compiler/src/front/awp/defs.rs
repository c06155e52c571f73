//! Self-contained schemas for the plan: a part of a document's schema (a `state_schema` or
//! `input_schema` property, a resume or output schema's property) carried with everything its
//! `$ref`s reach.
//!
//! Why: the engine compiles `state_schema`, a `resume_schema` or an `output_schema` as one
//! schema each, so a property's `{"$ref": "#/$defs/ticket"}` means the definition at the root
//! of *that* schema. The plan keeps a param's or an output's declaration on its own and the
//! runtime compiles it alone, where `#/$defs/ticket` would name nothing. [`carried`] copies
//! the property and puts beside it what its references reach, transitively:
//!
//! - a reference into `#/$defs/<name>…` or `#/definitions/<name>…` keeps its text; the whole
//!   definition `<name>` is carried under the same key (so chains and recursive definitions
//!   resolve as they did);
//! - a reference to any other place of the schema (`#/properties/a`, `#`) is rewritten to
//!   `#/$defs/agc-ref-<n>` and the target carried there (`n` counts them in the order they
//!   are found, so the output is deterministic);
//! - a reference that names nothing in the schema, or that is not local (`https://…`), is
//!   left as written (the runtime reports it when it compiles the schema).
//!
//! The root's `$schema`, when it has one, is carried too (the draft decides what the
//! keywords mean). Every walk is iterative: a schema nests as deep as its author wrote it.

use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// Containers of definitions whose references are carried verbatim.
const CONTAINERS: [&str; 2] = ["$defs", "definitions"];

/// The subschema of `root` at JSON pointer `at`, with the definitions its references reach
/// (see the module docs); `at` empty gives `root` itself. `None` when `at` names nothing.
pub fn carried(root: &Value, at: &str) -> Option<Value> {
    let sub = root.pointer(at)?;
    if at.is_empty() {
        return Some(sub.clone());
    }
    let mut found = Found::default();
    let mut todo = vec![sub];
    while let Some(v) = todo.pop() {
        for r in refs(v) {
            if let Some(target) = found.note(root, r) {
                todo.push(target);
            }
        }
    }
    let mut out = sub.clone();
    rewrite(&mut out, &found.renamed);
    if found.is_empty() {
        return Some(with_schema(out, root));
    }
    let Value::Object(mut obj) = out else {
        // A boolean subschema has no references.
        return Some(out);
    };
    for container in CONTAINERS {
        let mut carried = Map::new();
        // In the root's order, whatever order they were found in.
        for (name, def) in root
            .get(container)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if found.defs.contains(&(container, name.clone())) {
                let mut def = def.clone();
                rewrite(&mut def, &found.renamed);
                carried.insert(name.clone(), def);
            }
        }
        if container == "$defs" {
            for (i, ptr) in found.others.iter().enumerate() {
                if let Some(t) = root.pointer(ptr) {
                    let mut t = t.clone();
                    rewrite(&mut t, &found.renamed);
                    carried.insert(format!("agc-ref-{i}"), t);
                }
            }
        }
        if carried.is_empty() {
            continue;
        }
        match obj.get_mut(container) {
            // The property's own definitions stay unless the root's have the same name (its
            // references name the root's).
            Some(Value::Object(own)) => own.extend(carried),
            _ => {
                obj.insert(container.to_string(), Value::Object(carried));
            }
        }
    }
    Some(with_schema(Value::Object(obj), root))
}

/// `v` with the root's `$schema` (when the root has one and `v`, an object, has none).
fn with_schema(mut v: Value, root: &Value) -> Value {
    if let (Some(s), Value::Object(o)) = (root.get("$schema"), &mut v) {
        o.entry("$schema").or_insert_with(|| s.clone());
    }
    v
}

/// What the references of a subschema reach.
#[derive(Default)]
struct Found {
    /// Definitions carried verbatim, by (container, name).
    defs: HashSet<(&'static str, String)>,
    /// Other targets, by pointer, in the order found (`agc-ref-<index>`).
    others: Vec<String>,
    /// A reference's text → its rewritten text (for the other targets).
    renamed: HashMap<String, String>,
}

impl Found {
    fn is_empty(&self) -> bool {
        self.defs.is_empty() && self.others.is_empty()
    }

    /// Notes reference `r`; returns its target when it is new (to be scanned in turn).
    fn note<'r>(&mut self, root: &'r Value, r: &str) -> Option<&'r Value> {
        let ptr = r.strip_prefix('#')?;
        if ptr.is_empty() || ptr.starts_with('/') {
            let mut segs = ptr.split('/').skip(1);
            if let (Some(first), Some(name)) = (segs.next(), segs.next())
                && let Some(container) = CONTAINERS.iter().find(|c| **c == first)
            {
                let name = name.replace("~1", "/").replace("~0", "~");
                let def = root.get(*container)?.get(&name)?;
                return self.defs.insert((container, name)).then_some(def);
            }
            let target = root.pointer(ptr)?;
            if self.renamed.contains_key(r) {
                return None;
            }
            let i = match self.others.iter().position(|p| p == ptr) {
                Some(i) => i,
                None => {
                    self.others.push(ptr.to_string());
                    self.others.len() - 1
                }
            };
            self.renamed
                .insert(r.to_string(), format!("#/$defs/agc-ref-{i}"));
            return Some(target);
        }
        None
    }
}

/// Every `$ref` string in `v` (iteratively).
fn refs(v: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if let Some(Value::String(r)) = o.get("$ref") {
                    out.push(r.as_str());
                }
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    out
}

/// Rewrites every `$ref` of `v` found in `renamed` (iteratively).
fn rewrite(v: &mut Value, renamed: &HashMap<String, String>) {
    if renamed.is_empty() {
        return;
    }
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if let Some(Value::String(r)) = o.get_mut("$ref")
                    && let Some(to) = renamed.get(r.as_str())
                {
                    *r = to.clone();
                }
                stack.extend(o.values_mut());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::carried;
    use serde_json::{Value, json};

    fn valid(schema: &Value, v: &Value) -> bool {
        jsonschema::validator_for(schema).unwrap().is_valid(v)
    }

    #[test]
    fn a_property_without_references_is_copied_as_it_is() {
        let root = json!({"properties": {"a": {"type": "string"}}});
        assert_eq!(
            carried(&root, "/properties/a"),
            Some(json!({"type": "string"}))
        );
        assert_eq!(carried(&root, "/properties/b"), None);
        assert_eq!(carried(&root, ""), Some(root.clone()));
    }

    /// A chain: the property names `ticket`, which names `customer`; `unused` stays behind.
    #[test]
    fn a_chain_of_definitions_is_carried() {
        let root = json!({
            "properties": {"t": {"$ref": "#/$defs/ticket"}},
            "$defs": {
                "unused": {"type": "null"},
                "customer": {"type": "object", "required": ["id"]},
                "ticket": {"type": "object", "properties": {"who": {"$ref": "#/$defs/customer"}}}
            }
        });
        let s = carried(&root, "/properties/t").unwrap();
        assert_eq!(
            s,
            json!({"$ref": "#/$defs/ticket", "$defs": {
                "customer": {"type": "object", "required": ["id"]},
                "ticket": {"type": "object", "properties": {"who": {"$ref": "#/$defs/customer"}}}
            }})
        );
        assert!(valid(&s, &json!({"who": {"id": 1}})));
        assert!(!valid(&s, &json!({"who": {}})));
    }

    /// A recursive definition (a tree) and draft-07 `definitions` with the root's `$schema`.
    #[test]
    fn recursive_definitions_and_draft_7_definitions() {
        let root = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"tree": {"$ref": "#/definitions/node"}},
            "definitions": {"node": {"type": "object", "required": ["v"], "properties": {
                "v": {"type": "integer"},
                "kids": {"type": "array", "items": {"$ref": "#/definitions/node"}}}}}
        });
        let s = carried(&root, "/properties/tree").unwrap();
        assert_eq!(s["$schema"], root["$schema"]);
        assert!(s["definitions"]["node"].is_object());
        assert!(valid(
            &s,
            &json!({"v": 1, "kids": [{"v": 2, "kids": [{"v": 3}]}]})
        ));
        assert!(!valid(
            &s,
            &json!({"v": 1, "kids": [{"v": 2, "kids": [{}]}]})
        ));
    }

    /// References to other places (a sibling property, the root) are rewritten to carried
    /// copies; one that names nothing is left as written.
    #[test]
    fn other_targets_are_carried_under_agc_names() {
        let root = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "minimum": 3},
                "b": {"type": "array", "items": {"$ref": "#/properties/a"}},
                "c": {"properties": {"self": {"$ref": "#"}}}
            }
        });
        let b = carried(&root, "/properties/b").unwrap();
        assert_eq!(b["items"]["$ref"], "#/$defs/agc-ref-0");
        assert!(valid(&b, &json!([3, 4])));
        assert!(!valid(&b, &json!([1])));
        let c = carried(&root, "/properties/c").unwrap();
        assert_eq!(c["properties"]["self"]["$ref"], "#/$defs/agc-ref-0");
        assert!(valid(&c, &json!({"self": {"a": 5}})));
        assert!(!valid(&c, &json!({"self": {"a": 1}})));
        let root = json!({"properties": {"d": {"$ref": "#/nowhere"}}});
        assert_eq!(
            carried(&root, "/properties/d").unwrap(),
            json!({"$ref": "#/nowhere"})
        );
    }
}
