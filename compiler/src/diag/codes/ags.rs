//! AGS 1.0 codes (SPEC §18). The codes and their meaning are the spec's; the explanations are
//! agc's, including the decisions agc took where the spec is silent.

use super::CodeInfo;
use crate::diag::Severity::{self, Error, Warning};

const fn ags(
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
pattern mismatch). The message names the failing rule.",
    ),
    ags(
        "AG002",
        Error,
        "unsupported `ags_version`",
        "agc implements AGS 1.0. The schema's pattern `^1\\.[0-9]+$` accepts `1.1`, but the spec \
requires validators to fail closed on a newer minor version, since its features are unknown. \
agc accepts exactly `\"1.0\"`.",
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
        "The field takes one of a fixed set of values; the message lists them.",
    ),
    ags(
        "AG005",
        Error,
        "duplicate key",
        "A YAML mapping repeats a key. AGS documents stay within the JSON data model, where keys \
are unique; agc labels the first occurrence.",
    ),
    ags(
        "AG101",
        Error,
        "type block does not match `type`",
        "A node carries the configuration block of a different node type (for example `loop:` \
on a `type: task`), or lacks the block its type requires.",
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
        "An input binding takes its value from exactly one source.",
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
        "Entrypoints start the graph; nothing may lead into them.",
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
        "`depends_on` names a node that does not exist in the same scope.",
    ),
    ags(
        "AG115",
        Error,
        "unknown entrypoint",
        "`entrypoints` names a node that does not exist.",
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
        "`self` is a namespace root in AGX and cannot be a node id.",
    ),
    ags(
        "AG121",
        Error,
        "expression decision branch without `when`",
        "A decision evaluated by expression needs a `when` on every branch.",
    ),
    ags(
        "AG122",
        Error,
        "output named `decision` on a decision or gate",
        "`outputs.decision` is reserved for the label a decision or gate produces.",
    ),
    ags(
        "AG123",
        Error,
        "`default_branch` is not a declared label",
        "The default branch must be one of the decision's branch labels.",
    ),
    ags(
        "AG124",
        Error,
        "duplicate branch label",
        "Branch labels of one decision must be unique.",
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
        "`use` must name a fragment declared in the graph's `subgraphs`.",
    ),
    ags(
        "AG133",
        Error,
        "fragment entrypoint outside the fragment",
        "A fragment's entrypoints must be nodes of that fragment.",
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
        "Escalation goes to a higher tier, never a lower one.",
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
        "Compensation does not nest.",
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
        "An expression or template reads `nodes.X` where X is not a predecessor of the reader on \
every path (the predecessor rule).",
    ),
    ags(
        "AG202",
        Error,
        "fragment reads outside itself",
        "A fragment is sealed: it reads only its own params and nodes.",
    ),
    ags(
        "AG203",
        Error,
        "undeclared reference",
        "An expression reads a param, context, attachment, env, graph field, node or output that \
is not declared, or `loop` outside a loop, or `outputs` outside graph scope.",
    ),
    ags(
        "AG204",
        Error,
        "bad expression",
        "An AGX expression has a syntax error, calls an unknown function, passes the wrong \
number of arguments, or (agc's static types) applies an operator to operands whose declared \
types cannot work, such as ordering an integer output against a string.

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
        "Secrets are never readable from expressions or templates.",
    ),
    ags(
        "AG206",
        Error,
        "undeclared output",
        "A reference names an output the node does not declare (also `criterion.output` and the \
`loop.carry` source).",
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
        "AG901",
        Warning,
        "the same dependency declared twice",
        "A pair is declared by both `depends_on` and an explicit edge.",
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
        "No path from an entrypoint reaches this node.",
    ),
    ags(
        "AG904",
        Warning,
        "output never read",
        "A declared output is read by no expression, template or graph output.",
    ),
    ags(
        "AG905",
        Warning,
        "frontier tier without `rationale`",
        "Say why the most expensive tier is needed.",
    ),
    ags(
        "AG906",
        Warning,
        "only judgement criteria",
        "All required criteria are llm_judge or human; add a deterministic one.",
    ),
    ags(
        "AG907",
        Warning,
        "strict determinism without a seed",
        "`determinism: strict` needs a seed to be reproducible.",
    ),
    ags(
        "AG908",
        Warning,
        "no cost bound",
        "Neither `constraints.max_cost_usd` nor any `estimate` is given.",
    ),
    ags(
        "AG909",
        Warning,
        "remote `ref` without `integrity`",
        "A non-local `ref.uri` should pin its content with `integrity`.",
    ),
];
