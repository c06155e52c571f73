//! Static types of the core expression form, and how to read them from JSON Schemas.
//!
//! [`Type`] is gradual: [`Type::Dyn`] is "unknown, anything goes", and the checker only
//! reports what is certainly wrong for every value a type allows. There are no union types;
//! where a schema allows several types the result is `Dyn`, except that a nullable type
//! (`["string", "null"]`) is taken as its non-null part (a `null` then fails at run time, not
//! at compile time: the checker never rejects what might be fine).
//!
//! [`Type::from_json_schema`] decisions:
//! - `integer` → `Int`, `number` → `Double`, `string` → `String`, `boolean` → `Bool`,
//!   `null` → `Null`; `array` → `List(items)` (`Dyn` items without `items`).
//! - `object` with `properties` → `Object`, closed when `additionalProperties: false`;
//!   `object` without `properties` → `Map(String, additionalProperties or Dyn)`.
//! - No `type`: inferred from `properties` (object), `items` (array), or `enum`/`const`
//!   when all their values share one JSON type; otherwise `Dyn`. `$ref`, `oneOf`, `anyOf`
//!   are `Dyn`; `allOf` with one member is that member.
//! - `format: date-time` stays `String`: the data arrives as JSON text, and the evaluator
//!   gives it to expressions as a string; typing it `Timestamp` would let `x < now` pass the
//!   checker and fail at run time. CEL code converts with `timestamp(x)`.
//! - Nesting deeper than [`MAX_SCHEMA_DEPTH`] is `Dyn` (bounded recursion on input).
//!
//! CEL over JSON data sees every number as a double (see the runtime's
//! `Value::from_json_doubles`); [`Type::json_numbers_as_double`] turns a schema type into that
//! view for CEL environments.

use std::fmt;

use agc_runtime::expr::Lang;
use agc_runtime::expr::functions::Kinds;
use agc_runtime::value::Kind;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// Schema nesting followed by [`Type::from_json_schema`]; deeper parts are `Dyn`.
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// A static type. Serializes externally tagged in snake case (`"int"`, `{"list": "string"}`,
/// `{"map": ["string", "dyn"]}`, `{"object": {"fields": {...}, "open": false}}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Type {
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    List(Box<Type>),
    Map(Box<Type>, Box<Type>),
    /// An object with known fields. `open`: other fields may exist (typed `Dyn`); closed:
    /// reading another field is an error.
    Object {
        fields: IndexMap<String, Type>,
        open: bool,
    },
    Timestamp,
    Duration,
    /// Unknown: any value.
    Dyn,
}

impl Type {
    /// `list(t)`.
    pub fn list(t: Type) -> Type {
        Type::List(Box::new(t))
    }

    /// `map(k, v)`.
    pub fn map(k: Type, v: Type) -> Type {
        Type::Map(Box::new(k), Box::new(v))
    }

    /// A closed object with these fields.
    pub fn closed<I: IntoIterator<Item = (S, Type)>, S: Into<String>>(fields: I) -> Type {
        Type::Object {
            fields: fields.into_iter().map(|(k, v)| (k.into(), v)).collect(),
            open: false,
        }
    }

    /// An open object with these fields.
    pub fn open<I: IntoIterator<Item = (S, Type)>, S: Into<String>>(fields: I) -> Type {
        Type::Object {
            fields: fields.into_iter().map(|(k, v)| (k.into(), v)).collect(),
            open: true,
        }
    }

    /// The runtime kinds a value of this type can have.
    pub fn kinds(&self) -> Kinds {
        match self {
            Type::Null => Kinds::NULL,
            Type::Bool => Kinds::BOOL,
            Type::Int => Kinds::INT,
            Type::Uint => Kinds::UINT,
            Type::Double => Kinds::DOUBLE,
            Type::String => Kinds::STRING,
            Type::Bytes => Kinds::BYTES,
            Type::List(_) => Kinds::LIST,
            Type::Map(..) | Type::Object { .. } => Kinds::MAP,
            Type::Timestamp => Kinds::TIMESTAMP,
            Type::Duration => Kinds::DURATION,
            Type::Dyn => Kinds::ANY,
        }
    }

    /// The type of values of one runtime kind, as far as the kind says.
    pub fn of_kind(kind: Kind) -> Type {
        match kind {
            Kind::Null => Type::Null,
            Kind::Bool => Type::Bool,
            Kind::Int => Type::Int,
            Kind::Uint => Type::Uint,
            Kind::Double => Type::Double,
            Kind::String => Type::String,
            Kind::Bytes => Type::Bytes,
            Kind::List => Type::list(Type::Dyn),
            Kind::Map => Type::map(Type::Dyn, Type::Dyn),
            Kind::Timestamp => Type::Timestamp,
            Kind::Duration => Type::Duration,
            Kind::Type => Type::Dyn,
        }
    }

    /// Whether this is `Dyn`.
    pub fn is_dyn(&self) -> bool {
        matches!(self, Type::Dyn)
    }

    /// Whether values of this type are numbers (int, uint or double).
    pub fn is_number(&self) -> bool {
        matches!(self, Type::Int | Type::Uint | Type::Double)
    }

    /// The least type holding both: the type itself when equal, else `Dyn` (element types
    /// of lists and maps join the same way).
    pub fn join(&self, other: &Type) -> Type {
        match (self, other) {
            (a, b) if a == b => a.clone(),
            (Type::List(a), Type::List(b)) => Type::list(a.join(b)),
            (Type::Map(k1, v1), Type::Map(k2, v2)) => Type::map(k1.join(k2), v1.join(v2)),
            _ => Type::Dyn,
        }
    }

    /// CEL's view of JSON data of this type: every integer becomes a double.
    pub fn json_numbers_as_double(self) -> Type {
        match self {
            Type::Int | Type::Uint => Type::Double,
            Type::List(t) => Type::list(t.json_numbers_as_double()),
            Type::Map(k, v) => Type::map(*k, v.json_numbers_as_double()),
            Type::Object { fields, open } => Type::Object {
                fields: fields
                    .into_iter()
                    .map(|(k, v)| (k, v.json_numbers_as_double()))
                    .collect(),
                open,
            },
            other => other,
        }
    }

    /// The type's name in `lang`'s vocabulary (AGX speaks JSON: `integer`, `number`,
    /// `array`, `object`; CEL and templates use CEL names: `int`, `list(string)` ...).
    pub fn describe(&self, lang: Lang) -> String {
        if lang != Lang::Agx {
            return self.to_string();
        }
        match self {
            Type::Null => "null".into(),
            Type::Bool => "boolean".into(),
            Type::Int | Type::Uint => "integer".into(),
            Type::Double => "number".into(),
            Type::String => "string".into(),
            Type::Bytes => "bytes".into(),
            Type::List(_) => "array".into(),
            Type::Map(..) | Type::Object { .. } => "object".into(),
            Type::Timestamp => "timestamp".into(),
            Type::Duration => "duration".into(),
            Type::Dyn => "any".into(),
        }
    }

    /// Reads a JSON Schema (see the module docs for the rules).
    pub fn from_json_schema(schema: &crate::source::Value) -> Type {
        from_schema(schema, 0)
    }
}

/// CEL-style names: `int`, `list(string)`, `map(string, dyn)`, `{a: int, b: string, ...}`.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Null => f.write_str("null_type"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::List(t) => write!(f, "list({t})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::Object { fields, open } => {
                f.write_str("{")?;
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                if *open {
                    f.write_str(if fields.is_empty() { "..." } else { ", ..." })?;
                }
                f.write_str("}")
            }
            Type::Timestamp => f.write_str("google.protobuf.Timestamp"),
            Type::Duration => f.write_str("google.protobuf.Duration"),
            Type::Dyn => f.write_str("dyn"),
        }
    }
}

fn from_schema(schema: &crate::source::Value, depth: usize) -> Type {
    use crate::source::Value as J;
    let J::Object(s) = schema else {
        return Type::Dyn;
    };
    if depth >= MAX_SCHEMA_DEPTH {
        return Type::Dyn;
    }
    let ty = match s.get("type") {
        Some(J::String(t)) => Some(t.as_str()),
        Some(J::Array(ts)) => {
            let non_null: Vec<&str> = ts
                .iter()
                .filter_map(J::as_str)
                .filter(|t| *t != "null")
                .collect();
            match non_null.as_slice() {
                [one] => Some(*one),
                [] if !ts.is_empty() => Some("null"),
                _ => return Type::Dyn,
            }
        }
        _ => None,
    };
    let ty = ty.or_else(|| {
        if s.contains_key("properties") {
            Some("object")
        } else if s.contains_key("items") {
            Some("array")
        } else {
            None
        }
    });
    match ty {
        Some("integer") => Type::Int,
        Some("number") => Type::Double,
        Some("string") => Type::String,
        Some("boolean") => Type::Bool,
        Some("null") => Type::Null,
        Some("array") => Type::list(
            s.get("items")
                .map_or(Type::Dyn, |i| from_schema(i, depth + 1)),
        ),
        Some("object") => object(s, depth),
        Some(_) => Type::Dyn,
        None => {
            if let Some(J::Array(all)) = s.get("allOf")
                && let [one] = &all[..]
            {
                return from_schema(one, depth + 1);
            }
            let values: Vec<&J> = match (s.get("enum"), s.get("const")) {
                (Some(J::Array(vs)), _) => vs.iter().collect(),
                (None, Some(c)) => vec![c],
                _ => return Type::Dyn,
            };
            values
                .iter()
                .map(|v| literal_type(v))
                .reduce(|a, b| a.join(&b))
                .unwrap_or(Type::Dyn)
        }
    }
}

fn object(s: &crate::source::Map, depth: usize) -> Type {
    let additional = s.get("additionalProperties");
    match s.get("properties") {
        Some(crate::source::Value::Object(props)) => Type::Object {
            fields: props
                .iter()
                .map(|(k, v)| (k.to_string(), from_schema(v, depth + 1)))
                .collect(),
            open: additional != Some(&crate::source::Value::Bool(false)),
        },
        _ => match additional {
            Some(a @ crate::source::Value::Object(_)) => {
                Type::map(Type::String, from_schema(a, depth + 1))
            }
            Some(crate::source::Value::Bool(false)) => Type::closed(Vec::<(String, Type)>::new()),
            _ => Type::map(Type::String, Type::Dyn),
        },
    }
}

/// The type of a JSON value given in a schema's `enum`/`const` (shallow).
fn literal_type(v: &crate::source::Value) -> Type {
    match v {
        crate::source::Value::Null => Type::Null,
        crate::source::Value::Bool(_) => Type::Bool,
        crate::source::Value::Number(n) if n.is_i64() || n.is_u64() => Type::Int,
        crate::source::Value::Number(_) => Type::Double,
        crate::source::Value::String(_) => Type::String,
        crate::source::Value::Array(_) => Type::list(Type::Dyn),
        crate::source::Value::Object(_) => Type::map(Type::String, Type::Dyn),
    }
}

#[cfg(test)]
mod tests;
