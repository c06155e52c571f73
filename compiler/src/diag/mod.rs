//! Diagnostics: one type for every phase, one registry of codes, one module that renders.
//!
//! Phases never print: they return [`Diagnostic`]s (errors are data). [`render`] turns them into
//! human text (ariadne), JSON, SARIF 2.1.0 or GitHub workflow annotations.

pub mod codes;
mod diagnostic;
pub mod render;
mod severity;
pub mod suggest;

pub use codes::{CodeInfo, lookup};
pub use diagnostic::{Diagnostic, Fix, Label, sort};
pub use severity::Severity;
