//! The Rust spelling of the language-neutral type space (`back::runner::types`): how each
//! [`Ty`] is written in generated Rust.
//!
//! | type | Rust |
//! | --- | --- |
//! | `String` | `String` |
//! | `I64` | `i64` |
//! | `F64` | `f64` |
//! | `Bool` | `bool` |
//! | `Value` | `serde_json::Value` |
//! | `Object` | `serde_json::Map<String, serde_json::Value>` |
//! | `Vec(T)` | `Vec<T>` |
//! | `Map(T)` | `BTreeMap<String, T>` |
//! | `Option(T)` | `Option<T>` |
//! | `Boxed(T)` | `Box<T>` |
//! | `Named` | the definition's name: a struct, a unit enum with `serde` renames, an internally tagged or an untagged enum |

pub use crate::back::runner::types::{DefKind, Field, MAX_DEPTH, Ty, TypeDef, TypeSpace, Variant};

/// A type written as Rust source.
pub trait RustType {
    /// The type as Rust source, with the names of `space`.
    fn rust(&self, space: &TypeSpace) -> String;
}

impl RustType for Ty {
    fn rust(&self, space: &TypeSpace) -> String {
        match self {
            Ty::String => "String".into(),
            Ty::I64 => "i64".into(),
            Ty::F64 => "f64".into(),
            Ty::Bool => "bool".into(),
            Ty::Value => "serde_json::Value".into(),
            Ty::Object => "serde_json::Map<String, serde_json::Value>".into(),
            Ty::Vec(t) => format!("Vec<{}>", t.rust(space)),
            Ty::Map(t) => format!("BTreeMap<String, {}>", t.rust(space)),
            Ty::Option(t) => format!("Option<{}>", t.rust(space)),
            Ty::Boxed(t) => format!("Box<{}>", t.rust(space)),
            Ty::Named(i) => space.defs[*i].name.clone(),
        }
    }
}

/// An empty type space spelt in Rust.
pub fn space() -> TypeSpace {
    TypeSpace::new(&super::names::RUST)
}

#[cfg(test)]
mod tests;
