//! What a check or compilation is asked for besides its files: the options of a [`Session`].
//!
//! [`Session`]: super::Session

use crate::dialect::Dialect;
use crate::source::Limits;

/// What the driver needs to know besides the file.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    pub limits: Limits,
    /// `--dialect`: skip detection (an Agent Graph document's kind still comes from `schema:`).
    pub dialect: Option<Dialect>,
    /// The workspace root that referenced files may not leave (`--root`). `None`: found from
    /// the root document's path ([`crate::front::detect_root`]: the nearest ancestor folder
    /// holding `.git`, `.hg`, `.jj` or `.agc-root`, else the document's own folder); the
    /// current folder for in-memory input.
    pub root: Option<std::path::PathBuf>,
    /// `--extension`: agh extension manifests that declare the tool schemas of a Loop's
    /// tool-id actions (besides the one found next to the Loop).
    pub extensions: Vec<std::path::PathBuf>,
    /// `agc check`: the graphs' digests (a pass over each whole document) are not computed,
    /// since no plan is written. [`crate::analysis::Compiled::digest`] is then `None`.
    pub no_digest: bool,
    /// `--graph ID` of `build` and `graph`: the one graph they take from a document holding
    /// several (an Agent Graph Provider).
    pub graph: Option<String>,
    /// Whether the check builds the unit's reference index ([`crate::check::Checked::xref`]):
    /// the language server asks for it; the commands do not (it is a walk of the document they
    /// would not use).
    pub xref: bool,
}
