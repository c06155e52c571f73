//! What a declaration says about a value ([`Declared`]) and a declared value ([`Param`]): a
//! leaf below `model.rs` and the typed node fields that declare values of their own (an
//! `input` checkpoint's `collect`, `human.rs`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
