//! Checking values against declared types: the value type name, `enum`, and the JSON
//! Schema (through the `jsonschema` crate).
//!
//! Value types follow AGS §9.1: `string`, `text`, `markdown`, `file`, `directory` and
//! `reference` are strings; `file_set` is an array of strings; `artifact` is an object with a
//! string `id`; `json` and `any` accept everything. Names this table does not know (another
//! dialect's) accept everything rather than guess.

use crate::plan::Declared;
use serde_json::Value;

/// Why a value does not fit its declaration, with the AGS code (`RT031` type, `RT032`
/// schema or enum).
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub code: &'static str,
    pub message: String,
}

/// Checks `v` against the type name `ty` and the declaration `decl`.
pub fn check(v: &Value, ty: &str, decl: &Declared) -> Result<(), Mismatch> {
    if !fits(v, ty) {
        return Err(Mismatch {
            code: "RT031",
            message: format!("expected {ty}, got {}", kind_name(v)),
        });
    }
    if let Some(allowed) = &decl.enum_values
        && !allowed.iter().any(|a| a == v)
    {
        return Err(Mismatch {
            code: "RT032",
            message: format!("{} is not one of the allowed values", short(v)),
        });
    }
    if let Some(schema) = &decl.schema {
        schema_check(v, schema)?;
    }
    Ok(())
}

fn fits(v: &Value, ty: &str) -> bool {
    match ty {
        "string" | "text" | "markdown" | "file" | "directory" | "reference" => v.is_string(),
        "number" => v.is_number(),
        "integer" => match v {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "file_set" => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
        "artifact" => v
            .as_object()
            .is_some_and(|o| o.get("id").is_some_and(Value::is_string)),
        _ => true,
    }
}

fn schema_check(v: &Value, schema: &Value) -> Result<(), Mismatch> {
    let validator = jsonschema::validator_for(schema).map_err(|e| Mismatch {
        code: "RT032",
        message: format!("the declared schema is not usable: {e}"),
    })?;
    if let Some(err) = validator.iter_errors(v).next() {
        let at = err.instance_path().to_string();
        return Err(Mismatch {
            code: "RT032",
            message: if at.is_empty() {
                format!("does not match its schema: {err}")
            } else {
                format!("does not match its schema at {at}: {err}")
            },
        });
    }
    Ok(())
}

/// A value shortened for messages.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        let cut: String = s.chars().take(57).collect();
        format!("{cut}...")
    } else {
        s
    }
}

/// A JSON value's kind, for messages.
pub fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn value_types() {
        let d = Declared::default();
        assert!(check(&json!("x"), "markdown", &d).is_ok());
        assert!(check(&json!(3), "integer", &d).is_ok());
        assert!(check(&json!(3.0), "integer", &d).is_ok());
        assert_eq!(check(&json!(3.5), "integer", &d).unwrap_err().code, "RT031");
        assert_eq!(
            check(&json!(["a", 1]), "file_set", &d).unwrap_err().code,
            "RT031"
        );
        assert!(check(&json!({"id": "a"}), "artifact", &d).is_ok());
        assert!(check(&json!({"name": "a"}), "artifact", &d).is_err());
        assert!(check(&json!(null), "any", &d).is_ok());
    }

    #[test]
    fn enum_and_schema() {
        let d = Declared {
            enum_values: Some(vec![json!("a"), json!("b")]),
            ..Declared::default()
        };
        assert!(check(&json!("a"), "string", &d).is_ok());
        assert_eq!(check(&json!("c"), "string", &d).unwrap_err().code, "RT032");
        let d = Declared {
            schema: Some(json!({
                "type": "object",
                "required": ["n"],
                "properties": {"n": {"$ref": "#/$defs/pos"}},
                "$defs": {"pos": {"type": "integer", "minimum": 1}}
            })),
            ..Declared::default()
        };
        assert!(check(&json!({"n": 2}), "object", &d).is_ok());
        let err = check(&json!({"n": 0}), "object", &d).unwrap_err();
        assert_eq!(err.code, "RT032");
        assert!(err.message.contains("/n"), "{}", err.message);
    }
}
