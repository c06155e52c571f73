//! agc's codes for embedded expression languages: jq (AGC060–AGC069) and Agent Graph fact
//! paths (AGC070–AGC079). Neither AWP nor Agent Graph defines a code for these: AWP fails
//! bad jq only at run time (FailNode reasons such as `switch_routing_failed`), and Agent
//! Graph's schema rejects a bad fact path as a generic `schema.pattern`.

use super::CodeInfo;
use crate::diag::Severity::{Error, Warning};

pub(super) static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "AGC060",
        origin: "agc",
        severity: Error,
        summary: "jq syntax error",
        explanation: "A jq program (an AWP switch `when`, a `set_state` `jq` assignment, an \
`input_mapping` or `output_mapping`) does not lex or parse. agc parses jq with jaq, the same \
implementation runners evaluate it with, and points at the token where parsing failed; for an \
unclosed bracket or string that is the end of the program. AWP's engine would only find this \
when the node runs, failing it with a reason such as `switch_routing_failed`.",
    },
    CodeInfo {
        code: "AGC061",
        origin: "agc",
        severity: Error,
        summary: "undefined jq filter, variable or label",
        explanation: "The jq program calls a filter that does not exist with that number of \
arguments (`lenght`, `map/0`), uses a variable that is not bound (`$x` without `… as $x`), or \
breaks to an unknown label. Filters are jq's builtins as provided by jaq (core, standard and \
JSON libraries) plus the program's own `def`s. `input`, `inputs`, `$ENV` and `$__loc__` are \
deliberately undefined: a workflow program sees only its input, the workflow state. When a \
builtin with a close name exists, the help suggests it.",
    },
    CodeInfo {
        code: "AGC062",
        origin: "agc",
        severity: Error,
        summary: "jq program nests too deeply",
        explanation: "jq parsers are recursive, and so are jaq's compiler and evaluator; a \
program nested thousands of levels deep (`((((…))))`, `[[[[…]]]]`, or a chain of thousands of \
`|`) would overflow the stack. agc measures the nesting with a linear pre-scan before parsing: \
every open bracket, string interpolation and `if … end` counts while open (objects count 2), \
and every operator or nesting keyword counts until its bracket closes. Above 256 the program \
is rejected at the token that crossed the limit. Real programs stay far below (the largest AWP \
example scores under 40). Split the program with `def`s or across several steps.",
    },
    CodeInfo {
        code: "AGC063",
        origin: "agc",
        severity: Error,
        summary: "jq modules are not supported",
        explanation: "`import`, `include` and `module` directives need a module search path \
on the machine that runs the workflow; neither agc nor the runtime has one, and AWP's \
conformance subset lists them under \"avoid\". Define helper filters with `def` inside the \
program instead.",
    },
    CodeInfo {
        code: "AGC064",
        origin: "agc",
        severity: Warning,
        summary: "jq call depends on the host or fails under AWP",
        explanation: "`env`, `now`, `localtime` and `strflocaltime` make a program's result \
depend on the machine or the moment it runs, so replays and golden tests diverge. `debug`, \
`stderr`, `halt` and `halt_error` write to stderr or stop the program: AWP's engine (jq-wasm) \
turns any stderr output into a failure of the node. Pass such values in through the state \
instead, or remove the debugging call.",
    },
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
