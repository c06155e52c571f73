//! agc's own codes for expressions (`AGC040`–`AGC049`): limits and decisions where the
//! expression languages' specs are silent.

use super::CodeInfo;
use crate::diag::Severity::Error;

pub(super) static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "AGC040",
        origin: "agc",
        severity: Error,
        summary: "an expression nests too deeply",
        explanation: "agc bounds expression depth before parsing, so that no input can exhaust \
the stack of the compiler, of the evaluator or of a generated runner. Two limits apply: at most \
64 levels of brackets and stacked prefix operators (`((…))`, `!!…`, `- -…`), and a syntax tree at \
most 256 levels deep, which a very long chain of operators (`a + a + a …`, `x && y && …`) can \
reach. The diagnostic points at the token where the limit is crossed. Split the expression: \
compute parts as outputs of earlier nodes, or use `any([...])` / `all([...])` instead of long \
`||` / `&&` chains.",
    },
    CodeInfo {
        code: "AGC041",
        origin: "agc",
        severity: Error,
        summary: "a number literal is out of range",
        explanation: "AGX integer literals are 64-bit signed integers (from -9223372036854775808 \
to 9223372036854775807; a `-` written directly before a literal is part of it). Literals with a \
fraction or an exponent are 64-bit floats, and one beyond the float range (such as `1e999`) is \
refused too rather than silently becoming infinity. The AGS spec does not fix number ranges; \
agc follows JSON's common interoperable range.",
    },
    CodeInfo {
        code: "AGC042",
        origin: "agc",
        severity: Error,
        summary: "a `${{` in a template is never closed",
        explanation: "A template placeholder `${{ … }}` has no closing `}}`. The AGS reference \
implementations leave such text unrendered without a word, which hides the typo; agc refuses \
it. A placeholder closes at the first `}}` outside an AGX string literal. To write a literal \
`${{` in a template, interpolate it as a string: `${{ \"${{\" }}`, which every AGS \
implementation renders as `${{`.",
    },
];
