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
//! - [`cel`]: CEL conditions (agh `branch.condition`, `fan-out.filter`, `contract.stop_when`,
//!   watch-events filters).
//! - [`gotmpl`]: agh's `{{ }}` values, the Go text/template subset agh accepts.
//! - [`jq`]: jq programs of AWP documents, parsed and checked with jaq (which also runs them).
//! - [`facts`]: Agent Graph fact checks (`path` + `exists` / `equals`).
//! - [`types`] and [`check`]: the static types and the one type checker over the core form.
//!
//! Codes: AGX and template syntax errors are AGS `AG204`; a CEL or `{{ }}` syntax error is agh's
//! own `unresolvable_path` (agh's linter reports every CEL compile error and template parse
//! error under that code); agc's own nesting limits are `AGC040` (AGX) and `AGC050` (CEL).

pub mod agx;
pub mod cel;
pub mod check;
pub mod facts;
pub mod gotmpl;
pub mod jq;
mod local;
pub mod template;
pub mod types;

#[cfg(test)]
mod span_tests;

pub use agx::{parse_agx, print};
pub use cel::{parse_cel, print_cel};
pub use gotmpl::parse_gotmpl;
pub use local::{CODE_SYNTAX, CODE_TOO_DEEP, Local};
pub use template::parse_template;
