//! agh.loop/v1: the upstream linter's and reference checker's codes (snake_case).
//!
//! (Codes the schema phase already emits for this dialect live in `schema.rs`.)

use super::CodeInfo;

pub(super) static CODES: &[CodeInfo] = &[];
