//! agc-runtime: the small crate that plans and generated runners execute on.
//!
//! - [`expr`]: the core expression form shared by every dialect, its function tables and its
//!   evaluator ([`expr::eval::eval`]).
//! - [`value`]: runtime values.
//! - [`held`]: bytes held per thread (a counting global allocator), for evaluation limits.
//! - [`jq`]: jq evaluation through jaq, bounded (see the module docs; feature `awp`, default
//!   on).
//! - [`json`]: JSON text of serde values as serde_json writes it, faster (run records, journal
//!   lines).
//! - [`plan`]: the `agc.plan/v5` serde types (v4, v3, v2 and v1 plans still read), the contract between compiler and runtime.
//! - [`run`]: executing plans: the pure scheduler core, the async driver, journals, run records.
//! - [`facts`]: Agent Graph fact checks (`path` + `exists` / `equals`).
//! - [`agent_graph`]: Agent Graph v1 evaluation and routing (feature `agent-graph`, default on).
//!
//! # Features
//!
//! Each dialect's heavier support is a cargo feature, all on by default: `awp` (jq, through
//! jaq) and `agent-graph` (evaluation and routing, with ICU's collator). Running AGS, agh
//! and Agent Graph plans needs neither; [`plan::Plan::runtime_features`] says what a plan
//! needs, and a plan that needs a feature this build lacks does not start
//! ([`plan::Plan::index`] fails). Runners from `agc gen rust` turn the defaults off and name
//! only those. `sqlite` (off by default) adds a SQLite journal.

#[cfg(feature = "agent-graph")]
pub mod agent_graph;
pub mod expr;
pub mod facts;
pub(crate) mod hash;
pub mod held;
#[cfg(feature = "awp")]
pub mod jq;
pub mod json;
pub mod plan;
pub mod run;
pub mod typed;
pub mod value;

/// Includes the runner that `agc-build` wrote into this crate's `OUT_DIR` from its build
/// script: `agc_runtime::include_runner!("release");` defines the module `release` (its
/// `Handlers`, `Hooks`, `Params`, `run`, `resume`, ...), as `tonic::include_proto!` does for
/// protobuf. The name is the module `agc-build` wrote (`OUT_DIR/<name>.rs`).
#[macro_export]
macro_rules! include_runner {
    ($module:literal) => {
        include!(concat!(env!("OUT_DIR"), "/", $module, ".rs"));
    };
}
