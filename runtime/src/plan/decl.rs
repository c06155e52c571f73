//! What a declaration says about a value ([`Declared`]) and a declared value ([`Param`]): a
//! leaf below `model.rs` and the typed node fields that declare values of their own (an
//! `input` checkpoint's `collect`, `human.rs`), and the extension keys a typed block carries
//! ([`extensions`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A JSON array's strings (other items dropped; nothing when it is not an array): how the
/// block readers read a list of names (roles, retry classes, permissions).
pub(crate) fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect()
}

/// The extension keys (`x-…`) of a block, as written (none when it is not an object): what
/// a typed field carries of them in its `extensions`.
pub(super) fn extensions(block: &Value) -> Map<String, Value> {
    block.as_object().map(extension_keys).unwrap_or_default()
}

/// [`extensions`] of an object.
pub(super) fn extension_keys(block: &Map<String, Value>) -> Map<String, Value> {
    block
        .iter()
        .filter(|(k, _)| k.starts_with("x-"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// What a declaration says about a value beyond its type name: the JSON Schema as written,
/// the allowed values and the description. Empty fields are omitted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Declared {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    #[serde(rename = "enum", default, skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// AGS `redact: true`: the value never appears in run records or progress output.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redact: bool,
}

/// A graph parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    /// The declared value type (`string`, `integer`, `array`, `any`, ...).
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    #[serde(flatten)]
    pub decl: Declared,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}
