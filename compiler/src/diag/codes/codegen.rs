//! Generating runners (`agc gen rust`): agc's codes AGC340–AGC359.

use super::CodeInfo;
use crate::diag::Severity::Error;

pub(super) static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "AGC340",
        origin: "agc",
        severity: Error,
        summary: "`agc gen rust --crate-name` is not a valid crate name",
        explanation: "The generated crate's package name must be a name Cargo accepts and that \
needs no escaping anywhere it is written: ASCII letters, digits, `-` and `_`, starting with a \
letter, at most 64 characters. agc refuses other names (exit status 2) rather than rewriting \
them, since the name is what other crates depend on. Without `--crate-name`, the name is the \
last `/` segment of the graph id in kebab-case plus `-runner`.",
    },
    CodeInfo {
        code: "AGC341",
        origin: "agc",
        severity: Error,
        summary: "`agc gen rust --runtime` is neither `path=DIR` nor `version=REQ`",
        explanation: "The generated crate depends on `agc-runtime`; `--runtime` says how: \
`path=DIR` writes a path dependency (DIR relative to the generated crate, as Cargo reads it), \
`version=REQ` a registry version requirement. Anything else is a usage error (exit status 2). \
Without `--runtime`, the dependency is `version =` the running agc's own version.",
    },
];
