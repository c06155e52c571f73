//! Codes for the embedded expression languages (CEL, agh `{{ }}` templates).
//!
//! A syntax error is agh's own `unresolvable_path`: agh's linter reports every CEL compile
//! error and every template parse or validation error that is not a reference error under
//! that code (`addRefsError` in `internal/loop/linter.go`). The agh front end shares this
//! registration; agc's own limit gets `AGC050`.

use super::CodeInfo;
use crate::diag::Severity::Error;

pub(super) static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "unresolvable_path",
        origin: "agh",
        severity: Error,
        summary: "an agh reference, CEL condition or `{{ }}` template does not resolve or compile",
        explanation: "agh reports under `unresolvable_path` every reference path it cannot \
resolve, and every CEL condition or Go-template value that does not compile.\n\n\
For CEL conditions (`branch.condition`, `fan-out.filter`, `contract.stop_when`, watch-events \
filters) agc checks the grammar of the CEL language definition: literals (ints, `u` uints, \
doubles, the four string quotings with `r` and `b` prefixes), operators, member access, \
indexing, calls and the macros `has`, `all`, `exists`, `exists_one`, `map` and `filter`. \
Reserved words (`if`, `let`, `while`, ...) cannot be names, message construction `T{..}` is \
rejected because there are no protobuf types, and a macro's variable must be a simple name.\n\n\
For `{{ }}` values agc accepts the subset of Go text/template that agh accepts: text, \
comments, trim markers, field paths (`.inputs.x`, `$.nodes.a.output`), literals, pipelines, \
`if`/`else if`/`else`/`end`, `range` and `with` (which re-scope the dot), and the functions \
`json`, `toJson`, `join`, `default`, `len` and `shellQuote`. Anything else (`printf`, `eq`, \
`index`, `define`, `template`, variables) is rejected with a message naming what is allowed.\n\n\
The diagnostic points at the exact characters inside the string.\n\nIn a Loop, the same code is also: a path the declared schema does not have (`nodes.review.output.bogus`, a child of a scalar input, anything under `generation` or `nodes.<id>.status`), a field of a dot whose `range`/`with` scope is not a plain path, a template function the document's version lacks (`shellQuote` came with compozy.loop/v1; the set is the loop compiler's own function map), a CEL name, function or operand combination that does not compile, a `run-agent` without `agent`/`prompt`, a `run-loop` without `loop` or with a bad `mode`, a `transform` without `map`, and a `file-import` without `pattern`. It is a **warning** (as upstream) when a path reads the output of a node that declares no output schema: the path cannot be proven.",
    },
    CodeInfo {
        code: "AGC050",
        origin: "agc",
        severity: Error,
        summary: "an expression is nested too deeply",
        explanation: "agc bounds expression nesting so that no input can exhaust the stack of \
the compiler, the evaluator or a generated runner: at most 64 nested brackets, unary \
operators or conditionals, and a syntax tree at most 256 levels high (a chain of 300 `&&` \
terms is 300 levels). The CEL language definition asks for at least 32 of each. Split a very \
long expression, or use `in` with a list or a macro instead of long `||` chains.",
    },
];
