//! agc-runtime: the small crate that plans and generated runners execute on.
//!
//! - [`expr`]: the core expression form shared by every dialect, its function tables and its
//!   evaluator ([`expr::eval::eval`]).
//! - [`value`]: runtime values.

pub mod expr;
pub mod value;
