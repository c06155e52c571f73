//! agc's own codes (`AGC…`): loading, detection, and checks no dialect defines.

use super::CodeInfo;
use crate::diag::Severity::{Error, Warning};

pub(super) static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "AGC001",
        origin: "agc",
        severity: Error,
        summary: "a file could not be read",
        explanation: "The path does not exist, is not readable, or is a directory holding no \
document agc recognises. agc exits with status 2 for I/O problems.",
    },
    CodeInfo {
        code: "AGC002",
        origin: "agc",
        severity: Error,
        summary: "the file is not valid UTF-8",
        explanation: "YAML 1.2 and JSON documents are read as UTF-8. The diagnostic points at the \
first byte that does not form a valid UTF-8 sequence. Re-save the file as UTF-8.",
    },
    CodeInfo {
        code: "AGC003",
        origin: "agc",
        severity: Error,
        summary: "YAML or JSON syntax error",
        explanation: "The document is not well-formed YAML 1.2 (JSON is read as YAML 1.2, of \
which it is a subset). The position is where the parser gave up; the real mistake is often just \
before it, such as a missing `:` or a wrong indentation.",
    },
    CodeInfo {
        code: "AGC004",
        origin: "agc",
        severity: Error,
        summary: "duplicate key in a mapping",
        explanation: "A mapping has the same key twice. YAML 1.2 forbids this, yet many loaders \
silently keep the last value, which hides mistakes. agc reports every repeated key and labels \
the first occurrence. In AGS documents this is reported as AG005, the spec's own code.",
    },
    CodeInfo {
        code: "AGC005",
        origin: "agc",
        severity: Error,
        summary: "a mapping key is not a string",
        explanation: "Workflow documents stay within the JSON data model, where keys are \
strings. A plain key such as `1`, `true` or `null` is read by YAML 1.2 as a number, boolean or \
null, and a collection cannot be a key at all. Quote the key (`\"1\":`) if a string is meant.",
    },
    CodeInfo {
        code: "AGC006",
        origin: "agc",
        severity: Error,
        summary: "a custom YAML tag is not supported",
        explanation: "Tags such as `!include` or `!Ref` have no meaning in the JSON data model and \
would be silently dropped by a JSON conversion. agc accepts only the YAML core schema tags \
(`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!seq`, `!!map`) and rejects the rest.",
    },
    CodeInfo {
        code: "AGC007",
        origin: "agc",
        severity: Error,
        summary: "YAML merge keys (`<<`) are not supported",
        explanation: "`<<: *anchor` is a YAML 1.1 extension that YAML 1.2 does not define. Some \
loaders merge the mapping, others keep a literal `<<` key, so the same file means different \
things to different tools. agc takes the strict reading and rejects the key: write the fields \
out, or use the dialect's own defaults mechanism (for example AGS `defaults`).",
    },
    CodeInfo {
        code: "AGC008",
        origin: "agc",
        severity: Error,
        summary: "more than one document in the stream",
        explanation: "A workflow file holds exactly one document. A second `---` starts another \
document, which agc would otherwise have to ignore. Split the documents into separate files.",
    },
    CodeInfo {
        code: "AGC009",
        origin: "agc",
        severity: Error,
        summary: "the document is empty",
        explanation: "The file holds no document, or only comments, or a document that is null. \
A workflow document is a mapping.",
    },
    CodeInfo {
        code: "AGC010",
        origin: "agc",
        severity: Warning,
        summary: "the file starts with a byte order mark",
        explanation: "A UTF-8 byte order mark (EF BB BF) is not allowed in JSON (RFC 8259) and \
the AGS spec forbids it. agc skips it and warns; remove it to silence the warning.",
    },
    CodeInfo {
        code: "AGC011",
        origin: "agc",
        severity: Error,
        summary: "a number cannot be represented in JSON",
        explanation: "`.inf`, `.nan` and integers beyond the 64-bit range have no JSON form. \
Canonical forms (RFC 8785) and digests are undefined for them, so agc rejects them. Quote the \
value if a string is meant.",
    },
    CodeInfo {
        code: "AGC012",
        origin: "agc",
        severity: Error,
        summary: "the file is larger than the size limit",
        explanation: "agc refuses files above its size limit (256 MiB by default; \
`--max-file-size BYTES` raises it) instead of exhausting memory. The limit holds for every file \
a command reads: documents and the files they reference, `--params`, `--script`, \
`--outputs NAME=@FILE`, `--vars`, `--input`, Agent Graph `@FILE` arguments, and standard input \
(`-`), which is read up to one byte past the limit and no further, so an endless stream \
(`/dev/zero` piped in) is refused rather than read. The command exits 2, as for a file that \
cannot be read.",
    },
    CodeInfo {
        code: "AGC013",
        origin: "agc",
        severity: Error,
        summary: "nesting is deeper than the limit",
        explanation: "Sequences and mappings may nest at most 128 levels deep. Real workflow \
documents nest a dozen levels; anything far deeper is a mistake or an attack, and agc never \
lets input depth drive its own recursion.",
    },
    CodeInfo {
        code: "AGC014",
        origin: "agc",
        severity: Error,
        summary: "alias expansion exceeds the budget",
        explanation: "Anchors and aliases are expanded on load. Nested aliases can multiply a \
small file into billions of nodes (the \"billion laughs\" attack), so expansion may copy at most \
100,000 nodes. Write the repeated parts out, or use the dialect's defaults mechanism.",
    },
    CodeInfo {
        code: "AGC015",
        origin: "agc",
        severity: Error,
        summary: "an alias names an unknown anchor",
        explanation: "`*name` must refer to an anchor `&name` defined earlier in the same \
document; YAML has no forward references. Define the anchor before its first use, or check the \
spelling.",
    },
    CodeInfo {
        code: "AGC016",
        origin: "agc",
        severity: Warning,
        summary: "a `.json` file is not strict JSON",
        explanation: "agc reads every document as YAML 1.2, of which JSON is a subset, so a \
`.json` file with comments, trailing commas, single-quoted strings or bare keys still loads. \
Other tools do not: the formats' own validators, harnesses and editors parse `.json` files as \
RFC 8259 JSON (the AGS spec requires it) and refuse such a file. The warning points where a \
strict JSON parser stops. Make the file strict JSON, or name it `.yaml` if YAML is what it \
is. Only files whose name ends in `.json` are checked this way; the format is still never \
taken from the name.",
    },
    CodeInfo {
        code: "AGC017",
        origin: "agc",
        severity: Error,
        summary: "the input is not a regular file",
        explanation: "agc reads documents, params, scripts and the other files a command names \
only from regular files, or from standard input for `-`. A FIFO (named pipe), a device such as \
`/dev/zero`, a socket or a folder where a file is expected is refused at once: reading a FIFO \
waits for a writer that may never come, and a device can be endless. The file is opened \
without waiting and its type is taken from the opened file, so nothing blocks. To feed agc \
from a pipe, use `-` (`producer | agc check -`), whose size limit bounds what is read \
(AGC012). The command exits 2.",
    },
    CodeInfo {
        code: "AGC018",
        origin: "agc",
        severity: Error,
        summary: "the output is one of the command's inputs",
        explanation: "`agc build wf.yaml -o wf.yaml` would replace the document with its plan. \
Every command that writes a file (`build -o`, `graph -o`, `gen rust -o`, `run --record`) \
refuses an output that is one of the files it reads: the same file after symbolic links, \
compared by device and inode, so a link or a second name for the input is caught too. Nothing \
is written; the command exits 2. `agc graph --inject FILE.md` is the exception by design: it \
refreshes the Markdown file it reads.",
    },
    CodeInfo {
        code: "AGC019",
        origin: "agc",
        severity: Error,
        summary: "the output folder holds files agc did not write",
        explanation: "`agc agent-graph bundle -o DIR` replaces `DIR` whole, and `agc gen rust -o \
DIR` writes its files into `DIR`: pointed at a user's folder (a crate of their own, a `.git`), \
either would destroy work. They write only into a folder that does not exist, is empty, or \
is their own output: a bundle whose `manifest.json` lists every file in the folder, a crate \
whose `Cargo.toml` starts with the `# Generated by `agc gen rust`` header. Anything else is \
refused (exit 2) naming a file agc did not write, unless `--force`. A bundle is built in a \
temporary folder beside `DIR` and swapped in at the end, so a failure leaves `DIR` as it was; \
`gen rust` leaves the files it does not generate alone, and `--check` writes nothing.",
    },
    CodeInfo {
        code: "AGC020",
        origin: "agc",
        severity: Error,
        summary: "the document's format is not recognised",
        explanation: "agc recognises a format from the document's own top-level markers, never \
from the file name: AGS 1.0 by `kind: AgenticGraph` (or an `ags_version` with no `kind`); Agent \
Graph v1 by `schema: agent-graph.<kind>.v1`; agh.loop/v1 by `apiVersion: agh.loop/v1` (or its \
renamed successor `compozy.loop/v1`); an AWP workflow definition by a top-level `document` \
mapping together with `nodes` or `state_schema`. A document that is not a mapping (a list, a \
plain string) is none of them. Add the marker, or force a format with `--dialect \
ags|agent-graph|awp|agh`.",
    },
    CodeInfo {
        code: "AGC021",
        origin: "agc",
        severity: Error,
        summary: "the document does not match its format's schema",
        explanation: "The document fails its format's JSON Schema at this place: a wrong type, \
a missing required field, a pattern or range violation, or a combination the schema forbids. \
The message names the rule. Used for agh, which defines no code of its own for schema \
failures (AGS uses AG001, Agent Graph `schema-invalid`, AWP `schema`). agh has no official schema; agc checks \
agh.loop/v1 against its own, `schemas/agh-loop-v1.schema.json`.",
    },
    CodeInfo {
        code: "AGC022",
        origin: "agc",
        severity: Error,
        summary: "unknown field",
        explanation: "The object does not allow this field: the schema is closed. Unknown fields \
are usually typos that a tool would otherwise silently ignore, so agc reports them at the key \
and suggests the closest allowed name. (AGS reports this as AG003.)",
    },
    CodeInfo {
        code: "AGC023",
        origin: "agc",
        severity: Error,
        summary: "value not in the allowed set",
        explanation: "The field takes one of a fixed set of values (an enum, a constant, or a \
discriminator such as an AWP node `type`); the message lists them. (AGS reports this as AG004.)",
    },
    CodeInfo {
        code: "AGC024",
        origin: "agc",
        severity: Error,
        summary: "unknown Agent Graph document kind",
        explanation: "The `schema:` value starts with `agent-graph.` but names no Agent Graph v1 \
kind agc has a schema for. The kinds are those of the official schemas: provider, graph, \
action, resource, code-catalog, test, resource-read-receipts, skill-binding, bundle, \
code-location, resource-location, route, evaluation, run and error, each written \
`agent-graph.<kind>.v1`. Other `agent-graph.*` values (for example the case-study replay \
format) are not workflow documents.",
    },
    CodeInfo {
        code: "AGC025",
        origin: "agc",
        severity: Error,
        summary: "an output could not be written",
        explanation: "A file, a folder or standard output could not be written: no space left \
(`-o /dev/full`, a full disk), no permission, a missing folder, or an output that is a folder. \
agc writes a file atomically (a temporary file beside it, synced, then renamed over it), so a \
failed write leaves the old file whole; every write to standard output and its final flush are \
checked, and a failure exits 2 rather than 0 with the output silently lost. A closed pipe \
(`agc build x | head -1`) is not a failure: agc stops writing quietly, as Unix tools do.",
    },
    CodeInfo {
        code: "AGC110",
        origin: "agc",
        severity: Warning,
        summary: "an AGS node id with `-` is read by an expression",
        explanation: "AGS node ids may hold `-` (`build-docs`), but AGX reads `-` as minus: \
`nodes.build-docs.outputs.site` is the subtraction `nodes.build - docs.outputs.site`. Such a \
path is an error (AG203, reported once over the whole path); the dynamic form \
`output(\"build-docs\", \"site\")` works, but every reader has to remember it.

agc warns once per node whose id holds `-` and that some expression of its scope reads, at \
the node's key, with the first read as a label. Rename the node with `_` (`build_docs`) so that \
plain paths work. Ids with `-` that no expression reads are fine and are not reported.",
    },
    CodeInfo {
        code: "AGC111",
        origin: "agc",
        severity: Error,
        summary: "an AGS map binds a reserved name, or one name twice",
        explanation: "`map.as` and `map.index_as` name the element and its index inside the \
map's body, where expressions read them as bare names. SPEC Appendix B reserves the namespace \
roots `graph`, `params`, `context`, `attachments`, `nodes`, `self`, `loop`, `outputs`, `env`, \
`secrets`, and `item` (kept for a future default `map.as`): they must not be used as binding \
names. A map binding `params` would hide the graph's params in its body (`params.dir` would \
read the element). agc refuses these names, with one deliberate exception: `as: item` is \
accepted, since `item` is reserved to become the default of `map.as`, and naming the element \
`item` agrees with that default (it is also the name most documents would choose); \
`index_as: item` is refused.

The element and its index also need two names: `as` equal to `index_as` (or to `index`, the \
default of `index_as`) makes one of them unreadable, and is refused too. The spec defines no \
code for either, hence an agc code.",
    },
];
