//! The one reference namespace that `{{ }}` templates and CEL conditions read (research §4.2),
//! and path validation against it.
//!
//! Roots: `inputs.<name>` (typed `{type: <input type>}`), `nodes.<id>.status|output[...]`,
//! `item`/`index` (fan-out bodies only), `trigger` (Loops with a trigger, schedule or webhook
//! start), `event` (watch-events filters only), `generation` (a scalar).
//!
//! Output paths are resolved as upstream's `ValidatePath` does, segment by segment: the
//! schema's `properties[seg]`, else the key `seg` itself (the shorthand form
//! `produces: {tasks: array}`), else, for `type: array`, the same lookup in `items`; a list
//! takes its first element. A node with no declared output schema accepts every path (the
//! linter then warns that the path cannot be proven). agc follows upstream exactly here,
//! including its strictness: an object schema without `properties` has no child fields.

use crate::source::Value;
use std::borrow::Cow;
use std::collections::HashMap;

/// agh's four reference codes.
pub const UNKNOWN_REFERENCE: &str = "unknown_reference";
pub const UNRESOLVABLE_PATH: &str = "unresolvable_path";
pub const ITEM_OUTSIDE_FANOUT: &str = "item_outside_fanout";
pub const CONDITION_NOT_BOOL: &str = "condition_not_bool";

/// Node id → its output schema (`None` when it declares none), borrowed from the document
/// where it is written there.
pub type NodeSchemas<'d> = HashMap<String, Option<Cow<'d, Value>>>;

/// The namespace of one scope (graph) of a Loop; the flags depend on where the reference is.
#[derive(Clone, Debug)]
pub struct Namespace<'a> {
    /// Input name → its schema `{type: <input type>}`.
    pub inputs: &'a HashMap<String, Value>,
    /// Node id → its output schema, `None` when it declares none.
    pub nodes: &'a NodeSchemas<'a>,
    pub fanout: bool,
    pub trigger: bool,
    pub event: bool,
    /// The document's budget for "did you mean".
    pub suggestions: &'a crate::diag::suggest::Budget,
}

/// A failed path, with the code upstream gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct PathError {
    pub code: &'static str,
    pub message: String,
    /// A near name that exists ("did you mean …?"), for unknown inputs and nodes.
    pub help: Option<String>,
    /// The name written and the near one, for the code action the help names.
    pub fix: Option<(String, String)>,
}

fn err(code: &'static str, message: String) -> PathError {
    PathError {
        code,
        message,
        help: None,
        fix: None,
    }
}

impl Namespace<'_> {
    /// An unknown-name error with the closest of `known` as help, within the budget.
    fn unknown<'k>(
        &self,
        message: String,
        name: &str,
        known: impl Iterator<Item = &'k String>,
    ) -> PathError {
        let near = self.suggestions.closest(name, known.map(String::as_str));
        PathError {
            help: near.map(|s| format!("did you mean `{s}`?")),
            fix: near.map(|s| (name.to_string(), s.to_string())),
            ..err(UNKNOWN_REFERENCE, message)
        }
    }
}

/// The namespace roots, for messages.
pub const ROOTS: &str = "inputs, nodes, item, index, trigger, event, generation";

impl Namespace<'_> {
    /// Validates a dotted path (already split).
    pub fn validate(&self, path: &[String]) -> Result<(), PathError> {
        let Some(root) = path.first() else {
            return Ok(());
        };
        match root.as_str() {
            "inputs" => {
                let Some(name) = path.get(1) else {
                    return Err(err(
                        UNKNOWN_REFERENCE,
                        "an input reference must name an input (`inputs.<name>`)".into(),
                    ));
                };
                let Some(schema) = self.inputs.get(name) else {
                    return Err(self.unknown(
                        format!("unknown input `{name}`"),
                        name,
                        self.inputs.keys(),
                    ));
                };
                schema_path(schema, &path[2..], path)
            }
            "nodes" => {
                if path.len() < 3 {
                    return Err(err(
                        UNKNOWN_REFERENCE,
                        "a node reference must name a node and a field (`nodes.<id>.output`)"
                            .into(),
                    ));
                }
                let Some(out) = self.nodes.get(&path[1]) else {
                    return Err(self.unknown(
                        format!("unknown node `{}`", path[1]),
                        &path[1],
                        self.nodes.keys(),
                    ));
                };
                match path[2].as_str() {
                    "status" if path.len() > 3 => Err(err(
                        UNRESOLVABLE_PATH,
                        format!("`nodes.{}.status` is a scalar", path[1]),
                    )),
                    "status" => Ok(()),
                    "output" => match out {
                        Some(schema) => schema_path(schema, &path[3..], path),
                        None => Ok(()),
                    },
                    other => Err(err(
                        UNKNOWN_REFERENCE,
                        format!(
                            "unknown node field `{other}`; a node exposes `status` and `output`"
                        ),
                    )),
                }
            }
            "item" | "index" if !self.fanout => Err(err(
                ITEM_OUTSIDE_FANOUT,
                format!("`{root}` is only available downstream of a fan-out, before its collect"),
            )),
            "item" | "index" => Ok(()),
            "trigger" if !self.trigger => Err(err(
                UNKNOWN_REFERENCE,
                "the trigger payload is only available when the Loop declares a `trigger`, \
`schedule` or `webhook` start"
                    .into(),
            )),
            "event" if !self.event => Err(err(
                UNKNOWN_REFERENCE,
                "`event` is only available in a watch-events `events[].filter`".into(),
            )),
            "trigger" | "event" => Ok(()),
            "generation" if path.len() > 1 => {
                Err(err(UNRESOLVABLE_PATH, "`generation` is a scalar".into()))
            }
            "generation" => Ok(()),
            other => Err(err(
                UNKNOWN_REFERENCE,
                format!("unknown reference root `{other}`; the roots are {ROOTS}"),
            )),
        }
    }

    /// Whether a validated `nodes.<id>.output…` path reads a node with no declared schema.
    pub fn unproven(&self, path: &[String]) -> bool {
        path.len() >= 3
            && path[0] == "nodes"
            && path[2] == "output"
            && matches!(self.nodes.get(&path[1]), Some(None))
    }
}

fn schema_path(schema: &Value, rest: &[String], whole: &[String]) -> Result<(), PathError> {
    if rest.is_empty() {
        return Ok(());
    }
    let mut cur = schema;
    for (i, seg) in rest.iter().enumerate() {
        match child(cur, seg) {
            Some(next) => cur = next,
            None => {
                let upto = whole.len() - rest.len() + i + 1;
                let at = if upto < whole.len() {
                    format!(" (no `{}`)", whole[..upto].join("."))
                } else {
                    String::new()
                };
                return Err(err(
                    UNRESOLVABLE_PATH,
                    format!("`{}` is not declared by the schema{at}", whole.join(".")),
                ));
            }
        }
    }
    Ok(())
}

/// One step of upstream's `childSchema` (bounded: at most one `items` hop per list level, and
/// lists are finite, so the loop ends).
fn child<'v>(mut cur: &'v Value, seg: &str) -> Option<&'v Value> {
    for _ in 0..crate::expr::types::MAX_SCHEMA_DEPTH {
        match cur {
            Value::Object(m) => {
                if let Some(c) = m.get("properties").and_then(|p| p.get(seg)) {
                    return Some(c);
                }
                if let Some(c) = m.get(seg) {
                    return Some(c);
                }
                if m.get("type").and_then(Value::as_str) == Some("array") {
                    cur = m.get("items")?;
                    continue;
                }
                return None;
            }
            Value::Array(items) => cur = items.first()?,
            _ => return None,
        }
    }
    None
}

/// The output schema of a shorthand or JSON-Schema `produces`-like value, as upstream keeps it.
pub fn input_schema(ty: &str) -> Value {
    Value::from(serde_json::json!({ "type": ty }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(s: &str) -> Vec<String> {
        s.split('.').map(str::to_string).collect()
    }

    #[test]
    fn paths_resolve_as_upstream() {
        let inputs = HashMap::from([("slug".to_string(), input_schema("string"))]);
        let nodes = HashMap::from([
            (
                "load".to_string(),
                Some(Cow::Owned(Value::from(
                    json!({"tasks": "array", "meta": {"type": "object",
                    "properties": {"n": {"type": "integer"}}}}),
                ))),
            ),
            (
                "review".to_string(),
                Some(Cow::Owned(Value::from(
                    json!({"type": "object", "properties": {"issues": {"type": "array",
                    "items": {"type": "object", "properties": {"id": {"type": "string"}}}}}}),
                ))),
            ),
            ("free".to_string(), None),
        ]);
        let ns = Namespace {
            inputs: &inputs,
            nodes: &nodes,
            fanout: false,
            trigger: false,
            event: false,
            suggestions: &Default::default(),
        };
        assert!(ns.validate(&p("inputs.slug")).is_ok());
        assert_eq!(
            ns.validate(&p("inputs.slug.x")).unwrap_err().code,
            UNRESOLVABLE_PATH
        );
        assert_eq!(
            ns.validate(&p("inputs.nope")).unwrap_err().code,
            UNKNOWN_REFERENCE
        );
        // Unknown names suggest a near one that exists, and only a near one.
        let help = |path: &str| ns.validate(&p(path)).unwrap_err().help;
        assert_eq!(help("inputs.slg").as_deref(), Some("did you mean `slug`?"));
        assert_eq!(
            help("nodes.lod.output").as_deref(),
            Some("did you mean `load`?")
        );
        assert_eq!(help("inputs.nope"), None);
        assert_eq!(help("nodes.elsewhere.output"), None);
        assert!(ns.validate(&p("nodes.load.output.tasks")).is_ok());
        assert!(ns.validate(&p("nodes.load.output.meta.n")).is_ok());
        assert!(ns.validate(&p("nodes.review.output.issues.id")).is_ok());
        assert_eq!(
            ns.validate(&p("nodes.review.output.issues.title"))
                .unwrap_err()
                .code,
            UNRESOLVABLE_PATH
        );
        assert!(ns.validate(&p("nodes.free.output.anything.goes")).is_ok());
        assert!(ns.unproven(&p("nodes.free.output.x")));
        assert_eq!(
            ns.validate(&p("nodes.load.state")).unwrap_err().code,
            UNKNOWN_REFERENCE
        );
        assert_eq!(
            ns.validate(&p("nodes.load.status.x")).unwrap_err().code,
            UNRESOLVABLE_PATH
        );
        assert_eq!(
            ns.validate(&p("item.id")).unwrap_err().code,
            ITEM_OUTSIDE_FANOUT
        );
        assert_eq!(
            ns.validate(&p("trigger.payload")).unwrap_err().code,
            UNKNOWN_REFERENCE
        );
        assert_eq!(
            ns.validate(&p("generation.x")).unwrap_err().code,
            UNRESOLVABLE_PATH
        );
        assert_eq!(
            ns.validate(&p("bogus")).unwrap_err().code,
            UNKNOWN_REFERENCE
        );
    }
}
