//! agh.loop/v1: the upstream linter's and reference checker's codes (snake_case, upstream's
//! names and severities), and agc's own agh codes (AGC220–AGC239).
//!
//! (Codes the schema phase already emits for this dialect live in `schema.rs`;
//! `unresolvable_path`, shared with the CEL and `{{ }}` parsers, lives in `cel.rs`.)

use super::CodeInfo;
use crate::diag::Severity::{Error, Warning};

macro_rules! agh {
    ($code:literal, $summary:literal, $explanation:literal) => {
        CodeInfo {
            code: $code,
            origin: "agh",
            severity: Error,
            summary: $summary,
            explanation: $explanation,
        }
    };
}

pub(super) static CODES: &[CodeInfo] = &[
    agh!(
        "cycle",
        "the graph has a cycle",
        "agh graphs (the root graph and every `sub-loop` body) are DAGs: a Loop repeats by \
running the whole graph again in a new generation, never through an edge back. A depth-first \
search reports the cycle at the node it re-enters (each node once). To repeat work, let a gate \
fail (`on_result: {fail: revise}`) or bound the generations with `contract.iteration_cap`."
    ),
    agh!(
        "unreachable_node",
        "a node cannot be reached from the graph's roots",
        "The roots are the graph's `source` nodes; if it has none, every node when there are no \
edges, otherwise the nodes without an incoming edge. A node no path from a root reaches never \
runs. Note upstream's consequence, kept by agc: in a graph with a source node, every other node \
with no incoming edge is unreachable, so connect it to a source (`edges: [{from: input, to: \
node}]`)."
    ),
    agh!(
        "non_terminating_structure",
        "a graph is empty or has no terminal node",
        "A graph must declare at least one node, and (when it has no cycle) at least one node \
without an outgoing edge; an edge to an unknown node counts as outgoing, as upstream. A \
`sub-loop` must declare a non-empty `body`. The finding is at the graph's `nodes` (or at the \
sub-loop)."
    ),
    agh!(
        "fan_out_unbounded",
        "a fan-out has no collection, no positive `max_fan_out`, or a collection with no reference",
        "A `fan-out` must say what it iterates and how far: `collection` is a `{{ }}` value that \
must read a namespace value (`{{ .nodes.load.output.tasks }}`; a literal list is refused) and \
`max_fan_out` must be positive. At run time, more items than `max_fan_out` (or than the \
ceiling 64) end the run `exhausted`."
    ),
    agh!(
        "fan_out_ceiling_exceeded",
        "`max_fan_out` or `max_parallel` is above 64",
        "The daemon clamps fan-out width to 64 (`LoopMaxFanoutWidth`). A larger `max_fan_out` or \
`max_parallel` is refused rather than silently clamped. 64 exactly is accepted. (Later \
compozy releases removed this check; agc keeps the agh rule.)"
    ),
    agh!(
        "gate_max_revisions_ceiling_exceeded",
        "a gate's `max_revisions` is above 64",
        "Gate revisions are bounded by the ceiling 64 in every configuration layer. Lower \
`max_revisions`; 0 means the configured default (10 for delivery Loops)."
    ),
    agh!(
        "verdict_policy_requires_judge",
        "`revise_until_clean` without an `agent-judge` or `human` criterion",
        "`verdict_policy: revise_until_clean` repeats until a verdict source says the work is \
clean; only `agent-judge` and `human` criteria produce verdicts (`command` and `extension` \
criteria only pass or fail). Add a judge, or use `fixed_passes`."
    ),
    agh!(
        "invalid_harvest",
        "an action's `harvest` is not allowed",
        "`harvest.kind` is `sync` (the default), `event_range`, `async` or `channel_result`. \
Reserved action kinds (`run-agent`, `run-loop`, `transform`, `goal`) take only `sync`. \
`channel_result` is allowed only on the native `agh__network_send` tool (`compozy__network_send` \
in compozy.loop/v1), needs a positive Go-duration `window`, and its `content_rule` is `any`, \
`json`, `non_empty`, `contains:<needle>` or `json_path:<a.b.c>`."
    ),
    agh!(
        "unknown_action_kind",
        "an action kind is neither reserved nor a resolvable tool id",
        "An action's kind is one of the reserved kinds (`run-agent`, `run-loop`, `transform`, \
`goal`) or a tool id. agh resolves tool ids through a snapshot of the daemon's tool registry; \
agc reads the static source of that registry, the extension manifests: the \
`extension.json`/`extension.toml` beside the Loop (its folder or up to three above, inside \
`--root`; and, wherever the root is, the folder of the extension that owns the Loop by the \
daemon's layout `<ext>/loops/<name>/loop.yaml`) and every `--extension FILE`. `resources.tools.<tool>` of extension `<ext>` is the \
tool id `ext__<ext, - as _>__<tool>`. An `ext__` id no loaded manifest declares is refused, as \
upstream refuses ids its snapshot lacks (so a Loop that calls extension tools needs its \
manifest). Deliberate difference: native (`agh__…`, `compozy__…` per version) and MCP \
(`mcp__…`) tool ids are accepted with an unknown output schema, because no file describes the \
daemon's own registry; upstream without a snapshot refuses them. Any other kind (a typo, the \
deleted `channel-post`) is refused."
    ),
    agh!(
        "watch_events_subscription_required",
        "a watch-events source has no subscription",
        "A `watch-events` source wakes the Loop on daemon events; `events` must list at least one \
`{kind, filter?}` subscription."
    ),
    agh!(
        "watch_events_kind_unknown",
        "a watch-events kind is not a hook of the daemon",
        "`events[].kind` must name a hook of the daemon's catalog (90 kinds such as \
`task.status_changed`, `loop.terminal`, `event.post_record`). A name outside the catalog is \
this code; a real hook that cannot be watched is `watch_events_kind_unsupported`."
    ),
    agh!(
        "watch_events_kind_unsupported",
        "a hook kind that the watch-events registry cannot watch",
        "Only the 22 kinds of the watch-events registry have a ledger stream to wake on: the \
task, loop-terminal, automation-run, network timeline, coordinator summary and \
`event.post_record` kinds. Pre-hooks (`tool.pre_call`, `event.pre_record`, \
`coordinator.pre_spawn`), job fires, peer events and `loop.started` are hooks but not \
watchable; the help lists the supported kinds."
    ),
    agh!(
        "watch_events_filter_invalid",
        "a watch-events filter does not compile as a bool CEL condition",
        "`events[].filter` is a CEL condition over the event namespace (`event.kind`, \
`event.session_id`, `event.payload.*`, plus `inputs` and `nodes`). As upstream, every failure \
of such a filter (syntax, an unknown name or function, a bad path, a non-bool type) is this \
code, pointing at the characters inside the string."
    ),
    agh!(
        "watch_events_filter_too_broad",
        "an `event.post_record` subscription does not pin `event.session_id`",
        "Session events are only readable per session: a subscription to `event.post_record` \
must constrain `event.session_id` with `==` against a string literal or an `inputs.*` path, \
at the top level of the filter or under `&&` (`event.session_id == inputs.session && \
event.kind == 'x'`). A constraint under `||` or `!` does not count."
    ),
    agh!(
        "watch_events_shape_invalid",
        "`events`/`watch`/`produces` do not fit a watch-events source",
        "An `events` block belongs only on a `watch-events` source, which in turn takes no \
`watch` (that is `watch-source`'s). Its `produces` may declare only `events` (an array) and \
`cursors` (an object), the batch the daemon delivers."
    ),
    agh!(
        "duplicate_node_id",
        "two nodes of one graph share an id",
        "Node ids are unique within a graph (a `sub-loop` body is its own graph; its nodes run \
as `<parent>__<child>`). References, edges and run records address nodes by id."
    ),
    agh!(
        "goal_objective_required",
        "a goal has no `params.objective`",
        "A `goal` action pursues `params.objective` over several turns of one agent session; it \
is required."
    ),
    agh!(
        "goal_judge_required",
        "a goal's judges are missing or incomplete",
        "`params.judge` lists at least one criterion, each with a unique `id`: a `command` needs \
`check`, an `agent-judge` needs `rubric` (or `prompt`), an `extension` needs `tool`. Other \
criterion types are refused."
    ),
    agh!(
        "goal_human_judge_unsupported",
        "a goal judge of type `human`",
        "A goal is judged between turns without parking the run, so a `human` criterion cannot \
judge it. Put a gate with a `human` criterion after the goal instead."
    ),
    agh!(
        "goal_max_turns_required",
        "a goal's `params.max_turns` is missing or below 1",
        "A goal runs at most `params.max_turns` turns before `on_exhausted` applies; the bound \
is required and at least 1."
    ),
    agh!(
        "goal_output_status_missing_blocked",
        "a goal's output schema has no `status` enum including `blocked`",
        "A goal reports its outcome through `params.output_schema`, whose `status` (top level or \
under `properties`) must be an enum that includes `blocked`, the value the daemon routes on \
when the goal cannot proceed."
    ),
    agh!(
        "goal_on_exhausted_invalid",
        "a goal's `params.on_exhausted` is not `halt` or `escalate`",
        "When a goal runs out of turns it halts the run (`halt`, the default the compiler fills \
in) or asks for approval (`escalate`)."
    ),
    agh!(
        "session_spec_ambiguous",
        "a goal's session is not exactly isolated or continuous",
        "A goal session is either `{isolated: true}` (a fresh session, no handle) or \
`{mode: continuous}` (one session across turns, optionally with a `handle`). Anything else, \
such as both or neither, is ambiguous. Without `session` the compiler fills in continuous."
    ),
    agh!(
        "continuous_forbids_parallel",
        "a continuous goal runs under a parallel fan-out",
        "A continuous session cannot be shared by parallel branches: a continuous goal may not \
sit downstream of a fan-out with `max_parallel` above 1 unless a collect lies between. As \
upstream, a fan-out without `max_parallel` does not count (its runtime width comes from \
configuration)."
    ),
    agh!(
        "continuous_handle_reused",
        "two continuous goals share a session handle",
        "Each continuous goal owns a session labelled by its `session.handle` (default: its node \
id); two goals of one graph with the same label would write into one session."
    ),
    agh!(
        "retry_max_unsupported",
        "`retry.max` is used",
        "The retired `retry.max` key is refused; the attempt bound is `retry.max_attempts`. \
Upstream checks this on goal nodes only and keeps the key silently elsewhere; agc refuses it on \
every node (a deliberate difference: the key does nothing anywhere)."
    ),
    agh!(
        "retry_fresh_session_requires_continuous",
        "`retry.on_failure` on a goal is not a valid fresh-session retry",
        "On a goal, `retry.on_failure` may only be `fresh_session`, which restarts a continuous \
session; it needs a continuous session and `max_attempts` of at least 2."
    ),
    agh!(
        "network_participation_invalid",
        "`network_participation` is malformed",
        "`mode` is `local` (the default) or `live`; `channel_strategy` is `named`, `run` or \
`loop_run` (the schema check reports other values under this code). `mode: local` carries no \
channel strategy, channel id or bounds. \
`mode: live` needs `channel_strategy`; `named` needs a `channel_id` matching \
`^[a-z0-9][a-z0-9_-]{0,63}$`, and the derived strategies (`run`, `loop_run`) take none."
    ),
    agh!(
        "loop_requires_live",
        "a node uses the network without live participation",
        "A node calling a native network tool (`agh__network_*`, `compozy__network_*`) or \
harvesting a `channel_result` needs `network_participation: {mode: live, ...}` on the Loop. \
The first such node (root graph first) is reported."
    ),
    agh!(
        "unknown_reference",
        "a reference names nothing in the namespace",
        "References read one namespace: `inputs.<name>`, `nodes.<id>.status`, \
`nodes.<id>.output[.path]`, `item`/`index` (fan-out bodies), `trigger` (Loops with a trigger, \
schedule or webhook start), `event` (watch-events filters) and `generation`. This code is an \
unknown root in a `{{ }}` value, an undeclared input, an unknown node of the same graph, a node \
field other than `status`/`output`, `trigger` without such a start, `event` outside a filter, \
an edge endpoint that names no node, a node `class` other than `action`, `control`, `source` \
(reported by the schema check under this code), an input source without a declared `input_ref`, and an \
`input_mapping` key that is no input. (In CEL an undeclared name does not compile: \
`unresolvable_path`, as in cel-go.) Note the contract's `stop_when` sees no trigger."
    ),
    agh!(
        "item_outside_fanout",
        "`item` or `index` outside a fan-out body",
        "`item` and `index` exist only in nodes downstream of a `fan-out` that are not past a \
`collect` (the collect is the join: its successors see the collected output instead)."
    ),
    agh!(
        "condition_not_bool",
        "a CEL condition's type is not bool, or a branch has no condition",
        "Conditions (`branch.condition`, `fan-out.filter`, `contract.stop_when`) must have the \
static type `bool`. Namespace values are `dyn` (inputs, node outputs, trigger payloads are \
`map(string, dyn)`), so a bare `inputs.flag` or `nodes.x.output.ok` is rejected, as cel-go's \
checker rejects it upstream: compare explicitly (`inputs.flag == true`). Comparisons, `&&`, \
`||`, `!`, `in`, `has()` and the macros are bool. A `branch` without a condition is this code \
too."
    ),
    CodeInfo {
        code: "AGC220",
        origin: "agc",
        severity: Warning,
        summary: "a gate's `on_result` value is no route action agh applies there",
        explanation: "An in-graph gate routes each verdict (`pass`, `fail`, `approval`, \
`blocked`, `error`, `timeout`, `invalid_output`) to a route action: `continue`, `revise`, \
`branch` (with `branch: <node id>`), `halt` or `escalate`; `approval` takes only `escalate` or \
`halt`. agh silently ignores any other value and applies the default route (pass: continue; \
fail: revise; approval: escalate; blocked: halt/blocked; error, timeout, invalid_output: \
halt/failed). The published Loops write node ids (`pass: verify`) and definition-of-done \
actions (`fail: next_generation`) there, which therefore do nothing; agc warns so the author \
knows. The lowered gate's `attrs.routes` holds the routes that apply.",
    },
    CodeInfo {
        code: "AGC221",
        origin: "agc",
        severity: Warning,
        summary: "a fan-out `filter` is compiled but never applied by agh",
        explanation: "agh type-checks a fan-out's `filter` (a CEL condition) but its coordinator \
never evaluates it: every item of the collection runs. agc checks the filter like any \
condition and warns that it has no effect; filter the collection upstream (a `transform` or a \
tool) instead.",
    },
    CodeInfo {
        code: "AGC222",
        origin: "agc",
        severity: Error,
        summary: "an extension manifest cannot be read or used",
        explanation: "A manifest named with `--extension`, or found beside the Loop, could not \
be read, is not valid JSON (`extension.json`) or TOML (`extension.toml`), or has no \
`extension.name`. Tool ids of that extension then cannot resolve (`unknown_action_kind`). A \
manifest found beside the Loop must also lie inside the folder that allowed it once symbolic \
links are resolved: the workspace root, or the extension's own folder when it was found by the \
daemon's layout (`<ext>/loops/<name>/loop.yaml`) outside the root. One that is a link leading \
out is refused and not read, so a document cannot make agc read (and quote) a file of its \
choosing; name a manifest elsewhere with `--extension FILE`.",
    },
    CodeInfo {
        code: "AGC224",
        origin: "agc",
        severity: Warning,
        summary: "a CEL condition cannot work for any value the declared types allow",
        explanation: "agh type-checks conditions with every namespace value as `dyn`, so it \
accepts `nodes.review.output.title + 1 > 2` and the run fails when the condition is evaluated \
(`no such overload`). agc also checks each condition against the declared types: inputs by \
their `type`, node outputs by their `produces`/`output_schema`/tool schema (numbers as doubles, \
which is how CEL sees JSON data), and warns where the operands cannot fit whatever the values \
are: arithmetic or ordering between a string and a number, `%` on a double, a wrong number of \
arguments, a non-bool operand of `&&`. It is a warning, not an error, because upstream accepts \
the Loop (a deliberate addition). Convert explicitly (`int(nodes.a.output.count) % 2 == 0`, \
`double(inputs.n) + 1.0`).",
    },
    CodeInfo {
        code: "AGC225",
        origin: "agc",
        severity: Warning,
        summary: "a node reads the output of a node that is not upstream of it",
        explanation: "`nodes.<id>.output` holds what that node produced in the current \
generation. agh does not check that the producer runs before the reader; when no edge path \
leads from the producer to the reader, the reader may run first (or in parallel) and find no \
output. agc warns (a deliberate addition; agh accepts the Loop). Add an edge path from the \
producer to the reader. `nodes.<id>.status` reads are not checked: a status exists at any \
time. The check is exact on a graph without cycles, at any size. On a graph with a cycle \
(itself an error) the search for a path is bounded (20,000 nodes per read, 20 million in \
all), and a read past the bound is taken as upstream, without a warning.",
    },
    CodeInfo {
        code: "AGC223",
        origin: "agc",
        severity: Error,
        summary: "`agc build --agh-resolved` on a document that is not an agh Loop",
        explanation: "`--agh-resolved` prints agh's own resolved form (the Loop with upstream's \
defaults filled in, the tool schemas it pins, and its template and condition sources keyed by \
upstream's key scheme). Only agh.loop/v1 and compozy.loop/v1 documents have one; build other \
dialects without the flag to get the plan.",
    },
];
