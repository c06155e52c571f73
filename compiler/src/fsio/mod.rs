//! Every file agc reads or writes on a user's behalf goes through here, so that no command
//! can hang on, exhaust memory with, or destroy what it was pointed at:
//!
//! - [`read`]: the bounded reader (regular files or `-`, a size limit, never blocking on a
//!   FIFO or a device).
//! - [`write`](mod@write): the one file writer (never over an input, atomic, checked).
//! - [`folder`]: output folders (a bundle, a generated crate): refused unless empty or agc's
//!   own, built beside and swapped in.
//! - [`stdout`]: standard output with every write checked, a closed pipe quiet.
//!
//! Why one module: these guarantees hold only if no command opens a file its own way.

pub mod folder;
pub mod read;
pub mod stdout;
pub mod write;

pub use read::{DEFAULT_MAX_BYTES, ReadError, read_text};

/// Whether a diagnostic is an input or output refusal, which the commands exit 2 for (as for
/// usage errors) rather than 1 (findings in a document): a file that cannot be read (AGC001),
/// is over the size limit (AGC012), nests deeper than the limit (AGC013), expands its aliases
/// beyond the budget (AGC014) or is not a regular file (AGC017).
pub fn is_refusal(d: &crate::diag::Diagnostic) -> bool {
    matches!(d.code, "AGC001" | "AGC012" | "AGC013" | "AGC014" | "AGC017")
}
