//! The code registry: every code agc can emit, with a summary and an explanation.
//!
//! Codes are grouped by who defines them; each group lives in its own file under `codes/`.
//! `agc explain CODE` prints [`CodeInfo::explanation`]. A test checks that every code emitted
//! anywhere in the sources is registered here and has at least one fixture.

mod agc;
mod agent_graph;
mod agh;
mod ags;
mod analysis;
mod awp;
mod cel;
mod codegen;
mod expr;
mod facts;
mod info;
mod jq;
mod restate;
mod run_record;
mod runtime;
mod schema;

pub use info::CodeInfo;

/// All registered codes, group by group.
pub fn all() -> impl Iterator<Item = &'static CodeInfo> {
    agc::CODES
        .iter()
        .chain(analysis::CODES.iter())
        .chain(ags::CODES.iter())
        .chain(schema::CODES.iter())
        .chain(expr::CODES.iter())
        .chain(cel::CODES.iter())
        .chain(jq::CODES.iter())
        .chain(facts::CODES.iter())
        .chain(agent_graph::CODES.iter())
        .chain(awp::CODES.iter())
        .chain(agh::CODES.iter())
        .chain(runtime::CODES.iter())
        .chain(run_record::CODES.iter())
        .chain(codegen::CODES.iter())
        .chain(restate::CODES.iter())
}

/// The registered code with this name (case-insensitive). The renderers ask once per
/// diagnostic, so the exact spelling is found through an index built on first use (a 100k-node
/// graph can have 90k advisories; a scan of the whole registry each time was 0.7% of a check);
/// other spellings (`agc explain ag101`) fall back to the scan.
pub fn lookup(code: &str) -> Option<&'static CodeInfo> {
    static INDEX: std::sync::OnceLock<crate::hash::HashMap<&'static str, &'static CodeInfo>> =
        std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| all().map(|c| (c.code, c)).collect());
    index
        .get(code)
        .copied()
        .or_else(|| all().find(|c| c.code.eq_ignore_ascii_case(code)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_registered_once_with_texts() {
        let mut seen = std::collections::BTreeSet::new();
        for c in all() {
            assert!(seen.insert(c.code), "{} is registered twice", c.code);
            assert!(
                !c.summary.is_empty() && !c.explanation.is_empty(),
                "{}",
                c.code
            );
        }
        assert!(lookup("agc024").is_some());
        for c in all() {
            let found = |spelling: &str| lookup(spelling).map(|f| f.code);
            assert_eq!(found(c.code), Some(c.code));
            assert_eq!(found(&c.code.to_ascii_lowercase()), Some(c.code));
        }
        assert!(lookup("AGC9999").is_none());
    }
}
