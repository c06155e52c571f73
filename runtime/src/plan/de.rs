//! Reading the plan types that a derived `Deserialize` reads slowly: [`Input`] and [`Output`]
//! (whose fields were flattened: serde buffers every field of a flattened struct before it
//! reads them, a fifth of loading a large plan) and [`Location`] (two forms: an untagged enum
//! buffers too). Each is read in one pass over its fields, with the derived forms' rules:
//! unknown fields are ignored, `required` defaults to `true`, `null` in an optional field is
//! absent, and an input takes the first of `from`, `template`, `value`, `implicit` it has.
//! A node's inputs and outputs are read into lists of their exact length (`lists::short_list`),
//! and so are the plan's nodes, edges and links (`lists::long_list`).

use super::model::{Declared, Input, InputSource, Location, Output, parse_location};
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
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

#[cfg(test)]
mod tests {
    use super::Location;

    /// How a location was read before its `line:column` shortcut: split from the end.
    fn split_from_the_end(t: &str) -> Option<(String, u32, u32)> {
        let mut it = t.rsplitn(3, ':');
        let column = it.next()?.parse().ok()?;
        let line = it.next()?.parse().ok()?;
        Some((it.next().unwrap_or("").to_string(), line, column))
    }

    #[test]
    fn a_location_reads_as_it_read_when_split_from_the_end() {
        for t in [
            "1:2",
            "29:15",
            "0:0",
            "999999999:999999999",
            "1234567890:4294967295",
            "4294967296:1",
            "+1:2",
            "1:+2",
            "-1:2",
            "01:002",
            "a:1:2",
            "a:b:1:2",
            "1:2:3",
            ":1",
            "1:",
            ":",
            "1",
            "",
            "x",
            "1:2 ",
            "１:2",
        ] {
            let text = serde_json::to_string(t).unwrap();
            let read = serde_json::from_str::<Location>(&text).ok();
            let read = read.map(|l| (l.path, l.line, l.column));
            assert_eq!(read, split_from_the_end(t), "{t}");
        }
    }
}
