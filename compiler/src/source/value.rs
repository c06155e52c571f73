//! A loaded document's values: JSON's data model, held compactly.
//!
//! The loaders used to build a `serde_json::Value` with `preserve_order`: 80 bytes a value, and
//! every mapping an `IndexMap` (a SipHash state, a hash table and 112-byte entries). A workflow
//! is mostly small mappings of short strings, so that tree was 60-70% of `agc check`'s peak heap
//! on the newer front ends' 10k-node documents (bench/README.md). Here a value is 24 bytes, a
//! string or key one exact allocation (`Box<str>`), a sequence one exact slice, and a mapping one
//! exact slice of `(key, value)` entries in document order; only a mapping with more than
//! [`LINEAR_MAX`] entries gets a key table (positions in a hash table, keys not stored again).
//!
//! The API follows `serde_json::Value`'s (`as_str`, `get`, `["key"]`, `as_object`, ...), so code
//! reading a document reads like code reading JSON; [`Value::to_json`] gives a
//! `serde_json::Value` where one is needed (a plan attribute, a runtime input), and the values
//! serialize as JSON. A document is never mutated after loading: there is no `_mut` API.

mod de;
pub mod map;
mod serde_impl;
mod string;

pub use map::LINEAR_MAX;

/// A document's mapping: string keys in document order, see [`map::Table`].
pub type Map = map::Table<Value>;
pub use string::Str;

use serde_json::Number;
use std::fmt;

/// One value of a loaded document.
#[derive(Clone, PartialEq, Eq, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(Str),
    Array(Box<[Value]>),
    Object(Map),
}

static NULL: Value = Value::Null;

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    pub fn is_u64(&self) -> bool {
        self.as_number().is_some_and(Number::is_u64)
    }

    pub fn is_i64(&self) -> bool {
        self.as_number().is_some_and(Number::is_i64)
    }

    pub fn is_f64(&self) -> bool {
        self.as_number().is_some_and(Number::is_f64)
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        self.as_number()?.as_u64()
    }

    pub fn as_i64(&self) -> Option<i64> {
        self.as_number()?.as_i64()
    }

    pub fn as_f64(&self) -> Option<f64> {
        self.as_number()?.as_f64()
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// A mapping's entry or a sequence's item (`None` for anything else or a missing one).
    pub fn get<I: ValueIndex>(&self, index: I) -> Option<&Value> {
        index.index_into(self)
    }

    /// The value at a JSON pointer (`""` is the value itself).
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut v = self;
        for raw in pointer.strip_prefix('/')?.split('/') {
            let token = super::pointer::unescape(raw);
            v = match v {
                Value::Object(map) => map.get(&token)?,
                Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(v)
    }

    /// The same value as a `serde_json::Value` (a deep copy).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => serde_json::Value::Number(n.clone()),
            Value::String(s) => serde_json::Value::String(s.to_string()),
            Value::Array(items) => {
                serde_json::Value::Array(items.iter().map(Value::to_json).collect())
            }
            Value::Object(map) => serde_json::Value::Object(map.to_json_map()),
        }
    }

    /// The JSON type's name, as JSON Schema spells it (`integer` for whole numbers).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_f64() => "number",
            Value::Number(_) => "integer",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

impl From<&serde_json::Value> for Value {
    fn from(v: &serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => Value::Number(n.clone()),
            serde_json::Value::String(s) => Value::String(Str::from(s.as_str())),
            serde_json::Value::Array(items) => {
                Value::Array(items.iter().map(Value::from).collect())
            }
            serde_json::Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (Str::from(k.as_str()), Value::from(v)))
                    .collect(),
            ),
        }
    }
}

impl From<serde_json::Value> for Value {
    fn from(v: serde_json::Value) -> Value {
        Value::from(&v)
    }
}

impl From<&Value> for serde_json::Value {
    fn from(v: &Value) -> serde_json::Value {
        v.to_json()
    }
}

impl PartialEq<serde_json::Value> for Value {
    fn eq(&self, other: &serde_json::Value) -> bool {
        match (self, other) {
            (Value::Null, serde_json::Value::Null) => true,
            (Value::Bool(a), serde_json::Value::Bool(b)) => a == b,
            (Value::Number(a), serde_json::Value::Number(b)) => a == b,
            (Value::String(a), serde_json::Value::String(b)) => a.as_str() == b,
            (Value::Array(a), serde_json::Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
            }
            (Value::Object(a), serde_json::Value::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| b.get(k.as_str()).is_some_and(|w| v == w))
            }
            _ => false,
        }
    }
}

impl PartialEq<Value> for serde_json::Value {
    fn eq(&self, other: &Value) -> bool {
        other == self
    }
}

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<bool> for Value {
    fn eq(&self, other: &bool) -> bool {
        self.as_bool() == Some(*other)
    }
}

impl PartialEq<i64> for Value {
    fn eq(&self, other: &i64) -> bool {
        self.as_i64() == Some(*other)
    }
}

impl PartialEq<u64> for Value {
    fn eq(&self, other: &u64) -> bool {
        self.as_u64() == Some(*other)
    }
}

impl PartialEq<i32> for Value {
    fn eq(&self, other: &i32) -> bool {
        self.as_i64() == Some(i64::from(*other))
    }
}

impl PartialEq<f64> for Value {
    fn eq(&self, other: &f64) -> bool {
        self.as_f64() == Some(*other)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(Str::from(s))
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(Str::from(s))
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Number(n.into())
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Number(n.into())
    }
}

impl From<Number> for Value {
    fn from(n: Number) -> Value {
        Value::Number(n)
    }
}

impl FromIterator<Value> for Value {
    fn from_iter<T: IntoIterator<Item = Value>>(iter: T) -> Value {
        Value::Array(iter.into_iter().collect())
    }
}

/// Debug prints the JSON text, as `serde_json::Value`'s Display does (short and readable in
/// test failures).
impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The value as compact JSON text (`{:#}`: pretty-printed), as `serde_json::Value` prints.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = if f.alternate() {
            serde_json::to_string_pretty(self)
        } else {
            serde_json::to_string(self)
        }
        .map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

/// What [`Value::get`] and `value[...]` accept: a key (`&str`, `String`) or an index (`usize`).
pub trait ValueIndex {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value>;
}

impl ValueIndex for str {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_object()?.get(self)
    }
}

impl ValueIndex for String {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        self.as_str().index_into(v)
    }
}

impl ValueIndex for Str {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        self.as_str().index_into(v)
    }
}

impl ValueIndex for usize {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_array()?.get(*self)
    }
}

impl<T: ValueIndex + ?Sized> ValueIndex for &T {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        (**self).index_into(v)
    }
}

/// `value["key"]` and `value[0]`: the entry or item, or `null` when there is none (as
/// `serde_json::Value` reads).
impl<I: ValueIndex> std::ops::Index<I> for Value {
    type Output = Value;
    fn index(&self, index: I) -> &Value {
        index.index_into(self).unwrap_or(&NULL)
    }
}

impl Map {
    /// The mapping as a `serde_json::Map` (a deep copy, in the same order).
    pub fn to_json_map(&self) -> serde_json::Map<String, serde_json::Value> {
        self.iter()
            .map(|(k, v)| (k.to_string(), v.to_json()))
            .collect()
    }
}

/// `map["key"]`: the entry's value, or `null` when there is none (as a [`Value`] reads; a
/// `serde_json::Map` panics instead).
impl std::ops::Index<&str> for Map {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

#[cfg(test)]
mod tests;
