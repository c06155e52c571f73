//! Agent Graph fact paths (`requiresFacts` / `satisfiedBy` entries: `{ path, exists | equals }`).
//!
//! Grammar, as the reference implementation reads it (`getFact` splits on `.`): a path is
//! one or more segments separated by `.`, each of `[A-Za-z0-9_-]`. There is **no quoting or
//! escaping**: the schema pattern `^[A-Za-z0-9_.-]+$` leaves no character for it, so agc adds
//! none (a key containing `.` or a space cannot be addressed by a fact check). A segment that
//! is a canonical integer (`0`, `[1-9][0-9]*`) indexes arrays; at an object it is a key.
//!
//! Diagnostics, each at the exact characters:
//! - AGC070 (error): empty path, or a character outside `[A-Za-z0-9_.-]` (the schema pattern);
//! - AGC071 (warning): an empty segment (`a..b`, `.a`, `a.`): legal, but it can only match an
//!   object key `""`, which is almost always a typo;
//! - AGC072 (warning): a numeric segment that is not a canonical index (`01`, `-1`): at an
//!   array it never matches, because the reference lookup requires `0|[1-9][0-9]*`.
//!
//! Evaluation is in the runtime ([`agc_runtime::facts`]), because runners check facts too.

use crate::diag::Diagnostic;
use crate::source::Span;
use crate::source::scalar::ScalarMap;

pub use agc_runtime::facts::{FactTest, array_index, check_fact, eval_fact};

/// One segment of a fact path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactSeg {
    pub text: String,
    /// The segment's characters in the file.
    pub span: Span,
    /// `Some(i)` when the segment can index an array.
    pub index: Option<usize>,
}

/// A parsed fact path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactPath {
    /// The path as written.
    pub text: String,
    pub segments: Vec<FactSeg>,
}

impl FactPath {
    /// The fact's value in `facts`, `None` when missing (see [`eval_fact`]).
    pub fn eval<'v>(&self, facts: &'v serde_json::Value) -> Option<&'v serde_json::Value> {
        eval_fact(&self.text, facts)
    }
}

/// `-?[0-9]+`: looks like a position.
fn is_numeric(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Parses a fact path; `map` turns offsets in `src` into file spans.
///
/// Returns the path (`None` if there is an error) and every diagnostic, errors and warnings.
pub fn parse_fact_path(src: &str, map: &ScalarMap) -> (Option<FactPath>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    if src.is_empty() {
        diags.push(
            Diagnostic::new("AGC070", "fact path is empty")
                .at(map.span(0, 0))
                .with_help("name a fact, e.g. `release.approved` or `items.0.id`"),
        );
        return (None, diags);
    }
    for (i, c) in src.char_indices() {
        if !allowed(c) {
            diags.push(
                Diagnostic::new("AGC070", format!("`{}` cannot appear in a fact path", c.escape_default()))
                    .at(map.span(i, i + c.len_utf8()))
                    .with_help("fact paths use only letters, digits, `_`, `-`, and `.` between segments; there is no quoting"),
            );
        }
    }
    let mut segments = Vec::new();
    let mut start = 0;
    for text in src.split('.') {
        let end = start + text.len();
        let span = map.span(start, end);
        if text.is_empty() {
            let at = if start > 0 { start - 1 } else { 0 };
            diags.push(
                Diagnostic::new("AGC071", "empty segment in fact path")
                    .at(map.span(at, (at + 1).min(src.len())))
                    .with_help(
                        "an empty segment only matches a fact key `\"\"`; remove the extra `.`",
                    ),
            );
        } else if is_numeric(text) && array_index(text).is_none() {
            diags.push(
                Diagnostic::new("AGC072", format!("`{text}` is not an array index"))
                    .at(span)
                    .with_help("array positions are written `0`, `1`, `2`, …; this segment only matches an object key"),
            );
        }
        segments.push(FactSeg {
            text: text.to_string(),
            span,
            index: array_index(text),
        });
        start = end + 1;
    }
    let failed = diags.iter().any(Diagnostic::is_error);
    let path = (!failed).then(|| FactPath {
        text: src.to_string(),
        segments,
    });
    (path, diags)
}
