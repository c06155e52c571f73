//! agc-runtime: the small crate that plans and generated runners execute on.
//!
//! - [`expr`]: the core expression form shared by every dialect, and (in time) its evaluator.

pub mod expr;
