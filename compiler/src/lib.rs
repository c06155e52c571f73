//! agc: a compiler for agentic workflow documents.
//!
//! Data flows one way: [`source`] loads files into spanned trees, [`dialect`] detects the
//! format, [`schema`] validates against the official JSON Schemas, the front ends check and
//! lower, and the back ends emit. Every phase reports [`diag::Diagnostic`]s.

pub mod cli;
pub mod diag;
pub mod expr;
pub mod source;
