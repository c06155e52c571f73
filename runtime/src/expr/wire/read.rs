//! Reading the compact encoding straight from a deserializer, with no JSON value in between
//! for the forms a plan is mostly made of (paths, operators, calls, lists): reading every
//! core expression of a 10k-node plan into a `serde_json::Value` first, then decoding that,
//! was most of the cost of its inputs. The rarer forms (literals in tagged arrays, maps,
//! templates, comprehensions), an unknown tag and the `agc.plan/v1` object form are read
//! into a value and decoded by [`super::decode`] as before.
//!
//! Every error is the one [`super::from_value`] gives for the same JSON, raised only once the
//! whole expression is read (what is left of a node after an error is skipped, still
//! checked as JSON): a deserializer that places an error where it is raised (serde_json)
//! places it where it placed it before.

use super::{BINARY, Expr, ExprKind, Literal, NodeId, UnaryOp};
use super::{decode, from_value, literal, string, take_id};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// A core expression, or the error [`super::from_value`] gives for it.
type Read<T> = Result<T, String>;

/// A core expression (the plan's `core`), read from the deserializer.
impl<'de> Deserialize<'de> for Expr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut next = 0;
        d.deserialize_any(Node {
            next: &mut next,
            top: true,
        })?
        .map_err(de::Error::custom)
    }
}

/// One node of an expression, its id the next of `next` (pre-order); `top` for the
/// expression's root, which may be in the object form.
struct Node<'a> {
    next: &'a mut NodeId,
    top: bool,
}

impl Node<'_> {
    fn literal(self, value: Literal) -> Read<Expr> {
        Ok(Expr {
            id: take_id(self.next),
            kind: ExprKind::Literal { value },
        })
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Read<Expr>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Read<Expr>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Read<Expr>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a core expression")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Read<Expr>, E> {
        Ok(self.literal(Literal::Null))
    }
    fn visit_none<E: de::Error>(self) -> Result<Read<Expr>, E> {
        Ok(self.literal(Literal::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Read<Expr>, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Read<Expr>, E> {
        Ok(self.literal(Literal::Bool(b)))
    }
    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Read<Expr>, E> {
        Ok(self.literal(Literal::Int(i)))
    }
    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Read<Expr>, E> {
        Ok(match i64::try_from(u) {
            Ok(i) => self.literal(Literal::Int(i)),
            Err(_) => Err(literal(&Value::from(u)).expect_err("a u64 above i64::MAX is refused")),
        })
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Read<Expr>, E> {
        // As a JSON value holds it: a non-finite double is `null`.
        Ok(match serde_json::Number::from_f64(x) {
            Some(_) => self.literal(Literal::Double(x)),
            None => self.literal(Literal::Null),
        })
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Read<Expr>, E> {
        Ok(self.literal(Literal::String(s.to_owned())))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Read<Expr>, E> {
        Ok(self.literal(Literal::String(s)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Read<Expr>, A::Error> {
        if self.top {
            let v = Value::deserialize(de::value::MapAccessDeserializer::new(m))?;
            return Ok(from_value(v));
        }
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Err(
            "a core expression node is a JSON array or scalar here".into()
        ))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<Read<Expr>, A::Error> {
        array(s, self.next)
    }
}

/// The rest of a node's array after its tag.
struct Args<'t, 'n, A> {
    seq: A,
    tag: &'t str,
    next: &'n mut NodeId,
}

impl<'de, A: SeqAccess<'de>> Args<'_, '_, A> {
    /// Skips what is left of the node and gives `error` for it.
    fn fail<T>(&mut self, error: String) -> Result<Read<T>, A::Error> {
        while self.seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Err(error))
    }

    fn too_few<T>(&self) -> Read<T> {
        Err(format!("`{}` node has too few elements", self.tag))
    }

    /// The next element, a node.
    fn child(&mut self) -> Result<Read<Box<Expr>>, A::Error> {
        let node = Node {
            next: self.next,
            top: false,
        };
        Ok(match self.seq.next_element_seed(node)? {
            Some(e) => e.map(Box::new),
            None => self.too_few(),
        })
    }

    /// The next element, a name.
    fn name(&mut self) -> Result<Read<String>, A::Error> {
        Ok(match self.seq.next_element::<Text>()? {
            Some(t) => t.name(self.tag),
            None => self.too_few(),
        })
    }

    /// No element left.
    fn done(&mut self) -> Result<Read<()>, A::Error> {
        if self.seq.next_element::<IgnoredAny>()?.is_none() {
            return Ok(Ok(()));
        }
        let error = format!("`{}` node has too many elements", self.tag);
        self.fail(error)
    }
}

/// The value of a read, or (what is left of the node skipped) its error as the node's.
macro_rules! get {
    ($args:ident, $read:expr) => {
        match $read? {
            Ok(v) => v,
            Err(e) => return $args.fail(e),
        }
    };
}

/// A node written as an array: its tag, then what the tag says.
fn array<'de, A: SeqAccess<'de>>(mut seq: A, next: &mut NodeId) -> Result<Read<Expr>, A::Error> {
    let tag = match seq.next_element::<Text>()? {
        Some(Text::Borrowed(t)) => Cow::Borrowed(t),
        Some(Text::Owned(t)) => Cow::Owned(t),
        Some(Text::Other(other)) => {
            let mut args = Args { seq, tag: "", next };
            return args.fail(format!(
                "a core expression tag must be a string, found {other}"
            ));
        }
        None => return Ok(Err("empty core expression node".into())),
    };
    let mut a = Args {
        seq,
        tag: &tag,
        next,
    };
    if tag == "$" {
        return path(a);
    }
    let unary = match &*tag {
        "!" => Some(UnaryOp::Not),
        "neg" => Some(UnaryOp::Neg),
        _ => None,
    };
    let binary = BINARY.iter().find(|b| b.symbol() == tag).copied();
    let read = matches!(
        &*tag,
        "." | "[]" | "?:" | "call" | "method" | "list" | "has"
    );
    if unary.is_none() && binary.is_none() && !read {
        return rare(a);
    }
    let id = take_id(a.next);
    let kind = if let Some(op) = unary {
        ExprKind::Unary {
            op,
            operand: get!(a, a.child()),
        }
    } else if let Some(op) = binary {
        ExprKind::Binary {
            op,
            left: get!(a, a.child()),
            right: get!(a, a.child()),
        }
    } else {
        match &*tag {
            "." => ExprKind::Member {
                target: get!(a, a.child()),
                field: get!(a, a.name()),
            },
            "[]" => ExprKind::Index {
                target: get!(a, a.child()),
                index: get!(a, a.child()),
            },
            "?:" => ExprKind::Conditional {
                cond: get!(a, a.child()),
                then: get!(a, a.child()),
                otherwise: get!(a, a.child()),
            },
            "call" | "method" => {
                let target = match tag == "method" {
                    true => Some(get!(a, a.child())),
                    false => None,
                };
                let function = get!(a, a.name());
                ExprKind::Call {
                    function,
                    target,
                    args: get!(a, rest(&mut a)),
                }
            }
            "list" => ExprKind::List {
                items: get!(a, rest(&mut a)),
            },
            _ => ExprKind::Has {
                target: get!(a, a.child()),
                field: get!(a, a.name()),
            },
        }
    };
    get!(a, a.done());
    Ok(Ok(Expr { id, kind }))
}

/// The remaining elements of a node, each a node.
fn rest<'de, A: SeqAccess<'de>>(a: &mut Args<'_, '_, A>) -> Result<Read<Vec<Expr>>, A::Error> {
    let mut items = Vec::new();
    loop {
        let node = Node {
            next: a.next,
            top: false,
        };
        match a.seq.next_element_seed(node)? {
            Some(Ok(e)) => items.push(e),
            Some(Err(e)) => return Ok(Err(e)),
            None => return Ok(Ok(items)),
        }
    }
}

/// `["$", root, fields...]`: an identifier under its members, numbered once all are read
/// (the outermost member first, in pre-order).
fn path<'de, A: SeqAccess<'de>>(mut a: Args<'_, '_, A>) -> Result<Read<Expr>, A::Error> {
    let mut path: Option<Expr> = None;
    while let Some(t) = a.seq.next_element::<Text>()? {
        let name = get!(a, Ok::<_, A::Error>(t.name("$")));
        let kind = match path {
            None => ExprKind::Ident { name },
            Some(target) => ExprKind::Member {
                target: Box::new(target),
                field: name,
            },
        };
        path = Some(Expr { id: 0, kind });
    }
    let Some(mut e) = path else {
        return Ok(Err("`$` node needs a name".into()));
    };
    let mut node = &mut e;
    loop {
        node.id = take_id(a.next);
        match &mut node.kind {
            ExprKind::Member { target, .. } => node = target,
            _ => break,
        }
    }
    Ok(Ok(e))
}

/// An element read where a string is expected: borrowed from the text when it can be, or
/// whatever else is there (as a value, for the error that names it).
enum Text<'de> {
    Borrowed(&'de str),
    Owned(String),
    Other(Value),
}

impl Text<'_> {
    /// The name it is, or the error [`super::string`] gives.
    fn name(self, tag: &str) -> Read<String> {
        match self {
            Text::Borrowed(t) => Ok(t.to_owned()),
            Text::Owned(t) => Ok(t),
            Text::Other(v) => string(v, tag),
        }
    }
}

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TextVisitor)
    }
}

/// Reads a [`Text`]; what is not a string becomes the value a `serde_json::Value` reads.
struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, t: &'de str) -> Result<Text<'de>, E> {
        Ok(Text::Borrowed(t))
    }
    fn visit_str<E: de::Error>(self, t: &str) -> Result<Text<'de>, E> {
        Ok(Text::Owned(t.to_owned()))
    }
    fn visit_string<E: de::Error>(self, t: String) -> Result<Text<'de>, E> {
        Ok(Text::Owned(t))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Text<'de>, E> {
        Ok(Text::Other(Value::Null))
    }
    fn visit_none<E: de::Error>(self) -> Result<Text<'de>, E> {
        Ok(Text::Other(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Text<'de>, D::Error> {
        Value::deserialize(d).map(Text::Other)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Text<'de>, E> {
        Ok(Text::Other(Value::Bool(b)))
    }
    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Text<'de>, E> {
        Ok(Text::Other(Value::from(i)))
    }
    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Text<'de>, E> {
        Ok(Text::Other(Value::from(u)))
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Text<'de>, E> {
        Ok(Text::Other(Value::from(x)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<Text<'de>, A::Error> {
        Value::deserialize(de::value::SeqAccessDeserializer::new(s)).map(Text::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Text<'de>, A::Error> {
        Value::deserialize(de::value::MapAccessDeserializer::new(m)).map(Text::Other)
    }
}

/// A node of a rarer form, read into a value and decoded as before.
fn rare<'de, A: SeqAccess<'de>>(mut a: Args<'_, '_, A>) -> Result<Read<Expr>, A::Error> {
    let mut items = vec![Value::String(a.tag.to_owned())];
    while let Some(v) = a.seq.next_element::<Value>()? {
        items.push(v);
    }
    Ok(decode(Value::Array(items), a.next))
}
