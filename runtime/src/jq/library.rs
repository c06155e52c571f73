//! The jq definitions agc compiles every program against (jaq's, then agc's compatibility
//! definitions, all instrumented), and the names a program may call.

use super::instrument;
use super::natives::functions;

/// jaq's core, standard-library and JSON definitions, then agc's jq-compatibility
/// definitions (`compat.jq`, which replace jaq's versions of `join`, `from_entries`,
/// `ltrimstr`, `rtrimstr`, `gamma` and add `leaf_paths`, `@csv`, `@tsv`).
///
/// The definitions are parsed once per process and cloned for each use: every
/// [`super::JqFilter::compile`] loads them, and parsing jaq's library from its text was most of the
/// cost of compiling a small program (`awp-jq` in the bench prints the rate).
pub fn definitions() -> impl Iterator<Item = jaq_core::load::parse::Def<&'static str>> {
    static PRELUDE: std::sync::OnceLock<Vec<jaq_core::load::parse::Def<&'static str>>> =
        std::sync::OnceLock::new();
    PRELUDE
        .get_or_init(|| {
            [instrument::range_def(), instrument::fromjson_def()]
                .into_iter()
                .chain(jaq_core::defs())
                .chain(jaq_std::defs())
                .chain(jaq_json::defs())
                .chain(compat_definitions())
                .map(instrument::def)
                .collect()
        })
        .iter()
        .cloned()
}

/// A library definition, seen with the program's lifetime.
pub(super) fn shorten<'s>(
    d: jaq_core::load::parse::Def<&'static str>,
) -> jaq_core::load::parse::Def<&'s str> {
    d
}

/// The definitions in `compat.jq` (a constant; a test checks that it parses).
pub(super) fn compat_definitions() -> impl Iterator<Item = jaq_core::load::parse::Def<&'static str>>
{
    jaq_core::load::parse(include_str!("compat.jq"), |p| p.defs())
        .into_iter()
        .flatten()
}

/// Every filter name a program may call, with its arity, sorted and without duplicates.
/// Listed once per process: listing parses the whole standard library, and the checker asks
/// for the list on every undefined filter it suggests a name for (that parse was four fifths
/// of the `jq` fuzz target's time).
pub fn known_filters() -> &'static [(&'static str, usize)] {
    static KNOWN: std::sync::OnceLock<Vec<(&'static str, usize)>> = std::sync::OnceLock::new();
    KNOWN.get_or_init(|| {
        let mut names: Vec<_> = definitions()
            .map(|d| (d.name, d.args.len()))
            .chain(functions().map(|(name, args, _)| (name, args.len())))
            .filter(|(name, _)| !name.starts_with('!') && !name.ends_with("_empty"))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    })
}
