//! Expression languages embedded in workflow documents.
//!
//! Each language has its own folder; all of them report spans in the file (through
//! [`crate::source::scalar::ScalarMap`]), not in the decoded string.
//!
//! - [`jq`]: jq programs of AWP documents, parsed and checked with jaq.
//! - [`facts`]: Agent Graph fact checks (`path` + `exists` / `equals`).

pub mod facts;
pub mod jq;
