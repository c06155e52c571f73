//! The command line (clap).

/// Runs agc; returns the process exit status.
pub fn main() -> i32 {
    0
}
