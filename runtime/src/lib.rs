//! agc-runtime: the small crate that plans and generated runners execute on.
//!
//! - [`expr`]: the core expression form shared by every dialect, its function tables and its
//!   evaluator ([`expr::eval::eval`]).
//! - [`value`]: runtime values.
//! - [`jq`]: jq evaluation through jaq, bounded (see the module docs).
//! - [`plan`]: the `agc.plan/v1` serde types, the contract between compiler and runtime.
//! - [`run`]: executing plans: the pure scheduler core, the blocking driver, journals, run records.
//! - [`facts`]: Agent Graph fact checks (`path` + `exists` / `equals`).

pub mod expr;
pub mod facts;
pub mod jq;
pub mod plan;
pub mod run;
pub mod value;
