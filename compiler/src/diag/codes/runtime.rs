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
with `outputs`, `decision`, `fail`, `delay_ms`, `usage` or `results`. The diagnostic points at \
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
status 2.",
    },
    CodeInfo {
        code: "AGC302",
        origin: "agc",
        severity: Error,
        summary: "the file is not a readable agc plan",
        explanation: "`agc run` accepts a workflow document, which it compiles, or a plan written \
by `agc build` (JSON with `format: agc.plan/v2`; `agc.plan/v1` plans are still read). A plan that does not deserialize into the \
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
run of the old one), or when `--decide GATE=...` names no gate that is awaiting a decision \
(the message lists the gates that are). A run that already ended is not resumed again; its \
record is written as it stands.",
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
];
