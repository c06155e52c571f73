//! Reading the plan types that a derived `Deserialize` reads slowly: [`Input`] and [`Output`]
//! (whose fields were flattened: serde buffers every field of a flattened struct before it
//! reads them, a fifth of loading a large plan) and [`Location`] (two forms: an untagged enum
//! buffers too). Each is read in one pass over its fields, with the derived forms' rules:
//! unknown fields are ignored, `required` defaults to `true`, `null` in an optional field is
//! absent, and an input takes the first of `from`, `template`, `value`, `implicit` it has.
//! A node's inputs and outputs are read into lists of their exact length ([`short_list`]), and
//! so are the plan's nodes and edges ([`long_list`]).

use super::model::{Declared, Input, InputSource, Location, Output, parse_location};
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

impl<'de> Deserialize<'de> for Location {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Location;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a location: `line:column`, `path:line:column` or {path, line, column}")
            }
            fn visit_str<E: de::Error>(self, t: &str) -> Result<Location, E> {
                parse_location(t).ok_or_else(|| {
                    E::custom(format!(
                        "location `{t}` is not `line:column` or `path:line:column`"
                    ))
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Location, A::Error> {
                /// The `agc.plan/v1` object form.
                #[derive(Deserialize)]
                struct Object {
                    path: String,
                    line: u32,
                    column: u32,
                }
                let o = Object::deserialize(de::value::MapAccessDeserializer::new(m))?;
                Ok(Location {
                    path: o.path,
                    line: o.line,
                    column: o.column,
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// The fields an input or an output may have.
#[derive(Default)]
struct Fields {
    name: Option<String>,
    ty: Option<String>,
    required: Option<bool>,
    source: Option<InputSource>,
    decl: Declared,
    default: Option<Value>,
}

/// A field name of an input or an output.
enum Key {
    Name,
    Type,
    Required,
    Schema,
    Enum,
    Description,
    Redact,
    Default,
    From,
    Template,
    Value,
    Implicit,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, k: &str) -> Result<Key, E> {
                Ok(match k {
                    "name" => Key::Name,
                    "type" => Key::Type,
                    "required" => Key::Required,
                    "schema" => Key::Schema,
                    "enum" => Key::Enum,
                    "description" => Key::Description,
                    "redact" => Key::Redact,
                    "default" => Key::Default,
                    "from" => Key::From,
                    "template" => Key::Template,
                    "value" => Key::Value,
                    "implicit" => Key::Implicit,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

/// Reads the fields of an input (`input`) or an output from `m`.
fn fields<'de, A: MapAccess<'de>>(mut m: A, input: bool) -> Result<Fields, A::Error> {
    let mut f = Fields::default();
    while let Some(key) = m.next_key::<Key>()? {
        let source = input && f.source.is_none();
        match key {
            Key::Name => f.name = Some(m.next_value()?),
            Key::Type => f.ty = Some(m.next_value()?),
            Key::Required => f.required = Some(m.next_value()?),
            Key::Schema => f.decl.schema = m.next_value()?,
            Key::Enum => f.decl.enum_values = m.next_value()?,
            Key::Description => f.decl.description = m.next_value()?,
            Key::Redact => f.decl.redact = m.next_value()?,
            Key::Default if input => f.default = m.next_value()?,
            Key::From if source => f.source = Some(InputSource::From(m.next_value()?)),
            Key::Template if source => f.source = Some(InputSource::Template(m.next_value()?)),
            Key::Value if source => f.source = Some(InputSource::Value(m.next_value()?)),
            Key::Implicit if source => f.source = Some(InputSource::Implicit(m.next_value()?)),
            _ => {
                m.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(f)
}

impl<'de> Deserialize<'de> for Input {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Input;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a node input")
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Input, A::Error> {
                let f = fields(m, true)?;
                Ok(Input {
                    name: f.name.ok_or_else(|| de::Error::missing_field("name"))?,
                    ty: f.ty.ok_or_else(|| de::Error::missing_field("type"))?,
                    required: f.required.unwrap_or(true),
                    source: f.source.ok_or_else(|| {
                        de::Error::custom(
                            "an input needs one of `from`, `template`, `value` or `implicit`",
                        )
                    })?,
                    decl: f.decl,
                    default: f.default,
                })
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for Output {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Output;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a node output")
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Output, A::Error> {
                let f = fields(m, false)?;
                Ok(Output {
                    name: f.name.ok_or_else(|| de::Error::missing_field("name"))?,
                    ty: f.ty.ok_or_else(|| de::Error::missing_field("type"))?,
                    required: f.required.unwrap_or(true),
                    decl: f.decl,
                })
            }
        }
        d.deserialize_map(V)
    }
}

/// Reads a short list (a node's inputs or outputs) into a `Vec` of its exact length when it
/// has one or two items, as most have. serde reads a list of unknown length into a `Vec` that
/// starts with room for four, and an input is 400 bytes: on a 10k-node plan, 12 MB allocated
/// that nothing used, and the pages under it touched when the allocator set them up.
pub(super) fn short_list<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Vec<T>, A::Error> {
            let Some(first) = s.next_element()? else {
                return Ok(Vec::new());
            };
            let Some(second) = s.next_element()? else {
                return Ok(vec![first]);
            };
            let Some(third) = s.next_element()? else {
                return Ok(vec![first, second]);
            };
            let mut items = vec![first, second, third];
            while let Some(item) = s.next_element()? {
                items.push(item);
            }
            Ok(items)
        }
    }
    d.deserialize_seq(V(std::marker::PhantomData))
}

/// Reads a long list (a plan's nodes or edges) into a `Vec` of its exact length. serde reads a
/// list of unknown length by doubling: a 10k-node plan's nodes (832 bytes each) were copied
/// thirteen times into fresh memory, 27 MB of pages touched for an 8 MB list. Past its
/// first block, the list is read in blocks of `BLOCK` (256) items, then moved once into a list of
/// its length (the blocks' memory freed for what the run allocates next).
pub(super) fn long_list<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    /// Items per block.
    const BLOCK: usize = 256;
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Vec<T>, A::Error> {
            // The first block grows as any list does (a small plan's stays small).
            let mut block = Vec::new();
            let mut full: Vec<Vec<T>> = Vec::new();
            while let Some(item) = s.next_element()? {
                if block.len() == BLOCK {
                    full.push(std::mem::replace(&mut block, Vec::with_capacity(BLOCK)));
                }
                block.push(item);
            }
            if full.is_empty() {
                return Ok(block);
            }
            let mut items = Vec::with_capacity(full.len() * BLOCK + block.len());
            for b in full {
                items.extend(b);
            }
            items.extend(block);
            Ok(items)
        }
    }
    d.deserialize_seq(V(std::marker::PhantomData))
}

#[cfg(test)]
mod tests {
    use super::long_list;

    #[test]
    fn a_long_list_keeps_every_item_in_order_and_has_its_exact_length() {
        for n in [0usize, 1, 255, 256, 257, 511, 512, 513, 1000] {
            let text = serde_json::to_string(&(0..n).collect::<Vec<_>>()).unwrap();
            let mut d = serde_json::Deserializer::from_str(&text);
            let items: Vec<usize> = long_list(&mut d).unwrap();
            assert_eq!(items, (0..n).collect::<Vec<_>>());
            if n > 256 {
                assert_eq!(items.capacity(), n);
            }
        }
    }
}
