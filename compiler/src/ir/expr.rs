//! Expressions as the IR keeps them: source text, language, file span, and (for AGX and CEL)
//! the core form.

use crate::source::Span;
use agc_runtime::expr::Expr;
use serde::Serialize;

/// The language an expression is written in (the plan's own type).
pub use agc_runtime::plan::ExprLang;

/// An expression in the IR.
#[derive(Clone, Debug, Serialize)]
pub struct IrExpr {
    pub lang: ExprLang,
    /// The text as written (decoded from its YAML scalar).
    pub source: crate::source::Str,
    /// The core form, when the language lowers into it (AGX, CEL, templates). Shared: a front
    /// end that parsed it for its checks hands the same tree to the IR.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub core: Option<std::sync::Arc<Expr>>,
    #[serde(skip)]
    pub span: Span,
}

/// A declared type, by name, as the plan shows it (`integer`, `array`, `object`, `any`...).
pub type TypeName = crate::source::Str;
