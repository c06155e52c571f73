//! YAML 1.2 (and JSON, its subset) → [`Document`](super::tree::Document), driven from saphyr-parser's event stream.
//!
//! We build the tree ourselves from events, with an explicit stack, so that:
//! - nesting depth is checked before it can cost recursion anywhere (AGC013);
//! - alias expansion is charged against a node budget (AGC014), so a "billion laughs" document is
//!   refused in milliseconds;
//! - every key and value gets an exact byte span (saphyr counts chars; we convert);
//! - duplicate keys (AGC004), non-string keys (AGC005), custom tags (AGC006), merge keys
//!   (AGC007), extra documents (AGC008), empty documents (AGC009) and non-JSON numbers (AGC011)
//!   are each a diagnostic, and loading goes on where it safely can, so all are reported.
//!
//! Scalars resolve by the YAML 1.2 core schema (module `resolve`); values and span nodes are
//! assembled bottom up (module `build`).

mod agrees;
pub(super) mod build;
mod loader;
pub(super) mod resolve;
mod split;

#[doc(hidden)]
pub use agrees::split_agrees;
pub use loader::Loaded;
pub(crate) use loader::unrepresentable;

use super::{FileId, Limits};
use loader::load_with;

/// Files from this size on are parsed on a second thread while this one builds the document
/// (see [`load`]); smaller ones are not worth a thread.
const PIPELINE_FROM: usize = 256 * 1024;

/// Parses `text` (the whole file; a leading BOM is skipped by the caller passing `offset`).
///
/// A file of [`PIPELINE_FROM`] bytes or more is parsed on a second thread: saphyr pulls the
/// events out (most of the load's time, the floor `bench/scale.sh` measures) while this
/// thread turns them into the value and span tree, so the two overlap. The result is the
/// same either way (tested); where no thread can be started, one thread does both.
pub fn load(file: FileId, text: &str, offset: usize, limits: Limits) -> Loaded {
    load_lines(file, text, offset, limits, &[])
}

/// [`load`], given the text's line starts (`SourceFile::line_starts`): a file of
/// [`split::SPLIT_FROM`] bytes or more is then cut in two where its layout allows, the second
/// part loaded on a third thread (module `split`); the result is the same.
pub fn load_lines(
    file: FileId,
    text: &str,
    offset: usize,
    limits: Limits,
    line_starts: &[u32],
) -> Loaded {
    if let Some(cut) = split::plan(text, offset, line_starts)
        && let Some(loaded) = split::load(file, text, offset, limits, cut)
    {
        return loaded;
    }
    load_with(
        file,
        text,
        offset,
        limits,
        text.len() - offset >= PIPELINE_FROM,
    )
}

#[cfg(test)]
mod tests;
