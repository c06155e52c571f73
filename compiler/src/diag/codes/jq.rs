//! agc's codes for jq programs (AGC061–AGC069, and `jq-syntax`, named in kebab-case like the AWP rules). AWP defines no code for a bad jq program:
//! its engine fails the node at run time (FailNode reasons such as `switch_routing_failed`).

use super::CodeInfo;
use crate::diag::Severity::{Error, Warning};

pub(super) static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "jq-syntax",
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
instead, or remove the debugging call. A run never reads its host through them, since a \
replay (a resumed run, or Restate replaying a run in another worker) evaluates every program \
again: in `agc run` and on Restate `now` is the time of the event the run is handling \
(journaled, so a replay reads the same; the fixed clock's under `--fixed-clock`), `env` is \
`{}`, and `localtime` and `strflocaltime` are UTC's `gmtime` and `strftime`.",
    },
    CodeInfo {
        code: "AGC065",
        origin: "agc",
        severity: Warning,
        summary: "jq recursion without a reachable base case",
        explanation: "A `def` calls itself in a position its body always evaluates before it can \
produce an output or stop: `def f: [f];`, `def f: 1 + f;`, `def f: .a | f;`, \
`def f: f // 1;`. Every call makes another call first, so the recursion never ends; at run \
time it fails when it reaches the recursion limit (AGC043) instead of crashing, but it can \
never succeed. Put the base case first: `def f: if . > 10 then . else .+1 | f end;`. agc \
warns only where it is sure: recursion behind an `if`, an alternative (`… // f`), a `select` \
or an iteration (`.[] | f`), through a filter argument (`map(f)`), mutual recursion, and \
generators that yield before they recurse (`def f: ., f;`, stopped by `limit` or `first`) \
are not flagged.",
    },
];
