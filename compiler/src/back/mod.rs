//! Back ends: they read a checked IR and never fail on it.

pub mod dot;
pub mod mermaid;
pub mod plan;
pub mod runner;
pub mod rust;
