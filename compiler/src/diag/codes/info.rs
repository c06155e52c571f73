//! [`CodeInfo`]: one registered code, the leaf every group file under `codes/` builds on.

use crate::diag::Severity;

/// A registered diagnostic code.
#[derive(Debug)]
pub struct CodeInfo {
    pub code: &'static str,
    /// Who defines the code: `agc`, `ags`, `agent-graph`, `awp`, `agh`.
    pub origin: &'static str,
    pub severity: Severity,
    /// One line.
    pub summary: &'static str,
    /// Several paragraphs: what triggers it, why, how to fix it, decisions agc took.
    pub explanation: &'static str,
}
