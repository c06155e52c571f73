//! Expression languages embedded in documents, each parsed with exact file spans and lowered
//! to the core form [`agc_runtime::expr::Expr`].
//!
//! - [`cel`]: CEL conditions (agh `branch.condition`, `fan-out.filter`, `contract.stop_when`,
//!   watch-events filters).
//! - [`gotmpl`]: agh's `{{ }}` values, the Go text/template subset agh accepts.
//!
//! Every parser returns `Ok((expr, spans))` with `spans[id]` the file span of node `id` (ids in
//! pre-order from 0), or every diagnostic it found. Spans are file spans: offsets inside the
//! decoded string go through the string scalar's [`crate::source::scalar::ScalarMap`].
//!
//! Codes: a syntax error in either language is agh's own `unresolvable_path` (agh's linter
//! reports every CEL compile error and template parse error under that code, so documents
//! diff cleanly against agh's linter). Exceeding agc's nesting limit is agc's `AGC050`: it is
//! agc's own limit, stricter than cel-go's, so it gets an agc code.

pub mod cel;
pub mod gotmpl;

pub use cel::{parse_cel, print_cel};
pub use gotmpl::parse_gotmpl;

/// agh's code for an expression or template that does not compile.
pub const CODE_SYNTAX: &str = "unresolvable_path";
/// agc's code for an expression nested beyond agc's limits.
pub const CODE_TOO_DEEP: &str = "AGC050";
