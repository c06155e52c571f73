//! Running plans (`agc run`) and generating runners (`agc gen`): agc's own codes.
//!
//! (Codes the schema phase already emits for this dialect live in `schema.rs`.)
//! The run itself reports AGS runtime codes (`RT021`, `RT033`, `RT061`, ...) in the run
//! record's `diagnostics`, not here: those belong to the run, these to the command.

use super::CodeInfo;
use crate::diag::Severity::{Error, Warning};

pub(super) static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "AGC300",
        origin: "agc",
        severity: Error,
        summary: "the run script does not fit the script format",
        explanation: "`agc run --script S.yaml` reads a scripted handler: a mapping with an \
optional `format: agc.script/v1` and `nodes`, a mapping from a node key (a scope path such as \
`render_pages[2]/render`, a plan id such as `render_pages/render`, or a local id) to an entry \
with `outputs`, `decision`, `fail`, `delay_ms`, `usage`, `results` or `checkpoints` (answers \
to the node's human checkpoints by id). The diagnostic points at \
the key or entry that does not fit and says what was expected. The format is documented by \
`schemas/agc-run-script-v1.schema.json` and `docs/run.md`. Nothing runs while the script is \
invalid; agc exits with status 2.",
    },
    CodeInfo {
        code: "AGC301",
        origin: "agc",
        severity: Error,
        summary: "the run could not start: params or plan do not fit",
        explanation: "The params file given with `--params` must hold one JSON object. Each \
value is checked against the graph's declared params before anything runs: a required param \
without a value is AGS AG301, a value that does not match the declared type, `enum` or JSON \
Schema, or a name the graph does not declare, is AG302 (agc rejects unknown params rather than \
ignoring them, so a misspelt name is not silently dropped). AGS params are required unless \
they say `required: false`; a param with a `default` never needs a value. agc exits with \
status 2.

AWP: the params are the run's input, which becomes the initial state: the top-level \
`state_schema` properties and the `start` node's `config.input_schema` properties (a name in \
both must fit both). After each param, the whole initial state is checked against \
`state_schema` (AG302 \"the initial state (the params) does not fit the state schema\"), as the \
engine does at run start. agc differs from the engine on purpose in two ways: the engine never \
reads `input_schema`, while agc holds the input to its types, `enum`s and `required` list, so a \
run started with the wrong input fails before its first node; and an input key that neither \
schema declares is refused, where the engine would take it into an open state (a misspelt key \
would otherwise be state nothing reads). Declare such a key in `input_schema`.",
    },
    CodeInfo {
        code: "AGC302",
        origin: "agc",
        severity: Error,
        summary: "the file is not a readable agc plan",
        explanation: "`agc run` accepts a workflow document, which it compiles, or a plan written \
by `agc build` (JSON with `format: agc.plan/v5`; `agc.plan/v4`, `agc.plan/v3`, `agc.plan/v2` and `agc.plan/v1` plans are still read). A plan that does not deserialize into the \
runtime's plan types, names another format version, or is internally inconsistent (an edge or \
region naming an unknown node) is refused before anything runs. Rebuild the plan with the agc \
that runs it.",
    },
    CodeInfo {
        code: "AGC303",
        origin: "agc",
        severity: Error,
        summary: "the run could not be resumed",
        explanation: "`agc run --resume DIR` replays the journal in DIR and continues. It is \
refused when the journal is empty or damaged, when the journal was written for a different \
graph (its `graph_digest` differs from the plan's, AGS RT053: a changed graph cannot continue a \
run of the old one), or when `--decide NAME=...` names no gate or AWP signal wait (by scope \
path) or human checkpoint (by `NODE.CHECKPOINT`) that is awaiting a decision (the message lists \
what is): a \
checkpoint or gate that was decided already is not decided again. A gate or checkpoint whose \
timeout (`timeout_seconds`, else `policy.default_human_timeout_seconds`) fell due while the run \
was paused cannot be decided either: its `on_timeout` applies when the run is resumed without \
deciding it. An answer whose outputs (`--outputs NAME=JSON` or `NAME=@FILE`) would not fit is \
refused before anything is journaled, with the reason (an input checkpoint's `collect`, then the \
node's declared outputs, merged over the outputs under review or the last call's at a hand-off; \
outputs with a rejection, or for a checkpoint whose stage takes none): the run stays paused, so \
answer again. A run that already ended is not resumed again; its record is written as it \
stands.",
    },
    CodeInfo {
        code: "AGC304",
        origin: "agc",
        severity: Warning,
        summary: "a script entry names no node of the graph",
        explanation: "Every key under the script's `nodes` should name a node of the graph being \
run, by scope path, plan id or local id (indices such as `[2]` aside). A key that matches \
nothing is almost always a typo, and its results would silently never be used: the node would \
get placeholder outputs instead. The run still starts.",
    },
    CodeInfo {
        code: "AGC305",
        origin: "agc",
        severity: Warning,
        summary: "a back edge has no bound: the runtime follows it at most 10 times",
        explanation: "Agent Graph `repeat` edges and AWP cycles through a switch become back \
edges in the plan, and neither dialect bounds them (the host decides when to stop). \
agc-runtime never follows a cycle without limit: a back edge without a `bound` is followed at \
most 10 times per scope instance (agc's documented default, `DEFAULT_BACK_EDGE_BOUND`), after \
which it behaves as at any bound (AGC306). The run record's diagnostics carry this warning at \
the start of every run of such a plan, once per unbounded back edge, so the limit is never \
silent. Bound the cycle in the source (or cap the whole run with \
`constraints.max_node_executions`) to choose another limit.",
    },
    CodeInfo {
        code: "AGC306",
        origin: "agc",
        severity: Warning,
        summary: "a back edge reached its bound and was not followed",
        explanation: "When a back edge `A -> B` is active (its outcomes, named outcomes and \
guard match what `A` just did), agc-runtime re-runs the cycle from `B` as a new pass (scope \
paths `B#1`, `B#2`, ...). Once the edge has been followed as often as its bound allows in this \
scope instance, it is recorded as not taken, this warning names the run of `A`, and `A`'s \
other edges resolve as usual: the run goes on with what the last pass produced (a node that \
only follows the cycle's exit is skipped when `A` did not take the exit). An AWP switch is \
the exception: its first matching case is its route, so when that case loops back at the \
bound the switch fails (AGC327) instead of taking a later case. This is agc's decision; the \
dialects that allow cycles leave the limit to the host.",
    },
    CodeInfo {
        code: "AGC307",
        origin: "agc",
        severity: Warning,
        summary: "the runtime does not carry out this construct",
        explanation: "A few constructs have no effect under agc-runtime, and the run record says \
so at the start of the run rather than skipping them silently. A `wait` node without a time \
to wait for (an agh `watch-source` or `watch-events`) completes at once: agc-runtime does not \
watch sources. (A `wait` with a `duration`, `duration_ms` or `until` is carried out: it is a \
timer, and `--fixed-clock` runs jump their clock to it instead of sleeping. An AWP `wait` for a \
signal is carried out too: the run pauses until the signal is delivered, see `docs/run.md`.) \
An agh `transform` node is evaluated (its output is its \
`map`), except in a plan written by an agc from before that, which held the map as one input: \
such a node succeeds with no outputs, and AGC307 says so. A subgraph instance whose graph the plan does not hold (AWP \
`subworkflow` with a `workflow_ref` the host resolves at run time) evaluates its params and \
ends with no body and no outputs. Script the nodes that follow such a construct as the real \
run would see them.",
    },
    CodeInfo {
        code: "AGC308",
        origin: "agc",
        severity: Warning,
        summary: "a failure-ladder step cannot be carried out and is skipped",
        explanation: "When a node's attempts are exhausted, agc-runtime walks its `failure` \
block: the `fallback` steps in order, then the `escalation`, then `on_exhausted`. A step that \
cannot be carried out is reported in the run record with this warning and passed over, so the \
ladder goes on to the next step: an `alternate_node` (or an escalation `to: node`) that names \
no node of the same scope, or a node that makes no call of its own (a loop, map, subgraph or \
gate), or whose inputs cannot be resolved at that point; or a fallback strategy the runtime \
does not know. The compiler checks the names (AG113, AG151); this warning covers what only \
the run can see, such as an alternate whose inputs read a node that has not run.",
    },
    CodeInfo {
        code: "AGC325",
        origin: "agc",
        severity: Error,
        summary: "a signal's payload does not fit the workflow state",
        explanation: "An AWP `wait` with `kind: signal` pauses the run until a host delivers the \
named signal (a script's entry for the wait, `outputs` being the payload; `--decide` naming \
the wait's scope path, with `--outputs` for the payload; Restate's `decide` with `outputs`). The payload's keys are merged into \
the workflow state through the state's reducers, so each key the `state_schema` declares must \
fit its declaration first (type, `enum`, JSON Schema). A key whose value does not fit fails \
the wait node with this error in the run record (upstream `SIGNAL_VALIDATION_ERROR`), the \
message naming the signal, the key and what was expected; nothing of the payload reaches the \
state. Keys the state schema does not declare are merged as they are. The wait is not retried \
(AWP ignores `retry` on waits): deliver a payload that fits, in a new run.",
    },
    CodeInfo {
        code: "AGC326",
        origin: "agc",
        severity: Error,
        summary: "an interrupt's resume payload does not fit its resume_schema",
        explanation: "An AWP `interrupt` pauses the run until it is resumed with a payload (a \
script's `outputs` for the interrupt with `decision: approved`; Restate's `decide` with \
`outputs`). The payload must fit the interrupt's `config.resume_schema` (checked as a whole, \
as JSON Schema: required properties, types, `additionalProperties`, ...). One that does not \
fails the interrupt node with this error in the run record (upstream `INVALID_RESUME_PAYLOAD`, \
reason `resume_validation_failed`). A payload that fits becomes the node's output and is \
merged into the workflow state by plain shallow overwrite (reducers are not applied, as \
upstream).",
    },
    CodeInfo {
        code: "AGC327",
        origin: "agc",
        severity: Error,
        summary: "an AWP switch could not route",
        explanation: "An AWP `switch` routes when it runs: its cases' `when` programs are \
evaluated in order on the workflow state, and the first whose result is neither `false` nor \
`null` wins (several outputs are an array, which counts as true; no output is `null`), else \
`config.default`. The switch node fails with this error (upstream FailNode \
`switch_routing_failed`), and with it the run, when a `when` program fails, when no case \
matches and there is no `default`, or when the case that matches loops back over a cycle that \
has reached agc's bound on AWP cycles (AGC305: AWP sets none, so agc cannot take the route AWP \
would take, and taking a later case instead would be a route AWP never takes). Add a \
`default`, or make the loop end within the bound.",
    },
    CodeInfo {
        code: "AGC328",
        origin: "agc",
        severity: Error,
        summary: "an AWP node left the workflow state invalid",
        explanation: "AWP validates the whole workflow state against `state_schema` (its \
top-level `reducer` keys stripped) after every node that changes it, and fails the run when it \
does not match (upstream \"State invalid after …\"). agc-runtime does the same: when the state \
a node's outputs make (a `set_state`'s assignments, an activity's or delegate's result, a \
signal's or resume's payload, merged through the reducers) does not fit the schema, the node \
fails with this error naming the node and where the state breaks the schema, the state stays \
as it was, and the run fails. `end` changes no state. (As a warning at the start of the run: \
the plan's state schema does not compile, so the state is not validated.) AGC249 catches the \
literal assignments that can never fit before the run.",
    },
    CodeInfo {
        code: "AGC329",
        origin: "agc",
        severity: Error,
        summary: "an agh Loop ended other than `done`",
        explanation: "An agh Loop runs its graph once per generation (research notes on agh \
§7). A generation that fails (a node failed, or a gate's verdict routed `revise`) starts the \
next one; a clean one ends the Loop `done` unless `contract.stop_when` is false, which starts \
the next one. The Loop ends otherwise, with this error in the run record naming why, when: the \
next generation would pass `iteration_cap` (`exhausted`, `iteration_cap_exceeded`); a gate's \
verdict `fail` comes at a revision (generation - 1) that reaches its `max_revisions` \
(`exhausted`, `gate_max_revisions_exhausted`; the default is 10); a gate's verdict routes to \
`halt` or `escalate` (the route's `terminal_status`, by default `failed` and `needs-approval`; \
agc ends the run rather than parking it for an operator); a fan-out has more branches (chunks \
of `batch_size` items) than `max_fan_out` (`exhausted`, `fan_out_width_exceeded`); or \
`stop_when` cannot be evaluated (`failed`). The record's `x-terminal` holds the Loop's terminal \
state, reason code, generation and the node that ended it; the AGS status is `failed`. Raise \
the limit, route the verdict elsewhere in `on_result`, or script the run as the real one \
would go.",
    },
    CodeInfo {
        code: "AGC309",
        origin: "agc",
        severity: Error,
        summary: "the run directory is in use by another process",
        explanation: "A run directory (`agc run --run-dir D`, `--resume D`) is held by one \
process at a time: two processes on one run would both replay its journal and both issue the \
call that was in flight (a side effect done twice), and interleave their events in one \
journal. `agc run` locks the directory with an OS advisory lock (`flock`) before it reads \
anything in it and holds it until the run ends or pauses; a second `agc run` on the same \
directory is refused at once with this error, naming the holder's process id when the system \
tells it (Linux), and reads or writes nothing there. The lock goes with the process: when the \
holder ends, however it ends (`kill -9` included), the directory is free again, with nothing \
to clean up by hand. Wait for the other process, or stop it, then resume.",
    },
    CodeInfo {
        code: "AGC310",
        origin: "agc",
        severity: Warning,
        summary: "the journal's last line was a torn write and is left out",
        explanation: "The JSON Lines journal (`D/journal.jsonl`) ends every event with a newline, \
and the driver writes each batch of events in one write before it acts on any of them. A \
process that dies in the middle of that write leaves a last line without its newline: a torn \
write, whose events nothing acted on. `agc run --resume D` leaves that tail out, says so with \
this warning, and cuts it away just before it appends the next event (a resume that is refused \
changes nothing). A complete line that is not an event (it has its newline but does not parse, \
or has a field an event does not have) is not a torn write but damage: the resume is refused \
(AGC303) and the journal left as it is, never appended after.",
    },
    CodeInfo {
        code: "AGC315",
        origin: "agc",
        severity: Warning,
        summary: "a compensation failed or could not run",
        explanation: "When a run ends `failed`, agc-runtime compensates every node run that \
succeeded and whose node names `failure.compensation: <node>`: the compensation node's call \
runs once per compensated run, one at a time, in reverse completion order, with its inputs \
resolved in the scope of the run it undoes (AGS FINALIZE). The record lists each as a node run \
with scope path `compensate.<path>` and `x-compensates`. This warning names a compensation that \
ended `failed` (after its own retries), one whose inputs did not resolve, or a compensation node \
that makes no call (a loop, map or subgraph cannot compensate). The remaining compensations \
still run, so as much as possible is undone, and the run stays `failed`. Check the compensation \
node's record entry for the error, then undo by hand what it could not.",
    },
];
