//! Dialect front ends: semantic checks with native codes, then lowering into the IR.

pub mod ags;
