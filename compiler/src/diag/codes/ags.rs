//! AGS 1.0 codes (SPEC §18). The codes and their meaning are the spec's; the explanations are
//! agc's, including the decisions agc took where the spec is silent.

use super::CodeInfo;
use crate::diag::Severity::{self, Error, Warning};

/// An AGS code (origin `ags`); `run_record.rs` registers the spec's RT codes with it too.
pub(super) const fn ags(
    code: &'static str,
    severity: Severity,
    summary: &'static str,
    explanation: &'static str,
) -> CodeInfo {
    CodeInfo {
        code,
        origin: "ags",
        severity,
        summary,
        explanation,
    }
}

pub(super) static CODES: &[CodeInfo] = &[
    ags(
        "AG001",
        Error,
        "the document does not match the AGS 1.0 JSON Schema",
        "Layer 1: the document fails the official schema `agentic-graph-1.0.schema.json` at this \
place, for a reason that has no more specific code (a wrong type, a missing required field, a \
pattern mismatch). The message names the failing rule.

The schema's rules hold for a node as `defaults` leave it, too: `join: n_of` requires \
`join_count`, and `defaults` can set `join` but not `join_count`, so a node that inherits \
`defaults.join: n_of` without setting its own `join_count` is AG001 (agc does not make up a \
count). A node without incoming edges (an entrypoint) never waits on its join, so an inherited \
one is not judged there (neither here nor by AG116).

Codes as the AGS reference validators (Python and Rust, 1.0.4) give them: a document with an \
`ags_version` is an AGS document whatever its `kind` says, so a `kind` other than \
`AgenticGraph` is AG001 (the schema's `const`), not AGC020 (an AGS run record, \
`kind: AgenticGraphRun`, stays apart). AG001 also stands beside AG002 when the version fails \
the schema (`2.0` its pattern, an unquoted `1.0` its type), and beside AG101 when a node lacks \
the block its type requires (the schema's `required`): the same finding, under agc's code and \
the references'.",
    ),
    ags(
        "AG002",
        Error,
        "unsupported `ags_version`",
        "agc implements AGS 1.0. The schema's pattern `^1\\.[0-9]+$` accepts `1.1`, but the spec \
requires validators to fail closed on a newer minor version, since its features are unknown. \
agc accepts exactly `\"1.0\"`. Where the version also fails the schema (a `2.0` its pattern, \
an unquoted `1.0` its type), AG001 stands beside AG002, as the AGS reference validators give \
both; a `1.1` (the pattern holds) is AG002 alone.",
    ),
    ags(
        "AG003",
        Error,
        "unknown field",
        "Every AGS object is closed: only the fields the spec defines, plus extension members \
named `x-…`, are allowed. Check the spelling, or prefix the field with `x-` to keep it as an \
extension.",
    ),
    ags(
        "AG004",
        Error,
        "unknown enum value",
        "The field takes one of a fixed set of values (an enum in the AGS schema), and the value given is not one of them. The message lists the allowed values and, when the value is a near miss, suggests the closest one. Enum values are case-sensitive.",
    ),
    ags(
        "AG005",
        Error,
        "duplicate key",
        "A YAML mapping repeats a key. AGS documents stay within the JSON data model, where keys \
are unique; agc labels the first occurrence. Like the AGS reference validators, agc gives \
AG005 alone for a repeated key; it checks on with the first value (the references stop at the \
duplicate), so where that value itself breaks the schema, its AG001 stands beside AG005.",
    ),
    ags(
        "AG101",
        Error,
        "type block does not match `type`",
        "A node carries the configuration block of a different node type (for example `loop:` \
on a `type: task`), or lacks the block its type requires. For a missing block (a `type: loop` \
without `loop:`) the AGS reference validators give the schema's AG001; agc keeps its more \
precise AG101 and gives AG001 beside it, so a CI job moved from the references sees its code.",
    ),
    ags(
        "AG102",
        Error,
        "`intelligence` on a gate",
        "Gates are decided by people or policy, not by a model; they take no `intelligence` \
block.",
    ),
    ags(
        "AG103",
        Error,
        "`when` on a sequence edge",
        "Only `kind: conditional` edges carry a `when` guard. Make the edge conditional or drop \
the guard.",
    ),
    ags(
        "AG104",
        Error,
        "more than one of `from`/`template`/`value`",
        "An input takes its value from exactly one source: `from` (an AGX expression), `template` (a `${{ }}` template) or `value` (a literal). With two of them set, which one wins would be up to the harness; keep one. With none, the input is bound implicitly by name (`params.<name>`, then `context.<name>`).",
    ),
    ags(
        "AG111",
        Error,
        "cycle in the effective edge set",
        "The effective edges of a scope (explicit edges plus desugared `depends_on`) must be \
acyclic. Iteration belongs in a `loop` node, which is bounded.",
    ),
    ags(
        "AG112",
        Error,
        "an entrypoint has incoming edges",
        "Entrypoints are where execution starts: they are ready at the beginning of the run, before anything else. An edge (or a `depends_on`) leading into an entrypoint contradicts that: the node would run before its predecessor. Remove the edge, or remove the node from `entrypoints`.",
    ),
    ags(
        "AG113",
        Error,
        "edge endpoint unknown in its scope",
        "An edge (or a fallback `alternate_node`, compensation or escalation node) names a node \
that does not exist in the same scope.",
    ),
    ags(
        "AG114",
        Error,
        "unknown `depends_on` entry",
        "Every name in `depends_on` must be a node of the same scope (the graph, or the fragment or body the node is in); the diagnostic suggests the closest existing id. A dependency on a node in another scope is not expressible: pass values into fragments through their `params`.",
    ),
    ags(
        "AG115",
        Error,
        "unknown entrypoint",
        "Every id in the root graph's `entrypoints` must name one of its `nodes`. A misspelt entrypoint leaves the graph with nothing to start, or starts it in the wrong place; the diagnostic suggests the closest id.",
    ),
    ags(
        "AG116",
        Error,
        "`join_count` greater than the incoming edge count",
        "An `n_of` join can never fire if it waits for more edges than lead into the node.",
    ),
    ags(
        "AG117",
        Error,
        "reserved node id",
        "`self` is a namespace root in AGX (`self.outputs.report`), so a node called `self` could never be referred to unambiguously. Rename the node; this applies in fragments and bodies too.",
    ),
    ags(
        "AG121",
        Error,
        "expression decision branch without `when`",
        "With `evaluator: expression`, a decision takes the first branch whose `when` is true, without calling a model, so every branch needs a `when`. Add the missing condition (the `default_branch` covers the case where none holds), or switch to `evaluator: agent` to let a model choose.",
    ),
    ags(
        "AG122",
        Error,
        "output named `decision` on a decision or gate",
        "Decision and gate nodes expose the selected label as `outputs.decision`, which edges route on (`nodes.review.outputs.decision == \"approve\"`). Declaring an output with that name would shadow it. Rename the declared output.",
    ),
    ags(
        "AG123",
        Error,
        "`default_branch` is not a declared label",
        "`default_branch` is taken when no branch applies, so it must be one of the decision's own branch labels; otherwise the decision has no valid fallback. The help lists the declared labels.",
    ),
    ags(
        "AG124",
        Error,
        "duplicate branch label",
        "Branch labels of one decision are its possible outcomes and the values of `outputs.decision`; edges select on them. Two branches with the same label make the routing ambiguous. Rename or merge them.",
    ),
    ags(
        "AG131",
        Error,
        "recursive subgraph use",
        "A fragment uses itself, directly or through other fragments (`loop.use`, `map.use`, \
`subgraph.use`, `inline`, `ref`). Subgraphs are expanded statically and must terminate.",
    ),
    ags(
        "AG132",
        Error,
        "`use` names no fragment",
        "`loop.use`, `map.use` and `subgraph.use` name a reusable fragment declared under the graph's top-level `subgraphs`. The name given is not declared there; the diagnostic suggests the closest one. Declare the fragment, fix the name, or write the body inline.",
    ),
    ags(
        "AG133",
        Error,
        "fragment entrypoint outside the fragment",
        "A fragment (a named `subgraphs` entry, or the body of a loop, map or inline subgraph) has its own node namespace, and its `entrypoints` must be nodes of that namespace, not nodes of the enclosing graph.",
    ),
    ags(
        "AG141",
        Error,
        "`tier` and `level` disagree",
        "The intelligence tier fixes the level: minimal=1, standard=2, advanced=3, frontier=4.",
    ),
    ags(
        "AG142",
        Error,
        "`escalate_to` below `tier`",
        "`escalate_to` names the tier a node moves to when it escalates after failures, so it must be above the node's own tier (minimal < standard < advanced < frontier). A downward escalation would make retries weaker, which is never the intent. This includes tiers set through `defaults`.",
    ),
    ags(
        "AG151",
        Error,
        "alternate node lacks required outputs",
        "A fallback `alternate_node` must provide every output the original node declares.",
    ),
    ags(
        "AG152",
        Error,
        "compensation on a compensation node",
        "`failure.compensation` names a node that undoes this node's side effects when the run halts after it succeeded. Compensation does not nest: a compensation node that has its own compensation would start a chain of undo actions the spec does not define. Remove the inner compensation.",
    ),
    ags(
        "AG153",
        Error,
        "fallback names undeclared criteria or outputs",
        "`relax_criteria` and `degrade_outputs` must name criteria and outputs the node declares.",
    ),
    ags(
        "AG201",
        Error,
        "read of a node that is not guaranteed to have run",
        "An expression or template reads `nodes.X` (or `output(\"X\", …)`, `succeeded(\"X\")`, …) \
where X is not a transitive predecessor of the reader in the effective edge set: no chain of \
edges (and `depends_on`) leads from X to the reader, so X may not have run when the reader \
does (the predecessor rule, SPEC §8.1). One chain is enough; X need not lie on every path \
into the reader. On an edge's `when`, the edge's own source counts as run.

The help proposes `depends_on: [X]` on the reader when that is possible. When the reader \
itself comes before X (a chain leads from the reader to X), a dependency would close a cycle \
(AG111): the help says the read goes against the order instead, and the value is to be read \
in a node after X.

A node reading itself through `nodes.<own id>` (or `nodes.self`) is AG201 too where it has \
not run yet: in its `when`, inputs, instructions and prompts, `map.over` and \
`subgraph.params`. Its own outputs can be read where they exist, in success criteria, \
checkpoints at `after_outputs`/`on_criteria_failure`, fallback guards and the escalation \
message (SPEC §16.2; there `self.outputs` reads the same). (`self.outputs` where it is not \
readable is AG203.)",
    ),
    ags(
        "AG202",
        Error,
        "fragment reads outside itself",
        "Loop, map and subgraph bodies and named fragments are sealed: their nodes read only their own scope (`nodes.*` of the same body), their `params`, and the graph-wide roots (`context`, `graph`, ...). Reading a node of the enclosing graph couples the fragment to one use site. Pass the value in through the fragment's `params` (or `subgraph.params`) instead.",
    ),
    ags(
        "AG203",
        Error,
        "undeclared reference",
        "An expression reads a param, context, attachment, env, graph field, node or output that \
is not declared, or `loop` outside a loop, or `outputs` outside graph scope. A loop's `carry` \
value that is not a param of the loop's body is AG203 too.

Bodies are sealed: the map variables (`map.as`, `map.index_as`) are bound inside that map's \
own body only, and `loop` inside that loop's own body only. A loop body nested inside a map \
body therefore cannot read the map's element (nor a map body inside a loop read the outer \
`loop`): pass the value in through the inner body's `params` (the loop's or map's owner node \
can read it). This follows SPEC §16.2 and the reference validator.

A node id written with `-` in a path (`nodes.build-docs.outputs.site`) is read by AGX as a \
subtraction (`nodes.build - docs.outputs.site`). When such an id exists, agc reports one AG203 \
over the whole path saying so, instead of one error per half; write \
`output(\"build-docs\", \"site\")`, or rename the node with `_`.",
    ),
    ags(
        "AG204",
        Error,
        "bad expression",
        "An AGX expression has a syntax error, calls an unknown function, passes the wrong \
number of arguments, or (agc's static types) applies an operator to operands whose declared \
types cannot work, such as ordering an integer output against a string, or a `map.over` \
whose declared type is not an array (a `markdown` output, a `string` param): SPEC §7.5 makes \
that RT025 on every run, so agc refuses it when compiling. A `map.over` of unknown type (`any`, \
`json`, a `ref` child's output) is left to the run.

agc's AGX lexer and parser follow the grammar of docs/expressions.md §3, with these decisions \
where the notes found the spec silent or the reference wrong:
- numbers are unsigned tokens (`\\d+(\\.\\d+)?([eE][+-]?\\d+)?`) and `-` is always an \
operator, so `len(x)-1` and `n -1` are subtractions (the reference lexers reject them);
- both quote styles decode JSON escapes, plus `\\'`; any other escape is an error;
- `a[0]`, `json(s).x`, `a.b(x)` and keywords as path segments (`outputs.in`) are not AGX and \
are reported as such, with `get(obj, \"key\")` as the way to write them;
- every syntax error is reported, not only the first, at its exact place in the file.",
    ),
    ags(
        "AG205",
        Error,
        "reference to `secrets`",
        "Secrets are injected into a node's environment by the harness; they are never values in expressions or templates, so they cannot leak into prompts, plans or run records. Declare the secret in the node's `requirements.secrets` and let the tool read it from its environment.",
    ),
    ags(
        "AG206",
        Error,
        "undeclared output",
        "A reference names an output the node does not declare (also a success criterion's \
`output:` (artifact_present, json_schema, regex), which names an output of its own node, or, \
in the graph's `success`, a graph output; `loop.previous.<name>`, which holds the loop's \
`collect` outputs; and the `loop.carry` source). A node's outputs are its `outputs` and the \
implicit ones: `decision` on decisions and gates, `collect` keys, `outputs_from` keys, and for a \
subgraph without `outputs_from` the child's own `outputs`, copied verbatim (SPEC §7.6; for a \
`ref` child, which is loaded after these checks, reads are not judged). A fragment used by \
several loops offers in `loop.previous` what every one of them collects. A `carry` key must be an output that some node of the loop's body \
declares (its `outputs`, or the implicit ones: `decision`, `collect` keys, `outputs_from`); \
when a body node is a `subgraph.ref` whose outputs are not known statically, carry keys are \
not judged.",
    ),
    ags(
        "AG211",
        Error,
        "`${{ }}` in expression position",
        "Fields that take an AGX expression (`when`, `condition`, `expr`, ...) are not \
templates: write the expression without `${{ }}`. agc reports every `${{` that is outside \
an AGX string literal (`x == '${{'` compares with the text `${{` and is fine).",
    ),
    ags(
        "AG301",
        Error,
        "a required param gets no value",
        "A required param (params are required unless `required: false`) with no `default` must \
be given a value. The spec reports this when a run starts; agc reports it when compiling \
where it is certain: a `subgraph` node (`use`, `inline` or a local `ref`) binds its child's \
params from `subgraph.params` (SPEC §7.6), and one it leaves out is missing on every run. \
A child that declares no params is not judged. `agc run` reports it for the graph's own \
params given with `--params`.",
    ),
    ags(
        "AG302",
        Error,
        "a param value does not fit its declaration",
        "A param's value must fit its `type`, `enum` and `schema`. The spec reports this when a \
run starts; agc also reports it when compiling where it is certain:
- a param's own `default` that breaks its `type`, `enum` or `schema` (`type: boolean, \
default: yes` is the string `\"yes\"` in YAML 1.2; `default: prod` with `enum: [dev, \
staging]`): every run that does not give the param fails;
- a `subgraph.params` key that the child does not declare (agc refuses unknown params rather \
than dropping them, as `agc run --params` does).",
    ),
    ags(
        "AG901",
        Warning,
        "the same dependency declared twice",
        "A dependency is declared twice: once in `depends_on` and once as an explicit `sequence` edge between the same nodes. The effective edge set deduplicates it, so the graph behaves the same, but one of the declarations is redundant and may drift from the other. Keep one.",
    ),
    ags(
        "AG902",
        Warning,
        "side-effecting task without `success`",
        "A task that writes (read_write workspace, or fs:write, fs:delete, git:commit, git:push, \
shell:exec) should say how success is checked.",
    ),
    ags(
        "AG903",
        Warning,
        "unreachable node",
        "A node that no path from an entrypoint reaches (over `depends_on` and edges) can never run: it is dead code, usually a missing `depends_on` or edge. Connect it, list it as an entrypoint, or remove it.",
    ),
    ags(
        "AG904",
        Warning,
        "output never read",
        "A declared output that no expression, template, graph output or `collect` reads is produced for nothing, or its reader has a typo. Read it somewhere, or remove the declaration. A success criterion that names the output reads it (`json_schema`, `regex`), but an `artifact_present` one only checks that it is there: an output it alone names is still unread, as the AGS reference validators warn.",
    ),
    ags(
        "AG905",
        Warning,
        "frontier tier without `rationale`",
        "The frontier tier is the most capable and most expensive. The spec asks for a `rationale` on the intelligence block (or the node) saying why it is needed, so reviewers can weigh the cost.",
    ),
    ags(
        "AG906",
        Warning,
        "only judgement criteria",
        "Every required success criterion of the node is a judgement (`llm_judge` or `human`). Judgements are slow, costly and non-deterministic; add at least one deterministic check (`command`, `file_exists`, `expression`, `json_schema`, `regex`) so failures are caught cheaply and reproducibly.",
    ),
    ags(
        "AG907",
        Warning,
        "strict determinism without a seed",
        "`determinism: strict` promises reproducible output, which model sampling only gives with a fixed `seed`. Add `constraints.seed`, or relax the determinism level.",
    ),
    ags(
        "AG908",
        Warning,
        "no cost bound",
        "Nothing bounds what the graph may spend: there is no `constraints.max_cost_usd` and no node has an `estimate.cost_usd`. Add a graph-level budget so a harness can stop a runaway run, and estimates so agc can project the worst-case cost (AGC091).",
    ),
    ags(
        "AG909",
        Warning,
        "remote `ref` without `integrity`",
        "A `subgraph.ref` whose `uri` is not local (does not start with `.` or `/`) is fetched from elsewhere, and its content can change under you. Pin it with `integrity: sha256-...` (the digest of its canonical JSON form), as strict harnesses require.",
    ),
    ags(
        "RT051",
        Error,
        "`subgraph.ref` content does not match its `integrity`",
        "The referenced file's digest (`sha256-` + base64 of the SHA-256 of its RFC 8785 \
canonical JSON form) differs from `ref.integrity`. The spec checks this at run time; agc checks \
it when compiling, and prints the actual digest so a deliberate change can be pinned again.",
    ),
    ags(
        "RT052",
        Error,
        "`subgraph.ref` names a graph with another id",
        "The referenced document's `id` differs from `ref.expected_id`. The spec checks this at run \
time; agc checks it when compiling.",
    ),
];
