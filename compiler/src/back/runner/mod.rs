//! What every runner back end shares, whatever language it prints: the plan's declared types
//! as one space of named definitions and type expressions ([`types`]), and names made unique
//! per namespace from a document's words ([`naming`]).
//!
//! A back end brings its [`naming::Lexicon`] (how its identifiers are spelt: case, keywords,
//! names it reserves, doc-comment escaping) and prints the types itself: the Rust back end
//! ([`super::rust`]) prints a [`types::Ty`] as `Option<Vec<i64>>`; a Python runner would add
//! only its lexicon, its printing of the same `Ty` and its templates. Nothing here knows a
//! target language.

pub mod naming;
pub mod types;

#[cfg(test)]
mod tests;
