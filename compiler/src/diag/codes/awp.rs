//! The AWP workflow definition: agc's semantic rules (kebab-case, named as issue #15 lists
//! them), the engine's own `INTERRUPT_IN_PARALLEL_BRANCH`, the one code of schema failures
//! (`schema`), and agc's further AWP checks (AGC240–AGC259).

use super::CodeInfo;
use crate::diag::Severity::{Error, Warning};

pub(super) static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "schema",
        origin: "agc",
        severity: Error,
        summary: "the AWP workflow definition does not match its JSON Schema",
        explanation: "The document fails the reference engine's JSON Schema \
(`https://agent-workflow.dev/schemas/workflow-definition.json`, embedded verbatim) at this place. \
Every schema failure of an AWP document carries this one code, as the upstream validator (Ajv) \
reports them all as `VALIDATION_ERROR`; the message names the failing JSON Schema keyword \
(`additionalProperties`, `required`, `enum`, `type`, `minItems`, ...) and the diagnostic carries \
the instance pointer. Typical causes: a top-level key other than `document`, `state_schema`, \
`nodes`, `edges`, `checkpointing` (AWP has no `extensions` block and no root `$schema`), a node \
`type` outside the twelve node shapes, an `agent_delegate` `protocol` other than `a2a`, `mcp`, \
`sdk`, or a missing required field. Signature blocks (`document.signature`, top-level \
`signature`) are stripped before validation, as the AWP transport does.",
    },
    CodeInfo {
        code: "duplicate-node-id",
        origin: "agc",
        severity: Error,
        summary: "two nodes share an id",
        explanation: "Node ids name nodes in edges, switch cases and parallel branches, so they \
must be unique. The reference engine builds its lookup map silently keeping the last node of an \
id, so the first one can never run; agc reports every repeated id at the later node's `id`, with \
the first one labelled.",
    },
    CodeInfo {
        code: "edge-endpoint-missing",
        origin: "agc",
        severity: Error,
        summary: "an edge source or target names no node",
        explanation: "Every edge `source` and `target` must be the id of a node; the one \
exception is the synthetic source `__start__`, which marks where execution begins (it is never \
a valid target). The reference engine finds a missing endpoint only when its walker reaches the \
edge (\"Edge references unknown node id\"). The help suggests a close node id when there is one.",
    },
    CodeInfo {
        code: "switch-target-missing",
        origin: "agc",
        severity: Error,
        summary: "a switch case `target` or `default` names no node",
        explanation: "A `switch` routes to the `target` of its first case whose jq `when` \
yields neither `false` nor `null`, else to its `default`. A target that is no node id fails the \
run when that case is taken (\"switch … resolved to unknown target\"). agc checks every case and \
the default at compile time.",
    },
    CodeInfo {
        code: "branch-entry-missing",
        origin: "agc",
        severity: Error,
        summary: "a parallel branch `entry` names no node",
        explanation: "Each branch of a `parallel` node starts at the node named by its `entry`. \
An entry that is no node id fails the parallel node at run time. (RFC-03's inline `nodes` \
branch form is not part of the engine profile and is rejected by the schema.)",
    },
    CodeInfo {
        code: "start-edge-missing",
        origin: "agc",
        severity: Error,
        summary: "no edge leaves `__start__`",
        explanation: "Execution begins at the target of the one edge whose `source` is the \
synthetic `__start__`. Without such an edge the reference engine refuses to run the workflow \
(\"Workflow graph walker requires exactly one edge from `__start__`\"). Add \
`{source: __start__, target: <your start node>}`. The diagnostic points at `edges`.",
    },
    CodeInfo {
        code: "start-edge-multiple",
        origin: "agc",
        severity: Error,
        summary: "more than one edge leaves `__start__`",
        explanation: "There must be exactly one edge from `__start__`: the engine has one \
entry point and refuses a definition with several. agc reports every edge from `__start__` \
after the first, with the first labelled.",
    },
    CodeInfo {
        code: "start-node-count",
        origin: "agc",
        severity: Error,
        summary: "the workflow does not have exactly one `start` node",
        explanation: "The reference engine's graph walker requires exactly one node of type \
`start` (RFC-03 says \"at most one\"; agc follows the engine, which is what runs the \
workflow). With none the diagnostic points at `nodes`; with several, at each `start` node after \
the first.",
    },
    CodeInfo {
        code: "end-node-count",
        origin: "agc",
        severity: Error,
        summary: "the workflow does not have exactly one `end` node",
        explanation: "The reference engine's graph walker requires exactly one node of type \
`end`; its `output_mapping` gives the run's result. With none the diagnostic points at `nodes`; \
with several, at each `end` node after the first.",
    },
    CodeInfo {
        code: "multiple-outgoing-edges",
        origin: "agc",
        severity: Error,
        summary: "a node other than a switch has more than one outgoing edge",
        explanation: "AWP edges carry no condition: fan-out is only possible through a `switch` \
(its cases route) or a `parallel` (its branches fork; its one edge names the join target). \
Every other node type must have exactly one outgoing edge, and the engine refuses a second one \
at run start. agc reports each extra edge at the edge, with the first one labelled. A `switch` \
may have static edges, but the engine ignores them for routing.",
    },
    CodeInfo {
        code: "n-of-m-exceeds-branches",
        origin: "agc",
        severity: Error,
        summary: "a `n_of_m` join waits for more branches than the parallel has",
        explanation: "A parallel node with `join: n_of_m` completes when `n` of its branches \
succeeded; the engine requires `1 ≤ n ≤ number of branches` and fails the node at run time \
otherwise. The diagnostic points at `n`.",
    },
    CodeInfo {
        code: "duration-invalid",
        origin: "agc",
        severity: Error,
        summary: "a duration string does not follow the engine's grammar",
        explanation: "The reference engine parses durations with `^\\d+\\s*(ms|s|m|h)?$` \
(case-insensitive, after trimming): a whole number, optionally followed by `ms`, `s`, `m` or \
`h`; a bare number is milliseconds. ISO-8601 durations (`PT30S`), decimals (`1.5s`), days \
(`2d`), compound forms (`1h30m`) and negative values are rejected, but only at run time \
(\"duration: cannot parse duration string\"). agc checks every duration at compile time: node \
`timeout`, `retry.initial_interval`, `retry.max_interval`, `wait` `duration`, and also the \
`timeout` of `interrupt` and `parallel` configs, which the engine accepts but never parses \
(agc holds them to the same grammar so that they mean something when an engine honours them).",
    },
    CodeInfo {
        code: "until-invalid",
        origin: "agc",
        severity: Error,
        summary: "a `wait` `until` is not an ISO-8601 date or date-time",
        explanation: "A `wait` node of kind `until` sleeps until the timestamp in `until`. The \
engine reads it with JavaScript's `Date.parse`, which returns NaN for text it cannot read and \
then fails the node. agc accepts the ISO-8601 forms `Date.parse` is specified to read: \
`YYYY`, `YYYY-MM`, `YYYY-MM-DD`, optionally followed by `THH:MM`, `THH:MM:SS` or \
`THH:MM:SS.sss` and a zone `Z`, `±HH:MM` or `±HHMM` (which V8 also reads), with every field in range. Other formats that a \
particular JavaScript engine may happen to accept (`Nov 30 2026`) are refused: they are not \
portable.",
    },
    CodeInfo {
        code: "reducer-unsupported",
        origin: "agc",
        severity: Error,
        summary: "a state property's `reducer` is not `overwrite`, `append` or `merge`",
        explanation: "Each top-level property of `state_schema` may say how node outputs merge \
into it: `overwrite` (the default), `append` (arrays concatenate, other values are pushed) or \
`merge` (a recursive merge of objects, although the docs say shallow). The engine refuses \
`custom` when a run starts (not at validation), and fails any other value only when the key is \
first written (\"Unknown reducer\"). agc refuses both at the reducer.",
    },
    CodeInfo {
        code: "version-pin-invalid",
        origin: "agc",
        severity: Error,
        summary: "a subworkflow `version_pin` is not a SHA-256 hex digest",
        explanation: "A subworkflow's `version_pin` is compared with the SHA-256 of the child \
definition's canonical JSON, written as 64 lowercase hexadecimal digits; it is not a semantic \
version. Anything else can never match, so the engine fails the node with \"version_pin \
mismatch\". agc requires exactly 64 characters of `0-9a-f` (uppercase digits never equal \
Node's lowercase digest, so they are refused too).",
    },
    CodeInfo {
        code: "branch-not-converging",
        origin: "agc",
        severity: Error,
        summary: "a parallel branch does not reach the parallel's join target",
        explanation: "A parallel node has exactly one outgoing edge; its target is the join \
target, which runs once after the branches. Each branch starts at its `entry` and follows \
edges (through switches, by their cases, and through nested parallels, by their own join \
target) until it reaches the join target. A branch from which some node cannot reach the join \
target (it ends at the `end` node, stops at a node without edges, or loops forever) makes the \
engine fail the branch or never finish it. The diagnostic points at the branch and labels the \
nearest node of the branch (fewest edges from its entry; the entry itself when it is one) that \
cannot reach the join target. All branches of a parallel are walked together, so branches that \
share a long tail before the join target cost it once.",
    },
    CodeInfo {
        code: "INTERRUPT_IN_PARALLEL_BRANCH",
        origin: "awp",
        severity: Error,
        summary: "an `interrupt` node lies on a parallel branch",
        explanation: "The reference engine's own validation rule (keyword `profile`): human \
interrupts cannot suspend one branch of a parallel node, so an `interrupt` reachable from a \
branch entry before the join target is refused, both when validating and at run time. agc \
reports it at the interrupt node, with the engine's message. Move the interrupt before the \
parallel node or after its join target.",
    },
    CodeInfo {
        code: "AGC240",
        origin: "agc",
        severity: Warning,
        summary: "a node can never run",
        explanation: "No path leads to this node from the target of the `__start__` edge. \
Paths follow static edges, switch cases and defaults (a switch's own static edges are ignored \
by the engine, so they do not count), and parallel branches and join targets. The node is \
dead code: remove it or connect it.",
    },
    CodeInfo {
        code: "AGC241",
        origin: "agc",
        severity: Warning,
        summary: "a declared state property is never read",
        explanation: "No jq program of the workflow reads this top-level `state_schema` \
property and nothing reads the whole state: an `end` without `output_mapping` returns the \
whole state, an `llm_call` without `user_prompt` or `prompt` sends it as the user message, a \
`step` handler receives it, and a jq program that passes `.` on (`tostring`, `keys`, `.[]`) \
reads all of it. It may still be \
written by nodes and given as input, but nothing in the workflow uses it. Remove it, or read it \
where it was meant to be used.",
    },
    CodeInfo {
        code: "AGC242",
        origin: "agc",
        severity: Error,
        summary: "a jq program reads a state path the state schema cannot have",
        explanation: "The jq input of every AWP program is the workflow state, which the engine \
validates against `state_schema` after every change. This path can therefore never hold a \
value: it names a property an object with `additionalProperties: false` does not declare, \
reads a field of a value the schema types as a string, number, boolean or array, or indexes \
or iterates a scalar. jq would return `null` or fail with \"Cannot index\" at run time. Fix the \
path or declare the property.",
    },
    CodeInfo {
        code: "AGC243",
        origin: "agc",
        severity: Warning,
        summary: "a jq program reads a state path the state schema says nothing about",
        explanation: "The path goes through a part of the state the schema leaves open: a \
property that is not declared (the object allows additional properties), or a value without a \
`type`. The program may be right (nodes can write undeclared keys, which use the `overwrite` \
reducer), but agc cannot check it, and a typo here reads `null` silently. Declare the property \
in `state_schema` to have it checked.",
    },
    CodeInfo {
        code: "AGC244",
        origin: "agc",
        severity: Warning,
        summary: "a switch `when` can only yield a value that is always truthy",
        explanation: "The engine takes a switch case when its `when` yields anything but \
`false` or `null`: `\"\"`, `0` and `[]` count as true. A program that can only yield a string, \
number, array or object (by the state schema's type of the path it returns, or by being such \
a literal) therefore always matches, and the cases after it never run. Compare the value \
instead (`.status == \"open\"`).",
    },
    CodeInfo {
        code: "AGC245",
        origin: "agc",
        severity: Error,
        summary: "a node other than `end` or `switch` has no outgoing edge",
        explanation: "Every node type except `end` (which finishes the run) and `switch` (which \
routes by its cases) needs exactly one outgoing edge; for a `parallel` node that edge names \
its join target. The engine refuses such a graph when the run starts.",
    },
    CodeInfo {
        code: "AGC246",
        origin: "agc",
        severity: Error,
        summary: "the `end` node has an outgoing edge",
        explanation: "The `end` node finishes the run; the engine requires it to have no \
outgoing edge. Remove the edge, or end the workflow elsewhere.",
    },
    CodeInfo {
        code: "AGC247",
        origin: "agc",
        severity: Error,
        summary: "a subworkflow or agent_delegate node lies on a parallel branch",
        explanation: "The engine runs parallel branches node by node on one shared state and \
supports only start, step, llm_call, tool_call, switch, nested parallel, wait and set_state \
nodes there; a `subworkflow` or `agent_delegate` node inside a branch fails the run \
(\"Unsupported node type … inside parallel branch\"). Move it before the parallel node or after \
its join target. (An `end` inside a branch is reported as `branch-not-converging`, an \
`interrupt` as `INTERRUPT_IN_PARALLEL_BRANCH`.)",
    },
    CodeInfo {
        code: "AGC248",
        origin: "agc",
        severity: Error,
        summary: "the checkpointing policy is not one the engine knows",
        explanation: "`checkpointing.strategy` (or its alias `policy`) must be \
`after_each_node` (the default), `every_n_nodes` (alias `interval`) with an integer `n` (alias \
`interval`) of at least 1, or `disabled` (aliases `off`, `none`). The engine refuses anything \
else when the run starts (\"checkpointing: unknown strategy\", \"requires integer n ≥ 1\"). The \
`storage` block of RFC-03 is accepted and ignored, as upstream does.",
    },
    CodeInfo {
        code: "AGC249",
        origin: "agc",
        severity: Error,
        summary: "a `set_state` literal or key the state schema refuses",
        explanation: "The engine validates the whole state against `state_schema` after every \
change and fails the run (\"State invalid after …\") when it does not match. A `set_state` \
assignment of a `literal` whose JSON type is not among the property's `type`s (with the \
default `overwrite` reducer; `append` and `merge` combine values, so they are not checked \
here), or of a key that a state with `additionalProperties: false` does not declare, can \
never pass. (Assignments computed by jq are not typed statically: `agc run` validates the \
state after every node, as the engine does, and fails the node with AGC328.)",
    },
    CodeInfo {
        code: "AGC250",
        origin: "agc",
        severity: Error,
        summary: "a node is named `__start__`",
        explanation: "`__start__` is the synthetic source of the workflow's entry edge. The \
schema and upstream's engine let a node take that id, but then no edge can leave the node: an \
edge with `source: __start__` is read as an entry point, and the engine requires exactly one \
(`start-edge-multiple`). The node could only run as the target of some edge, and could never \
pass control on. agc refuses the name (a stricter check than upstream's) and does not report \
the node's missing out-edge or reachability as well. Rename the node.",
    },
];
