//! agc: a compiler for agentic workflow documents.
//!
//! Data flows one way: [`source`] loads files into spanned trees, [`dialect`] detects the
//! format, [`schema`] validates against the official JSON Schemas, the front ends check and
//! lower, and the back ends emit. Every phase reports [`diag::Diagnostic`]s. A [`session`]
//! (files with unsaved overlays, options) is what the front ends read through, and what the
//! drivers ([`check`], [`compile`]) and the command line ([`cli`]) run on.

// Diagnostics are the error type of every phase; they are built once per finding, off the hot
// path, so their size does not matter.
#![allow(clippy::result_large_err)]
// This crate's documentation is for agc's developers and is built with
// `--document-private-items` (README, CI), where module docs may point at the private modules
// that hold what they describe.
#![allow(rustdoc::private_intra_doc_links)]

pub mod analysis;
pub mod back;
mod beside;
pub mod canon;
pub mod check;
pub mod cli;
pub mod compile;
pub mod diag;
pub mod dialect;
pub mod discard;
pub mod expr;
pub mod front;
pub mod fsio;
pub mod generate;
pub mod hash;
pub mod ir;
pub mod lsp;
pub mod memory;
pub mod schema;
pub mod session;
pub mod source;
