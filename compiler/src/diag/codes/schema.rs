//! Native codes of Agent Graph and agh that the schema check emits.
//!
//! Agent Graph reports every schema failure as `schema-invalid` (its loader throws one error per
//! file; agc reports each failing place). agh has no schema, but its linter has codes for some
//! rules agc's agh schema enforces; where the failing rule is exactly one of those, the schema
//! check uses the linter's code, so that the semantic pass need not check it again.

use super::CodeInfo;
use crate::diag::Severity::Error;

pub(super) static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "schema-invalid",
        origin: "agent-graph",
        severity: Error,
        summary: "the document does not match its Agent Graph v1 schema",
        explanation: "The document fails the official JSON Schema of its kind \
(`agent-graph.<kind>.v1`, picked by its `schema:` value) at this place: an unknown field (every \
Agent Graph object is closed), a missing required field, a value outside an enum, an id that \
breaks the id grammar `^[a-z0-9](?:[a-z0-9._/-]*[a-z0-9])?$`, or a combination the schema \
forbids (for example an action with both `command` and `skill`, or a `terminal` node with an \
`action`). The upstream loader stops at the first file with `schema-invalid`; agc reports every \
failing place, each once. Formats (`date-time`, `uri`) are checked, as upstream does with \
ajv-formats.",
    },
    CodeInfo {
        code: "node_id_invalid",
        origin: "agh",
        severity: Error,
        summary: "a node id is not snake_case, or is the reserved `budget`",
        explanation: "agh node ids match `^[a-z][a-z0-9_]*$`, so the same id is valid in `{{ }}` \
templates and in CEL without escaping. The id `budget` is reserved for the synthetic \
budget-approval gate.",
    },
    CodeInfo {
        code: "unknown_control_kind",
        origin: "agh",
        severity: Error,
        summary: "unknown control node kind",
        explanation: "Control nodes (`class: control`) are a closed set: `fan-out`, `collect`, \
`branch`, `gate`, `sub-loop`.",
    },
    CodeInfo {
        code: "unknown_source_kind",
        origin: "agh",
        severity: Error,
        summary: "unknown source node kind",
        explanation: "Source nodes (`class: source`) are a closed set: `input`, `file-import`, \
`watch-source`, `watch-events`.",
    },
    CodeInfo {
        code: "unknown_terminal_state",
        origin: "agh",
        severity: Error,
        summary: "unknown terminal state in `contract.terminal_states`",
        explanation: "The terminal states are fixed: `done`, `no-op`, `blocked`, `failed`, \
`exhausted`, `stalled` (and `canceled` in compozy.loop/v1). agc also accepts `no_op`, the \
spelling of early agh releases.",
    },
    CodeInfo {
        code: "file_import_parse_required",
        origin: "agh",
        severity: Error,
        summary: "`file-import` needs `parse: json` or `parse: text`",
        explanation: "A `file-import` source must say how to read the matched files. agc also \
accepts `md_tasks`, the parser of early agh releases (later replaced by the tool \
`ext__dev_cycle__import_tasks`).",
    },
    CodeInfo {
        code: "watch_kind_required",
        origin: "agh",
        severity: Error,
        summary: "`watch-source` without `watch.kind`",
        explanation: "A `watch-source` node polls an extension-defined source; `watch.kind` names \
it. The other `watch` fields belong to that source and are rendered at run time.",
    },
];
