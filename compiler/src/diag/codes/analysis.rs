//! agc's codes for lowering, static analysis and the back ends (`AGC08x`–`AGC10x`).

use super::CodeInfo;
use crate::diag::Severity::{Error, Warning};

pub(super) static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "AGC080",
        origin: "agc",
        severity: Error,
        summary: "the graph expands to too many nodes",
        explanation: "Fragments (`use:`) are instantiated once per use site. A fragment used \
several times per level, nested several levels deep, multiplies; agc stops at 2,000,000 \
expanded nodes rather than exhaust memory.",
    },
    CodeInfo {
        code: "AGC081",
        origin: "agc",
        severity: Error,
        summary: "a `subgraph.ref` leaves the workspace or names no file",
        explanation: "A local `ref.uri` is resolved relative to the referencing file (a leading `/` \
relative to the workspace root, `--root`, by default the current folder). agc reads nothing \
outside the root: a path whose `..` climbs out, or a symbolic link that leads out, is refused, \
as is a path that does not exist. This keeps `agc check` safe to run on untrusted documents.",
    },
    CodeInfo {
        code: "AGC082",
        origin: "agc",
        severity: Error,
        summary: "bodies nest deeper than `max_subgraph_depth`",
        explanation: "AGS caps nesting with `constraints.max_subgraph_depth` (default 5): every \
loop, map and subgraph body counts one level, whether it is written inline, named with `use:` \
or read from another file with `ref:`. agc expands the graph statically and reports the first \
body past the limit on each path, at the block that opens it, instead of leaving it to a run \
(the spec's table of AG codes has none for it: an agc decision, tested). The \
limit of the root graph governs the whole expansion. Whatever the constraint says, agc expands \
at most 64 levels: each level repeats its owners' ids in its nodes' scoped ids, so a chain of \
thousands of `use`s would cost memory by the square of its length.",
    },
    CodeInfo {
        code: "AGC083",
        origin: "agc",
        severity: Warning,
        summary: "a remote `subgraph.ref` is not fetched",
        explanation: "agc never reaches the network. A `ref.uri` with a scheme (`https://…`) stays \
an opaque region in the plan; its nodes, outputs and integrity are not checked. Vendor the file \
into the workspace and reference it by a local path to have it checked.",
    },
    CodeInfo {
        code: "AGC084",
        origin: "agc",
        severity: Error,
        summary: "the document describes no graph to compile",
        explanation: "`agc build`, `agc graph`, `agc gen` and `agc run` compile a workflow: an AGS \
graph, an AWP workflow definition, an agh Loop, or an Agent Graph Provider or one of its graph \
files. Other documents of those formats (an Agent Graph action, resource, code catalog or test \
file, for instance) are checked by `agc check` but hold no graph of their own. Give the command \
the Provider (its folder or `provider.yaml`) or a graph file instead. An Agent Graph graph file \
is compiled with its Provider, which resolves the graph's actions and subgraph calls: the \
nearest folder at or above the file's, up to the workspace root (`--root` or the nearest folder \
with a root marker; with neither, up to the top of the file system), whose `provider.yaml` lists \
the file under `graphs` (the same as naming the Provider with `--graph ID`). A graph file that \
no Provider lists is this error too (an agc decision: the graph cannot be resolved alone), and \
so is a graph read from standard input (`agc build -`), which no Provider can list.",
    },
    CodeInfo {
        code: "AGC085",
        origin: "agc",
        severity: Error,
        summary: "a `subgraph.ref` names a document that is not AGS",
        explanation: "An AGS subgraph reference must name another AGS 1.0 document; agc detected a \
different dialect (or none) in the referenced file.",
    },
    CodeInfo {
        code: "AGC086",
        origin: "agc",
        severity: Error,
        summary: "the document holds several graphs; this command takes one",
        explanation: "`agc build` and `agc graph` write one plan or one diagram. An Agent Graph \
Provider holds several graphs; the message lists them. Name the graph file itself instead of \
the Provider, or use the command's option for choosing a graph where it has one.",
    },
    CodeInfo {
        code: "AGC087",
        origin: "agc",
        severity: Error,
        summary: "AWP parallels nest deeper than 64 levels",
        explanation: "A node inside a parallel's branch is known by the ids of the parallels \
around it, then its own (`outer/inner/node`), in the plan, the diagrams and run records, so \
every level of nesting lengthens the ids of all the nodes below it and a long chain of \
parallels each nested in the last costs memory by the square of its length. AWP itself sets no \
limit; agc lowers at most 64 levels and reports each parallel that would open the 65th, at its \
`type`, instead of lowering it (an agc decision, tested). Like every lowering error it is \
found once the document's own checks pass. Run the inner branches one after another, or move \
them into a subworkflow.",
    },
    CodeInfo {
        code: "AGC090",
        origin: "agc",
        severity: Warning,
        summary: "worst-case node executions exceed `max_node_executions`",
        explanation: "agc bounds every graph statically: each node runs at most `max_attempts` \
times per instance of its scope, and a scope runs at most the product of the enclosing loops' \
`max_iterations` and maps' `max_items`. The sum over all nodes is the worst case. When it \
exceeds the graph's `constraints.max_node_executions`, a run can hit the limit and stop; lower \
the bounds or raise the limit. No upstream AGS tool computes this.",
    },
    CodeInfo {
        code: "AGC091",
        origin: "agc",
        severity: Warning,
        summary: "projected worst-case cost exceeds `max_cost_usd`",
        explanation: "The projected cost is the sum over nodes of `estimate.cost_usd` × attempts \
× the scope's multiplier (loop iterations, map items). Nodes without an estimate count zero, \
so the real figure can only be higher. Exceeding `constraints.max_cost_usd` means the budget \
can run out in the worst case.",
    },
    CodeInfo {
        code: "AGC092",
        origin: "agc",
        severity: Warning,
        summary: "projected worst-case time exceeds `max_wall_clock_seconds`",
        explanation: "The projected time is the longest path through the graph, where a node \
takes `estimate.wall_clock_seconds` × attempts, a loop body runs `max_iterations` times in \
sequence and a map body ⌈`max_items` / `max_parallel`⌉ times. Exceeding \
`constraints.max_wall_clock_seconds` means the run can time out in the worst case.",
    },
    CodeInfo {
        code: "AGC100",
        origin: "agc",
        severity: Error,
        summary: "the diagram has more edges than Mermaid renders",
        explanation: "Mermaid refuses flowcharts with more than 500 edges by default \
(`maxEdges`). When the graph has loops, maps or subgraphs, draw with `--collapse`, which folds \
each into its owner node; otherwise draw it as DOT (`--graph-format dot`, for Graphviz, which \
has no such limit) or split the graph. The help says which applies.",
    },
    CodeInfo {
        code: "AGC103",
        origin: "agc",
        severity: Error,
        summary: "the diagram's text is longer than Mermaid renders",
        explanation: "Mermaid replaces a diagram whose text is longer than 50,000 characters \
(`maxTextSize`, counted in UTF-16 code units as JavaScript does) with the words \"Maximum text \
size in diagram exceeded\", so a README would show that instead of the graph; agc refuses to \
write it. Draw with `--collapse`, which folds every loop, map and subgraph into its owner node \
(when the graph has any), draw it as DOT, or split the graph. agc keeps Mermaid's default limits: a site that raises them can render the \
DOT output or raise the limit itself.",
    },
    CodeInfo {
        code: "AGC104",
        origin: "agc",
        severity: Error,
        summary: "a diagram block names a document outside the workspace root",
        explanation: "`agc graph --inject FILE.md` reads the document each `<!-- agc:graph PATH \
-->` block names. PATH is resolved from the Markdown file's folder and must stay inside the \
workspace root (`--root`, by default the nearest folder above the Markdown file holding `.git`, \
`.hg`, `.jj` or `.agc-root`) after resolving `..` and symbolic links, as a document's own \
references must (AGC081); a missing file is refused too. Nothing is read and the command exits \
2, so a README in a pull request cannot make a CI machine print a file such as `/etc/passwd` \
into its log. The document's own references are held to the same root.",
    },
    CodeInfo {
        code: "AGC101",
        origin: "agc",
        severity: Error,
        summary: "a Markdown `agc:graph` block is malformed",
        explanation: "`agc graph --inject` refills blocks written as \
`<!-- agc:graph path/to/doc.yaml [--direction LR] [--collapse] [--legend] -->` … \
`<!-- /agc:graph -->`, the path relative to the Markdown file. Every opening marker needs a \
document path and a closing marker, and blocks do not nest. A marker counts only at the start \
of a line and outside fenced code blocks, so documentation can show the syntax.",
    },
    CodeInfo {
        code: "AGC102",
        origin: "agc",
        severity: Error,
        summary: "a diagram in Markdown is stale",
        explanation: "`agc graph --inject FILE.md --check` found a block whose diagram differs \
from the one agc draws now. Run `agc graph --inject FILE.md` and commit the result.",
    },
];
