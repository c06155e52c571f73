//! Placeholder driver (replaced by the schema branch's driver on merge).
use crate::diag::Diagnostic;
use crate::source::{Limits, SourceMap, load};
use std::path::Path;

#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    pub limits: Limits,
}

pub fn check_path(
    sources: &mut SourceMap,
    path: &Path,
    display: &str,
    opts: &CheckOptions,
) -> Vec<Diagnostic> {
    match load::load_path(sources, path, display, opts.limits) {
        Ok((_, l)) => l.diags,
        Err(d) => vec![d],
    }
}

pub fn is_candidate(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml" | "json")
    )
}
