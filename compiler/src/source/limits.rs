//! Resource limits applied while loading, each enforced with a diagnostic.

/// The default size limit of one input, in bytes (256 MiB): far above any real workflow
/// document, params or script file, and low enough that loading it stays within memory. Every
/// file a command reads is held to it ([`crate::fsio::read`]); `--max-file-size` raises it.
pub const DEFAULT_MAX_BYTES: usize = 256 * 1024 * 1024;

/// Limits on what a single input file may cost to load.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest file accepted, in bytes (AGC012).
    pub max_file_bytes: usize,
    /// Deepest nesting of sequences and mappings (AGC013).
    pub max_depth: usize,
    /// Most nodes that alias expansion may copy, beyond the nodes written in the file (AGC014).
    pub max_alias_nodes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_file_bytes: DEFAULT_MAX_BYTES,
            max_depth: 128,
            max_alias_nodes: 100_000,
        }
    }
}
