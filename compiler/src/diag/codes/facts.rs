//! agc's codes for Agent Graph fact paths (AGC070–AGC079). Agent Graph defines none: its
//! schema rejects a bad path as a generic `schema.pattern`, and odd paths pass silently.

use super::CodeInfo;
use crate::diag::Severity::{Error, Warning};

pub(super) static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "AGC070",
        origin: "agc",
        severity: Error,
        summary: "invalid Agent Graph fact path",
        explanation: "A fact check's `path` is empty or contains a character other than \
letters, digits, `_`, `-` and `.` (the schema pattern `^[A-Za-z0-9_.-]+$`). Paths are segments \
separated by `.`, e.g. `release.approved` or `targets.0.id`; there is no quoting or escaping, so \
a fact key containing `.` or a space cannot be checked. Rename the fact key.",
    },
    CodeInfo {
        code: "AGC071",
        origin: "agc",
        severity: Warning,
        summary: "empty segment in a fact path",
        explanation: "The path has two dots in a row, or starts or ends with a dot \
(`a..b`, `.a`, `a.`). The schema allows it, and the reference evaluator then looks up the key \
`\"\"`, which facts almost never have; the check is nearly always false (`exists`) or never \
true (`equals`). Remove the extra dot.",
    },
    CodeInfo {
        code: "AGC072",
        origin: "agc",
        severity: Warning,
        summary: "numeric fact path segment is not an array index",
        explanation: "A segment such as `01` or `-1` looks like a position, but the reference \
evaluator indexes arrays only with canonical indices (`0` or `[1-9][0-9]*`); at an array the \
fact is always missing. At an object the segment is an ordinary key. Write `1` for the second \
element; there is no counting from the end.",
    },
];
