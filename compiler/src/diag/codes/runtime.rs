//! Running plans (`agc run`) and generating runners (`agc gen`): agc's own codes.
//!
//! (Codes the schema phase already emits for this dialect live in `schema.rs`.)

use super::CodeInfo;

pub(super) static CODES: &[CodeInfo] = &[];
