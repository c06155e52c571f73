//! jq programs (AWP `switch` `when`, `set_state` `jq`, `input_mapping`, `output_mapping`).
//!
//! jq is not one of the languages lowered to the core expression form: agc parses and
//! checks it with jaq, the same crates runners evaluate it with (`agc_runtime::jq`).
//!
//! [`parse_jq`] takes the *decoded* program text and the [`ScalarMap`] of the YAML/JSON
//! string it came from, and reports, each at its exact file span:
//! - a program nesting deeper than `agc_runtime::jq::nesting::MAX_NESTING`: AGC062, found by a
//!   linear pre-scan **before** jaq sees the text (jaq's parser recurses, and 10,000 nested
//!   parentheses would overflow the stack);
//! - lexical and syntax errors: `jq-syntax`;
//! - undefined filters, variables and labels (jaq's compiler, with the core, standard and
//!   JSON definitions): AGC061; `input`, `inputs`, `$ENV` and `$__loc__` are undefined on
//!   purpose (a workflow program sees only the state);
//! - `import` / `include` / `module`: AGC063 (no module search path exists);
//! - calls whose result depends on the host or that AWP's engine treats as failures (`env`,
//!   `now`, `localtime`, `strflocaltime`, `debug`, `stderr`, `halt`, `halt_error`): AGC064,
//!   a warning;
//! - a `def` that calls itself before it can yield or stop (no reachable base case, see
//!   [`recursion`]): AGC065, a warning.
//!
//! A program that passes is returned as a [`JqProgram`] with the state paths it reads
//! (see [`walk`] for exactly what is tracked). All jaq work runs on a dedicated thread with a
//! known stack (`agc_runtime::jq::on_jq_stack`), so callers need no special stack;
//! [`parse_jq_many`] checks a whole workflow's programs on one such thread.
//!
//! Cost: programs are compiled against the *signatures* of jq's library
//! (`agc_runtime::jq::check_filter`), never with the library itself, so a check costs
//! microseconds, not the milliseconds of compiling the standard library again per program.

mod diagnose;
mod locate;
pub mod path;
mod recursion;
mod walk;

pub use path::{JqPath, Seg};
pub use walk::MAX_ALTERNATIVES;

use crate::diag::Diagnostic;
use crate::source::Span;
use crate::source::scalar::ScalarMap;

/// A checked jq program.
#[derive(Clone, Debug)]
pub struct JqProgram {
    /// The program text (decoded), as runners will evaluate it.
    pub source: String,
    /// State paths read, in source order, each with the file span of its path expression.
    pub paths: Vec<(JqPath, Span)>,
    /// Whether the program reads the state as a whole (passes `.` on, or calls a builtin such
    /// as `tostring` or `keys` on it), so every state property counts as read.
    pub whole: bool,
    /// Warnings: calls that make results host-dependent (AGC064), recursion without a
    /// reachable base case (AGC065).
    pub warnings: Vec<Diagnostic>,
}

/// Parses and checks `src`; `map` turns offsets in `src` into file spans.
pub fn parse_jq(src: &str, map: &ScalarMap) -> Result<JqProgram, Vec<Diagnostic>> {
    let analysis = diagnose::analyse(src);
    finish(src.to_string(), map, analysis)
}

/// [`parse_jq`] for many programs at once (one jq thread for all of them): each program's
/// text and the map of its string. Results come in the same order.
pub fn parse_jq_many(
    programs: Vec<(String, &ScalarMap)>,
) -> Vec<Result<JqProgram, Vec<Diagnostic>>> {
    let srcs: Vec<String> = programs.iter().map(|(s, _)| s.clone()).collect();
    let analyses = diagnose::analyse_many(srcs);
    programs
        .into_iter()
        .zip(analyses)
        .map(|((src, map), a)| finish(src, map, a))
        .collect()
}

fn finish(
    source: String,
    map: &ScalarMap,
    analysis: diagnose::Analysis,
) -> Result<JqProgram, Vec<Diagnostic>> {
    if !analysis.errors.is_empty() {
        return Err(analysis
            .errors
            .into_iter()
            .map(|e| e.into_diagnostic(map))
            .collect());
    }
    Ok(JqProgram {
        source,
        paths: analysis
            .paths
            .into_iter()
            .map(|(p, r)| (p, map.span(r.start, r.end)))
            .collect(),
        whole: analysis.whole,
        warnings: analysis
            .warnings
            .into_iter()
            .map(|e| e.into_diagnostic(map))
            .collect(),
    })
}
