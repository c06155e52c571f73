//! Document values read as the types they describe (`T::deserialize(&value)`), as
//! `serde_json::from_value(value.to_json())` reads them, with the same answers and the same
//! error messages, without building the `serde_json::Value` first: a run script's 10k entries
//! were converted twice on the way to the runtime's types (issue 41). The error type is
//! serde_json's, whose messages name JSON's types (`null`, not serde's `unit value`).

use super::{Map, Value};
use serde::de::value::MapDeserializer;
use serde::de::{DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Error;

impl<'de> Deserializer<'de> for &'de Value {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            // serde_json's order: unsigned, then signed, then floating point.
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => visitor.visit_u64(u),
                (None, Some(i), _) => visitor.visit_i64(i),
                (None, None, Some(f)) => visitor.visit_f64(f),
                (None, None, None) => visitor.visit_unit(),
            },
            Value::String(s) => visitor.visit_borrowed_str(s.as_str()),
            Value::Array(items) => {
                let mut seq = Seq(items.iter());
                let v = visitor.visit_seq(&mut seq)?;
                match seq.0.len() {
                    0 => Ok(v),
                    _ => Err(serde::de::Error::invalid_length(
                        items.len(),
                        &"fewer elements in array",
                    )),
                }
            }
            Value::Object(map) => visit_map(map, visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            // A unit variant by its name, or `{"variant": value}`, as serde_json reads them.
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            Value::Object(map) if map.len() == 1 => {
                let (k, v) = map.iter().next().expect("one entry");
                visitor.visit_enum(serde::de::value::MapAccessDeserializer::new(
                    MapDeserializer::new(std::iter::once((k.as_str(), v))),
                ))
            }
            Value::Object(_) => Err(serde::de::Error::invalid_value(
                serde::de::Unexpected::Map,
                &"map with a single key",
            )),
            _ => Err(serde::de::Error::invalid_type(
                unexpected(self),
                &"string or map",
            )),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

fn visit_map<'de, V: Visitor<'de>>(map: &'de Map, visitor: V) -> Result<V::Value, Error> {
    let mut entries = Entries {
        iter: map.iter(),
        value: None,
    };
    let v = visitor.visit_map(&mut entries)?;
    match entries.iter.len() {
        0 => Ok(v),
        _ => Err(serde::de::Error::invalid_length(
            map.len(),
            &"fewer elements in map",
        )),
    }
}

/// A list's items, read one by one.
struct Seq<'de>(std::slice::Iter<'de, Value>);

impl<'de> SeqAccess<'de> for Seq<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0.next().map(|v| seed.deserialize(v)).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// A mapping's entries, read one by one: the key, then its value.
struct Entries<'de> {
    iter: super::map::Iter<'de, Value>,
    value: Option<&'de Value>,
}

impl<'de> MapAccess<'de> for Entries<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((k, v)) = self.iter.next() else {
            return Ok(None);
        };
        self.value = Some(v);
        seed.deserialize(serde::de::value::BorrowedStrDeserializer::new(k.as_str()))
            .map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some(v) => seed.deserialize(v),
            None => Err(serde::de::Error::custom("a value without its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

fn unexpected(v: &Value) -> serde::de::Unexpected<'_> {
    use serde::de::Unexpected;
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (None, Some(i), _) => Unexpected::Signed(i),
            (None, None, Some(f)) => Unexpected::Float(f),
            (None, None, None) => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s.as_str()),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

impl<'de> IntoDeserializer<'de, Error> for &'de Value {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

#[cfg(test)]
#[path = "de_tests.rs"]
mod tests;
