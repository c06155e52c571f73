//! A node's failure ladder as the plan carries it (`agc.plan/v4`, a node's `failure`): which
//! failures are retried, the fallback steps, the escalation, `on_exhausted`,
//! `timeout_action` and the compensation target, typed and decided at lowering (AGS
//! `failure`, with the scope's `defaults` merged), so that the scheduler reads no attribute
//! JSON to run the ladder (`run/core/ladder.rs`, `escalation.rs`, `compensate.rs`).
//!
//! The types are generic over the expression they hold (a fallback step's `when`, the
//! escalation's `message`): the plan's [`crate::plan::Expr`], and the compiler's IR
//! expression, so the IR carries these types instead of declaring them again. (No default
//! for it: this file stays below `model.rs`, which holds a node's `Failure<Expr>`.) [`Failure::from_block`] is the one
//! reading of an AGS `failure` block into them: lowering calls it, and so does the reader of a
//! v3 plan (whose block was `attributes.failure` and whose expressions were `exprs`
//! `fallback.<i>.when` and `escalation.message`). What the block says that the runtime does
//! not run (`retry.feedback`, `retry.escalate_intelligence`, extension keys) stays in
//! `attributes.failure` ([`Failure::residue`]); `retry`'s attempts and delays are the node's
//! `retry`.

use super::decl::{extensions, strings};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// AGS failure classes: what a handler's error says went wrong (`failure.retry.retry_on`
/// matches them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    Transient,
    ModelError,
    ToolError,
    Timeout,
    BudgetExceeded,
    CriteriaFailed,
    OutputMissing,
    ValidationError,
    PermissionDenied,
}

impl FailureClass {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::Transient => "transient",
            FailureClass::ModelError => "model_error",
            FailureClass::ToolError => "tool_error",
            FailureClass::Timeout => "timeout",
            FailureClass::BudgetExceeded => "budget_exceeded",
            FailureClass::CriteriaFailed => "criteria_failed",
            FailureClass::OutputMissing => "output_missing",
            FailureClass::ValidationError => "validation_error",
            FailureClass::PermissionDenied => "permission_denied",
        }
    }
}

/// One entry of `retry_on`: a failure class, or `any`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryOn {
    Any,
    #[serde(untagged)]
    Class(FailureClass),
}

impl RetryOn {
    /// AGS's default `retry_on`.
    pub const DEFAULT: [RetryOn; 3] = [
        RetryOn::Class(FailureClass::Transient),
        RetryOn::Class(FailureClass::ToolError),
        RetryOn::Class(FailureClass::CriteriaFailed),
    ];

    /// Whether a failure of class `c` is retried by this entry.
    pub fn matches(self, c: FailureClass) -> bool {
        self == RetryOn::Any || self == RetryOn::Class(c)
    }
}

/// A node's failure ladder (every field at its default when the node's document says
/// nothing; a node without one has `failure` left out).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure<X> {
    /// The failure classes a retry follows (AGS's default when left out).
    #[serde(
        default = "default_retry_on",
        skip_serializing_if = "is_default_retry_on"
    )]
    pub retry_on: Vec<RetryOn>,
    /// The fallback steps, in order, once the retries are spent.
    #[serde(default = "Vec::new", skip_serializing_if = "Vec::is_empty")]
    pub fallback: Vec<Fallback<X>>,
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub escalation: Option<Escalation<X>>,
    #[serde(default, skip_serializing_if = "OnExhausted::is_fail")]
    pub on_exhausted: OnExhausted,
    #[serde(default, skip_serializing_if = "TimeoutAction::is_fail")]
    pub timeout_action: TimeoutAction,
    /// The node of the same scope that undoes this one's side effects when the run halts
    /// after it succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compensation: Option<String>,
}

fn default_retry_on() -> Vec<RetryOn> {
    RetryOn::DEFAULT.to_vec()
}

fn is_default_retry_on(v: &[RetryOn]) -> bool {
    v == RetryOn::DEFAULT
}

fn none<T>() -> Option<T> {
    None
}

impl<X> Default for Failure<X> {
    fn default() -> Failure<X> {
        Failure {
            retry_on: default_retry_on(),
            fallback: Vec::new(),
            escalation: None,
            on_exhausted: OnExhausted::Fail,
            timeout_action: TimeoutAction::Fail,
            compensation: None,
        }
    }
}

/// One fallback step (AGS `fallback_step`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fallback<X> {
    pub strategy: Strategy,
    /// `alternate_node`: the node of the same scope whose call is made instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// `degrade_outputs`: the outputs kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<String>,
    /// `relax_criteria`: the criteria made advisory.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub criteria: Vec<String>,
    /// Evaluated when the step is reached: false skips it.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub when: Option<X>,
    /// `human_takeover`: the hand-off's prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Extension keys (`x-…`) as written (`agc.plan/v5`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extensions: Map<String, Value>,
}

/// What a fallback step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    AlternateNode,
    DegradeOutputs,
    RelaxCriteria,
    HumanTakeover,
    Skip,
    /// One this runtime does not know (a hand-written plan): the step is skipped (AGC308).
    #[serde(other)]
    Unknown,
}

impl Strategy {
    /// The strategy named `name` ([`Strategy::Unknown`] for any other).
    fn named(name: &str) -> Strategy {
        serde_json::from_value(Value::from(name)).unwrap_or(Strategy::Unknown)
    }
}

/// The escalation (AGS `escalation`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Escalation<X> {
    #[serde(default)]
    pub to: EscalateTo,
    /// `to: node`: the node of the same scope whose call is made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// A harness-defined notification channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// The hand-off's message, a template rendered when the escalation is asked.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub message: Option<X>,
    /// The material handed over (`failed_criteria` and `diagnostics` when left out).
    #[serde(
        default = "default_include",
        skip_serializing_if = "is_default_include"
    )]
    pub include: Vec<String>,
    /// Extension keys (`x-…`) as written (`agc.plan/v5`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extensions: Map<String, Value>,
}

/// AGS's default escalation `include`.
pub const DEFAULT_INCLUDE: [&str; 2] = ["failed_criteria", "diagnostics"];

fn default_include() -> Vec<String> {
    DEFAULT_INCLUDE.iter().map(|s| s.to_string()).collect()
}

fn is_default_include(v: &[String]) -> bool {
    v == DEFAULT_INCLUDE
}

/// Who an escalation goes to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EscalateTo {
    #[default]
    Human,
    Node,
    Supervisor,
    External,
}

impl EscalateTo {
    pub fn as_str(self) -> &'static str {
        match self {
            EscalateTo::Human => "human",
            EscalateTo::Node => "node",
            EscalateTo::Supervisor => "supervisor",
            EscalateTo::External => "external",
        }
    }
}

/// The ladder's last step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnExhausted {
    #[default]
    Fail,
    Skip,
    Escalate,
    SucceedDegraded,
}

impl OnExhausted {
    fn is_fail(&self) -> bool {
        *self == OnExhausted::Fail
    }
}

/// What an attempt that timed out does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutAction {
    /// An ordinary failure of class `timeout`.
    #[default]
    Fail,
    /// Retried whatever `retry_on` says, within `max_attempts`.
    Retry,
    /// Straight to the escalation.
    Escalate,
    /// Succeeded degraded.
    Partial,
}

impl TimeoutAction {
    fn is_fail(&self) -> bool {
        *self == TimeoutAction::Fail
    }
}

/// The keys of an AGS `failure.retry` block held elsewhere: `retry_on` here, the attempts
/// and delays in the node's `retry`.
const RETRY_HELD: [&str; 6] = [
    "retry_on",
    "max_attempts",
    "backoff",
    "initial_delay_seconds",
    "max_delay_seconds",
    "jitter",
];

/// The keys of an AGS `failure` block [`Failure`] holds.
const HELD: [&str; 5] = [
    "fallback",
    "escalation",
    "on_exhausted",
    "timeout_action",
    "compensation",
];

impl<X> Failure<X> {
    /// The ladder an AGS `failure` block (defaults merged) describes; `expr` gives the parsed
    /// expression of a step's `when` (`fallback.<i>.when`) and of the escalation's
    /// `message` (`escalation.message`). A value of the wrong shape reads as absent, as
    /// the runtime read it before; `None` when the ladder is the default one.
    pub fn from_block(block: &Value, mut expr: impl FnMut(&str) -> Option<X>) -> Option<Self> {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let retry_on = match block
            .get("retry")
            .and_then(|r| r.get("retry_on"))
            .and_then(Value::as_array)
        {
            Some(list) => list
                .iter()
                .filter_map(|c| serde_json::from_value(c.clone()).ok())
                .collect(),
            None => default_retry_on(),
        };
        let fallback = block
            .get("fallback")
            .and_then(Value::as_array)
            .map(|steps| {
                steps
                    .iter()
                    .enumerate()
                    .map(|(i, step)| Fallback {
                        strategy: Strategy::named(
                            step.get("strategy").and_then(Value::as_str).unwrap_or(""),
                        ),
                        node: text(step.get("node")),
                        outputs: strings(step.get("outputs")),
                        criteria: strings(step.get("criteria")),
                        when: expr(&format!("fallback.{i}.when")),
                        description: text(step.get("description")),
                        extensions: extensions(step),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let escalation = block.get("escalation").map(|esc| Escalation {
            to: serde_json::from_value(esc.get("to").cloned().unwrap_or(Value::Null))
                .unwrap_or_default(),
            node: text(esc.get("node")),
            roles: strings(esc.get("roles")),
            channel: text(esc.get("channel")),
            message: expr("escalation.message"),
            include: match esc.get("include") {
                Some(v) => strings(Some(v)),
                None => default_include(),
            },
            extensions: extensions(esc),
        });
        let named = |key: &str| block.get(key).cloned().unwrap_or(Value::Null);
        let failure = Failure {
            retry_on,
            fallback,
            escalation,
            on_exhausted: serde_json::from_value(named("on_exhausted")).unwrap_or_default(),
            timeout_action: serde_json::from_value(named("timeout_action")).unwrap_or_default(),
            compensation: text(block.get("compensation")),
        };
        (!failure.is_default()).then_some(failure)
    }

    /// Whether this is the ladder of a node whose document says nothing about failures.
    pub fn is_default(&self) -> bool {
        is_default_retry_on(&self.retry_on)
            && self.fallback.is_empty()
            && self.escalation.is_none()
            && self.on_exhausted == OnExhausted::Fail
            && self.timeout_action == TimeoutAction::Fail
            && self.compensation.is_none()
    }

    /// The same ladder with each expression mapped by `f` (a back end's view of the IR's).
    pub fn map_exprs<'a, Y>(&'a self, mut f: impl FnMut(&'a X) -> Y) -> Failure<Y> {
        Failure {
            retry_on: self.retry_on.clone(),
            fallback: self
                .fallback
                .iter()
                .map(|s| Fallback {
                    strategy: s.strategy,
                    node: s.node.clone(),
                    outputs: s.outputs.clone(),
                    criteria: s.criteria.clone(),
                    when: s.when.as_ref().map(&mut f),
                    description: s.description.clone(),
                    extensions: s.extensions.clone(),
                })
                .collect(),
            escalation: self.escalation.as_ref().map(|e| Escalation {
                to: e.to,
                node: e.node.clone(),
                roles: e.roles.clone(),
                channel: e.channel.clone(),
                message: e.message.as_ref().map(&mut f),
                include: e.include.clone(),
                extensions: e.extensions.clone(),
            }),
            on_exhausted: self.on_exhausted,
            timeout_action: self.timeout_action,
            compensation: self.compensation.clone(),
        }
    }

    /// What of an AGS `failure` block the plan keeps in `attributes.failure`: the block less
    /// what [`Failure`] and the node's `retry` hold; `None` when nothing is left.
    pub fn residue(block: &Value) -> Option<Value> {
        let Value::Object(block) = block else {
            return Some(block.clone());
        };
        let mut left = Map::new();
        for (k, v) in block {
            if HELD.contains(&k.as_str()) {
                continue;
            }
            if k == "retry"
                && let Value::Object(retry) = v
            {
                let rest: Map<String, Value> = retry
                    .iter()
                    .filter(|(k, _)| !RETRY_HELD.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                if !rest.is_empty() {
                    left.insert(k.clone(), Value::Object(rest));
                }
                continue;
            }
            left.insert(k.clone(), v.clone());
        }
        (!left.is_empty()).then_some(Value::Object(left))
    }
}
