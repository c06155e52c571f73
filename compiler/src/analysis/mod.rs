//! Analyses over the IR: order, reachability, predecessor queries, static bounds. Every pass is
//! linear or near-linear in nodes + edges (DESIGN principle 10).

pub mod bounds;
mod compiled;
pub mod cycles;
pub mod grouped;
pub mod order;
pub mod preds;

pub use compiled::{Compiled, analyse};
