//! A node's success criteria and its decision as the plan carries them (`agc.plan/v4`, a
//! node's `success` and `decision`): typed and decided at lowering (AGS `success` and
//! `decision`), with their expressions in place (an `expression` criterion's `expr`, a
//! `regex` criterion's `target`, a branch's `when`), so that the scheduler reads no attribute
//! JSON and no string-keyed expression to judge outputs or pick a branch
//! (`run/core/criteria.rs`, `plan/calls.rs`).
//!
//! Generic over the expression held, as [`super::Failure`] is, so the IR carries these types
//! (no default: this file stays below `model.rs`).
//! [`Success::from_block`] and [`Decision::from_block`] are the one reading of the AGS
//! blocks: lowering calls them, and so does the reader of a v3 plan (whose blocks were
//! `attributes.success` and `attributes.decision` and whose expressions were `exprs`
//! `criteria.<id>`, `criteria.<id>.target` and `branches.<label>`). A criterion's fields
//! that only its handler acts on (a `command`'s `run`, an `llm_judge`'s `rubric`, its
//! `description`, ...) are kept as written in its `rest`; a success block's `summary` and
//! `evaluation_order`, which nothing runs, stay in `attributes.success`.

use super::decl::{extension_keys, extensions};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A node's success criteria (AGS `success`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Success<X> {
    /// How the required criteria combine.
    #[serde(default, skip_serializing_if = "CriteriaMode::is_all")]
    pub mode: CriteriaMode,
    /// `n_of`: how many must pass (every required one when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    pub criteria: Vec<Criterion<X>>,
}

/// How required criteria combine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CriteriaMode {
    #[default]
    All,
    Any,
    NOf,
}

impl CriteriaMode {
    pub fn as_str(self) -> &'static str {
        match self {
            CriteriaMode::All => "all",
            CriteriaMode::Any => "any",
            CriteriaMode::NOf => "n_of",
        }
    }

    fn is_all(&self) -> bool {
        *self == CriteriaMode::All
    }
}

/// One criterion (AGS `criterion`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Criterion<X> {
    pub id: String,
    pub kind: CriterionKind,
    /// Advisory criteria are judged and recorded but never gate.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub advisory: bool,
    /// `expression`: must give `true`.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub expr: Option<X>,
    /// `regex`: the text to match (the `output`'s value when left out).
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub target: Option<X>,
    /// `regex`, `json_schema`, `artifact_present`: the output inspected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// `regex`: the pattern, its flags (`imsx`) and whether a match fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub flags: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub negate: bool,
    /// `json_schema`: the inline schema the output must fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    /// The fields only the criterion's handler acts on, as written.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// What a criterion checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CriterionKind {
    Command,
    FileExists,
    ArtifactPresent,
    JsonSchema,
    Regex,
    Expression,
    LlmJudge,
    Human,
    External,
    /// None this runtime knows (a hand-written plan): the handler's, as any kind the runtime
    /// does not evaluate.
    #[serde(other)]
    Unknown,
}

impl CriterionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CriterionKind::Command => "command",
            CriterionKind::FileExists => "file_exists",
            CriterionKind::ArtifactPresent => "artifact_present",
            CriterionKind::JsonSchema => "json_schema",
            CriterionKind::Regex => "regex",
            CriterionKind::Expression => "expression",
            CriterionKind::LlmJudge => "llm_judge",
            CriterionKind::Human => "human",
            CriterionKind::External => "external",
            CriterionKind::Unknown => "?",
        }
    }
}

/// A criterion's keys [`Criterion`] holds in fields of its own.
const CRITERION_HELD: [&str; 10] = [
    "id", "kind", "severity", "expr", "target", "output", "pattern", "flags", "negate", "schema",
];

/// A success block's keys [`Success`] holds.
const SUCCESS_HELD: [&str; 3] = ["mode", "count", "criteria"];

fn none<T>() -> Option<T> {
    None
}

impl<X> Success<X> {
    /// The criteria of an AGS `success` block; `expr` gives the parsed `criteria.<id>` (an
    /// `expression` criterion's `expr`) and `criteria.<id>.target` (a `regex` criterion's
    /// `target`). `None` without a `criteria` list. A value of the wrong shape reads as
    /// absent, as the runtime read it before.
    pub fn from_block(block: &Value, mut expr: impl FnMut(&str) -> Option<X>) -> Option<Self> {
        let criteria = block.get("criteria")?.as_array()?;
        let text = |c: &Value, k: &str| c.get(k).and_then(Value::as_str).map(str::to_string);
        let criteria = criteria
            .iter()
            .map(|c| {
                let id = text(c, "id").unwrap_or_else(|| "?".into());
                let kind = serde_json::from_value(c.get("kind").cloned().unwrap_or(Value::Null))
                    .unwrap_or(CriterionKind::Unknown);
                let (expr, target) = match kind {
                    CriterionKind::Expression => (expr(&format!("criteria.{id}")), None),
                    CriterionKind::Regex => (None, expr(&format!("criteria.{id}.target"))),
                    _ => (None, None),
                };
                Criterion {
                    kind,
                    advisory: c.get("severity").and_then(Value::as_str) == Some("advisory"),
                    expr,
                    target,
                    output: text(c, "output"),
                    pattern: text(c, "pattern"),
                    flags: text(c, "flags").unwrap_or_default(),
                    negate: c.get("negate").and_then(Value::as_bool).unwrap_or(false),
                    schema: c.get("schema").cloned(),
                    rest: c
                        .as_object()
                        .into_iter()
                        .flatten()
                        .filter(|(k, _)| !CRITERION_HELD.contains(&k.as_str()))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                    id,
                }
            })
            .collect();
        Some(Success {
            mode: match block.get("mode").and_then(Value::as_str) {
                Some("any") => CriteriaMode::Any,
                Some("n_of") => CriteriaMode::NOf,
                _ => CriteriaMode::All,
            },
            count: block.get("count").and_then(Value::as_u64),
            criteria,
        })
    }

    /// What of an AGS `success` block the plan keeps in `attributes.success` (`summary`,
    /// `evaluation_order`, extension keys); `None` when nothing is left.
    pub fn residue(block: &Value) -> Option<Value> {
        let Value::Object(block) = block else {
            return Some(block.clone());
        };
        let left: Map<String, Value> = block
            .iter()
            .filter(|(k, _)| !SUCCESS_HELD.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        (!left.is_empty()).then_some(Value::Object(left))
    }

    /// The same criteria with each expression mapped by `f` (a back end's view of the IR's).
    pub fn map_exprs<'a, Y>(&'a self, mut f: impl FnMut(&'a X) -> Y) -> Success<Y> {
        Success {
            mode: self.mode,
            count: self.count,
            criteria: self
                .criteria
                .iter()
                .map(|c| Criterion {
                    id: c.id.clone(),
                    kind: c.kind,
                    advisory: c.advisory,
                    expr: c.expr.as_ref().map(&mut f),
                    target: c.target.as_ref().map(&mut f),
                    output: c.output.clone(),
                    pattern: c.pattern.clone(),
                    flags: c.flags.clone(),
                    negate: c.negate,
                    schema: c.schema.clone(),
                    rest: c.rest.clone(),
                })
                .collect(),
        }
    }
}

/// A decision node's branches (AGS `decision`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision<X> {
    /// Who picks the branch (`agent` when left out).
    #[serde(default, skip_serializing_if = "Evaluator::is_agent")]
    pub evaluator: Evaluator,
    /// What the decision must determine (a template, for the handler).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    pub branches: Vec<Branch<X>>,
    /// Taken when no branch's condition holds (`evaluator: expression`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_branch: Option<String>,
    /// Extension keys (`x-…`) as written (`agc.plan/v5`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extensions: Map<String, Value>,
}

/// Who picks a decision's branch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Evaluator {
    /// Its handler (a model) names the branch.
    #[default]
    Agent,
    /// The first branch whose `when` holds, with no call.
    Expression,
}

impl Evaluator {
    fn is_agent(&self) -> bool {
        *self == Evaluator::Agent
    }
}

/// One branch of a decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Branch<X> {
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `evaluator: expression`: the branch's condition.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub when: Option<X>,
    /// Extension keys (`x-…`) as written (`agc.plan/v5`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extensions: Map<String, Value>,
}

impl<X> Decision<X> {
    /// The branches of an AGS `decision` block; `expr` gives the parsed `branches.<label>`
    /// (a branch's `when`, lowered under `evaluator: expression`). A branch without a label
    /// is left out (it never matched). `None` when `block` is not an object.
    pub fn from_block(block: &Value, mut expr: impl FnMut(&str) -> Option<X>) -> Option<Self> {
        let block = block.as_object()?;
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        Some(Decision {
            evaluator: match block.get("evaluator").and_then(Value::as_str) {
                Some("expression") => Evaluator::Expression,
                _ => Evaluator::Agent,
            },
            question: text(block.get("question")),
            branches: block
                .get("branches")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|b| {
                    let label = b.get("label")?.as_str()?.to_string();
                    Some(Branch {
                        when: expr(&format!("branches.{label}")),
                        description: text(b.get("description")),
                        extensions: extensions(b),
                        label,
                    })
                })
                .collect(),
            default_branch: text(block.get("default_branch")),
            extensions: extension_keys(block),
        })
    }

    /// The same decision with each expression mapped by `f` (a back end's view of the IR's).
    pub fn map_exprs<'a, Y>(&'a self, mut f: impl FnMut(&'a X) -> Y) -> Decision<Y> {
        Decision {
            evaluator: self.evaluator,
            question: self.question.clone(),
            branches: self
                .branches
                .iter()
                .map(|b| Branch {
                    label: b.label.clone(),
                    description: b.description.clone(),
                    when: b.when.as_ref().map(&mut f),
                    extensions: b.extensions.clone(),
                })
                .collect(),
            default_branch: self.default_branch.clone(),
            extensions: self.extensions.clone(),
        }
    }
}
