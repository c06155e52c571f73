//! What every expression parser shares: [`Local`] spans (byte ranges into one expression's
//! text) and the codes they report.

/// agh's code for an expression or template that does not compile.
pub const CODE_SYNTAX: &str = "unresolvable_path";
/// agc's code for a CEL expression nested beyond agc's limits.
pub const CODE_TOO_DEEP: &str = "AGC050";

/// A byte range in the decoded string an expression was parsed from.
pub type Local = chumsky::span::SimpleSpan<usize>;
