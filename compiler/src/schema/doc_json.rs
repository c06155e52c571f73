//! The validator reads a loaded document as it is: [`DocJson`] is jsonschema's view of a
//! [`crate::source::Value`] (its `Json` representation trait), so validating a document needs
//! no `serde_json::Value` copy of it (which was as large as the document's own tree, built
//! beside it for every check).
//!
//! Numbers, strings, arrays and mappings answer from the document, `uniqueItems` too
//! ([`super::unique`]), and an error's instance is a placeholder for a collection; only a
//! `const`/`enum` on a container makes a JSON copy of the one value it is about. Scalars compare with `const`/`enum` values as jsonschema's own
//! `serde_json` view does (numbers mathematically: `1` equals `1.0`).

use crate::source::{Map, Str, Value};
use jsonschema::json::{Array, Json, Node, NodeIdentity, Object, cmp};
use jsonschema::types::JsonType;
use jsonschema_value::LazyInstance;
use std::borrow::Cow;

/// jsonschema's `Json` representation of document values.
pub struct DocJson;

impl Json for DocJson {
    type Node<'a> = &'a Value;
    type PreparedKey = String;
    type StringBuffer = ();

    // A small mapping is scanned like a short members pass; a large one is hash-indexed.
    const KEYS_PER_LOOKUP: usize = 2;
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> String {
        key.to_owned()
    }

    fn with_string_node<T>((): &mut (), string: &str, f: impl FnOnce(&Value) -> T) -> T {
        f(&Value::String(Str::from(string)))
    }
}

impl<'a> Node<'a, DocJson> for &'a Value {
    type Object = &'a Map;
    type Array = &'a [Value];
    type Number = &'a serde_json::Number;

    fn as_object(&self) -> Option<&'a Map> {
        Value::as_object(self)
    }

    fn as_array(&self) -> Option<&'a [Value]> {
        Value::as_array(self)
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        Value::as_str(self).map(Cow::Borrowed)
    }

    fn as_number(&self) -> Option<&'a serde_json::Number> {
        Value::as_number(self)
    }

    fn as_boolean(&self) -> Option<bool> {
        Value::as_bool(self)
    }

    fn is_null(&self) -> bool {
        Value::is_null(self)
    }

    fn json_type(&self) -> JsonType {
        match self {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Boolean,
            Value::Number(_) => JsonType::Number,
            Value::String(_) => JsonType::String,
            Value::Array(_) => JsonType::Array,
            Value::Object(_) => JsonType::Object,
        }
    }

    fn equals_value(&self, expected: &serde_json::Value) -> bool {
        match (*self, expected) {
            (Value::String(a), serde_json::Value::String(b)) => a.as_str() == b,
            (Value::Bool(a), serde_json::Value::Bool(b)) => a == b,
            (Value::Null, serde_json::Value::Null) => true,
            (Value::Number(a), serde_json::Value::Number(b)) => cmp::equal_numbers(a, b),
            (Value::Array(_) | Value::Object(_), _) => cmp::equal(&self.to_json(), expected),
            _ => false,
        }
    }

    fn to_value(&self) -> Cow<'a, serde_json::Value> {
        Cow::Owned(Value::to_json(self))
    }

    /// An error's instance: agc reads what it reports from the document itself (module
    /// `report`: the pointer, the kind, jsonschema's masked text), never from this copy, which
    /// jsonschema builds for every error it finds. So a mapping or list stands as an empty one
    /// of its type: an unknown top-level field made a JSON copy of the whole document (a 2 MB
    /// list in it: 81 -> 150 MB peak for `agc check`).
    fn lazy_value(&self) -> LazyInstance<'a> {
        LazyInstance::Ready(match self {
            Value::Array(_) => Cow::Owned(serde_json::Value::Array(Vec::new())),
            Value::Object(_) => Cow::Owned(serde_json::Value::Object(serde_json::Map::new())),
            scalar => Cow::Owned(Value::to_json(scalar)),
        })
    }

    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::new(std::ptr::from_ref::<Value>(self) as usize))
    }
}

/// A mapping's members, keys as `&str`.
pub struct Members<'a>(crate::source::value::map::Iter<'a, Value>);

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k.as_str(), v))
    }
}

impl<'a> Object<'a, DocJson> for &'a Map {
    type Node = &'a Value;
    type MemberName = &'a str;
    type MembersIter = Members<'a>;

    fn len(&self) -> usize {
        Map::len(self)
    }

    fn get(&self, key: &String) -> Option<&'a Value> {
        Map::get(self, key)
    }

    fn members(&self) -> Members<'a> {
        Members(Map::iter(self))
    }
}

impl<'a> Array<'a, DocJson> for &'a [Value] {
    type Node = &'a Value;
    type ElementsIter = std::slice::Iter<'a, Value>;

    fn len(&self) -> usize {
        <[Value]>::len(self)
    }

    fn elements(&self) -> std::slice::Iter<'a, Value> {
        (*self).iter()
    }

    fn is_unique(&self) -> bool {
        super::unique::is_unique(self)
    }
}
