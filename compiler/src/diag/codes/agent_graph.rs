//! Agent Graph v1 (`@c4a/agent-graph`): the loader's codes, kebab-case, and agc's Agent Graph lints.
//!
//! (Codes the schema phase already emits for this dialect live in `schema.rs`.)

use super::CodeInfo;

pub(super) static CODES: &[CodeInfo] = &[];
