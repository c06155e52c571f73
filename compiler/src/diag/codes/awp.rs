//! The AWP workflow definition: agc's semantic rules (kebab-case) and the engine's own codes.
//!
//! (Codes the schema phase already emits for this dialect live in `schema.rs`.)

use super::CodeInfo;

pub(super) static CODES: &[CodeInfo] = &[];
