//! What `state_schema` says about a state path read by a jq program.
//!
//! A path is followed step by step through the schema: `properties` (then
//! `additionalProperties`) for fields, `prefixItems` / `items` for indices and iteration. Local
//! `$ref`s (`#/…`, resolved against `state_schema`, as the engine compiles it as a schema of its
//! own) are followed up to [`MAX_REFS`] times per step. The walk stops with:
//! - [`Lookup::Cannot`] when the schema excludes the step: a field of an object with
//!   `additionalProperties: false` that does not declare it, a field of a value whose `type`
//!   has no `object`, an index or iteration of a value whose `type` has neither `array` nor
//!   `object` (a slice also accepts `string`), or the schema `false`;
//! - [`Lookup::Untyped`] when the schema says nothing at that step: no `type`, no
//!   `properties`, an undeclared field of an open object, a dynamic step, or a schema built
//!   with `anyOf` / `oneOf` / `allOf` (not followed);
//! - otherwise [`Lookup::Typed`], the schema of the value at the path.
//!
//! `null` in a `type` list does not make a step legal by itself (jq yields `null` for `.a` of
//! `null`, which is harmless, but then the path still names nothing that can hold a value).

use crate::expr::jq::{JqPath, Seg};
use crate::source::Value;

/// Most `$ref`s followed for one step (guards against reference cycles).
pub const MAX_REFS: usize = 32;

pub enum Lookup<'s> {
    Typed(&'s Value),
    /// Untyped from step `at` on (0-based index into the path's segments).
    Untyped {
        at: usize,
        why: String,
    },
    /// Step `at` cannot exist.
    Cannot {
        at: usize,
        why: String,
    },
}

/// The `type` keyword as a list of names; `None` when absent.
pub fn types(s: &Value) -> Option<Vec<&str>> {
    match s.get("type")? {
        Value::String(t) => Some(vec![t.as_str()]),
        Value::Array(ts) => Some(ts.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

/// Follows local `$ref`s.
fn resolve<'s>(root: &'s Value, mut s: &'s Value) -> &'s Value {
    for _ in 0..MAX_REFS {
        let Some(r) = s.get("$ref").and_then(Value::as_str) else {
            return s;
        };
        match r.strip_prefix('#').and_then(|p| root.pointer(p)) {
            Some(t) => s = t,
            None => return s,
        }
    }
    s
}

fn opaque(s: &Value) -> bool {
    ["anyOf", "oneOf", "allOf", "if", "not"]
        .iter()
        .any(|k| s.get(k).is_some())
}

/// Looks `path` up in `root` (the `state_schema`).
pub fn lookup<'s>(root: &'s Value, path: &JqPath) -> Lookup<'s> {
    let mut s = resolve(root, root);
    for (at, seg) in path.0.iter().enumerate() {
        if s == &Value::Bool(false) {
            return Lookup::Cannot {
                at,
                why: "the schema allows no value here".into(),
            };
        }
        if !s.is_object() || opaque(s) {
            return Lookup::Untyped {
                at,
                why: "the schema does not describe this value".into(),
            };
        }
        let ty = types(s);
        let has = |t: &str| ty.as_ref().is_none_or(|ts| ts.contains(&t));
        let shown = || ty.as_ref().map(|t| t.join(" or ")).unwrap_or_default();
        let next = match seg {
            Seg::Field(f) => {
                if !has("object") {
                    return Lookup::Cannot {
                        at,
                        why: format!("the value is a {}, which has no fields", shown()),
                    };
                }
                let props = s.get("properties").and_then(Value::as_object);
                match props.and_then(|p| p.get(f)) {
                    Some(child) => child,
                    None => match s.get("additionalProperties") {
                        Some(Value::Bool(false)) if s.get("patternProperties").is_none() => {
                            return Lookup::Cannot {
                                at,
                                why: format!(
                                    "`{f}` is not declared and the object allows no other \
properties"
                                ),
                            };
                        }
                        Some(extra @ Value::Object(_)) => extra,
                        _ => {
                            let why = if props.is_some() {
                                format!("`{f}` is not declared")
                            } else {
                                "the object's properties are not declared".to_string()
                            };
                            return Lookup::Untyped { at, why };
                        }
                    },
                }
            }
            Seg::Index(_) | Seg::Iterate | Seg::Slice => {
                let string_ok = matches!(seg, Seg::Slice) && has("string");
                if !has("array") && !has("object") && !string_ok {
                    return Lookup::Cannot {
                        at,
                        why: format!("the value is a {}, which cannot be indexed", shown()),
                    };
                }
                if matches!(seg, Seg::Index(_)) && !has("array") {
                    return Lookup::Cannot {
                        at,
                        why: "an object cannot be indexed by a number".into(),
                    };
                }
                let is_array = ty.as_ref().is_some_and(|t| t.contains(&"array"));
                match (seg, is_array) {
                    (Seg::Slice, true) => s,
                    // A slice of a string is a string.
                    (Seg::Slice, false) if string_ok && ty.is_some() => s,
                    (Seg::Index(i), true) => match s
                        .get("prefixItems")
                        .and_then(Value::as_array)
                        .and_then(|p| usize::try_from(*i).ok().and_then(|i| p.get(i)))
                    {
                        Some(p) => p,
                        None => match s.get("items") {
                            Some(items) => items,
                            None => {
                                return Lookup::Untyped {
                                    at,
                                    why: "the array's items are not described".into(),
                                };
                            }
                        },
                    },
                    (Seg::Iterate, true) => match s.get("items") {
                        Some(items) => items,
                        None => {
                            return Lookup::Untyped {
                                at,
                                why: "the array's items are not described".into(),
                            };
                        }
                    },
                    _ => {
                        return Lookup::Untyped {
                            at,
                            why: "the value's type is not declared as an array".into(),
                        };
                    }
                }
            }
            Seg::Dynamic => {
                return Lookup::Untyped {
                    at,
                    why: "the step is computed at run time".into(),
                };
            }
        };
        s = resolve(root, next);
    }
    Lookup::Typed(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn path(segs: &[Seg]) -> JqPath {
        JqPath(segs.to_vec())
    }
    fn f(s: &str) -> Seg {
        Seg::Field(s.into())
    }

    #[test]
    fn declared_undeclared_and_nested_arrays() {
        let schema = Value::from(json!({
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": false}},
                "name": {"type": "string"},
                "meta": {"$ref": "#/$defs/meta"}
            },
            "$defs": {"meta": {"type": "object", "properties": {"k": {"type": "integer"}}}}
        }));
        assert!(matches!(
            lookup(&schema, &path(&[f("name")])),
            Lookup::Typed(_)
        ));
        assert!(matches!(
            lookup(&schema, &path(&[f("items"), Seg::Iterate, f("id")])),
            Lookup::Typed(t) if t["type"] == "string"
        ));
        assert!(matches!(
            lookup(&schema, &path(&[f("items"), Seg::Iterate, f("idd")])),
            Lookup::Cannot { at: 2, .. }
        ));
        assert!(matches!(
            lookup(&schema, &path(&[f("name"), f("x")])),
            Lookup::Cannot { at: 1, .. }
        ));
        assert!(matches!(
            lookup(&schema, &path(&[f("other")])),
            Lookup::Untyped { at: 0, .. }
        ));
        assert!(matches!(
            lookup(&schema, &path(&[f("meta"), f("k")])),
            Lookup::Typed(t) if t["type"] == "integer"
        ));
        assert!(matches!(
            lookup(&schema, &path(&[f("name"), Seg::Slice])),
            Lookup::Typed(_)
        ));
        assert!(matches!(
            lookup(&schema, &path(&[f("meta"), Seg::Index(0)])),
            Lookup::Cannot { at: 1, .. }
        ));
    }

    #[test]
    fn reference_cycles_end() {
        let schema =
            Value::from(json!({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}));
        assert!(matches!(
            lookup(&schema, &path(&[f("x")])),
            Lookup::Untyped { .. }
        ));
    }
}
