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
    CodeInfo {
        code: "AGC043",
        origin: "agc",
        severity: Error,
        summary: "an expression evaluation exceeded a limit",
        explanation: "Every evaluation of a jq program runs under four limits, so that no \
expression can crash agc or a runner, hang it, or take its memory: recursion (the stack it may \
use, 64 MiB by default, tens of thousands of levels of jq recursion), the depth of the values \
it builds (10,000 levels, jq's own limit for parsing), the memory it may hold (1 GiB) and its \
time (10 s in `agc eval`, 5 s per evaluation in `agc run`). `def f: [f]; f` exceeds the \
first, `reduce range(1e9) as $i (null; [.])` the second, `[range(1e9)]` or `\"x\" * 1e10` \
the third, `last(range(1e18))` or `def f: f; f` the last. jaq has no such checks of its own: \
agc adds them to the program when it compiles it (a check at every function call, every \
iteration and every value built), so every loop and every recursion passes one. An exceeded \
limit is not a jq error: `try`, `?` and `//` do not catch it. `agc eval` exits with status 2; \
in `agc run` a limit exceeded before a node's call (its `when`, its inputs, a decision's \
branch conditions, a switch's cases) fails the node's attempt with class `budget_exceeded`, \
which its retry policy (`retry_on: [budget_exceeded]`, what met the limit evaluated again) \
and its failure edges see like any failed attempt; an edge's guard, evaluated after its \
source ended, fails as any expression error does, by the dialect's rules. The process and \
its journal stay intact, so the run can be resumed. A resumed run does not evaluate again \
what met a limit: whether an evaluation meets the time limit depends on the machine and its \
load, and every limit on the flags the resume is given, so the limit met is journaled \
(`limit_met`) before anything follows from it, and the replay reads it there and takes the \
path the run took; the replay's other evaluations get ten times the time limit, since they \
finished within it before. On Restate, which replays a run without agc's journal, the \
worker makes each step of a plan that evaluates jq a Restate side effect (`ctx.run`) whose \
journaled result is the limits that step met: a limit met fails the node as in a local run, and \
a replay (after a worker crash or a retried invocation) reads it from Restate's journal instead \
of evaluating again; an evaluation that meets a limit in a replay where the live step did not \
fails the invocation, which Restate retries. Raise a limit with \
`--eval-stack MIB`, `--eval-depth N`, `--eval-memory MIB` or `--eval-timeout SECS` on \
`agc eval` and `agc run`, or carry it in the plan: the same flags on `agc build` write the \
plan's `eval_limits`, which every run of the plan uses, on any engine (`agc run`'s own flags \
replace them for that run). AGX, CEL and template expressions are bounded by their evaluator \
(nesting, steps, the size concatenation builds) instead, which a replay meets again exactly.",
    },
];
