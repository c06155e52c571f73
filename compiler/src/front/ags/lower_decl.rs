//! What an AGS declaration (`param_spec`, `input_spec`, `output_spec`) lowers to: its type,
//! whether it is required, and the rest it declares.

use crate::ir::Declared;
use crate::source::{Field, Value};

/// A param's, port's or output's declared `type` (`any` when it names none).
pub(super) fn port_type(spec: &Value) -> crate::ir::ValueType {
    str_of(spec, "type").unwrap_or("any").into()
}

/// Whether a param, port or output is required: `required` defaults to true in the schema.
pub(super) fn required(spec: &Value) -> bool {
    spec.field("required")
        .and_then(Value::as_bool)
        .unwrap_or(true)
}

fn str_of<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.field(key).and_then(Value::as_str)
}

/// What a declaration (`param_spec`, `input_spec`, `output_spec`) says beyond its type.
pub(super) fn declared(spec: &Value) -> Declared {
    Declared {
        schema: spec
            .field("schema")
            .map(|s| crate::ir::Shared::new(s.to_json())),
        enum_values: spec
            .field("enum")
            .and_then(Value::as_array)
            .map(|e| e.iter().map(Value::to_json).collect()),
        description: str_of(spec, "description").map(Box::from),
        redact: spec.field("redact").and_then(Value::as_bool) == Some(true),
        default: spec.field("default").map(|d| Box::new(d.to_json())),
    }
}
