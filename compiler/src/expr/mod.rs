//! Expression languages: their static types and the one type checker over the core form
//! (`agc_runtime::expr`). The parsers for each language (`agx`, `cel`, `gotmpl`) live in
//! sibling modules and lower into the core form.

pub mod check;
pub mod types;
