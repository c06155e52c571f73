//! Runtime values: what expressions evaluate to.
//!
//! One value type serves every expression language (AGX, CEL, the Go-template subset); the
//! languages differ in which operations they allow, not in what a value is.
//!
//! Decisions:
//! - Maps keep insertion order ([`IndexMap`]), so rendering and JSON output are deterministic.
//!   Keys are what CEL allows: bool, int, uint, string ([`Key`]). Lookups treat numerically
//!   equal int and uint keys as the same key (CEL's heterogeneous equality).
//! - [`Value::from_json`]: a JSON number that fits `i64` becomes `Int`, one that fits only
//!   `u64` becomes `Uint`, anything else `Double`. [`Value::from_json_doubles`] is CEL's view
//!   (every JSON number a double), which the evaluator uses for CEL's JSON roots.
//! - [`Value::to_json`]: bytes become base64 (proto3 JSON), timestamps RFC 3339 strings,
//!   durations `"1.5s"`, non-finite doubles the strings `"NaN"`, `"Infinity"`, `"-Infinity"`
//!   (also proto3 JSON), non-string map keys their decimal text, type values their name.
//! - Conversions recurse along the JSON; parsed JSON is at most 128 levels deep
//!   (serde_json's limit), which bounds them.
//! - Timestamps are [`jiff::Timestamp`] limited to years 0001–9999; durations are
//!   [`jiff::SignedDuration`] limited to ±315,576,000,000 s (both as in CEL / protobuf).

use indexmap::IndexMap;
use jiff::{SignedDuration, Timestamp};

/// A map key (the key types CEL allows; AGX and JSON only ever use strings).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    Bool(bool),
    Int(i64),
    Uint(u64),
    String(String),
}

/// The map type of [`Value::Map`].
pub type ValueMap = IndexMap<Key, Value>;

/// The kind of a value: its runtime type without parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    List,
    Map,
    Timestamp,
    Duration,
    Type,
}

/// A runtime value.
#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(String),
    Bytes(Vec<u8>),
    List(Vec<Value>),
    Map(ValueMap),
    Timestamp(Timestamp),
    Duration(SignedDuration),
    /// A CEL type value (`type(x)`, `int`, `string` ...).
    Type(Kind),
}

/// Earliest timestamp CEL allows: 0001-01-01T00:00:00Z.
pub const MIN_TIMESTAMP_SECONDS: i64 = -62_135_596_800;
/// Latest timestamp CEL allows: 9999-12-31T23:59:59.999999999Z.
pub const MAX_TIMESTAMP_SECONDS: i64 = 253_402_300_799;
/// Largest duration magnitude CEL allows, in seconds (about 10,000 years).
pub const MAX_DURATION_SECONDS: i64 = 315_576_000_000;

impl Kind {
    /// The CEL name of the type (`type(x)` renders as this).
    pub fn cel_name(self) -> &'static str {
        match self {
            Kind::Null => "null_type",
            Kind::Bool => "bool",
            Kind::Int => "int",
            Kind::Uint => "uint",
            Kind::Double => "double",
            Kind::String => "string",
            Kind::Bytes => "bytes",
            Kind::List => "list",
            Kind::Map => "map",
            Kind::Timestamp => "google.protobuf.Timestamp",
            Kind::Duration => "google.protobuf.Duration",
            Kind::Type => "type",
        }
    }

    /// The name used in AGX messages (JSON vocabulary: `number`, `array`, `object` ...).
    pub fn agx_name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "boolean",
            Kind::Int => "integer",
            Kind::Uint => "integer",
            Kind::Double => "number",
            Kind::String => "string",
            Kind::Bytes => "bytes",
            Kind::List => "array",
            Kind::Map => "object",
            Kind::Timestamp => "timestamp",
            Kind::Duration => "duration",
            Kind::Type => "type",
        }
    }

    /// The CEL type denoted by a bare identifier (`int`, `string`, `null_type` ...).
    pub fn from_cel_ident(name: &str) -> Option<Kind> {
        Some(match name {
            "null_type" => Kind::Null,
            "bool" => Kind::Bool,
            "int" => Kind::Int,
            "uint" => Kind::Uint,
            "double" => Kind::Double,
            "string" => Kind::String,
            "bytes" => Kind::Bytes,
            "list" => Kind::List,
            "map" => Kind::Map,
            "type" => Kind::Type,
            "google.protobuf.Timestamp" => Kind::Timestamp,
            "google.protobuf.Duration" => Kind::Duration,
            _ => return None,
        })
    }
}

impl Key {
    /// The key a value would be stored under, if it can be a key. Integral doubles map to
    /// int keys so that `m[1.0]` finds `1` (CEL heterogeneous equality).
    pub fn from_value(v: &Value) -> Option<Key> {
        Some(match v {
            Value::Bool(b) => Key::Bool(*b),
            Value::Int(i) => Key::Int(*i),
            Value::Uint(u) => Key::Uint(*u),
            Value::String(s) => Key::String(s.clone()),
            Value::Double(d) if d.fract() == 0.0 && *d >= -9.2e18 && *d <= 9.2e18 => {
                Key::Int(*d as i64)
            }
            _ => return None,
        })
    }

    /// The key as a value.
    pub fn to_value(&self) -> Value {
        match self {
            Key::Bool(b) => Value::Bool(*b),
            Key::Int(i) => Value::Int(*i),
            Key::Uint(u) => Value::Uint(*u),
            Key::String(s) => Value::String(s.clone()),
        }
    }

    /// The key as text (JSON object keys).
    pub fn to_text(&self) -> String {
        match self {
            Key::Bool(b) => b.to_string(),
            Key::Int(i) => i.to_string(),
            Key::Uint(u) => u.to_string(),
            Key::String(s) => s.clone(),
        }
    }

    /// The numerically equal key of the other integer type, if any.
    fn numeric_twin(&self) -> Option<Key> {
        match self {
            Key::Int(i) => u64::try_from(*i).ok().map(Key::Uint),
            Key::Uint(u) => i64::try_from(*u).ok().map(Key::Int),
            _ => None,
        }
    }
}

/// Looks a key up in a map, treating numerically equal int and uint keys as equal.
pub fn map_get<'m>(map: &'m ValueMap, key: &Key) -> Option<&'m Value> {
    map.get(key)
        .or_else(|| key.numeric_twin().and_then(|k| map.get(&k)))
}

impl Value {
    /// Builds a value from JSON (see the module docs for numbers).
    pub fn from_json(json: &serde_json::Value) -> Value {
        match json {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Value::Int(i)
                } else if let Some(u) = n.as_u64() {
                    Value::Uint(u)
                } else {
                    Value::Double(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            serde_json::Value::String(s) => Value::String(s.clone()),
            serde_json::Value::Array(items) => {
                Value::List(items.iter().map(Value::from_json).collect())
            }
            serde_json::Value::Object(map) => Value::Map(
                map.iter()
                    .map(|(k, v)| (Key::String(k.clone()), Value::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// CEL's view of JSON data: every number is a double, as cel-go sees JSON decoded by Go
    /// (agh passes inputs and node outputs that way), so `inputs.n + 1` is an error there
    /// and here, and `int(inputs.n) + 1` or `inputs.n + 1.0` is what works.
    pub fn from_json_doubles(json: &serde_json::Value) -> Value {
        match json {
            serde_json::Value::Number(n) => Value::Double(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::Array(items) => {
                Value::List(items.iter().map(Value::from_json_doubles).collect())
            }
            serde_json::Value::Object(map) => Value::Map(
                map.iter()
                    .map(|(k, v)| (Key::String(k.clone()), Value::from_json_doubles(v)))
                    .collect(),
            ),
            other => Value::from_json(other),
        }
    }

    /// Converts to JSON (see the module docs for the non-JSON kinds).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Uint(u) => J::from(*u),
            Value::Double(d) => match serde_json::Number::from_f64(*d) {
                Some(n) => J::Number(n),
                None if d.is_nan() => J::String("NaN".into()),
                None if *d > 0.0 => J::String("Infinity".into()),
                None => J::String("-Infinity".into()),
            },
            Value::String(s) => J::String(s.clone()),
            Value::Bytes(b) => J::String(base64(b)),
            Value::List(items) => J::Array(items.iter().map(Value::to_json).collect()),
            Value::Map(map) => J::Object(
                map.iter()
                    .map(|(k, v)| (k.to_text(), v.to_json()))
                    .collect(),
            ),
            Value::Timestamp(t) => J::String(format_timestamp(*t)),
            Value::Duration(d) => J::String(format_duration(*d)),
            Value::Type(k) => J::String(k.cel_name().into()),
        }
    }

    /// The kind of this value.
    pub fn kind(&self) -> Kind {
        match self {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Bool,
            Value::Int(_) => Kind::Int,
            Value::Uint(_) => Kind::Uint,
            Value::Double(_) => Kind::Double,
            Value::String(_) => Kind::String,
            Value::Bytes(_) => Kind::Bytes,
            Value::List(_) => Kind::List,
            Value::Map(_) => Kind::Map,
            Value::Timestamp(_) => Kind::Timestamp,
            Value::Duration(_) => Kind::Duration,
            Value::Type(_) => Kind::Type,
        }
    }

    /// The CEL type name of this value.
    pub fn type_name(&self) -> &'static str {
        self.kind().cel_name()
    }

    /// Convenience: a string value.
    pub fn str(s: impl Into<String>) -> Value {
        Value::String(s.into())
    }
}

/// Equality shared by every language: values of different kinds are unequal (never an
/// error), except that int, uint and double compare by numeric value (`1 == 1.0` is true in
/// AGX and in CEL). Lists compare element-wise, maps by key set and values (order ignored).
/// NaN is unequal to everything, itself included.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        use Value as V;
        match (self, other) {
            (V::Null, V::Null) => true,
            (V::Bool(a), V::Bool(b)) => a == b,
            (V::String(a), V::String(b)) => a == b,
            (V::Bytes(a), V::Bytes(b)) => a == b,
            (V::List(a), V::List(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y),
            (V::Map(a), V::Map(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| map_get(b, k).is_some_and(|w| v == w))
            }
            (V::Timestamp(a), V::Timestamp(b)) => a == b,
            (V::Duration(a), V::Duration(b)) => a == b,
            (V::Type(a), V::Type(b)) => a == b,
            _ => numeric_cmp(self, other) == Some(std::cmp::Ordering::Equal),
        }
    }
}

/// Compares two numbers of any numeric kinds by value; `None` if either is not a number or
/// a NaN is involved.
pub fn numeric_cmp(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    use Value as V;
    match (a, b) {
        (V::Int(x), V::Int(y)) => Some(x.cmp(y)),
        (V::Uint(x), V::Uint(y)) => Some(x.cmp(y)),
        (V::Double(x), V::Double(y)) => x.partial_cmp(y),
        (V::Int(x), V::Uint(y)) => Some((*x as i128).cmp(&(*y as i128))),
        (V::Uint(x), V::Int(y)) => Some((*x as i128).cmp(&(*y as i128))),
        (V::Int(x), V::Double(y)) => int_double_cmp(*x as i128, *y),
        (V::Uint(x), V::Double(y)) => int_double_cmp(*x as i128, *y),
        (V::Double(x), V::Int(y)) => int_double_cmp(*y as i128, *x).map(|o| o.reverse()),
        (V::Double(x), V::Uint(y)) => int_double_cmp(*y as i128, *x).map(|o| o.reverse()),
        _ => None,
    }
}

/// Exact comparison of an integer with a double (no rounding of large integers).
fn int_double_cmp(i: i128, d: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    if d.is_nan() {
        return None;
    }
    if d >= 1.8e19 {
        return Some(Ordering::Less);
    }
    if d <= -9.3e18 {
        return Some(Ordering::Greater);
    }
    let floor = d.floor();
    match i.cmp(&(floor as i128)) {
        Ordering::Equal if d > floor => Some(Ordering::Less),
        o => Some(o),
    }
}

/// RFC 3339 with the shortest exact fraction (`2024-01-02T03:04:05.5Z`).
pub fn format_timestamp(t: Timestamp) -> String {
    t.to_string()
}

/// CEL's duration text: seconds with the shortest exact fraction and an `s` (`"90s"`,
/// `"1.5s"`, `"-0.000000001s"`).
pub fn format_duration(d: SignedDuration) -> String {
    let secs = d.as_secs();
    let nanos = d.subsec_nanos();
    let sign = if secs < 0 || nanos < 0 { "-" } else { "" };
    let (secs, nanos) = (secs.unsigned_abs(), nanos.unsigned_abs());
    if nanos == 0 {
        format!("{sign}{secs}s")
    } else {
        let frac = format!("{nanos:09}");
        format!("{sign}{secs}.{}s", frac.trim_end_matches('0'))
    }
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
