//! Expression languages embedded in documents, parsed into spanned ASTs and lowered to the
//! core form ([`agc_runtime::expr::Expr`]).
//!
//! Every language folder parses the *decoded* string of a YAML/JSON scalar; its AST spans are
//! byte offsets into that string ([`Local`]). Lowering maps them to file spans through a
//! [`ScalarMap`](crate::source::scalar::ScalarMap) and returns them as a side table indexed by
//! core node id, so diagnostics and later phases land on the exact characters of the file.
//!
//! - [`agx`]: AGS expressions (`when:`, `condition:`, `expr:` ...).
//! - [`template`]: AGS `${{ }}` templates (literal text with embedded AGX).
//! - [`types`] and [`check`]: the static types and the one type checker over the core form.

pub mod agx;
pub mod check;
pub mod template;
pub mod types;

#[cfg(test)]
mod span_tests;

pub use agx::{parse_agx, print};
pub use template::parse_template;

/// A byte range in the decoded string an expression was parsed from.
pub type Local = chumsky::span::SimpleSpan<usize>;
